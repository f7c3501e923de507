"""Replay through the lab gives exactly what the bare packages give, and triggers are predicted right."""
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bare_reference import bare_replay
from conftest import package_fires
from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.engine.summarize.extractive import ExtractiveSummarizer
from scratchpad_lab.analysis.metrics import compressions, final_answer, trims
from scratchpad_lab.engine.run.runner import Run, Source
from synthetic import synthetic_trace
from scratchpad_lab.model.trace import Trace


def _replay(trace, **settings_):
    config = RunConfig.build(scenario=None, **settings_)
    return Run(config, Source.for_trace(trace)).run()


def _bare(trace, **settings_):
    budget = settings_.pop("extractive_budget_chars", 1500)
    return bare_replay(trace, ExtractiveSummarizer(budget), **settings_)


SETTINGS = [
    dict(summarize_every=5, max_scratchpad_chars=15000),
    dict(summarize_every=2, max_scratchpad_chars=2000, agent_trim_chars=6000),
    dict(summarize_every=None, max_scratchpad_chars=3000),
    dict(summarize_every=None, max_scratchpad_chars=1_000_000),
    dict(summarize_every=3, max_scratchpad_chars=800, agent_trim_chars=4000, max_tool_output_chars=1200,
         extractive_budget_chars=2500),
]


def test_replay_matches_bare_packages_under_several_settings():
    trace = synthetic_trace(steps=40, seed=7)
    for s in SETTINGS:
        record = _replay(trace, **s)
        bare = _bare(trace, **{k: v for k, v in s.items()})
        lab = compressions(record.events)
        assert [c["iteration"] for c in lab] == [c["iteration"] for c in bare["compressions"]], s
        assert [c["before"] for c in lab] == [c["before"] for c in bare["compressions"]], s
        assert [c["after"] for c in lab] == [c["after"] for c in bare["compressions"]], s
        assert [(t["iteration"], t["before_chars"], t["after_chars"]) for t in trims(record.events)] == \
            [(t["iteration"], t["before_chars"], t["after_chars"]) for t in bare["trims"]], s
        assert final_answer(record.events) == bare["final_answer"] == "Finished after 40 steps."


def test_compression_off_never_compresses_and_tight_settings_do():
    trace = synthetic_trace(steps=25, seed=3)
    assert compressions(_replay(trace, summarize_every=None, max_scratchpad_chars=1_000_000).events) == []
    tight = compressions(_replay(trace, summarize_every=2, max_scratchpad_chars=2000).events)
    assert tight and all(c["status"] == "ok" for c in tight)
    assert all(c["reason"] == "periodic" for c in tight if c["iteration"] % 2 == 0)


def test_exported_trace_replays_to_the_same_path():
    trace = synthetic_trace(steps=20, seed=11, max_observation_chars=9000)
    record = _replay(trace, summarize_every=4, max_scratchpad_chars=5000)
    # Raw observations are kept uncut in the export, even where the agent cut them to 5,000 chars.
    assert record.trace.to_dict()["steps"] == trace.to_dict()["steps"]
    again = _replay(Trace.from_dict(json.loads(json.dumps(record.trace.to_dict()))),
                    summarize_every=4, max_scratchpad_chars=5000)
    assert [c["before"] for c in compressions(again.events)] == [c["before"] for c in compressions(record.events)]


def test_parallel_actions_are_matched_by_position_not_arrival_order():
    steps = [
        {"response": json.dumps({"thought": "two at once", "final_answer": None, "actions": [
            {"action": "search", "action_input": {"query": "slow"}},
            {"action": "search", "action_input": {"query": "fast"}}]}),
         "observations": ["result for slow", "result for fast"]},
        {"response": json.dumps({"thought": "done", "actions": [], "final_answer": "ok"}), "observations": []},
    ]
    trace = Trace.from_dict({"schema": "scratchpad-lab/trace@1", "task": "t",
                             "tools": [{"name": "search", "description": "s"}], "steps": steps})
    record = _replay(trace, summarize_every=None)
    calls = [e.data for e in record.events if e.kind == "tool_call"]
    assert [(c["input"]["query"], c["result"]) for c in calls] == [("slow", "result for slow"),
                                                                  ("fast", "result for fast")]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.integers(2, 30),
       every=st.one_of(st.none(), st.integers(1, 8)), cap=st.integers(100, 20_000),
       trim=st.integers(200, 20_000), budget=st.integers(200, 4000), tool_cap=st.integers(100, 8000))
def test_trigger_predictions_always_agree_with_what_the_package_did(seed, steps, every, cap, trim, budget, tool_cap):
    trace = synthetic_trace(steps=steps, seed=seed)
    record = _replay(trace, summarize_every=every, max_scratchpad_chars=cap, agent_trim_chars=trim,
                     extractive_budget_chars=budget, max_tool_output_chars=tool_cap)
    checks = [e for e in record.events if e.kind == "trigger"]
    fired_at = {e.iteration for e in record.events if e.kind == "compression"}
    assert len(checks) == len([e for e in record.events if e.kind == "iteration"])
    for check in checks:
        assert check.data["predicted"] == check.data["fired"] == (check.iteration in fired_at)
        # The reason is the lab's word; the oracle is the package: a periodic compression still fires
        # with the size trigger out of reach, a size one does not (and fires with the periodic one off).
        state = (check.iteration, check.data["chars"], check.data["last_summarized_chars"])
        if check.data["predicted_reason"] == "periodic":
            assert package_fires(*state, every=every, cap=10**12)
        elif check.data["predicted_reason"] == "size":
            assert not package_fires(*state, every=every, cap=10**12)
            assert package_fires(*state, every=None, cap=cap)
        assert package_fires(*state, every=every, cap=cap) == check.data["fired"]


def test_a_replay_runs_its_tools_in_order_on_one_worker_and_a_scenario_keeps_the_packages_default():
    from autourgos_agent import Agent

    from scratchpad_lab.model.config import RunConfig
    from scratchpad_lab.engine.run.runner import Run, Source
    from synthetic import synthetic_trace

    replay = Run(RunConfig.build(scenario=None), Source.for_trace(synthetic_trace(steps=5, seed=1)))
    assert replay.agent.MAX_TOOL_WORKERS == 1
    scenario = Run(RunConfig.build(scenario="support-ticket"))
    assert scenario.agent.MAX_TOOL_WORKERS == Agent.MAX_TOOL_WORKERS
