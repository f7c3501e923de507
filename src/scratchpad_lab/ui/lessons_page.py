"""The Lessons page: pick a lesson, read what it shows, run it, and stop at the moments that matter.

A lesson's run is an ordinary paced Run (the real agent and middleware), a job on a worker thread. The
one live fragment (ui/live.py, with the run's progress and a Stop button) reads its log while it runs
and looks for the lesson's next pause point in the events; when it is there, the agent is paused (its
own pause(): it holds before its next step), the live refresh stops, and the run is shown as it was at
that moment, with a callout and the iteration's narration. Continue resumes the agent and waits for the
next moment. The worker never calls st.*.
Lesson text is ours (markdown); anything from the run (narration can quote a summarizer's error) is
shown with st.text / st.code.
"""
from __future__ import annotations

import streamlit as st

from scratchpad_lab.engine.tasks import (DEFAULT_PACE_S, LESSONS_DIR_ENV, Lesson, RunRequest, catalogue, find_moment,
                                         lesson, probe_flips)
from scratchpad_lab.engine.tasks import run as run_task
from scratchpad_lab.analysis.narrate import scratchpad_at_start, sentence_for
from scratchpad_lab.model.config import every_text
from scratchpad_lab.model.scenarios import get_scenario
from scratchpad_lab.ui.markup import escape
from scratchpad_lab.ui.state import (LESSON_AT, LESSON_GOTO, LESSON_JOB, LESSON_OF, LESSON_PACE, LESSON_PICK, LESSON_RUN,
                                     LESSON_STAGE, init_session)
from scratchpad_lab.ui import live
from scratchpad_lab.ui.builtin_notice import builtin_ready
from scratchpad_lab.ui.style import PAGE_CSS
from scratchpad_lab.ui.sidebar_settings import SETTING_LABELS, SUMMARIZERS
from scratchpad_lab.ui.view import DIFF_BOX, as_of, newest_compression, render_run

IDLE_STOP_S = 900.0  # a learner may read a callout for a while; a tab gone this long stops the run
PACES = [0.0, 0.2, 0.4, 0.6, 1.0, 1.5]


def _settings_lines(item: Lesson) -> str:
    """The lesson's settings in the Playground's words for them (sidebar_settings), never a field's raw name."""
    c = item.config()
    kind = c.summarizer.kind
    summarizer = SUMMARIZERS.get(kind) or SUMMARIZER_WORDS.get(kind, kind)
    return " · ".join([f"Scenario: {get_scenario(item.scenario).title}",
                       f"{SETTING_LABELS['summarize_every']}: {every_text(c.summarize_every)}",
                       f"{SETTING_LABELS['max_scratchpad_chars']}: {c.max_scratchpad_chars:,}",
                       f"{SETTING_LABELS['agent_trim_chars']}: {c.agent_trim_chars:,}",
                       f"Summarizer: {summarizer}",
                       f"{SETTING_LABELS['extractive_budget_chars']}: {c.summarizer.budget_chars:,}"])


# A lesson may pick a summarizer the Playground's sidebar does not offer
SUMMARIZER_WORDS = {"silent": "the silent stand-in (replies nothing)"}


def _stop_run() -> None:
    run = st.session_state[LESSON_RUN]
    if run is not None and not run.finished:
        run.stop()
    st.session_state[LESSON_RUN] = None
    st.session_state[LESSON_OF] = None
    st.session_state[LESSON_STAGE] = 0
    st.session_state[LESSON_AT] = False


def _start(number: int) -> None:
    _stop_run()
    item = lesson(number)
    pace = st.session_state.get(LESSON_PACE, DEFAULT_PACE_S)
    live.start(LESSON_JOB, run_task(RunRequest(item.config(step_delay_s=float(pace)), pace=True, idle_stop_s=IDLE_STOP_S,
                                          name=f"Lesson {number}: {item.title}")))
    st.session_state[LESSON_OF] = number


def _continue() -> None:
    st.session_state[LESSON_STAGE] += 1
    st.session_state[LESSON_AT] = False
    run = st.session_state[LESSON_RUN]
    if run is not None:
        run.resume()


def _callout(item: Lesson, moment, events, stage: int) -> None:
    """The pause on one screen: what to look at and the way on (Continue) beside the moment itself (what the
    trim left, or the newest compression as it was then); the whole run view follows under it."""
    with st.container(border=True, key=f"lesson_callout_{stage}"):
        words, shown = st.columns([5, 6], gap="medium")
        with words:
            st.markdown(f"**Pause {stage + 1} of {len(item.pauses)}: {moment.point.name} (iteration {moment.iteration})**")
            st.markdown(moment.point.callout)
            why = sentence_for(events, moment.iteration)
            if why:
                st.text("What happened: " + why)
            if item.show_probes:
                flips = probe_flips(events, moment.iteration)
                if flips:
                    st.text("Probe questions answerable before this compression and not after it:\n"
                            + "\n".join("- " + q for q in flips))
            if st.button("Continue", type="primary", key=f"lesson_continue_{stage}"):
                _continue()
                st.rerun()  # the whole page: a click inside the fragment would rerun only the fragment, refresh off
        with shown, st.container(key=f"lesson_moment_{stage}"):
            left = scratchpad_at_start(events, moment.iteration + 1) if moment.point.shows_trim else None
            if left is not None:
                st.text(f"What the trim left: the scratchpad as iteration {moment.iteration + 1} started "
                        f"({len(left):,} chars)")
                st.code(left, language=None, height=220, wrap_lines=True)
            else:
                with st.container(height=DIFF_BOX, border=False):
                    newest_compression(as_of(events, moment.show_upto), f"lesson_moment_{stage}")


def _next(number: int) -> None:
    """Next lesson: the run ends and the picker moves, in the page's next run (the picker, a widget outside this
    fragment, may already be drawn in this one)."""
    _stop_run()
    st.session_state[LESSON_GOTO] = number


def _ending(item: Lesson, events) -> None:
    """The lesson's end, on the screen the run ends on: complete, what it showed, the question, and the way on."""
    numbers = [entry.number for entry in catalogue().lessons]
    later = [n for n in numbers if n > item.number]
    with st.container(border=True, key="lesson_ending"):
        done, ahead = st.columns([3, 2], vertical_alignment="center")
        done.success(f"Lesson {item.number} complete.", icon=":material/check_circle:")
        with ahead:  # the way on, first: the rest of the ending is read under it
            goes_to = later[0] if later else numbers[0]
            label = f"Next lesson: {goes_to}. {lesson(goes_to).title}" if later else \
                f"That was the last lesson: back to lesson {goes_to}"
            if st.button(label, type="primary" if later else "secondary", key="lesson_next"):
                _next(goes_to)
                st.rerun()  # the whole page (the click ran only this fragment): the picker and the header too
        st.subheader("What this lesson showed")
        st.markdown(item.shown)
        found = [find_moment(item, i, events) for i in range(len(item.pauses))]
        st.text("\n".join(f"- {p.name}: " + (f"iteration {m.iteration}" if m else "not reached in this run")
                          for p, m in zip(item.pauses, found)))
        st.subheader("Your turn")
        st.markdown(item.question)
        with st.expander("Answer"):
            st.markdown(item.answer)
        st.subheader("Try next")
        st.markdown(item.try_next)

def _progress(run, moment=None) -> None:
    """The run's progress and Stop above the lesson. Held at a pause, it names the pause's iteration, as the status
    row under it does (the agent may have begun the next step before it held)."""
    if run.finished:
        return
    if moment is None:
        live.controls(LESSON_JOB, run)
        return
    total = max(run.progress().total, 1)
    live.controls(LESSON_JOB, run, text=f"paused at iteration {moment.iteration} of at most {total}",
                  fraction=moment.iteration / total)


def _lesson_view(run, number: int) -> None:
    item = lesson(number)
    if run is None or st.session_state[LESSON_OF] != number:
        return
    events = run.log.snapshot()
    stage = st.session_state[LESSON_STAGE]
    while stage < len(item.pauses):
        moment = find_moment(item, stage, events)
        if moment is None:
            if not run.finished:
                break
            st.text(f"This run never reached pause {stage + 1} ({item.pauses[stage].name}); "
                    "the lesson goes on without it.")
            stage += 1
            st.session_state[LESSON_STAGE] = stage
            continue
        if not st.session_state[LESSON_AT]:  # just reached: hold the agent and stop the live refresh
            st.session_state[LESSON_AT] = True
            run.pause()
            st.rerun()
        _progress(run, moment)
        _callout(item, moment, events, stage)
        # frozen on the moment: its iteration, its clock, and "paused" (the lesson holds the agent there)
        render_run(events, run.config, live=not run.finished, elapsed_s=run.elapsed_s(),
                   key=f"lesson_view_{stage}", upto=moment.show_upto,
                   status=None if run.finished else "paused")
        return
    _progress(run)
    if stage < len(item.pauses):
        st.text(f"Running… the lesson will pause at {item.pauses[stage].name}.")
    elif not run.finished:
        st.text("Running to the end…")
    if run.finished:
        _ending(item, events)  # above the run, which is long: the end and the way on are where the run ends
    render_run(events, run.config, live=not run.finished, elapsed_s=run.elapsed_s(),
               key="lesson_view_live")


def page() -> None:
    init_session()
    st.html(PAGE_CSS)  # the Playground's tighter page: a pause's callout and its moment share one screen
    st.title("Scratchpad Lab · Lessons")
    found = catalogue()
    extra = sum(1 for item in found.lessons if item.origin == "extra")
    run = st.session_state[LESSON_RUN]
    running = run is not None and st.session_state[LESSON_OF] is not None
    if not running:  # a lesson under way keeps its pauses high on the screen: the page's words wait for its end
        st.caption(f"{len(found.lessons) - extra} short guided lessons" + (f", and {extra} from this server's own "
                   "folder" if extra else "") + ". Each runs a scenario with the real agent and the real middleware, "
                   "and pauses at the moments that matter, found in the run's own events.")
    for problem in found.problems:  # an operator's file: named with the field to fix; the others still work
        st.warning(f"A lesson from `{LESSONS_DIR_ENV}` could not be loaded: {escape(problem)}",
                   icon=":material/error:")
    numbers = [item.number for item in found.lessons]
    if st.session_state.get(LESSON_GOTO) is not None:
        st.session_state[LESSON_PICK] = st.session_state.pop(LESSON_GOTO)
    if st.session_state.get(LESSON_PICK) not in numbers:
        st.session_state[LESSON_PICK] = numbers[0]
    number = st.radio("Lesson", numbers, key=LESSON_PICK, horizontal=True,
                      format_func=lambda n: f"{n}. {lesson(n).title}")
    item = lesson(number)
    mine = run is not None and st.session_state[LESSON_OF] == number
    (st.subheader if mine else st.header)(f"Lesson {item.number}: {item.title}")
    scenario = get_scenario(item.scenario)
    with st.expander("What this lesson shows, and its settings", expanded=not mine):
        st.markdown(item.explanation)
        st.caption(f"Scenario: {scenario.title}. {item.settings_note}")
        if item.origin == "extra":
            st.text(f"From this server's lessons folder: {item.source}")
        st.text("Settings: " + _settings_lines(item))
    ready = item.settings.get("summarizer") != "builtin" or builtin_ready(fetch=True)  # a lesson may pick
    left, right = st.columns([1, 3])
    label = "Restart lesson" if mine else "Start lesson"
    left.button(label, type="primary", key="lesson_start", on_click=_start, args=(number,), disabled=not ready)
    right.select_slider("Pace: seconds per scripted step", PACES, key=LESSON_PACE,
                        help="Slower gives time to watch the scratchpad grow between pauses.")
    if not mine:
        if run is not None:
            st.text(f"Lesson {st.session_state[LESSON_OF]} is still open; starting this one stops it.")
        return
    # held at a pause point: no refresh until Continue; the end of the run reruns the page once
    # its progress and Stop are drawn by the view (_progress), which knows the moment on show
    live.show(LESSON_JOB, lambda job: _lesson_view(job, number), hold=st.session_state[LESSON_AT], controls=False)
