"""Lone surrogates (the JSON escape \\udfff with no partner) in files and model replies (issue 9 item 3).

Made safe once where text enters, so every output path (--json, --out, --trace-out, the Runs and
Compare pages) works: each lone surrogate becomes U+FFFD.
"""
import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from conftest import rerun_until

from fake_openai import FakeOpenAI
from scratchpad_lab import cli
from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.model.endpoint import Endpoint
from scratchpad_lab.model.records import load_any
from scratchpad_lab.engine.runner import Run, Source

APP = str(Path(__file__).resolve().parents[1] / "app.py")
STEP = '{"thought": "look \\udfff", "actions": [{"action": "search", "action_input": {"q": "a\\ud800"}}], "final_answer": null}'
END = '{"thought": "done", "actions": [], "final_answer": "The code is ERR_503 \\udfff."}'


def _trace_file(tmp_path) -> Path:
    raw = {"schema": "scratchpad-lab/trace@1", "task": "find \udfff", "tools": [{"name": "search", "description": "d\udc00"}],
           "steps": [{"response": STEP.replace("\\udfff", "\udfff").replace("\\ud800", "\ud800"),
                      "observations": ["ERR_503 seen \udfff " + "x" * 50]},
                     {"response": END.replace("\\udfff", "\udfff"), "observations": []}]}
    path = tmp_path / "surrogates.json"
    path.write_text(json.dumps(raw), encoding="ascii")  # ensure_ascii: the lone surrogates become \udfff escapes
    assert "\\udfff" in path.read_text()
    return path


def test_replay_of_a_trace_with_lone_surrogates_writes_valid_json_everywhere(tmp_path, capsys):
    path = _trace_file(tmp_path)
    out, trace_out = tmp_path / "run.json", tmp_path / "trace-out.json"
    code = cli.main(["replay", str(path), "--summarize-every", "1", "--json", "--out", str(out),
                     "--trace-out", str(trace_out)])
    printed, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(printed)["final_answer"] == "The code is ERR_503 \ufffd."
    record = json.loads(out.read_text(encoding="utf-8"))
    assert record["outcome"]["final_answer"] == "The code is ERR_503 \ufffd."
    trace = json.loads(trace_out.read_text(encoding="utf-8"))
    assert trace["steps"][0]["observations"][0].startswith("ERR_503 seen \ufffd")
    assert load_any(out.read_bytes()).final_answer == "The code is ERR_503 \ufffd."  # and it loads back


def test_a_str_holding_raw_lone_surrogates_loads_clean():
    loaded = load_any('{"schema": "scratchpad-lab/trace@1", "task": "t\udfff", "steps": [{"response": "r\ud800"}]}')
    assert (loaded.task, loaded.steps[0].response) == ("t\ufffd", "r\ufffd")


def test_a_model_reply_with_a_lone_surrogate_is_made_safe_where_it_enters(tmp_path):
    with FakeOpenAI() as server:
        server.script = [("ok", END.replace("\\udfff", "\udfff"))]  # the server sends the \udfff escape
        config = RunConfig.build(scenario="support-ticket", max_iterations=2,
                                 agent_endpoint=Endpoint(provider="custom", base_url=server.url, model="m"))
        record = Run(config, Source.for_scenario("support-ticket")).run()
    assert record.final_answer == "The code is ERR_503 \ufffd."
    record.save(tmp_path / "model.json")  # would raise UnicodeEncodeError with the surrogate kept
    assert json.loads((tmp_path / "model.json").read_text(encoding="utf-8"))["outcome"]["final_answer"].endswith("\ufffd.")


@pytest.mark.parametrize("page,uploader", [("pages/runs.py", "runs_upload"), ("pages/compare.py", "cmp_upload")])
def test_uploading_it_on_the_runs_and_compare_pages_shows_it_without_an_error(tmp_path, page, uploader):
    at = AppTest.from_file(APP, default_timeout=60).run()
    at = at.switch_page(page).run()
    at.file_uploader(key=uploader).upload("s.json", _trace_file(tmp_path).read_bytes(), "application/json")
    rerun_until(at.run())  # the trace's replay is a job
    assert not at.exception and not at.error, [e.value for e in at.error]
    if page == "pages/compare.py":
        rerun_until(at.button(key="cmp_run").click().run())
        assert not at.exception and at.session_state["cmp_result"] is not None
    at.switch_page("pages/runs.py").run()  # every return to the page
    at.selectbox(key="runs_open").set_value("upload:0").run()
    assert not at.exception
    texts = " ".join(str(t.value) for t in list(at.text) + list(at.code))
    assert "\ufffd" in texts


def test_the_quick_surrogate_check_has_no_false_negatives():
    import json
    import random

    from scratchpad_lab.model.untrusted import _LONE_SURROGATE, may_hold_surrogates

    rnd = random.Random(3)
    alphabet = ["a", "é", "\\", "u", "d", "8", "\ud800", "\udfff", "\ud83d\ude00", "😀", '"', " "]
    for _ in range(20000):
        value = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 8)))
        for ascii_only in (True, False):
            text = json.dumps({"k": value}, ensure_ascii=ascii_only)
            holds = _LONE_SURROGATE.search(json.loads(text)["k"]) is not None
            assert not holds or may_hold_surrogates(text), text
