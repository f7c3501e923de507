"""A yardstick is tested before it is used: a strategy that does nothing reads exactly 100 %.

Every registered strategy, run with its registry entry's `never` settings (every trigger and cap off or at its
largest), on every sample in sample_runs/, on an imported OpenAI chat and on a real tau-bench airline run, reads
exactly its form's no-compression baseline: 1.0 of its peak and mean, 0 tokens saved, 1.0 of the facts at the
answer, and `cut_nothing`. A strategy that does compress reads below 1.0, and the Strategies table's ★ and the
recommender's front leave the ones that did nothing out.
"""
import json

import pytest

from conftest import ROOT, shared_file
from scratchpad_lab.engine.importers import import_raw
from scratchpad_lab.engine.studies.recommender import CUT_NOTHING, Point, mark_front
from scratchpad_lab.engine.strategies import make_spec, run_strategies
from scratchpad_lab.engine.strategies.registry import STRATEGIES
from scratchpad_lab.model.records import load_path

SAMPLES = sorted(p for p in (ROOT / "sample_runs").rglob("*.json"))
TAU_BENCH = ("datasets", "tau-bench-airline", "gpt-4o-airline.json")

# A chat as an OpenAI-compatible client records it: JSON tool results, one of them longer than the autourgos
# agent's default cut of a tool result (5,000 characters).
CHAT = [
    {"role": "system", "content": "You are an airline agent."},
    {"role": "user", "content": "Change reservation ZFA04Y to the 15 May flight, and tell me the new fare."},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "get_reservation_details", "arguments": json.dumps({"reservation_id": "ZFA04Y"})}}]},
    {"role": "tool", "tool_call_id": "c1", "content": json.dumps(
        {"reservation_id": "ZFA04Y", "user_id": "sara_doe_496", "origin": "SFO", "destination": "JFK",
         "flights": [{"flight_number": "HAT083", "date": "2024-05-10", "price": 186}], "status": "active",
         "notes": "x" * 6000})},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c2", "type": "function",
         "function": {"name": "search_direct_flight",
                      "arguments": json.dumps({"origin": "SFO", "destination": "JFK", "date": "2024-05-15"})}}]},
    {"role": "tool", "tool_call_id": "c2", "content": json.dumps(
        [{"flight_number": "HAT271", "date": "2024-05-15", "prices": {"economy": 212, "business": 899}}])},
    {"role": "assistant", "content": "Reservation ZFA04Y can move to HAT271 on 2024-05-15 for $212."},
]


def _never(name):
    return make_spec(name, dict(STRATEGIES[name].never))


def _assert_did_nothing(loaded, where):
    names = list(STRATEGIES)
    assert all(STRATEGIES[n].never for n in names), "every registry entry says how it does nothing"
    for result in run_strategies(loaded, [_never(n) for n in names]):
        row = result.row()
        said = f"{result.name} on {where}"
        assert row["compressions"] == 0 and not result.error, said
        assert row["peak_share"] == 1.0 and row["mean_share"] == 1.0, f"{said}: {row['peak_share']}, {row['mean_share']}"
        assert row["context_tokens_saved"] == 0 and row["saved_share"] == 0.0, said
        assert row["facts_at_answer"] == 1.0, f"{said}: facts at the answer {row['facts_at_answer']}"
        assert row["cut_nothing"], said


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_strategy_that_does_nothing_reads_exactly_its_baseline_on_every_sample(path):
    loaded = load_path(path) if path.parent.name == "sample_runs" else import_raw(json.loads(path.read_text())).trace
    _assert_did_nothing(loaded, path.name)


def test_every_strategy_that_does_nothing_reads_exactly_its_baseline_on_an_imported_openai_chat():
    trace = import_raw(CHAT).trace
    assert max(len(o) for s in trace.steps for o in s.observations) > 5_000  # the agent's default cut would fire
    _assert_did_nothing(trace, "an OpenAI chat")


def test_every_strategy_that_does_nothing_reads_exactly_its_baseline_on_a_real_tau_bench_run():
    runs = json.loads(shared_file(*TAU_BENCH).read_text(encoding="utf-8"))
    # the first run with a tool result over the agent's default cut: the uncut baseline keeps it whole
    number = next(i for i, r in enumerate(runs, start=1)
                  if any(m.get("role") == "tool" and len(str(m.get("content") or "")) > 5_000 for m in r["traj"]))
    _assert_did_nothing(import_raw(runs, conversation=number).trace, f"tau-bench run {number}")


def test_doing_nothing_reads_exactly_its_own_forms_peak_and_keeps_every_value_on_every_tau_bench_run():
    """Every one of the 148 runs, held in its own shape (system prompt, user turns, tool results): each strategy's
    `never` settings read 100 % of its own form's peak and mean, save nothing, keep every fact at the answer and
    every value the next tool call needed (argument recall 1.0, nothing recoverable). A run that ends on tool
    results (no final answer) ends the autourgos replay early, as it ended the recording: it still cut nothing."""
    from scratchpad_lab.engine.studies.run_calls import measure_for, run_calls
    from scratchpad_lab.engine.files.dataset import read_dataset

    dataset = read_dataset(shared_file(*TAU_BENCH))
    assert len(dataset.usable) == 148 and not dataset.broken
    specs = [_never(n) for n in STRATEGIES]
    for run in dataset.usable:
        assert run.trace.system and run.trace.messages is not None, run.name
        measure = measure_for(run_calls(run.trace, run.gold))
        for result in run_strategies(run.trace, specs):
            row, said = result.row(), f"{result.name} on {run.name}"
            assert row["compressions"] == 0 and row["peak_share"] == 1.0 and row["mean_share"] == 1.0, said
            assert row["context_tokens_saved"] == 0 and row["facts_at_answer"] in (1.0, None), said  # None: no facts
            assert row["cut_nothing"] or (result.error or "").startswith("The replay ended early"), said
            if result.sent_messages is not None:  # the agent's system prompt leads every call it made
                assert all(sent[0].type == "system" and sent[0].content == run.trace.system
                           for sent in result.sent_messages), said
            figures = measure(result)
            assert figures["argument_recall"] in (1.0, None) and not figures["argument_recoverable"], said


def test_a_strategy_that_compresses_reads_below_its_baseline_and_is_the_only_one_starred():
    from scratchpad_lab.ui.strategies_page import BEST, ROW_LABELS, table_texts

    loaded = load_path(ROOT / "sample_runs" / "support-ticket-defaults.json")
    specs = [make_spec("autourgos-middleware", {"summarize_every": 3}), _never("trim-only"), _never("deepagents")]
    results = run_strategies(loaded, specs)
    cut = results[0].row()
    assert cut["compressions"] > 0 and not cut["cut_nothing"]
    assert cut["peak_share"] < 1.0 and cut["mean_share"] < 1.0 and cut["context_tokens_saved"] > 0
    assert cut["facts_at_answer"] < 1.0
    texts = table_texts(results)
    titles = [STRATEGIES[r.name].title for r in results]
    for title in titles[1:]:  # did nothing: no ★, though its 100 % of the facts and 0 summarizer calls "win"
        assert not any(text.endswith(BEST) for text in texts[title].values()), texts[title]
    assert texts[titles[2]][ROW_LABELS["peak_share"]] == "100%"


def test_a_point_that_cut_nothing_is_off_the_front_and_says_so():
    keeps = {"facts_at_answer": 1.0, "peak_context_tokens": 900, "mean_context_tokens": 500.0,
             "summarizer_tokens_in": 0, "summarizer_tokens_out": 0, "cut_nothing": True}
    cuts = {**keeps, "facts_at_answer": 0.8, "peak_context_tokens": 950, "summarizer_tokens_in": 100,
            "cut_nothing": False}
    idle, working = Point("trim-only", {}, keeps), Point("langmem", {}, cuts)
    objectives = [("facts_at_answer", "max"), ("peak_context_tokens", "min"), ("summarizer_tokens", "min")]
    mark_front([idle, working], objectives)
    assert not idle.on_front and idle.why == CUT_NOTHING
    assert working.on_front, "a point that did nothing does not push one that cut something off the front"
