"""Replaying a file: it never chooses where the lab connects or which key is sent (issue 9 item 2).

A real-model run is recorded against the local fake chat server; the record is then edited into a hostile
one whose agent and summarizer endpoints point back at that server with `key_env: OPENAI_API_KEY`, while
the environment holds a key. Replay and sweep, in the CLI, the engine and the Compare page, must send the
server nothing and replay the recorded steps offline.
"""
import json

import pytest
from streamlit.testing.v1 import AppTest

from conftest import APP, rerun_until
from fake_openai import FakeOpenAI
from scratchpad_lab import cli
from scratchpad_lab.engine.studies.compare import Setting, compare
from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.model.endpoint import Endpoint
from scratchpad_lab.model.records import load_path
from scratchpad_lab.engine.run.replay import replay_source
from scratchpad_lab.engine.run.runner import Run, Source

KEY = "sk-server-key-must-stay-home-4c1d"
STEPS = [json.dumps({"thought": "Read the ticket.", "actions": [
             {"action": "get_ticket", "action_input": {"ticket_id": "T-5521"}}], "final_answer": None}),
         json.dumps({"thought": "Look up the order.", "actions": [
             {"action": "get_order", "action_input": {"order_id": "A-1001"}}], "final_answer": None}),
         json.dumps({"thought": "done", "actions": [], "final_answer": "Order A-1001 for Asha Rao."})]
SUMMARY = "[Summary]\nKey findings: T-5521, A-1001\nCurrent status: going"


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAI() as fake:
        yield fake


def _model_record(server):
    """A real-model run with a summarizer model, both on the fake server (no key: a custom URL gets none)."""
    server.script = [("ok", STEPS[0]), ("ok", SUMMARY), ("ok", STEPS[1]), ("ok", SUMMARY), ("ok", STEPS[2])]
    endpoint = Endpoint(provider="custom", base_url=server.url, model="tiny-test")
    config = RunConfig.build(scenario="support-ticket", agent_endpoint=endpoint, summarizer="endpoint",
                             summarizer_endpoint=endpoint, summarize_every=1, max_iterations=6)
    record = Run(config, Source.for_scenario("support-ticket")).run()
    assert record.outcome == "answered" and record.mode == "model"
    assert len(server.requests) >= 3, "the recording really called the model"
    server.requests.clear()
    return record


def _hostile(record, tmp_path):
    """The record with its endpoints pointed at the listener and the server's own key variable named."""
    raw = record.to_dict()
    for endpoint in (raw["config"]["agent_endpoint"], raw["config"]["summarizer"]["endpoint"]):
        endpoint.update(provider="openai", base_url=endpoint["base_url"], key_env="OPENAI_API_KEY")
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


def test_a_real_model_run_record_replays_offline_step_for_step(server, tmp_path, capsys):
    record = _model_record(server)
    path = tmp_path / "model-run.json"
    record.save(path)
    code = cli.main(["replay", str(path), "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and server.requests == []
    replayed = json.loads(out)
    assert replayed["final_answer"] == record.final_answer == "Order A-1001 for Asha Rao."
    assert replayed["iterations"] == sum(1 for e in record.events if e.kind == "iteration")
    # the summarizer model the file names is reported, not called; the extractive one writes the summaries
    assert "tiny-test" in err and "extractive" in err
    assert all(c["status"] == "ok" for c in replayed["compressions"]) and replayed["compressions"]


def test_replay_and_sweep_of_a_hostile_record_send_the_listener_nothing(server, tmp_path, capsys):
    path = _hostile(_model_record(server), tmp_path)
    assert cli.main(["replay", str(path), "--json"]) == 0
    assert cli.main(["replay", str(path), "--summarize-every", "2", "--out", str(tmp_path / "out.json")]) == 0
    assert cli.main(["sweep", str(path), "--summarize-every", "1,2,none", "--max-scratchpad-chars",
                     "500,15000", "--json"]) == 0
    out, err = capsys.readouterr()
    assert server.requests == [], "a file made the lab call the URL written in it"
    assert KEY not in out + err + (tmp_path / "out.json").read_text()
    assert len(json.loads(out.strip().splitlines()[-1])) == 6


def test_the_engine_drops_every_endpoint_of_a_file(server, tmp_path):
    loaded = load_path(_hostile(_model_record(server), tmp_path))
    source, config, keeps_answer, recorded = replay_source(loaded)
    assert (config.agent_endpoint, config.summarizer.endpoint, config.summarizer.kind) == (None, None, "extractive")
    assert source.kind == "trace" and keeps_answer and "tiny-test" in recorded
    records, _, _ = compare(loaded, [Setting(summarize_every=1), Setting(summarize_every=None)])
    assert [r.final_answer for r in records] == [loaded.final_answer] * 2
    assert server.requests == []


def test_a_summarizer_chosen_now_is_used_and_the_notice_is_not_printed(server, tmp_path, capsys):
    path = _hostile(_model_record(server), tmp_path)
    assert cli.main(["replay", str(path), "--summarizer", "same-as-agent", "--json"]) == 0
    assert capsys.readouterr().err == "" and server.requests == []


def test_replay_refuses_an_agent_model_flag_because_it_would_not_be_a_replay(server, tmp_path, capsys):
    path = _hostile(_model_record(server), tmp_path)
    assert cli.main(["replay", str(path), "--agent-model", "m", "--agent-base-url", server.url]) == 2
    assert "run --agent-model" in capsys.readouterr().err and server.requests == []


def test_the_compare_page_replays_a_hostile_upload_offline_and_says_which_summarizer(server, tmp_path):
    path = _hostile(_model_record(server), tmp_path)
    at = AppTest.from_file(APP, default_timeout=60).run()
    at = at.switch_page("pages/compare.py").run()
    at.file_uploader(key="cmp_upload").upload("hostile.json", path.read_bytes(), "application/json")
    at.run()
    assert not at.exception and at.selectbox(key="cmp_source").value == "upload:0"
    texts = " ".join(t.value for t in at.text)
    assert "tiny-test" in texts and "extractive" in texts
    rerun_until(at.button(key="cmp_run").click().run())  # the comparison is a job
    assert not at.exception and at.session_state["cmp_result"] is not None
    assert server.requests == []
