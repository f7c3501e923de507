"""The lab's own trace format, complete (issue 22 item 4): the guide's (docs/traces.md) reply format and three-step trace,
the three mistakes of a hand-written trace each named with its step (page and stderr), a replay that
never blames a model, and `scratchpad-lab import`."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import rerun_until
from streamlit.testing.v1 import AppTest

from scratchpad_lab import cli
from scratchpad_lab.engine.files.loader import load_bytes, load_file
from scratchpad_lab.engine.run.reply import REPLY_FORMAT, read_reply
from scratchpad_lab.engine.run.runner import Run, Source
from scratchpad_lab.model.config import RunConfig

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "docs" / "traces.md").read_text(encoding="utf-8")  # the guide's trace format page


def _readme_trace() -> str:
    block = re.search(r"<!-- three-step-trace -->\s*```json\n(.*?)```", README, re.S)
    assert block, "docs/traces.md shows a complete three-step trace"
    return block.group(1)


def test_the_readme_shows_the_agents_reply_format_and_a_three_step_trace_that_loads_and_replays():
    assert '{"thought": "why this step", "actions": [{"action": "tool_name", "action_input": {"param": "value"}}], ' \
           '"final_answer": null}' in README
    loaded = load_bytes(_readme_trace(), "README trace")
    assert loaded.report is None and loaded.warnings == []
    trace = loaded.item
    assert len(trace.steps) == 3 and [len(read_reply(s.response).actions) for s in trace.steps] == [1, 2, 0]
    record = Run(RunConfig.build(scenario=None), Source.for_trace(trace)).run()
    assert record.outcome == "answered" and record.final_answer == "Lyon; error ERR_503 (upstream auth timeout)."
    results = [e.data["result"] for e in record.events if e.kind == "tool_call"]
    assert results == [o for s in trace.steps for o in s.observations]


def _mistaken_trace() -> dict:
    """The guide's trace with the three mistakes a hand-written trace makes."""
    raw = json.loads(_readme_trace())
    steps = raw["steps"]
    steps.insert(1, {"response": "Thought: I should search the logs next.", "observations": []})  # step 2: prose
    steps[2]["observations"] = steps[2]["observations"][:1]                          # step 3: 2 actions, 1 result
    steps.insert(3, {"response": json.dumps({"thought": "grep too", "actions": [
        {"action": "grep", "action_input": {"pattern": "ERR"}}], "final_answer": None}),
        "observations": ["ERR_503"]})                                                 # step 4: undeclared tool
    return raw


def test_the_three_mistakes_are_each_named_with_their_step():
    warnings = load_bytes(json.dumps(_mistaken_trace())).warnings
    assert len(warnings) == 3, warnings
    assert warnings[0].startswith("step 2: the agent cannot read an action or a final answer in this response")
    assert REPLY_FORMAT in warnings[0]
    assert warnings[1].startswith("step 3: 2 actions but 1 observation; action 2 gets a '[replay] no observation' "
                                  "text instead of a recorded result")
    assert warnings[2].startswith("step 4, action 1: calls the tool 'grep', which the trace does not declare (its "
                                  "tools: get_ticket, search_logs)")


def test_the_cli_says_each_mistake_on_stderr_and_still_replays(tmp_path, capsys):
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(_mistaken_trace()))
    assert cli.main(["replay", str(path), "--json"]) == 0
    out, err = capsys.readouterr()
    json.loads(out)  # stdout stays the JSON result alone
    lines = [line for line in err.splitlines() if line.startswith("scratchpad-lab: warning: step ")]
    assert [line.split(":")[2].strip() for line in lines] == ["step 2", "step 3", "step 4, action 1"]


def test_a_replay_of_steps_in_the_wrong_format_names_them_and_never_says_try_a_stronger_model():
    raw = json.loads(_readme_trace())
    raw["steps"] = [{"response": "I will read the ticket."}, {"response": "Now the logs."},
                    {"response": "{'thought': 'python dict, not JSON'}"}] + raw["steps"]
    record = Run(RunConfig.build(scenario=None), Source.for_trace(load_bytes(json.dumps(raw)).item)).run()
    assert record.outcome == "error"
    assert record.error.startswith("Steps 1 to 3 of the trace are not in the agent's reply format")
    assert "stronger model" not in record.error


def test_the_runs_page_shows_each_mistake_as_a_warning_and_the_report_as_text(monkeypatch):
    from test_importers import TASKS
    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    app = str(ROOT / "app.py")
    at = AppTest.from_file(app, default_timeout=60).run()
    at = at.switch_page("pages/runs.py").run()
    at.file_uploader(key="runs_upload").upload("mine.json", json.dumps(_mistaken_trace()).encode(), "application/json")
    rerun_until(at.run())  # the trace's replay is a job
    assert not at.exception
    assert [w.value for w in at.warning] == ["3 problem(s) in this trace's steps: they replay, but not as they read."]
    texts = [t.value for t in at.text]
    assert any(t.startswith("step 2: ") and "\nstep 3: 2 actions" in t and "\nstep 4, action 1:" in t for t in texts)
    at.file_uploader(key="runs_upload").upload("tau.json", json.dumps(TASKS).encode(), "application/json")
    rerun_until(at.run())
    assert not at.exception
    imported = [t.value for t in at.text if t.value.startswith("Imported: OpenAI chat messages: 16 messages → 6 steps; "
                                                               "the system prompt (570 characters) is kept as the agent's "
                                                               "system prompt")]
    assert len(imported) == 1 and "3 user turns became `user` tool results" in imported[0]
    assert at.selectbox(key="runs_open").value == "upload:1"


def test_a_run_of_a_dataset_keeps_its_import_warnings_and_the_runs_page_shows_them_with_the_run(monkeypatch):
    """A file of many runs is read as a dataset (engine/files/dataset.py): each run keeps the one loader's warnings,
    and the run opened from the file says them where a file of one run does (they were dropped)."""
    from scratchpad_lab.engine.files.dataset import read_dataset_bytes

    data = json.dumps([_mistaken_trace(), json.loads(_readme_trace())]).encode()
    mistaken, clean = read_dataset_bytes(data, "two.json").runs
    assert [w.split(":")[0] for w in mistaken.warnings] == ["step 2", "step 3", "step 4, action 1"]
    assert clean.ok and clean.warnings == []
    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at = at.switch_page("pages/runs.py").run()
    at.file_uploader(key="runs_upload").upload("two.json", data, "application/json")
    rerun_until(at.run())  # its first run's replay is a job; that run opens when it ends
    assert not at.exception and at.selectbox(key="runs_open").value == "upload:0"
    assert [w.value for w in at.warning] == ["3 problem(s) in this trace's steps: they replay, but not as they read."]
    assert "\n".join(mistaken.warnings) in [t.value for t in at.text]


# ── scratchpad-lab import ──────────────────────────────────────────────────

def test_import_writes_the_lab_trace_and_prints_what_it_imported(tmp_path, capsys):
    from test_importers import TASKS
    source, out = tmp_path / "tau.json", tmp_path / "tau.trace.json"
    source.write_text(json.dumps(TASKS))
    assert cli.main(["import", str(source), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"wrote {out}: 6 steps, 4 tools" in printed
    assert "imported: OpenAI chat messages: 16 messages → 6 steps" in printed
    again = load_file(out)
    assert again.report is None and len(again.item.steps) == 6
    assert cli.main(["import", str(source), "--conversation", "2", "--out", str(out)]) == 0
    assert len(load_file(out).item.steps) == 1


def test_import_takes_the_task_a_history_did_not_record(tmp_path, capsys):
    from test_importers import HISTORY_REPLIES, TOOLS, _history_run
    _, path = _history_run(tmp_path, HISTORY_REPLIES, TOOLS)
    out = tmp_path / "h.trace.json"
    assert cli.main(["import", str(path), "--task", "Find the failing service.", "--out", str(out)]) == 0
    assert load_file(out).item.task == "Find the failing service."
    assert cli.main(["import", str(path), "--out", str(out)]) == 0  # no terminal to ask: the placeholder, said
    assert "the query was not recorded ([REDACTED: length=68])" in capsys.readouterr().out


@pytest.mark.parametrize("args, says", [
    (["--format", "langchain"], "is not LangChain messages"),
    ([], "is none of the formats the lab reads"),
])
def test_import_of_a_file_it_cannot_read_exits_2_with_one_line(tmp_path, capsys, args, says):
    source = tmp_path / "x.json"
    source.write_text(json.dumps({"messages": "nope"}) if args else json.dumps({"what": 1}))
    assert cli.main(["import", str(source), *args, "--out", str(tmp_path / "o.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("scratchpad-lab: error: ") and says in err[0]
    assert not (tmp_path / "o.json").exists()


def test_a_conversations_trace_is_written_compact_when_indenting_would_pass_the_file_limit_and_refused_past_it(
        monkeypatch):
    from scratchpad_lab.engine.files import loader
    from scratchpad_lab.engine.importers import import_raw
    from scratchpad_lab.model.trace import RecordError, Trace
    from test_importers import TASKS

    trace = import_raw(TASKS).trace
    indented = len(json.dumps(trace.to_dict(), ensure_ascii=False, indent=1).encode())
    compact = len(json.dumps(trace.to_dict(), ensure_ascii=False, separators=(",", ":")).encode())
    monkeypatch.setattr(loader, "MAX_FILE_BYTES", (indented + compact) // 2)
    text = loader.trace_json(trace)
    assert "\n" not in text and Trace.from_dict(json.loads(text)).to_dict() == trace.to_dict()
    monkeypatch.setattr(loader, "MAX_FILE_BYTES", compact - 1)
    with pytest.raises(RecordError, match="open the recording's own file in the lab instead"):
        loader.trace_json(trace)
