"""Specs for the offline scenarios: deterministic tools over bundled data, and data laid out so that
scratchpad compression (or the agent's own trim) can visibly lose the facts the final answer needs."""
from __future__ import annotations

import hashlib
import inspect
import json
import math
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path

import jsonschema
import pytest
from autourgos_agent import Agent, CallbackHandler
from autourgos_agent.testing import ScriptedFakeLLM
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchpad_lab.model import scenarios
from scratchpad_lab.model.scenarios import (
    DEMO_NOTICE,
    SCENARIOS,
    ExpectedFact,
    PlanStep,
    Probe,
    Scenario,
    get_scenario,
    list_scenarios,
)

NAMES = ["support-ticket", "research-digest", "log-triage"]
DEFAULT_TOOL_CUT = 5_000  # autourgos-agent's MAX_TOOL_OUTPUT_CHARS default
AGENT_TRIM = 15_000  # autourgos-agent's MAX_SCRATCHPAD_CHARS default
# Facts deliberately placed past the default cut of their tool result: the log-triage teaching point
# ("raise max_tool_output_chars and the agent can find the failing host").
BEYOND_CUT = {"log-triage": {"chk-eu-11"}}
PLAN_LENGTHS = {"support-ticket": (12, 14), "research-digest": (12, 15), "log-triage": (10, 14)}

each_scenario = pytest.mark.parametrize("name", NAMES)


def tools_of(scenario: Scenario) -> dict:
    return {tool["name"]: tool for tool in scenario.tools}


@lru_cache(maxsize=None)
def plan_results(name: str) -> tuple:
    """(step number, action, full result) for every action of the plan, run in order."""
    scenario = get_scenario(name)
    tools = tools_of(scenario)
    return tuple(
        (number, action, tools[action["action"]]["func"](**action["action_input"]))
        for number, step in enumerate(scenario.plan, 1)
        for action in step.actions
    )


def results_of(name: str, tool_name: str) -> list:
    return [result for _, action, result in plan_results(name) if action["action"] == tool_name]


def plan_steps_json(scenario: Scenario) -> list:
    steps = [json.dumps({"thought": s.thought, "actions": list(s.actions), "final_answer": None}) for s in scenario.plan]
    return steps + ['{"thought": "done", "actions": [], "final_answer": "x"}']


class ScratchpadSizes(CallbackHandler):
    def __init__(self) -> None:
        self.sizes: list = []

    def on_iteration_start(self, iteration, agent=None, **kwargs):
        self.sizes.append(len(agent.scratchpad))


def run_real_agent(scenario: Scenario, **agent_kwargs):
    sizes = ScratchpadSizes()
    agent = Agent(llm=ScriptedFakeLLM(plan_steps_json(scenario)), tools=list(scenario.tools),
                  max_iterations=40, middleware=[sizes], **agent_kwargs)
    assert agent.invoke(scenario.task) == "x"
    return agent, sizes.sizes


# ── the catalogue ─────────────────────────────────────────────────────────────────────────────────

@each_scenario
def test_scenarios_are_keyed_by_name_in_the_documented_order(name):
    assert list(SCENARIOS) == NAMES
    assert list_scenarios() == [SCENARIOS[n] for n in NAMES]
    assert get_scenario(name) is SCENARIOS[name]
    assert SCENARIOS[name].name == name


def test_get_scenario_rejects_an_unknown_name_listing_the_valid_ones():
    with pytest.raises(KeyError) as raised:
        get_scenario("nope")
    assert "nope" in str(raised.value)
    assert all(name in str(raised.value) for name in NAMES)


@each_scenario
def test_scenario_parts_have_the_documented_types(name):
    scenario = get_scenario(name)
    assert scenario.title and scenario.task and scenario.answer_intro
    assert all(isinstance(step, PlanStep) and isinstance(step.actions, tuple) for step in scenario.plan)
    assert all(isinstance(fact, ExpectedFact) for fact in scenario.expected_facts)
    assert all(isinstance(probe, Probe) for probe in scenario.probes)
    assert isinstance(scenario.tools, tuple) and isinstance(scenario.plan, tuple)


@each_scenario
def test_description_is_a_few_plain_sentences_ending_with_the_demo_notice(name):
    description = get_scenario(name).description
    assert description.endswith(DEMO_NOTICE)
    sentences = re.split(r"(?<=[.!?])\s+", description[: -len(DEMO_NOTICE)].strip())
    assert 1 <= len(sentences) <= 3, sentences


@each_scenario
def test_plan_has_the_planned_length_and_sizes_of_facts_and_probes(name):
    scenario = get_scenario(name)
    low, high = PLAN_LENGTHS[name]
    assert low <= len(scenario.plan) <= high
    assert 5 <= len(scenario.expected_facts) <= 8
    assert 3 <= len(scenario.probes) <= 5


def test_research_plan_runs_some_tool_calls_in_parallel():
    name = "research-digest"
    assert any(len(step.actions) > 1 for step in get_scenario(name).plan)


# ── tools and plan ────────────────────────────────────────────────────────────────────────────────

@each_scenario
def test_every_tool_is_an_autourgos_tool_dict_whose_schema_matches_its_function(name):
    for tool in get_scenario(name).tools:
        assert set(tool) == {"name", "description", "parameters", "func"}
        assert tool["func"].__name__ == tool["name"] and tool["description"]
        schema = tool["parameters"]
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object"
        assert list(schema["properties"]) == list(inspect.signature(tool["func"]).parameters)


@each_scenario
def test_every_plan_action_names_a_tool_of_the_scenario_with_valid_input(name):
    scenario = get_scenario(name)
    tools = tools_of(scenario)
    for step in scenario.plan:
        assert step.actions, step.thought
        for action in step.actions:
            assert set(action) == {"action", "action_input"}
            tool = tools[action["action"]]
            jsonschema.validate(action["action_input"], tool["parameters"])
            inspect.signature(tool["func"]).bind(**action["action_input"])  # what the agent checks


@each_scenario
def test_every_plan_step_returns_a_non_empty_string_that_is_not_a_not_found(name):
    for _, action, result in plan_results(name):
        assert isinstance(result, str) and result
        assert not result.startswith("No "), (action, result[:200])


@each_scenario
def test_tools_are_deterministic(name):
    tools = tools_of(get_scenario(name))
    for _, action, result in plan_results(name):
        again = tools[action["action"]]["func"](**action["action_input"])
        assert again == result


@each_scenario
def test_tools_give_the_same_results_when_called_concurrently_from_a_cold_cache(name, monkeypatch):
    monkeypatch.setattr(scenarios, "_cache", {})  # force the lazy loading to race
    tools = tools_of(get_scenario(name))
    calls = [action for _, action, _ in plan_results(name)] * 3
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda a: tools[a["action"]]["func"](**a["action_input"]), calls))
    expected = [result for _, _, result in plan_results(name)] * 3
    assert results == expected


@each_scenario
def test_unknown_inputs_return_a_helpful_not_found_string(name):
    scenario = get_scenario(name)
    for tool in scenario.tools:
        params = list(tool["parameters"]["properties"])
        valid = next((a["action_input"] for _, a, _ in plan_results(name) if a["action"] == tool["name"]), None)
        for param in params:
            result = tool["func"](**{**valid, param: "zzqx-unknown"})
            assert isinstance(result, str)
            assert result.startswith("No "), (tool["name"], param, result)


@each_scenario
@settings(max_examples=25, deadline=None)
@given(values=st.lists(st.one_of(st.text(), st.integers(), st.none()), min_size=3, max_size=3))
def test_tools_never_raise_whatever_they_are_given(name, values):
    for tool in get_scenario(name).tools:
        params = list(tool["parameters"]["properties"])
        result = tool["func"](**dict(zip(params, values)))
        assert isinstance(result, str)


# ── where the facts are ───────────────────────────────────────────────────────────────────────────

@each_scenario
def test_each_expected_fact_appears_verbatim_in_exactly_one_tool_result(name):
    for fact in get_scenario(name).expected_facts:
        holders = [number for number, _, result in plan_results(name) if fact.value in result]
        assert len(holders) == 1, (fact, holders)


@each_scenario
def test_facts_come_from_early_to_middle_plan_steps(name):
    scenario = get_scenario(name)
    last_allowed = math.floor(0.7 * len(scenario.plan))
    for fact in scenario.expected_facts:
        step = next(number for number, _, result in plan_results(name) if fact.value in result)
        assert step <= last_allowed, (fact, step)


@each_scenario
def test_no_fact_value_is_in_the_task_a_thought_or_an_action_input(name):
    """The agent writes `Action: tool({...})` and the thought into the scratchpad; the task is in every
    prompt. A fact there could never be lost, so it would not test compression."""
    scenario = get_scenario(name)
    for fact in scenario.expected_facts:
        assert fact.value not in scenario.task
        for step in scenario.plan:
            assert fact.value not in step.thought
            for action in step.actions:
                assert fact.value not in str(action["action_input"])
                assert fact.value not in json.dumps(action["action_input"])


@each_scenario
def test_probe_answers_appear_in_the_tool_results_and_not_in_their_questions(name):
    everything = "\n".join(result for _, _, result in plan_results(name))
    for probe in get_scenario(name).probes:
        assert probe.answer in everything
        assert probe.answer not in probe.question


@each_scenario
def test_facts_fit_the_default_tool_output_cut_except_the_teaching_point(name):
    beyond = BEYOND_CUT.get(name, set())
    for fact in get_scenario(name).expected_facts:
        in_cut = any(fact.value in result[:DEFAULT_TOOL_CUT] for _, _, result in plan_results(name))
        in_full = any(fact.value in result for _, _, result in plan_results(name))
        assert in_full
        assert in_cut == (fact.value not in beyond), fact


def test_log_triage_failing_host_is_found_with_a_10000_char_cut():
    name = "log-triage"
    (log,) = [r for _, a, r in plan_results(name) if a["action_input"] == {"service": "checkout-api", "window": "02:00-04:00"}]
    assert DEFAULT_TOOL_CUT < log.index("chk-eu-11") < 10_000
    assert log.index("2026-03-14 02:17:09") < log.index("ERR_DB_POOL_EXHAUSTED") < DEFAULT_TOOL_CUT


# ── sizes ─────────────────────────────────────────────────────────────────────────────────────────

def test_log_results_are_10k_to_30k_chars():
    name = "log-triage"
    fetch = tools_of(get_scenario(name))["fetch_logs"]["func"]
    spec = json.loads((Path(scenarios.__file__).parents[1] / "data" / "log_triage.json").read_text())
    for service in spec["services"]:
        for window in spec["windows"]:
            assert 10_000 <= len(fetch(service=service, window=window)) <= 30_000, (service, window)


def test_research_articles_are_2500_to_5000_chars_and_the_plan_reads_them_all():
    name = "research-digest"
    read = results_of(name, "read_article")
    assert len(read) >= 8
    assert len(set(read)) == len(read)
    for article in read:
        assert 2_500 <= len(article) <= 5_000, article[:80]


def test_logs_are_identical_in_a_fresh_process_with_another_hash_seed():
    name = "log-triage"
    code = ("from scratchpad_lab.model.scenarios import get_scenario; import hashlib; "
            "f = {t['name']: t['func'] for t in get_scenario('log-triage').tools}; "
            "print(hashlib.sha256(f['fetch_logs'](service='checkout-api', window='02:00-04:00').encode()).hexdigest())")
    env = {**os.environ, "PYTHONHASHSEED": "12345",
           "PYTHONPATH": os.pathsep.join([str(Path(scenarios.__file__).parents[2]), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    (log,) = [r for _, a, r in plan_results(name) if a["action_input"] == {"service": "checkout-api", "window": "02:00-04:00"}]
    assert out.strip() == hashlib.sha256(log.encode()).hexdigest()


# ── with the real agent ───────────────────────────────────────────────────────────────────────────

@each_scenario
def test_real_agent_runs_the_whole_plan_and_the_scratchpad_grows_as_designed(name):
    scenario = get_scenario(name)
    agent, sizes = run_real_agent(scenario)
    assert len(sizes) == len(scenario.plan) + 1  # one iteration per step, then the final answer
    assert sizes == sorted(sizes)
    if name == "support-ticket":
        # Fits under the agent's own trim: only compression can lose a fact here.
        assert 8_000 <= sizes[-1] <= AGENT_TRIM
        assert all(fact.value in agent.scratchpad for fact in scenario.expected_facts)
    else:
        # Overflows the agent's trim before the end: with compression off, the trim loses the facts.
        assert any(size > AGENT_TRIM for size in sizes[:-1])
        assert "[...earlier steps trimmed...]" in agent.scratchpad


@each_scenario
def test_with_a_roomy_scratchpad_only_the_cut_decides_which_facts_the_agent_saw(name):
    scenario = get_scenario(name)
    agent, _ = run_real_agent(scenario, max_scratchpad_chars=200_000)
    missing = {fact.value for fact in scenario.expected_facts if fact.value not in agent.scratchpad}
    assert missing == BEYOND_CUT.get(name, set())
    if missing:
        agent, _ = run_real_agent(scenario, max_scratchpad_chars=200_000, max_tool_output_chars=10_000)
        assert all(fact.value in agent.scratchpad for fact in scenario.expected_facts)
