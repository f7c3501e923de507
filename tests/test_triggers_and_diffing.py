"""The trigger gauge's predictions hold against the package; the diff tells kept from dropped lines."""
import re
from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.analysis.diffing import as_diff_text, diff_lines
from scratchpad_lab.engine.run.runner import Run, Source
from synthetic import synthetic_trace
from scratchpad_lab.analysis.triggers import next_periodic, trigger_state


def _run(**settings):
    return Run(RunConfig.build(scenario=None, **settings), Source.for_trace(synthetic_trace(steps=30, seed=5))).run()


def test_next_periodic_iteration_is_where_the_package_fires_next():
    record = _run(summarize_every=4, max_scratchpad_chars=1_000_000)
    fired = [e.iteration for e in record.events if e.kind == "compression"]
    assert fired == [4, 8, 12, 16, 20, 24, 28]
    for k in range(1, 27):
        state = trigger_state(record.events, record.config, upto=k)
        assert state.iteration == k
        assert state.next_periodic == min(i for i in fired if i > k)


def test_size_trigger_is_disarmed_right_after_a_summary_and_rearms_when_the_scratchpad_grows():
    record = _run(summarize_every=None, max_scratchpad_chars=3000, extractive_budget_chars=2000)
    fired = {e.iteration: e for e in record.events if e.kind == "compression"}
    first = next(it for it, e in sorted(fired.items()) if e.data["status"] == "ok" and it + 1 not in fired)
    state = trigger_state(record.events, record.config, upto=first)
    assert state.last_fired_iteration == first and state.last_fired_reason == "size"
    assert not state.size_armed and state.last_summarized_chars == fired[first].data["after_chars"]
    later = trigger_state(record.events, record.config, upto=first + 1)
    assert later.chars > state.chars and later.size_armed  # the next step added text
    # ...and the package agrees: its next check sees the scratchpad as grown since the summary.
    check = next(e for e in record.events if e.kind == "trigger" and e.iteration == first + 2)
    assert check.data["size_armed"] and check.data["last_summarized_chars"] == state.last_summarized_chars


def test_periodic_trigger_off_has_no_next_iteration():
    assert next_periodic(7, None) is None
    assert next_periodic(0, 5) == 5 and next_periodic(5, 5) == 10 and next_periodic(9, 5) == 10


def test_diff_marks_dropped_kept_and_partly_kept_lines():
    before = "Step 1:\nObservation: order A-1001 arrived with a cracked screen on Monday\nThought: hmm\nplain"
    after = "[Summary]\nKey findings:\n- …order A-1001 arrived with a cracked…\n- plain\n- invented line"
    diff = diff_lines(before, after)
    status = dict((line, s) for s, line in diff.before)
    assert status["Observation: order A-1001 arrived with a cracked screen on Monday"] == "partial"
    assert status["Thought: hmm"] == "dropped"
    assert status["plain"] == "kept"
    after_status = dict((line, s) for s, line in diff.after)
    assert after_status["- invented line"] == "new"
    assert after_status["- …order A-1001 arrived with a cracked…"] == "carried"
    text = as_diff_text(diff.before)
    assert "- Thought: hmm" in text.splitlines() and "~ Observation: order A-1001" in text


# ── word level and aligned side by side ─────────────────────────────────────

def test_merged_words_reads_as_the_summary_with_dropped_words_in_place():
    from scratchpad_lab.analysis.diffing import merged_words

    before = "Step 2: order A-1001 phone, 499 EUR\nStep 3: shipping to 12 Baker St\n"
    after = "[Summarized up to step 3]\n- order A-1001 phone\n"
    pieces = merged_words(before, after)
    assert "".join(t for t, s in pieces if s != "dropped").replace("\n", "") == after.replace("\n", "")
    kept = [t for t, s in pieces if s == "kept"]
    assert any("order A-1001 phone" in t for t in kept), pieces
    dropped = " ".join(t for t, s in pieces if s == "dropped")
    assert "499 EUR" in dropped and "Baker St" in dropped
    assert ("[Summarized up to step 3]\n", "new") in pieces or any(
        s == "new" and "[Summarized up to step 3]" in t for t, s in pieces)


def test_a_few_common_words_inside_a_rewrite_are_not_shown_as_kept():
    from scratchpad_lab.analysis.diffing import merged_words

    pieces = merged_words("Thought: go to the step where the ticket is\n", "Summary up to the step 5\n")
    assert [s for _, s in pieces] == ["dropped", "new"], pieces


def test_side_by_side_lines_up_unchanged_lines_and_marks_each_line_once():
    from scratchpad_lab.analysis.diffing import aligned_lines, aligned_text

    before = "alpha line one\nbeta line two is long enough\ngamma three\ndelta four\n"
    after = "[Summarized up to step 4]\nalpha line one\nbeta line two is long\ndelta four\n"
    rows = aligned_lines(before, after)
    left, right = aligned_text(rows)
    assert len(left.split("\n")) == len(right.split("\n")) == len(rows)
    same = [(r.before, r.after) for r in rows if r.before is not None and r.before == r.after]
    assert ("alpha line one", "alpha line one") in same and ("delta four", "delta four") in same
    for line in left.split("\n") + right.split("\n"):
        assert sum(line.startswith(m) for m in ("- ", "~ ", "+ ")) <= 1
        assert not re.match(r"^[-~+] [-~+] ", line), line
    marks = {r.before: r.before_mark for r in rows if r.before}
    assert marks["beta line two is long enough"] == "~" and marks["gamma three"] == "-"
    assert any(r.after == "[Summarized up to step 4]" and r.after_mark == "+" for r in rows)


# ── charts that agree ───────────────────────────────────────────────────────

def test_both_caps_are_labelled_even_when_equal_and_a_far_cap_is_named_not_drawn():
    from scratchpad_lab.ui.charts import caps_frame

    same = caps_frame(RunConfig.build(max_scratchpad_chars=15_000, agent_trim_chars=15_000), top=6_000)
    assert list(same["label"]) == ["both caps: 15,000"] and bool(same["drawn"].iloc[0])
    two = caps_frame(RunConfig.build(max_scratchpad_chars=4_000, agent_trim_chars=15_000), top=6_000)
    assert list(two["label"]) == ["compress when over: 4,000", "agent's own limit: 15,000"]
    off = caps_frame(RunConfig.build(max_scratchpad_chars=1_000_000, agent_trim_chars=15_000), top=6_000)
    assert off["label"].iloc[0].startswith("compress when over: 1,000,000") and not off["drawn"].iloc[0]
    # the agent's 15,000 over a run that peaks at 2,800 (the Tight preset) would squash the sawtooth: named only
    tight = caps_frame(RunConfig.build(max_scratchpad_chars=2_000, agent_trim_chars=15_000), top=2_800)
    assert list(tight["label"]) == ["compress when over: 2,000", "agent's own limit: 15,000 (off the chart)"]
    assert list(tight["drawn"]) == [True, False]


def test_every_event_kind_has_one_colour_used_by_every_chart():
    from scratchpad_lab.model.config import RunConfig
    from scratchpad_lab.ui.charts import EVENT_KINDS, event_kind, event_scale, marks_frame

    assert len({c for _, c in EVENT_KINDS.values()}) == len(EVENT_KINDS) == 7  # the review kinds too
    assert event_scale().domain == [label for label, _ in EVENT_KINDS.values()]
    record = Run(RunConfig.build(scenario="support-ticket", summarize_every=3, agent_trim_chars=2_000)).run()
    marks = marks_frame(record.events)
    kinds = {event_kind(e) for e in record.events} - {None}
    assert {"periodic", "trim"} <= kinds
    assert set(marks["event"]) == {EVENT_KINDS[k][0] for k in kinds}
    # events sit on the line: each mark's size is one of the line's points at its iteration
    points = {(e.iteration, e.data.get("before_chars")) for e in record.events if e.kind == "iteration"}
    assert all((int(r.iteration), int(r.size)) in points for r in marks.itertuples())


def test_every_size_axis_reads_whole_numbers_with_thousands_separators_even_on_an_empty_scratchpad():
    """Left to Vega, a run whose scratchpad was still empty (every size 0) read "0.000000" at each tick."""
    from scratchpad_lab.ui.charts import overlay_chart, size_chart
    from scratchpad_lab.ui.strategies_chart import chart as strategies_chart

    def y_axes(spec):
        layers = spec.get("layer", [spec])
        return [layer["encoding"]["y"] for layer in layers if "axis" in layer.get("encoding", {}).get("y", {})]

    record = _run(summarize_every=4)
    first = [e for e in record.events if e.iteration is None or e.iteration <= 1]  # the scratchpad is empty
    for events in (record.events, first):
        [y] = y_axes(size_chart(events, record.config).to_dict())
        assert (y["title"], y["axis"]["format"], y["axis"]["tickMinStep"]) == ("scratchpad chars", ",d", 1)
    [y] = y_axes(overlay_chart({"a": record.events, "b": first}, "tokens").to_dict())
    assert y["axis"]["format"] == ",d"
    [y] = y_axes(strategies_chart([]).to_dict())
    assert (y["title"], y["axis"]["format"]) == ("context tokens sent", ",d")


def test_heatmap_labels_contrast_with_their_cell_and_cost_uses_its_own_ramp():
    from scratchpad_lab.ui.charts import COST_RAMP, GOOD_RAMP, label_color, luminance, ramp_color

    assert set(GOOD_RAMP).isdisjoint(COST_RAMP)
    for ramp in (GOOD_RAMP, COST_RAMP):
        for t in (0.0, 0.25, 0.5, 0.75, 1.0):
            bg = ramp_color(ramp, t)
            fg = label_color(bg)
            hi, lo = sorted((luminance(bg), luminance(fg)), reverse=True)
            assert (hi + 0.05) / (lo + 0.05) >= 4.5, (ramp, t, bg, fg)
