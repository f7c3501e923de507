"""Lone surrogates (the JSON escape \\udfff with no partner) in files and model replies (issue 9 item 3).

Made safe once where text enters, so every output path (--json, --out, --trace-out, the Runs and
Compare pages) works: each lone surrogate becomes U+FFFD.
"""
import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from conftest import APP, rerun_until
from fake_openai import FakeOpenAI
from scratchpad_lab import cli
from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.model.endpoint import Endpoint
from scratchpad_lab.model.records import load_any
from scratchpad_lab.engine.run.runner import Run, Source

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


# ── issue 20: lone surrogates the agent's own JSON decode makes (a `\udfff` escape inside a step) ──

# The step texts hold the escape itself (backslash, u, d, f, f, f): only the agent's json.loads of the
# step turns it into a lone surrogate, after every loader has already passed the text.
ESCAPED_STEP = ('{"thought": "look \\udfff", "actions": [{"action": "get_ticket", "action_input": '
                '{"ticket_id": "T-5521\\ud800"}}], "final_answer": null}')
ESCAPED_END = '{"thought": "done \\udc00", "actions": [], "final_answer": "The code is ERR_503 \\udfff."}'


def _escaped_trace_file(tmp_path) -> Path:
    raw = {"schema": "scratchpad-lab/trace@1", "task": "find it", "tools": [{"name": "get_ticket", "description": "d"}],
           "steps": [{"response": ESCAPED_STEP, "observations": ["ticket T-5521: ERR_503 " + "x" * 50]},
                     {"response": ESCAPED_END, "observations": []}]}
    path = tmp_path / "escaped.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    assert "\\\\udfff" in path.read_text()  # the file itself holds no surrogate escape a loader would decode
    return path


def test_a_step_whose_json_escapes_a_lone_surrogate_replays_to_valid_json(tmp_path, capsys):
    out = tmp_path / "run.json"
    code = cli.main(["replay", str(_escaped_trace_file(tmp_path)), "--json", "--out", str(out)])
    printed, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(printed)["final_answer"] == "The code is ERR_503 \ufffd."
    record = json.loads(out.read_text(encoding="utf-8"))
    thoughts = [e["data"]["text"] for e in record["events"] if e["kind"] == "thought"]
    assert thoughts == ["look \ufffd", "done \ufffd"]


def test_run_out_against_a_model_sending_such_steps_is_a_valid_file(tmp_path, capsys):
    with FakeOpenAI() as server:
        server.script = [("ok", ESCAPED_STEP), ("ok", ESCAPED_END)]
        out = tmp_path / "model.json"
        code = cli.main(["run", "--agent-model", "m", "--agent-base-url", server.url, "--out", str(out), "--json"])
    printed, err = capsys.readouterr()
    assert code == 0, err
    assert "Traceback" not in err
    assert json.loads(out.read_text(encoding="utf-8"))["outcome"]["final_answer"] == "The code is ERR_503 \ufffd."
    tools = [e["data"] for e in json.loads(out.read_text(encoding="utf-8"))["events"] if e["kind"] == "tool_call"]
    assert tools and tools[0]["input"] == {"ticket_id": "T-5521\ufffd"}


def test_the_runs_page_opens_such_a_shared_trace(tmp_path):
    at = AppTest.from_file(APP, default_timeout=60).run()
    at = at.switch_page("pages/runs.py").run()
    at.file_uploader(key="runs_upload").upload("e.json", _escaped_trace_file(tmp_path).read_bytes(), "application/json")
    rerun_until(at.run())  # the trace's replay is a job
    at.selectbox(key="runs_open").set_value("upload:0").run()
    assert not at.exception, [e.value for e in at.exception]
    texts = " ".join(str(t.value) for t in list(at.text) + list(at.code) + list(at.markdown))
    assert "\ufffd" in texts


def test_the_live_playground_runs_against_a_model_sending_such_steps():
    with FakeOpenAI() as server:
        server.script = [("ok", ESCAPED_STEP), ("ok", ESCAPED_END)]
        at = AppTest.from_file(APP, default_timeout=60).run()
        at.sidebar.selectbox(key="play_agent").set_value("endpoint").run()
        at.sidebar.selectbox(key="play_agent_ep_provider").set_value("custom").run()
        at.sidebar.text_input(key="play_agent_ep_base_url_custom").set_value(server.url)
        at.sidebar.text_input(key="play_agent_ep_model_custom").set_value("m")
        at.run()
        at.button(key="play_run").click().run()
        rerun_until(at, timeout_s=60, what="the live run")  # the live fragment draws each step, then the end
        record = at.session_state["play_runs"][-1]
    assert record.final_answer == "The code is ERR_503 \ufffd."
    assert not at.exception
