"""Long sessions of coding agents import in their own shape: Claude Code session files (with a compaction, a side
chain, a tool error, a reply spread over records), mini-swe-agent trajectories (ending with `exit`), SWE-agent
trajectories (both generations), and an OpenAI request body. Each file here is written from the format's published
shape (../shared/datasets/long-runs/README.md describes the real ones, which tests/test_long_sessions.py reads)."""
import json

import pytest

from scratchpad_lab.engine.files.dataset import read_dataset
from scratchpad_lab.engine.files.loader import load_bytes
from scratchpad_lab.engine.importers.claude_code import ERROR_MARK


def _jsonl(records) -> bytes:
    return "\n".join(json.dumps(r) for r in records).encode()


def _rec(kind, content, n, **more):
    return {"type": kind, "uuid": f"u{n}", "parentUuid": f"u{n - 1}" if n else None, "sessionId": "s1",
            "isSidechain": False, "message": {"role": kind, "content": content, **more.pop("message", {})}, **more}


CLAUDE = [
    _rec("user", "Fix the failing test in tests/test_api.py.", 0),
    _rec("assistant", [{"type": "thinking", "thinking": "Look at the test first."}], 1, message={"id": "m1"}),
    _rec("assistant", [{"type": "text", "text": "Let me read the test and run it."}], 2, message={"id": "m1"}),
    _rec("assistant", [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "tests/test_api.py"}}],
         3, message={"id": "m1"}),
    _rec("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "def test_api(): assert get() == 200"}], 4),
    # the same response's second call, written after the first call's result
    _rec("assistant", [{"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "pytest -q"}}], 5,
         message={"id": "m1", "usage": {"input_tokens": 900, "output_tokens": 40}}),
    _rec("user", [{"type": "tool_result", "tool_use_id": "t2", "is_error": True,
                   "content": [{"type": "text", "text": "FAILED tests/test_api.py::test_api - 404"}]}], 6),
    {"type": "progress", "uuid": "p1", "sessionId": "s1", "data": {"type": "agent_progress", "agentId": "a9"}},
    {"type": "user", "uuid": "x1", "sessionId": "s1", "isSidechain": True, "agentId": "a9",
     "message": {"role": "user", "content": "a subagent's own prompt"}},
    {"type": "system", "subtype": "compact_boundary", "uuid": "c1", "parentUuid": None, "sessionId": "s1",
     "content": "Conversation compacted", "compactMetadata": {"trigger": "auto", "preTokens": 167000}},
    _rec("user", "This session is being continued ... the test fails with 404 on /api/get.", 8,
         isCompactSummary=True, isVisibleInTranscriptOnly=True),
    _rec("user", "Go on.", 9),
    _rec("assistant", [{"type": "tool_use", "id": "t3", "name": "Edit", "input": {"file_path": "api.py"}}], 10,
         message={"id": "m2"}),
    _rec("user", [{"type": "tool_result", "tool_use_id": "t3", "content": "edited"}], 11),
    _rec("assistant", [{"type": "text", "text": "Fixed: the route was /api/get."}], 12, message={"id": "m3"}),
]


def test_a_claude_code_session_is_its_main_thread_with_its_own_compaction_kept_where_it_fired():
    loaded = load_bytes(_jsonl(CLAUDE), "session.jsonl")
    trace, report = loaded.item, loaded.report.text()
    assert report.startswith("a Claude Code session: ")
    # one reply over four records (thinking, text, two calls, one written after the first call's result)
    assert [m.role for m in trace.messages] == ["user", "assistant", "tool", "tool", "user", "assistant", "tool",
                                                 "assistant"]
    first = trace.messages[1]
    assert first.text == "Let me read the test and run it." and [c["name"] for c in first.calls] == ["Read", "Bash"]
    assert first.usage == {"input_tokens": 900, "output_tokens": 40}
    assert trace.messages[3].text == ERROR_MARK + "FAILED tests/test_api.py::test_api - 404"
    assert len(trace.steps) == 3 and "a subagent's own prompt" not in json.dumps(trace.to_dict())
    # Claude Code's compaction: before the turn after it, with its trigger, its tokens and the summary it wrote
    [compaction] = trace.compactions
    assert (compaction.at, compaction.replaced, compaction.trigger, compaction.tokens_before) == (4, 4, "auto", 167_000)
    assert compaction.summary.endswith("the test fails with 404 on /api/get.")
    assert all("continued" not in m.text for m in trace.messages), "the summary is not a message of the session"
    assert "1 thinking block(s) are left out" in report and "1 side-chain record(s) are not included" in report
    assert "1 subagent run(s) not included (a9): open their files" in report
    assert "Claude Code's own compaction (auto at 167,000 tokens) is kept with the trace" in report


def test_a_mini_swe_agent_trajectory_leaves_out_its_exit_message_and_its_raw_responses():
    extra = {"extra": {"response": {"id": "raw"}, "cost": 0.01}}
    run = {"trajectory_format": "mini-swe-agent-1.1", "instance_id": "django__django-1",
           "info": {"exit_status": "Submitted", "submission": "diff --git a/x b/x"},
           "messages": [
               {"role": "system", "content": "You are a helpful assistant that can interact with a computer.", **extra},
               {"role": "user", "content": "Fix the bug in django/db/models.py", **extra},
               {"role": "assistant", "content": "Look first.", "tool_calls": [{"id": "b1", "type": "function",
                "function": {"name": "bash", "arguments": json.dumps({"command": "grep -n save django/db/models.py"})}}],
                **extra},
               {"role": "tool", "tool_call_id": "b1", "content": "<returncode>0</returncode>\n12: def save", **extra},
               {"role": "assistant", "content": "Submit.", "tool_calls": [{"id": "b2", "type": "function",
                "function": {"name": "bash", "arguments": json.dumps({"command": "echo COMPLETE"})}}], **extra},
               {"role": "exit", "content": "diff --git a/x b/x", "extra": {"exit_status": "Submitted"}}]}
    loaded = load_bytes(json.dumps(run), "django__django-1.traj.json")
    trace, report = loaded.item, loaded.report.text()
    assert report.startswith("a mini-swe-agent trajectory: 5 messages → 2 steps")
    assert "the closing `exit` message (the submission, 18 characters; never sent to the model) is left out" in report
    assert trace.system.startswith("You are a helpful assistant") and trace.task.startswith("Fix the bug")
    assert [m.role for m in trace.messages] == ["user", "assistant", "tool", "assistant", "tool"]
    assert "raw" not in json.dumps(trace.to_dict()), "the raw API responses are not part of the conversation"


def test_swe_agent_trajectories_of_both_generations_import_from_their_history():
    newer = {"history": [
        {"role": "system", "content": "SETTING: you are an autonomous programmer.", "agent": "main"},
        {"role": "user", "content": "Fix the missing colon in tests/missing_colon.py", "agent": "main"},
        {"role": "assistant", "content": "Open it.", "thought": "Open it.", "action": "open tests/missing_colon.py",
         "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "open",
                                                                    "arguments": "{\"path\": \"tests/missing_colon.py\"}"}}]},
        {"role": "tool", "content": "1: def f()\n2:     return 1", "tool_call_ids": ["c1"]},
        {"role": "assistant", "content": "Done.", "thought": "Done.", "action": "submit"}],
        "info": {"exit_status": "submitted"}, "trajectory": []}
    trace = load_bytes(json.dumps(newer), "run.traj").item
    assert [m.role for m in trace.messages] == ["user", "assistant", "tool", "assistant"]
    assert trace.messages[2].call_id == trace.messages[1].calls[0]["id"]
    older = {"history": [
        {"role": "system", "content": "SETTING: ...", "agent": "primary"},
        {"role": "user", "content": "Here is a demonstration: ...", "is_demo": True, "agent": "primary"},
        {"role": "user", "content": "Now fix the issue.", "agent": "primary"},
        {"role": "assistant", "content": "DISCUSSION\nopen the file\n```\nopen missing_colon.py\n```"},
        {"role": "user", "content": "[File: missing_colon.py]\n1: def f()"},
        {"role": "assistant", "content": "```\nsubmit\n```"}], "info": {"exit_status": "submitted"}}
    loaded = load_bytes(json.dumps(older), "older.traj")
    assert "1 demonstration message(s) in the prompt (`is_demo`) are kept" in loaded.report.text()
    assert loaded.item.user_turns == 3


def test_an_openai_request_body_keeps_its_tool_schemas():
    body = {"model": "gpt-4o", "temperature": 0, "tools": [{"type": "function", "function": {
        "name": "search", "description": "Search the docs.",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}}],
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Find x."},
                     {"role": "assistant", "content": None, "tool_calls": [{"id": "a", "type": "function",
                      "function": {"name": "search", "arguments": "{\"q\": \"x\"}"}}]},
                     {"role": "tool", "tool_call_id": "a", "content": "x = 4"},
                     {"role": "assistant", "content": "x is 4."}]}
    trace = load_bytes(json.dumps(body), "request.json").item
    [tool] = [t for t in trace.tools if t.name == "search"]
    assert tool.description == "Search the docs." and tool.parameters["required"] == ["q"]
    assert trace.system == "Be brief."


def test_a_folder_of_runs_takes_each_runs_outcome_from_its_labels_file(tmp_path):
    for name in ("a__a-1", "b__b-2"):
        (tmp_path / f"{name}.traj.json").write_text(json.dumps({
            "trajectory_format": "mini-swe-agent-1.1", "instance_id": name, "info": {"exit_status": "Submitted"},
            "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "task"},
                         {"role": "assistant", "content": "done"}, {"role": "exit", "content": ""}]}))
    (tmp_path / "labels.json").write_text(json.dumps({"a__a-1": True, "b__b-2": False}))
    dataset = read_dataset(tmp_path)
    assert [(r.name, r.outcome) for r in dataset.runs] == [("a__a-1", 1.0), ("b__b-2", 0.0)]
    assert not dataset.broken, "the labels file is not a run"


@pytest.mark.parametrize("bad", [b"[1, 2]", json.dumps([{"type": "progress", "data": {}}]).encode()])
def test_a_file_no_format_takes_says_each_format_it_tried(bad):
    from scratchpad_lab.model.trace import RecordError
    with pytest.raises(RecordError, match="not a Claude Code session"):
        load_bytes(bad, "odd.json")


def test_the_recordings_own_compaction_is_a_row_measured_at_its_boundary_like_every_strategy(tmp_path):
    """Claude Code's compaction replayed as it happened: before the boundary every call is sent the whole session,
    from it on the summary and what came after; one compression at the first call after it; leaving it out
    (use_summary=0) reads exactly as doing nothing. A default run of the strategies puts it first."""
    from scratchpad_lab.engine.strategies import make_spec, run_strategies
    from scratchpad_lab.cli.strategies import default_specs

    trace = load_bytes(_jsonl(CLAUDE), "session.jsonl").item
    recorded, off = run_strategies(trace, [make_spec("recorded-compaction", {}),
                                           make_spec("recorded-compaction", {"use_summary": 0})])
    assert recorded.seen_as.startswith("Claude Code's own compaction, auto at 167,000 tokens; as a LangChain agent")
    sent = [[m.content for m in call] for call in recorded.sent_messages]
    assert sent[0] == ["Fix the failing test in tests/test_api.py."]                  # before it: the whole session
    assert sent[1][0].startswith("This session is being continued") and sent[1][1:] == ["Go on."]
    assert sent[2][0].startswith("This session is being continued") and "edited" in sent[2]
    row = recorded.row()
    assert row["compressions"] == 1 and row["summarizer_calls"] == 0 and row["peak_share"] < 1
    assert [c["iteration"] for c in recorded.details()["compressions"]] == [2]
    assert off.row()["cut_nothing"] and off.row()["peak_share"] == 1.0
    assert default_specs(has_compaction=True)[0].name == "recorded-compaction"
    assert "recorded-compaction" not in [s.name for s in default_specs()]


def test_the_recordings_own_compaction_is_read_beside_the_strategies_and_gets_no_star():
    """Its summarizer's calls and tokens are not in the recording: its 0 is unknown, not a win."""
    from scratchpad_lab.engine.strategies import make_spec, run_strategies
    from scratchpad_lab.ui.strategies_page import BEST, table_texts

    trace = load_bytes(_jsonl(CLAUDE), "session.jsonl").item
    results = run_strategies(trace, [make_spec("recorded-compaction", {}),
                                     make_spec("clear-tool-uses", {"trigger": 100, "keep": 0})])
    assert all(not r.row()["cut_nothing"] for r in results)
    texts = table_texts(results)
    assert not any(t.endswith(BEST) for t in texts["the recording's own compaction"].values())
