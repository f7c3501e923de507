"""Lessons: every pause point is found in a real run's events, and moves when the run does."""
import pytest

from scratchpad_lab.model.events import Event
from scratchpad_lab.engine.run.lesson_runs import LESSONS, find_moment, first_disarmed, lesson, nth_compression, probe_flips
from scratchpad_lab.analysis.metrics import compressions
from scratchpad_lab.engine.run.runner import Run


@pytest.fixture(scope="module")
def runs():
    return {item.number: Run(item.config(step_delay_s=0.0)).run() for item in LESSONS}


@pytest.mark.parametrize("number", [item.number for item in LESSONS])
def test_each_pause_point_of_each_lesson_happens_in_its_run_in_order(runs, number):
    item, record = lesson(number), runs[number]
    found = [find_moment(item, i, record.events) for i in range(len(item.pauses))]
    assert all(m is not None for m in found), [p.name for p, m in zip(item.pauses, found) if m is None]
    iterations = [m.iteration for m in found]
    # in order, and never two pauses on one iteration (they would show the same view twice)
    assert iterations == sorted(set(iterations)), iterations
    assert item.question.strip() and item.answer.strip() and item.shown.strip() and item.try_next.strip()


@pytest.mark.parametrize("number", [item.number for item in LESSONS])
def test_no_pause_point_is_found_before_its_moment_has_happened(runs, number):
    item, record = lesson(number), runs[number]
    for i in range(len(item.pauses)):
        moment = find_moment(item, i, record.events)
        # the run as the page saw it while it was still at the previous iteration
        earlier = [e for e in record.events if e.iteration is None or e.iteration < moment.iteration]
        assert find_moment(item, i, earlier) is None


def test_moments_are_read_from_the_events_not_fixed_step_numbers():
    item = lesson(1)
    for every in (3, 4):
        record = Run(item.config(step_delay_s=0.0).replace(summarize_every=every)).run()
        assert find_moment(item, 0, record.events).iteration == every
        assert find_moment(item, 2, record.events).iteration == 2 * every


def test_the_disarmed_moment_is_an_over_cap_iteration_where_nothing_fired(runs):
    record = runs[2]
    k = first_disarmed(record.events)
    check = [e.data for e in record.events if e.kind == "trigger" and e.iteration == k][0]
    assert check["over_cap"] and not check["size_armed"] and not check["fired"]
    assert k not in [c["iteration"] for c in compressions(record.events)]


def test_the_loss_lesson_finds_a_probe_that_stops_being_answerable(runs):
    record = runs[4]
    assert len(lesson(4).pauses) == 1  # its lost fact and its probe flip are one moment: one pause
    k = find_moment(lesson(4), 0, record.events).iteration
    flips = probe_flips(record.events, k)
    assert flips
    comp = [c for c in compressions(record.events) if c["iteration"] == k][0]
    assert comp["status"] == "ok"


def test_the_failing_summarizer_lesson_uses_the_silent_stand_in_and_shows_repeated_empty_replies(runs):
    record = runs[5]
    comps = compressions(record.events)
    assert comps and all(c["status"] == "empty" and c["model"].startswith("silent stand-in") for c in comps)
    first, second = (find_moment(lesson(5), i, record.events).iteration for i in range(2))
    assert second == first + 1


def test_a_finder_returns_none_on_a_run_without_the_moment():
    events = [Event("trigger", 0.0, 1, {"chars": 0, "fired": False})]
    assert nth_compression(1, reason="periodic")(events) is None
    assert first_disarmed(events) is None
    with pytest.raises(KeyError):
        lesson(6)
