"""Issue 29, item 2: the work of reading a file is bounded before it starts, through every place a trace
is accepted (the loader the Runs page uses; `import`, `replay`, `strategies`, `recommend`).

The probe: responses at the step cap that are not JSON but full of "}" (the agent's parser retries at
every one: about 0.3 s a step), 20 of them, so reading the file once is seconds and a file of them at the
size cap five minutes. Each path refuses it, naming the parse-work limit. A chat with thousands of tool
calls in one message is refused as it is read, naming the step limit on actions. How fast each is refused is
bench/probes.py's to print (tests do not time things: these bounds failed on a loaded machine).
"""
import json

import pytest

from scratchpad_lab.cli import main
from scratchpad_lab.engine.files.loader import load_bytes
from scratchpad_lab.engine.run.reply import parse_seconds
from scratchpad_lab.engine.files.trace_check import PARSE_BUDGET_S
from scratchpad_lab.model.schemas import MAX_STEP_ACTIONS, MAX_STEP_RESPONSE_CHARS
from scratchpad_lab.model.trace import RecordError

CAP = MAX_STEP_RESPONSE_CHARS
WORST = ('{"a":' + "[" * 50 + '"' + "}" * CAP)[:CAP]  # bench/parse_cap.py's slowest shape


def garbage_trace(steps: int = 20) -> bytes:
    good = json.dumps({"thought": "look", "actions": [{"action": "search", "action_input": {"q": "x"}}],
                       "final_answer": None})
    body = [{"response": good, "observations": ["result"]}] + [{"response": WORST, "observations": []}] * steps
    body.append({"response": json.dumps({"thought": "done", "actions": [], "final_answer": "ok"})})
    return json.dumps({"schema": "scratchpad-lab/trace@1", "task": "t",
                       "tools": [{"name": "search", "description": "s"}], "steps": body}).encode()


@pytest.fixture
def garbage(tmp_path):
    path = tmp_path / "garbage.json"
    path.write_bytes(garbage_trace())
    return path


def test_the_estimate_is_linear_and_says_a_valid_reply_costs_nothing():
    assert parse_seconds(json.dumps({"thought": "x" * 11_000, "actions": [], "final_answer": "ok"})) == 0.0
    assert parse_seconds("no braces at all " * 500) == 0.0
    assert parse_seconds(WORST) * 20 > PARSE_BUDGET_S


def test_the_loader_the_runs_page_uses_refuses_it_before_parsing():
    with pytest.raises(RecordError) as info:
        load_bytes(garbage_trace(), "upload.json")
    text = str(info.value)
    assert "parse-work limit" in text and f"{PARSE_BUDGET_S:.0f} s" in text and "steps 2, 3, 4, 5, 6" in text
    assert "reply format" in text


def test_a_run_record_carrying_such_a_trajectory_is_refused_too():
    from scratchpad_lab.model.config import RunConfig
    from scratchpad_lab.model.records import RunRecord, load_any
    trace = load_any(garbage_trace(1))
    trace.steps = trace.steps[:1] + trace.steps[1:2] * 20 + trace.steps[-1:]
    record = RunRecord(config=RunConfig.build(scenario=None), events=[], outcome="error", trace=trace, mode="replay")
    with pytest.raises(RecordError, match="parse-work limit"):
        load_bytes(json.dumps(record.to_dict()), "record.json")


@pytest.mark.parametrize("argv", [["import", "{f}", "--out", "{out}"], ["replay", "{f}", "--out", "{out}"],
                                  ["strategies", "{f}", "--strategy", "trim-only", "--json"],
                                  ["recommend", "{f}", "--strategy", "trim-only", "--json"]],
                         ids=["import", "replay", "strategies", "recommend"])
def test_every_command_refuses_it_with_the_limit_and_no_traceback(argv, garbage, tmp_path, capsys):
    out_file = tmp_path / "out.json"
    code = main([a.format(f=garbage, out=out_file) for a in argv])
    out, err = capsys.readouterr()
    assert code == 2 and "parse-work limit" in err and "Traceback" not in err, (code, err[-400:])
    assert not out_file.exists()


def _chat(calls: int) -> bytes:
    assistant = {"role": "assistant", "content": None,
                 "tool_calls": [{"id": f"c{k}", "type": "function",
                                 "function": {"name": "search", "arguments": "{}"}} for k in range(calls)]}
    tools = [{"role": "tool", "tool_call_id": f"c{k}", "content": "r"} for k in range(calls)]
    return json.dumps([{"role": "user", "content": "go"}, assistant, *tools,
                       {"role": "assistant", "content": "done"}]).encode()


def test_a_chat_with_thousands_of_calls_in_one_message_is_refused_as_it_is_read():
    # (how fast it is refused is bench/probes.py's to print: tests do not time things; this one failed at 2.5 s on
    # a loaded machine)
    with pytest.raises(RecordError) as info:
        load_bytes(_chat(8_000), "chat.json")
    text = str(info.value)
    assert "message 2 makes 8,000 tool calls" in text and f"at most {MAX_STEP_ACTIONS:,}" in text
    assert len(load_bytes(_chat(100), "chat.json").trace.steps[0].observations) == 100


def _two_large_observations(path):
    """Issue 29's probe: two 3.9 MB observations of text that tokenizes worst (random letters)."""
    import base64
    import os
    def act(q):
        return json.dumps({"thought": "look", "actions": [{"action": "search", "action_input": {"q": q}}],
                           "final_answer": None})

    def big():
        return base64.b64encode(os.urandom(2_925_000)).decode()  # 3,900,000 characters
    steps = [{"response": act("a"), "observations": [big()]}, {"response": act("b"), "observations": [big()]},
             {"response": json.dumps({"thought": "done", "actions": [], "final_answer": "ok"})}]
    path.write_text(json.dumps({"schema": "scratchpad-lab/trace@1", "task": "t",
                                "tools": [{"name": "search", "description": "s"}], "steps": steps}))
    return path


ALL_SEVEN = ["autourgos-middleware", "autourgos-builtin", "trim-only", "deepagents", "langmem", "clear-tool-uses",
             "langchain-summarization"]


def test_large_single_observations_count_in_the_strategies_estimate(tmp_path, monkeypatch, capsys):
    from scratchpad_lab.engine.limits import WorkLimitExceeded, check_work
    from scratchpad_lab.engine.strategies import make_spec
    from scratchpad_lab.model.records import load_path
    path = _two_large_observations(tmp_path / "two-large.json")
    trace = load_path(path)
    monkeypatch.setenv("SCRATCHPAD_LAB_HOSTED", "1")
    # measured: langmem alone 12 s of CPU and 150 MB over the same trace with small observations, within budget
    alone = check_work(trace, strategies=[make_spec("langmem", {})])
    assert 8 < alone.cpu_s < 45 and 100 < alone.held_mb < 300
    with pytest.raises(WorkLimitExceeded, match="of work, over the 45 s"):
        check_work(trace, strategies=[make_spec(n, {}) for n in ALL_SEVEN])
    argv = ["strategies", str(path), "--json"] + [a for n in ALL_SEVEN for a in ("--strategy", n)]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and "MB of results held in memory" in err
