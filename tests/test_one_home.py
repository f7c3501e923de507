"""One home per rule (issue 10 item 2): each rule is checked against an independent oracle (the
package itself, or a figure recomputed here from the events), through every caller that uses it, so
a second copy that drifts makes one of these fail."""
import string
import threading

from hypothesis import given, settings
from hypothesis import strategies as st

from autourgos_summarizer import AutoSummarizeMiddleware
from autourgos_summarizer import middleware as package_middleware

from conftest import package_fires
from scratchpad_lab.analysis import triggers
from scratchpad_lab.engine.studies.compare import Setting, baseline_for, compare, row
from scratchpad_lab.model.config import RunConfig, package_prompt_fields
from scratchpad_lab.model.events import Event
from scratchpad_lab.engine.summarize.extractive import ExtractiveSummarizer, salient_facts
from scratchpad_lab.analysis.facts import expected_in, line_facts
from scratchpad_lab.analysis.figures import figures
from scratchpad_lab.analysis.metrics import answer_score
from scratchpad_lab.engine.run.observe import RunObserver
from scratchpad_lab.model.events import RunLog
from scratchpad_lab.engine.run.standins import compose_answer
from scratchpad_lab.analysis.quality import savings
from scratchpad_lab.model.scenarios import SCENARIOS
from synthetic import synthetic_trace
from scratchpad_lab.engine.run.tokens import TokenCounter


_state = st.tuples(st.integers(1, 40), st.integers(1, 400), st.one_of(st.none(), st.integers(1, 7)),
                   st.integers(1, 400), st.one_of(st.none(), st.integers(1, 400)))


@settings(max_examples=300, deadline=None)
@given(_state)
def test_the_trigger_rule_and_the_observers_prediction_agree_with_the_package(state):
    iteration, chars, every, cap, last = state
    fires = package_fires(iteration, chars, last, every=every, cap=cap)
    assert triggers.predict(iteration, chars, every, cap, last)[0] == fires
    mw = AutoSummarizeMiddleware(summarize_every=every, max_scratchpad_chars=cap)
    observer = RunObserver(RunLog(), RunConfig.build(scenario=None), mw, TokenCounter())
    assert observer.predict(iteration, "x" * chars, last)["predicted"] == fires


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 400), st.one_of(st.none(), st.integers(1, 400)))
def test_the_live_gauges_armed_is_what_the_package_does_next_over_the_cap(chars, last):
    events = [Event("trigger", 3, 0.0, {"last_summarized_chars": last}),
              Event("iteration", 3, 0.0, {"chars": chars, "tokens": 1})]
    state = triggers.trigger_state(events, RunConfig.build(scenario=None, summarize_every=None))
    # over a cap of 0 with the periodic trigger off, the package fires exactly when the size trigger is armed
    assert state.size_armed == package_fires(4, chars, last, every=None, cap=0)


_text = st.text(alphabet=string.printable + "é—{}", max_size=200)


@settings(max_examples=200, deadline=None)
@given(_text, _text, st.integers(0, 10_000))
def test_the_package_prompt_is_read_back_from_what_the_package_formats(query, scratchpad, iteration):
    prompt = package_middleware._SUMMARIZE_PROMPT.format(query=query.replace("\n", " "), iteration=iteration,
                                                         scratchpad=scratchpad)
    assert package_prompt_fields(prompt) == {"query": query.replace("\n", " "), "iteration": iteration,
                                             "scratchpad": scratchpad}
    assert package_prompt_fields("Summarize this: " + prompt) is None


def test_the_summarizer_weighs_exactly_the_facts_the_cards_count():
    lines = []
    for scenario in SCENARIOS.values():
        for step in scenario.plan:
            for action in step.actions:
                tool = next(t for t in scenario.tools if t["name"] == action["action"])
                lines += str(tool["func"](**action["action_input"])).splitlines()
    assert len(lines) > 50
    for line in lines:
        weighted = {k for k in salient_facts(line) if not k.startswith("kw:") and k != line[:60]}
        assert weighted == {f.text for f in line_facts(line)}, line


def test_a_fact_inside_a_longer_code_scores_nothing_in_the_answer_and_the_agent_calls_it_lost():
    scenario = SCENARIOS["support-ticket"]
    assert answer_score("order A-10010, customer Asha Raoul", scenario.name) == 0.0
    answer = compose_answer(scenario, "order A-10010 and order A-1001.")
    assert "- order number: A-1001" in answer
    context = "order A-10010 only"
    answer = compose_answer(scenario, context)
    assert "order number" in answer.split("No longer in my notes:")[1]
    # the answer score counts exactly the facts the agent could still see
    seen = [f for f in scenario.expected_facts if expected_in(context, f.value)]
    assert answer_score(answer, scenario.name) == round(len(seen) / len(scenario.expected_facts), 4)


def test_one_meaning_of_peak_and_of_tokens_saved_in_summaries_and_compare_rows():
    trace = synthetic_trace(steps=30, seed=5)
    records, baselines, _ = compare(trace, [Setting(summarize_every=3, max_scratchpad_chars=3000)])
    record, base = records[0], baseline_for(records[0], baselines)
    r = row(record, base)
    sent = [e.data["tokens"] for e in record.events if e.kind == "iteration"]
    off = [e.data["tokens"] for e in base.events if e.kind == "iteration"]
    before = [e.data["before_tokens"] for e in record.events if e.kind == "iteration"]
    assert max(before) > max(sent)  # compression happened, so the two meanings would differ
    assert r["peak_context_tokens"] == figures(record.events).peak_tokens == max(sent)
    assert figures(record.events).peak_chars == max(e.data["chars"] for e in record.events
                                                          if e.kind == "iteration")
    assert r["context_tokens_saved"] == savings(record.events, base.events).context_tokens_saved == \
        sum(off) - sum(sent)


# ── one summarizer choice, one builder (issue 28, item 3) ───────────────────────────────────────────

def test_a_summarizer_choice_is_built_by_the_one_builder_and_says_what_a_run_config_says():
    import pytest

    from scratchpad_lab.engine.summarize.summarizers import build_summarizer
    from scratchpad_lab.engine.strategies.registry import StrategyError
    from scratchpad_lab.model.config import ConfigError
    from scratchpad_lab.model.endpoint import Endpoint
    from scratchpad_lab.model.summarizer import SummarizerChoice

    offline = build_summarizer(SummarizerChoice("extractive", 900))
    assert isinstance(offline.plain(), ExtractiveSummarizer) and offline.plain().budget_chars == 900
    assert build_summarizer(None).extractive_budget_chars == RunConfig.build().summarizer.budget_chars
    endpoint = Endpoint(provider="custom", base_url="https://models.example/v1", model="m")
    stop = threading.Event()
    built = build_summarizer(SummarizerChoice("endpoint", 900, endpoint, key="k"), stop=stop)
    assert (built.kind, built.endpoint, built.api_key, built.stop_event, built.model_id) == \
        ("endpoint", endpoint, "k", stop, "m")
    with pytest.raises(ConfigError, match="no summarizer endpoint"):
        SummarizerChoice("endpoint")
    with pytest.raises(StrategyError, match="offline extractive summarizer, an endpoint model or the built-in model"):
        build_summarizer(SummarizerChoice("same-as-agent"))
    config = RunConfig.build(summarizer="endpoint", summarizer_endpoint=endpoint, extractive_budget_chars=900,
                             summarizer_prompt="Short: {scratchpad}")
    choice = config.summarizer.with_key("sk-never-shown")
    assert choice == config.summarizer == SummarizerChoice("endpoint", 900, endpoint, "Short: {scratchpad}")
    assert RunConfig.build(summarizer=choice) == config  # the config holds the one choice, and never its key
    assert RunConfig.build(summarizer=choice).summarizer.key is None
    assert choice.key == "sk-never-shown" and "sk-never-shown" not in repr(choice)  # this job's only: never shown
    assert "sk-never-shown" not in choice.model_dump_json() + RunConfig.build(summarizer=choice).model_dump_json()


def test_no_page_or_command_builds_a_summarizer_itself():
    """ui/ and cli/ make a SummarizerChoice; only engine/summarize/summarizers.py builds the job's summarizer from it."""
    import ast
    from pathlib import Path

    src = Path(__file__).resolve().parents[1] / "src" / "scratchpad_lab"
    built = []
    for path in src.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in (
                    "BuiltSummarizer", "MatrixSummarizer"):
                built.append(str(path.relative_to(src)))
    # engine/strategies/engine.py keeps its default for a direct call (its callers, the tasks, pass a built one)
    assert sorted(set(built)) == ["engine/strategies/engine.py", "engine/summarize/summarizers.py"], built
