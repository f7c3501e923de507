"""What a compression lost and how good it was (issue 6), checked through the real agent and the real
AutoSummarizeMiddleware: planted identifiers lost per compression, quality flags from bad summarizers,
token savings against a compression-off replay of the same path, and facts still known by step."""
import itertools
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchpad_lab.cli import main
from scratchpad_lab.engine.studies.compare import NEVER
from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.analysis.facts import contains, extract_facts
from scratchpad_lab.analysis.quality import annotate, facts_by_step, savings
from scratchpad_lab.engine.run.runner import Run, Source
from scratchpad_lab.model.scenarios import SCENARIOS
from synthetic import synthetic_trace
from scratchpad_lab.engine.run.tokens import count_tokens


def _run(source, reply=None, **settings_):
    """Run the real agent + middleware; `reply` replaces the summarizer's summarize(**kw)."""
    scenario = source.scenario.name if source.scenario else None
    run = Run(RunConfig.build(scenario=scenario, **settings_), source)
    if reply is not None:
        run.middleware.llm.inner.summarize = reply
    return run.run()


def _trace_run(reply=None, steps=14, seed=5, **settings_):
    return _run(Source.for_trace(synthetic_trace(steps=steps, seed=seed)), reply, **settings_)


def _present(text, ident):
    """A planted identifier is in a text when no letter, digit or '_' touches it and no '.5'/',5' follows.
    Written with plain character checks on purpose: an oracle independent of facts.py's regexes."""
    def word_char(ch):
        return ch.isascii() and (ch.isalnum() or ch == "_")

    start = text.find(ident)
    while start != -1:
        end = start + len(ident)
        before, after, after2 = text[start - 1:start], text[end:end + 1], text[end + 1:end + 2]
        if not (before and word_char(before)) and not (after and word_char(after)) \
                and not (after in (".", ",") and after2.isdigit()):
            return True
        start = text.find(ident, start + 1)
    return False


# ── the issue-6 check: planted identifiers lost, compression by compression ─

PLANTED_SETTINGS = {
    "tight": dict(summarize_every=2, max_scratchpad_chars=2000),
    "default": dict(),
    "size-only with agent trim": dict(summarize_every=None, max_scratchpad_chars=3000, agent_trim_chars=4000),
    "small budget and tool cap": dict(summarize_every=3, max_scratchpad_chars=800, extractive_budget_chars=600,
                                      max_tool_output_chars=1200, agent_trim_chars=6000),
}


def _check_planted(compressions, planted):
    """facts_lost names exactly the planted identifiers in `before` and not in `after`; returns how many
    planted identifiers were lost, so a caller can tell the check had something to find."""
    lost_total = 0
    for c in compressions:
        in_before = {p for p in planted if _present(c["before"], p)}
        truth = sorted(p for p in in_before if not _present(c["after"], p))
        assert sorted(f for f in c["facts_lost"] if f in planted) == truth, c["iteration"]
        assert {f for f in c["facts_before"] if f in planted} == in_before, c["iteration"]
        assert len(c["facts_lost"]) == len(set(c["facts_lost"]))
        lost_total += len(truth)
    return lost_total


@pytest.mark.parametrize("seed", [3, 17])
@pytest.mark.parametrize("name", list(PLANTED_SETTINGS))
def test_facts_lost_lists_exactly_the_planted_identifiers_a_compression_dropped(name, seed):
    planted = []
    trace = synthetic_trace(steps=24, seed=seed, planted=planted)
    record = _run(Source.for_trace(trace), **PLANTED_SETTINGS[name])
    compressions = annotate(record.events)
    assert compressions and planted
    assert _check_planted(compressions, set(planted)) > 0


def test_replay_json_lists_exactly_the_planted_identifiers_each_compression_dropped(tmp_path, capsys):
    planted = []
    path = tmp_path / "planted.json"
    path.write_text(json.dumps(synthetic_trace(steps=20, seed=41, planted=planted).to_dict()), encoding="utf-8")
    code = main(["replay", str(path), "--summarize-every", "3", "--max-scratchpad-chars", "2500",
                 "--agent-trim-chars", "5000", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and result["compressions"]
    assert _check_planted(result["compressions"], set(planted)) > 0


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), steps=st.integers(4, 22), every=st.one_of(st.none(), st.integers(1, 8)),
       cap=st.integers(300, 20_000), trim=st.integers(1000, 20_000), budget=st.integers(300, 3000),
       tool_cap=st.integers(200, 6000))
def test_facts_lost_matches_the_planted_truth_under_any_setting(seed, steps, every, cap, trim, budget, tool_cap):
    planted = []
    trace = synthetic_trace(steps=steps, seed=seed, planted=planted)
    record = _run(Source.for_trace(trace), summarize_every=every, max_scratchpad_chars=cap, agent_trim_chars=trim,
                  extractive_budget_chars=budget, max_tool_output_chars=tool_cap)
    _check_planted(annotate(record.events), set(planted))


@pytest.mark.parametrize("scenario", [
    "support-ticket",
    "research-digest",
    pytest.param("log-triage"),
])
def test_every_expected_fact_the_answer_lacks_was_listed_lost_by_a_compression(scenario):
    record = _run(Source.for_scenario(scenario), summarize_every=2, max_scratchpad_chars=2000)
    results = [e.data["result"] for e in record.events if e.kind == "tool_call"]
    entered = {f.value for f in SCENARIOS[scenario].expected_facts if any(f.value in r for r in results)}
    missing = {v for v in entered if v not in record.final_answer}
    lost = {fact for c in annotate(record.events) for fact, kind in c["facts_lost_kinds"].items()
            if kind == "expected"}
    assert missing  # tight settings do cost this scenario facts
    assert lost == missing


def test_expected_facts_lead_the_facts_before_of_a_scenario_compression():
    record = _run(Source.for_scenario("support-ticket"), summarize_every=2, max_scratchpad_chars=2000)
    expected = [f.value for f in SCENARIOS["support-ticket"].expected_facts]
    for c in annotate(record.events):
        present = [v for v in expected if contains(c["before"], v)]
        assert sorted(c["facts_before"][:len(present)]) == sorted(present)


# ── quality flags, through the real middleware ──────────────────────────────

PERIODIC = dict(summarize_every=4, max_scratchpad_chars=1_000_000)


def _flags(record):
    comps = annotate(record.events)
    assert comps
    return comps


def test_an_empty_reply_is_status_empty_and_flagged_empty():
    for c in _flags(_trace_run(lambda **kw: "  \n", **PERIODIC)):
        assert c["status"] == "empty" and c["flags"] == ["empty"]


def test_an_error_message_as_the_reply_is_flagged_error_text():
    for c in _flags(_trace_run(lambda **kw: "Error: upstream timed out", **PERIODIC)):
        assert c["status"] == "ok" and "error_text" in c["flags"]


def test_a_summarizer_that_raises_is_status_error_and_flagged_error_text():
    def broken(**_kw):
        raise TimeoutError("upstream timed out")

    for c in _flags(_trace_run(broken, **PERIODIC)):
        assert c["status"] == "error" and c["flags"] == ["error_text"]


def test_a_reply_longer_than_its_input_is_flagged_longer_than_input():
    def verbose(**kw):
        return ("[Summary]\nKey findings: " + "the agent looked into many things. " * (len(kw["scratchpad"]) // 30)
                + "\nTool results: several\nCurrent status: continuing")

    for c in _flags(_trace_run(verbose, **PERIODIC)):
        assert len(c["after"]) > len(c["before"])
        assert "longer_than_input" in c["flags"] and "unchanged" not in c["flags"]


def test_a_reply_that_repeats_the_scratchpad_is_flagged_unchanged():
    for c in _flags(_trace_run(lambda **kw: kw["scratchpad"], **PERIODIC)):
        assert "unchanged" in c["flags"]


@pytest.mark.parametrize("reply", [
    json.dumps({"thought": "keep going", "actions": [{"action": "search", "action_input": {"query": "x"}}],
                "final_answer": None}),
    "Key findings: ID-1\nTool results: none\nCurrent status: done\nFinal Answer: all identifiers collected",
    "The agent collected identifiers and timings from the knowledge base.",  # none of the three sections
    "Key findings: ID-1 and ERR_2\nCurrent status: still searching",          # no Tool results section
])
def test_a_reply_that_continues_the_conversation_or_lacks_a_section_is_flagged_not_a_summary(reply):
    for c in _flags(_trace_run(lambda **kw: reply, **PERIODIC)):
        assert c["status"] == "ok" and "not_a_summary" in c["flags"]


def test_a_custom_prompts_sections_are_the_ones_required():
    template = "Notes for {query}:\n{scratchpad}\nIdentifiers: ...\nNext: ...\n"
    good = "Identifiers: ID-1\nNext: fetch more"
    for c in _flags(_trace_run(lambda **kw: good, summarizer_prompt=template, **PERIODIC)):
        assert c["flags"] == []
    lacking = "Key findings: ID-1\nTool results: x\nCurrent status: y"
    for c in _flags(_trace_run(lambda **kw: lacking, summarizer_prompt=template, **PERIODIC)):
        assert c["flags"] == ["not_a_summary"]


def test_after_an_empty_summary_the_size_trigger_fires_every_iteration_and_each_call_is_wasted():
    cap = 2000
    record = _trace_run(lambda **kw: "", steps=16, summarize_every=None, max_scratchpad_chars=cap)
    over_cap = [e.iteration for e in record.events if e.kind == "iteration" and e.data["before_chars"] > cap]
    comps = annotate(record.events)
    assert len(over_cap) > 5 and over_cap == list(range(over_cap[0], over_cap[-1] + 1))
    assert [c["iteration"] for c in comps] == over_cap
    assert all(c["reason"] == "size" and c["status"] == "empty" for c in comps)
    assert all(c["flags"] == ["empty", "wasted_call"] for c in comps[1:])


def test_a_good_extractive_summary_has_no_flags():
    periodic = annotate(_trace_run(**PERIODIC).events)
    by_size = annotate(_trace_run(summarize_every=None, max_scratchpad_chars=4000).events)
    assert {c["reason"] for c in periodic} == {"periodic"} and {c["reason"] for c in by_size} == {"size"}
    for c in periodic + by_size:
        assert c["status"] == "ok" and c["flags"] == [], (c["iteration"], c["flags"])


# ── savings against a compression-off replay of the same path ───────────────

def _with_baseline(trace, **settings_):
    source = Source.for_trace(trace)
    record = _run(source, **settings_)
    trim = settings_.get("agent_trim_chars", 15_000)
    baseline = _run(source, **{**settings_, **NEVER, "agent_trim_chars": trim})
    return record, baseline


def _expected_savings(record, baseline):
    """Independently: tokens of the scratchpad each replay sent, summarizer tokens by iteration."""
    def sent(events):
        return {e.iteration: count_tokens(e.data["scratchpad"], "scripted") for e in events if e.kind == "iteration"}
    on, off = sent(record.events), sent(baseline.events)
    spent_at = {}
    for e in record.events:
        if e.kind == "compression":
            spent_at[e.iteration] = spent_at.get(e.iteration, 0) + e.data["tokens_in"] + e.data["tokens_out"]
    spent = saved = 0
    payback = None
    for iteration in sorted(on):
        spent += spent_at.get(iteration, 0)
        saved += off[iteration] - on[iteration]
        if payback is None and spent > 0 and saved - spent >= 0:
            payback = iteration
    return spent, saved, payback


@pytest.mark.parametrize("settings_, pays_back", [
    (dict(summarize_every=5), True),
    (dict(summarize_every=None, max_scratchpad_chars=3000), True),
    # The agent's own trim already keeps the context small: every-2 summaries cost more than they save.
    (dict(summarize_every=2, max_scratchpad_chars=2000, agent_trim_chars=6000), False),
], ids=["default", "size-only", "tight-with-trim"])
def test_savings_weigh_summarizer_tokens_against_context_tokens_saved(settings_, pays_back):
    record, baseline = _with_baseline(synthetic_trace(steps=30, seed=3), **settings_)
    spent, saved, payback = _expected_savings(record, baseline)
    s = savings(record.events, baseline.events)
    assert s.summarizer_tokens == spent > 0
    assert s.context_tokens_saved == saved > 0
    assert s.net_tokens_saved == saved - spent
    assert s.payback_iteration == payback
    assert (payback is not None) == pays_back


def test_savings_never_pay_back_with_tiny_caps_and_a_large_summary_budget():
    record, baseline = _with_baseline(synthetic_trace(steps=30, seed=3), summarize_every=1,
                                      max_scratchpad_chars=100, extractive_budget_chars=5000, agent_trim_chars=1000)
    spent, saved, payback = _expected_savings(record, baseline)
    s = savings(record.events, baseline.events)
    assert payback is None and s.payback_iteration is None
    assert s.net_tokens_saved == saved - spent < 0


def test_a_run_without_compressions_spends_and_saves_nothing():
    record, baseline = _with_baseline(synthetic_trace(steps=12, seed=3), **NEVER)
    s = savings(record.events, baseline.events)
    assert (s.summarizer_tokens, s.context_tokens_saved, s.net_tokens_saved, s.payback_iteration) == (0, 0, 0, None)


# ── facts still known, by the step that brought them ────────────────────────

def _expected_by_step(record):
    final = [e for e in record.events if e.kind == "iteration"][-1].data["scratchpad"]
    expected = [f.value for f in SCENARIOS[record.scenario].expected_facts] if record.scenario else []
    seen, rows = set(), {}
    for e in record.events:
        if e.kind != "tool_call":
            continue
        for fact in extract_facts(e.data["result"], expected):
            if fact.text not in seen:
                seen.add(fact.text)
                step = rows.setdefault(e.iteration, [0, 0])
                step[0] += 1
                step[1] += contains(final, fact.text)
    return [(step, seen_, known) for step, (seen_, known) in sorted(rows.items())]


def test_facts_by_step_counts_facts_where_first_seen_and_whether_the_final_context_holds_them():
    record = _run(Source.for_scenario("support-ticket"), summarize_every=2, max_scratchpad_chars=2000)
    rows = [(r.step, r.seen, r.known) for r in facts_by_step(record.events)]
    assert rows == _expected_by_step(record)
    assert any(known < seen for _, seen, known in rows)  # tight settings lose facts from early steps


def _off(source):
    return _run(source, summarize_every=None, max_scratchpad_chars=1_000_000, agent_trim_chars=1_000_000)


@pytest.mark.parametrize("source", [
    lambda: Source.for_trace(synthetic_trace(steps=25, seed=8)),
    lambda: Source.for_scenario("support-ticket"),
    lambda: Source.for_scenario("research-digest"),
    pytest.param(lambda: Source.for_scenario("log-triage")),
], ids=["synthetic", "support-ticket", "research-digest", "log-triage"])
def test_with_compression_off_and_a_huge_trim_every_fact_is_still_known(source):
    rows = facts_by_step(_off(source()).events)
    assert rows and sum(r.seen for r in rows) > 20
    assert [(r.step, r.known) for r in rows] == [(r.step, r.seen) for r in rows]


def test_facts_by_step_of_several_settings_agree_with_an_independent_count():
    trace = synthetic_trace(steps=18, seed=12)
    for every, trim in itertools.product([None, 3], [3000, 50_000]):
        record = _run(Source.for_trace(trace), summarize_every=every, max_scratchpad_chars=5000,
                      agent_trim_chars=trim)
        assert [(r.step, r.seen, r.known) for r in facts_by_step(record.events)] == _expected_by_step(record)
