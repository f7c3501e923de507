"""The Lessons page driven like a learner: start each lesson, reach each pause point, Continue, and end
on the question with its answer folded. Presenter mode too. Bounded polling, never a fixed wait."""
import pytest
from streamlit.testing.v1 import AppTest

from conftest import APP, rerun_until
from scratchpad_lab.engine.run.lesson_runs import LESSONS
from scratchpad_lab.ui.presenter import PRESENTER_CSS
from scratchpad_lab.ui.state import LESSON_RUN


@pytest.fixture(autouse=True)
def no_run_left_behind():
    """A test that ends with its lesson held at a pause stops that run, so no worker thread outlives it."""
    opened = []
    yield opened
    for at in opened:
        run = at.session_state[LESSON_RUN] if LESSON_RUN in at.session_state else None
        if run is not None:
            run.stop()
            run.join(10)
            assert not run.running


def _open(number, opened):
    at = AppTest.from_file(APP, default_timeout=60)
    opened.append(at)
    at.query_params["lesson"] = str(number)
    at.run()
    at.select_slider(key="lesson_pace").set_value(0.0).run()
    return at


def _continue_button(at, stage):
    found = [b for b in at.button if b.key == f"lesson_continue_{stage}"]
    return found[0] if found else None


def _answer(at):
    return [e for e in at.expander if e.label == "Answer"]


def _wait(at, done, what: str):
    """Rerun the page (as its live refresh would) until `done(at)`, while the run makes progress."""
    return rerun_until(at, done, what=what, wait_on=lambda a: a.session_state[LESSON_RUN])


@pytest.mark.parametrize("number", [item.number for item in LESSONS])
def test_a_lesson_pauses_at_each_of_its_moments_and_ends_with_a_folded_answer(number, no_run_left_behind):
    item = LESSONS[number - 1]
    at = _open(number, no_run_left_behind)
    assert at.header[0].value == f"Lesson {number}: {item.title}"
    at.button(key="lesson_start").click().run()
    for stage, point in enumerate(item.pauses):
        _wait(at, lambda a: _continue_button(a, stage) is not None, f"the pause at {point.name}")
        heads = [m.value for m in at.markdown if m.value.startswith(f"**Pause {stage + 1} of {len(item.pauses)}")]
        assert heads and point.name in heads[0]
        assert point.callout in [m.value for m in at.markdown]
        assert any(t.value.startswith("What happened: ") for t in at.text)
        iteration = int(heads[0].rsplit("(iteration ", 1)[1].rstrip(")*"))
        # the run is shown as it was at the moment; for a trim, with what the trim left
        shown = [t.value for t in at.text if t.value.startswith("Scratchpad sent at iteration ")]
        assert shown and shown[0].startswith(f"Scratchpad sent at iteration {iteration}:")
        # ...and so is its status row: the moment's iteration, held ("paused") while the run waits there
        status = {m.label: str(m.value) for m in at.metric}
        assert status["iteration"].startswith(f"{iteration} of "), (status, iteration)
        assert status["status"] == ("paused" if not at.session_state[LESSON_RUN].finished else "in progress"), status
        if point.shows_trim:
            assert any(t.value.startswith(f"What the trim left: the scratchpad as iteration {iteration + 1} started")
                       for t in at.text)
            assert any(c.value.startswith("[...earlier steps trimmed...]") for c in at.code)
        run = at.session_state[LESSON_RUN]
        assert run.finished or run.paused  # the agent itself holds at the moment
        _continue_button(at, stage).click().run()
    _wait(at, lambda a: bool(_answer(a)), "the folded answer")
    # the ending: what was shown (with the iteration of each moment), the question, what to try next
    markdown = [m.value for m in at.markdown]
    assert item.shown in markdown and item.question in markdown and item.try_next in markdown
    heads = [h.value for h in at.subheader]
    assert heads[heads.index("What this lesson showed"):][:3] == ["What this lesson showed", "Your turn", "Try next"]
    # ...above the run's own long view, with the lesson said complete and the way on to the next one
    assert heads.index("Try next") < heads.index("Final answer")
    assert any(s.value.startswith(f"Lesson {number} complete") for s in at.success)
    ahead = [b for b in at.button if b.key == "lesson_next"]
    assert len(ahead) == 1
    moments = [t.value for t in at.text if t.value.startswith("- ")][-1].splitlines()
    assert [line.split(": iteration ")[0] for line in moments] == [f"- {p.name}" for p in item.pauses]
    answer = _answer(at)[0]
    assert not answer.proto.expanded and item.answer in [m.value for m in answer.markdown]
    assert not at.exception
    # the way on: the next lesson opens, ready to start (after the last, the first)
    following = [i for i in LESSONS if i.number > number] or LESSONS[:1]
    ahead[0].click().run()
    assert at.header[0].value == f"Lesson {following[0].number}: {following[0].title}"
    assert at.button(key="lesson_start").label == "Start lesson" and not at.exception


def test_the_loss_lesson_names_the_probe_question_that_flipped(no_run_left_behind):
    at = _open(4, no_run_left_behind)
    at.button(key="lesson_start").click().run()
    _wait(at, lambda a: _continue_button(a, 0) is not None, "the first pause")
    assert any(t.value.startswith("Probe questions answerable before this compression and not after it:")
               for t in at.text)


def test_switching_lesson_and_restarting_stop_the_previous_run(no_run_left_behind):
    at = _open(1, no_run_left_behind)
    at.select_slider(key="lesson_pace").set_value(1.5).run()
    at.button(key="lesson_start").click().run()
    first = at.session_state[LESSON_RUN]
    at.button(key="lesson_start").click().run()  # Restart
    assert at.session_state[LESSON_RUN] is not first
    first.join(10)
    assert first.finished and first.record.outcome == "stopped"


def test_presenter_mode_adds_the_fixed_style_and_a_way_out():
    # (AppTest drops the frame's own elements from its tree after a rerun, so each check is a first run.)
    at = AppTest.from_file(APP, default_timeout=60).run()
    # (the playground adds its own fixed layout style; presenter mode adds PRESENTER_CSS on top)
    assert all(h.proto.body != PRESENTER_CSS for h in at.get("html"))
    assert at.toggle(key="presenter_mode").value is False
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["presenter_mode"] = True
    at.run()
    html = [h for h in at.get("html") if h.proto.body == PRESENTER_CSS]
    assert len(html) == 1
    at.button(key="presenter_leave").click().run()
    assert at.session_state["presenter_mode"] is False
    assert all(h.proto.body != PRESENTER_CSS for h in at.get("html"))
