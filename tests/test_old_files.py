"""Every file the lab wrote before conversations kept their own shape still opens and replays to the same figures.

tests/data/old_import.json was written by the lab at 07eff0a (the commit before): the trace its importer made of
a hand-written airline chat (the system prompt folded into the task, the user turns as `user` tool results) and
the strategies rows it gave on it. Such a trace has no `system` and no `messages`, so it is what it always was:
one task and a scratchpad of steps, for every strategy. The samples' run records are held to their recorded
figures by test_results_unchanged.py.
"""
import json
from pathlib import Path

from scratchpad_lab.engine.strategies import make_spec, run_strategies
from scratchpad_lab.model.trace import Trace

OLD = json.loads((Path(__file__).parent / "data" / "old_import.json").read_text(encoding="utf-8"))


def test_an_old_imported_trace_loads_as_it_was_written_and_writes_back_the_same_file():
    trace = Trace.from_dict(OLD["trace"])
    assert trace.system == "" and trace.messages is None and trace.compactions == []
    assert trace.task.startswith("System message:\n# Airline agent policy")
    assert trace.to_dict() == OLD["trace"]


def test_an_old_imported_trace_replays_to_the_figures_it_gave_before_under_every_strategy_it_was_run_with():
    trace = Trace.from_dict(OLD["trace"])
    specs = [make_spec(name, settings) for name, settings in OLD["specs"]]
    rows = [r.row() for r in run_strategies(trace, specs)]
    for before, now in zip(OLD["rows"], rows, strict=True):
        # the row gained facts_recoverable (0.0 here: nothing is offloaded); every figure it had is unchanged
        assert json.loads(json.dumps({k: now[k] for k in before})) == before, before["strategy"]
        assert now["facts_recoverable"] in (0.0, None)


def test_the_same_chat_imported_now_keeps_its_shape_and_its_autourgos_replay_sends_the_policy_as_system_prompt():
    import sys
    sys.path.insert(0, str(Path(__file__).parent))
    from test_importers import TASKS
    from scratchpad_lab.engine.importers import import_raw

    trace = import_raw(TASKS).trace
    old = Trace.from_dict(OLD["trace"])
    assert [s.response for s in trace.steps] == [s.response for s in old.steps]  # the scratchpad form's steps
    assert old.task.endswith(trace.task) and trace.system and trace.system in old.task
    results = {r.name: r for r in run_strategies(trace, [make_spec(n, s) for n, s in OLD["specs"]])}
    rows = {name: r.row() for name, r in results.items()}
    before = {r["strategy"]: r for r in OLD["rows"]}
    # the autourgos scratchpad is the same steps: the policy moved from the task to the agent's system prompt, which
    # the scratchpad never held, so the trim cuts what it cut (a summary may differ: the summarizer is no longer
    # shown the policy inside the task)
    assert rows["trim-only"]["peak_context_tokens"] == before["trim-only"]["peak_context_tokens"]
    assert rows["trim-only"]["mean_context_tokens"] == before["trim-only"]["mean_context_tokens"]
    # the message strategies see the policy as the system prompt, sent with every call; clearing takes tool results
    # only (the old import made the user's turns tool results, and it cleared those)
    cleared = results["clear-tool-uses"]
    assert all(sent[0].type == "system" and sent[0].content == trace.system for sent in cleared.sent_messages)
    sent_last = cleared.sent_messages[-1]
    assert [m.content for m in sent_last if m.type == "human"] == [m.text for m in trace.messages if m.role == "user"][:len(
        [m for m in sent_last if m.type == "human"])]
    assert any(m.type == "tool" and m.content == "[cleared]" for m in sent_last)
