"""The trigger gauge's predictions hold against the package; the diff tells kept from dropped lines."""
from scratchpad_lab.config import RunConfig
from scratchpad_lab.diffing import as_diff_text, diff_lines
from scratchpad_lab.runner import Run, Source
from synthetic import synthetic_trace
from scratchpad_lab.triggers import next_periodic, trigger_state


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
