"""The first page is cheap: `streamlit run app.py` shows the playground's Run button without importing what
only a run, a shown run or another page needs (issue 15: the first page within 1.3x a one-line app;
bench/live_latency.py measures it). Each check runs the app's first script run in a fresh interpreter,
since the test process has long imported everything."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# What the first page must not import: the data-frame and chart stack, the model client and tokenizer,
# LangChain, and the lab's runner, run view, analysis, file schemas and lessons (each imported where a
# run is started or shown, a file opened, a link followed, or another page drawn).
# (numpy is not on the list: the page icon, a PNG the app serves so no browser fetches one from
# fonts.gstatic.com, goes through Streamlit's image code, which imports numpy and PIL: about 0.13 s of CPU
# once per process.)
DEFERRED = [
    "pandas", "pyarrow", "altair", "openai", "tiktoken", "langchain_core",
    "scratchpad_lab.engine.run.runner", "scratchpad_lab.engine.run.observe", "scratchpad_lab.engine.run.tokens",
    "scratchpad_lab.engine.summarize.extractive", "scratchpad_lab.engine.run.review",
    "scratchpad_lab.ui.view", "scratchpad_lab.ui.cards", "scratchpad_lab.ui.charts", "scratchpad_lab.ui.loss",
    "scratchpad_lab.analysis.facts", "scratchpad_lab.analysis.quality", "scratchpad_lab.analysis.metrics",
    "scratchpad_lab.analysis.narrate", "scratchpad_lab.model.schemas", "scratchpad_lab.model.records",
    "scratchpad_lab.engine.run.lesson_runs", "sqlalchemy", "psycopg", "scratchpad_lab.engine.store",
]

FIRST_RUN = """
import json, sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1], default_timeout=120)
for key, value in json.loads(sys.argv[2]).items():
    at.query_params[key] = value
at.run()
print(json.dumps({
    "exception": [e.value for e in at.exception],
    "run_button": [b.label for b in at.button if b.key == "play_run"],
    "samples": [s.label for s in at.selectbox if s.key == "play_sample_pick"],
    "info": [i.value for i in at.info],
    "modules": sorted(m for m in sys.modules if m in set(json.loads(sys.argv[3])) or m.split(".")[0] in set(json.loads(sys.argv[3]))),
}))
"""


def first_run(query: dict) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "SCRATCHPAD_LAB_SAMPLES"}
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run([sys.executable, "-c", FIRST_RUN, str(ROOT / "app.py"), json.dumps(query),
                           json.dumps(DEFERRED)], capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_first_page_shows_run_and_the_samples_without_the_heavy_modules():
    page = first_run({})
    assert not page["exception"], page["exception"]
    assert page["run_button"] == ["Run"]
    assert page["samples"] == ["Recorded sample run"]
    assert page["modules"] == [], f"the first page imported {page['modules']}"


def test_a_lesson_link_still_opens_its_lesson_on_the_first_page():
    # the lessons are imported only when a link needs them; the link must still work from a cold start
    page = first_run({"lesson": "2"})
    assert not page["exception"], page["exception"]
    assert "scratchpad_lab.engine.run.lesson_runs" in page["modules"]


def test_the_first_page_draws_no_code_box_and_the_advanced_settings_only_once_opened(monkeypatch):
    """What the browser draws on the first page is what costs most (bench/live_latency.py): no st.code (its
    syntax highlighter is a 1.5 MB script), and the Advanced settings' widgets only while it is open."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception
    assert not at.code, [c.value for c in at.code]
    assert not at.text_area and "play_max_iterations" not in {n.key for n in at.number_input}
    at.session_state["play_advanced_open"] = True  # the person opens Advanced
    at.run()
    assert not at.exception
    assert at.sidebar.text_area(key="play_summarizer_prompt") is not None
    at.sidebar.number_input(key="play_max_iterations").set_value(12).run()
    at.session_state["play_advanced_open"] = False  # ... and closes it: the setting stays
    at.run()
    assert "play_max_iterations" not in {n.key for n in at.number_input}
    assert at.session_state["play_max_iterations"] == 12
