"""TraceRecorder (issue 22): a real autourgos run, recorded by the middleware, replays exactly.

The run is a real Agent (autourgos_agent.testing.make_test_agent: scripted replies, real tools) with the
real AutoSummarizeMiddleware. Its compressions, seen by the bare-package recorder of bare_reference.py,
must be the ones the lab's replay of the recorded trace makes and the ones the bare packages make
replaying it, under the same settings.
"""
from __future__ import annotations

import json

from autourgos_agent.testing import make_test_agent
from autourgos_summarizer import AutoSummarizeMiddleware

from bare_reference import _CountingSummarizer, _Recorder, bare_replay
from scratchpad_lab.analysis.metrics import compressions
from scratchpad_lab.engine.summarize.extractive import ExtractiveSummarizer
from scratchpad_lab.engine.files.loader import load_file
from scratchpad_lab.engine.run.runner import Run, Source
from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.record import TraceRecorder

SETTINGS = dict(summarize_every=3, max_scratchpad_chars=1500, agent_trim_chars=4000, max_tool_output_chars=1000)
BUDGET = 600
SECRET = "sk-recorderTEST0123456789abcdef"


def _report(n: int) -> str:
    return "\n".join(f"line {i}: shard-{n}-{i} latency {100 + i * n} ms, code ERR_{500 + n}" for i in range(60))


TOOLS = [
    {"name": "fetch_report", "description": "Fetch a shard's report.",
     "parameters": {"type": "object", "properties": {"shard": {"type": "integer", "description": "shard number"}},
                    "required": ["shard"]},
     "func": lambda shard: _report(shard)},
    {"name": "flaky", "description": "Fails.", "parameters": {"type": "object", "properties": {}},
     "func": lambda: (_ for _ in ()).throw(RuntimeError("disk quota exceeded"))},
]


def _reply(thought, actions=(), final=None):
    return json.dumps({"thought": thought, "actions": [{"action": a, "action_input": i} for a, i in actions],
                       "final_answer": final})


REPLIES = [_reply(f"Fetch shards {2 * k} and {2 * k + 1}.",
                  [("fetch_report", {"shard": 2 * k}), ("fetch_report", {"shard": 2 * k + 1})]) for k in range(4)]
REPLIES.insert(2, _reply("Try the flaky tool.", [("flaky", {})]))
REPLIES.append(_reply("Done.", final="Worst shard: 7 (ERR_507)."))


def _live_run(path):
    shared = {"iteration": 0, "before": "", "calls_before": 0, "summarizer_calls": 0, "compressions": [], "trims": []}
    middleware = AutoSummarizeMiddleware(
        summarize_every=SETTINGS["summarize_every"], max_scratchpad_chars=SETTINGS["max_scratchpad_chars"],
        llm=_CountingSummarizer(ExtractiveSummarizer(BUDGET), shared))
    agent = make_test_agent(
        responses=list(REPLIES), tools=[dict(t) for t in TOOLS], max_iterations=20,
        middleware=[_Recorder(shared, False), middleware, _Recorder(shared, True), TraceRecorder(path)],
        max_scratchpad_chars=SETTINGS["agent_trim_chars"], max_tool_output_chars=SETTINGS["max_tool_output_chars"])
    agent.llm.api_key = SECRET  # a key on the model object must never reach the file
    return agent, agent.invoke("Which shard is worst? Quote its error code."), shared["compressions"]


def test_a_recorded_run_replays_to_the_same_compressions_in_the_lab_and_the_bare_packages(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    path = tmp_path / "run.trace.json"
    agent, answer, live = _live_run(path)
    loaded = load_file(path)
    assert loaded.report is None and loaded.warnings == [], "the lab's own trace, with nothing to warn of"
    trace = loaded.item
    assert len(trace.steps) == len(REPLIES) and [s.response for s in trace.steps] == REPLIES
    lab = Run(RunConfig.build(scenario=None, extractive_budget_chars=BUDGET, **SETTINGS), Source.for_trace(trace)).run()
    bare = bare_replay(trace, ExtractiveSummarizer(BUDGET), **SETTINGS)
    assert live, "the settings are tight enough to compress"
    assert [(c["iteration"], c["before"], c["after"]) for c in compressions(lab.events)] == \
        [(c["iteration"], c["before"], c["after"]) for c in bare["compressions"]] == \
        [(c["iteration"], c["before"], c["after"]) for c in live]
    assert lab.final_answer == bare["final_answer"] == answer == "Worst shard: 7 (ERR_507)."


def test_the_recorder_keeps_tool_results_before_the_agents_cut_and_the_tools_with_parameters(tmp_path):
    path = tmp_path / "run.trace.json"
    agent, _, _ = _live_run(path)
    trace = load_file(path).item
    assert trace.task == "Which shard is worst? Quote its error code."
    assert trace.steps[0].observations == [_report(0), _report(1)]
    assert len(_report(0)) > SETTINGS["max_tool_output_chars"], "the agent cut it; the trace has it whole"
    assert trace.steps[2].observations == ["Error executing 'flaky': disk quota exceeded"]
    fetch = next(t for t in trace.tools if t.name == "fetch_report")
    assert fetch.description == "Fetch a shard's report." and fetch.parameters["required"] == ["shard"]
    assert [t["func"] for t in agent.tools] == [t["func"] for t in TOOLS], "the tools are put back after the run"
    assert SECRET not in path.read_text(encoding="utf-8")


def test_the_recorder_writes_the_run_even_when_it_fails(tmp_path):
    path = tmp_path / "failed.trace.json"
    agent = make_test_agent(responses=["prose", "more prose", "still prose"], middleware=[TraceRecorder(path)])
    try:
        agent.invoke("Say something in JSON.")
    except Exception as exc:
        assert type(exc).__name__ == "AgentParseError"
    loaded = load_file(path)
    assert [s.response for s in loaded.item.steps] == ["prose", "more prose", "still prose"]
    assert loaded.warnings[0].startswith("step 1: the agent cannot read an action or a final answer")
    record = Run(RunConfig.build(scenario=None), Source.for_trace(loaded.item)).run()
    assert record.outcome == "error" and "Steps 1 to 3 of the trace are not in the agent's reply format" in record.error
    assert "stronger model" not in record.error
