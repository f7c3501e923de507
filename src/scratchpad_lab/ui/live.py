"""The one live view of a long job (engine/jobs.py): progress, a Stop button, and the page's own drawing of
the job, in an `st.fragment(run_every=...)` that refreshes while the job runs and not otherwise.

Every page that runs long work uses it (the Playground's run, a lesson, the prompt matrix, Compare and the
sweep, Strategies, the loss panel's replay with compression off, an uploaded trace's replay). Each page
keeps its job in a `Slot` (ui/state.py): one job at a time per slot, and the rest of the page stays usable
while it runs, since only the fragment refreshes. Two things keep many tabs at once healthy:
- the refresh backs off: when a render takes longer than the interval, the interval grows (to twice the
  render time, at most MAX_REFRESH_S), and comes back down once renders are quick again. Streamlit reads
  run_every where the fragment is defined, so a change of interval costs one full rerun;
- the end of a job is never lost: when the job ends, the fragment hands it to the page (`on_end`) once and
  calls `st.rerun()`; until a full run has drawn the page after the end (`Slot.needs_full`), every tick
  asks again, so a rerun request dropped under load is simply asked for again. The next full run defines
  the fragment with run_every=None. (After a Stop click the fragment first says the job stopped and lets
  that run finish, since a full run started at once would drop what it drew; the next tick asks.)
A job whose tab has closed is stopped once Streamlit drops its session (`_stop_with_session`).
The worker never calls `st.*`: the fragment only reads the job.
"""
from __future__ import annotations

import time
from typing import Any, Callable, Optional, Tuple, Type

import streamlit as st

from scratchpad_lab.engine.jobs import USER_STOP, Job, stop_when_gone
from scratchpad_lab.ui.state import Slot

LIVE_REFRESH_S = 0.4
MAX_REFRESH_S = 5.0
STOP_WAIT_S = 1.0  # Stop waits this long at most for the job to end, so the same rerun can show it ended

Body = Callable[[Optional[Any]], None]   # draws the page's view of the job (None: no job in the slot)


def refresh_interval(render_s: float, current: float, base: float = LIVE_REFRESH_S,
                     most: float = MAX_REFRESH_S) -> float:
    """The live view's next refresh interval, given how long the last render took: at least twice the
    render time while renders take longer than the interval; halved back towards `base` once a render
    takes under an eighth of it (the gap keeps it from see-sawing)."""
    if render_s > current:
        return round(min(most, max(current * 2, render_s * 2)), 2)
    if current > base and render_s * 8 < current:
        return round(max(base, current / 2), 2)
    return current


def current(slot: Slot) -> Optional[Job]:
    return st.session_state.get(slot.job)


def busy(slot: Slot) -> bool:
    """Whether the slot's job is still going, or has ended and the page has not taken it in yet (a page
    draws its start button disabled meanwhile, and no other job starts in the slot)."""
    job = current(slot)
    return job is not None and (not job.finished or st.session_state.get(slot.ended) != job.serial)


def running(slot: Slot) -> bool:
    """Whether the slot's job is still working (not merely waiting for its page to take its end in)."""
    job = current(slot)
    return job is not None and not job.finished


def settle(slot: Slot, on_end: Optional[Callable[[Any], None]] = None) -> bool:
    """Free the slot of a job that has ended but was never taken in (its page was not drawn after it ended, so its
    fragment never saw the end): `on_end(job)` takes its result as the page would (a failed job is dropped), and a
    new job may start. False while the job is still going: nothing is changed."""
    job = current(slot)
    if job is None or not busy(slot):
        return True
    if not job.finished:
        return False
    st.session_state[slot.ended] = job.serial
    st.session_state[slot.needs_full] = False
    if on_end is not None and job.error is None:
        on_end(job)
    return True


def start(slot: Slot, job: Job) -> bool:
    """Start `job` as the slot's job, unless one is still going (one at a time); True if it started.
    Called in a button's callback, the same run draws it; called in the page's body, the page calls
    st.rerun() after it so the fragment is defined with its refresh."""
    if busy(slot):
        return False
    st.session_state[slot.job] = job.start()
    _stop_with_session(job)
    st.session_state[slot.refresh] = LIVE_REFRESH_S
    st.session_state.pop(slot.note, None)
    return True


def _stop_with_session(job: Job) -> None:
    """A closed tab stops its jobs: once Streamlit has let go of this session (its websocket closed and not
    back within server.disconnectedSessionTTL, after which the session is dropped anyway), the job is
    stopped, and a search's worker processes with it. Under AppTest there is no runtime to ask."""
    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None or not Runtime.exists():
        return
    runtime, session = Runtime.instance(), ctx.session_id
    grace = float(st.get_option("server.disconnectedSessionTTL") or 30)
    stop_when_gone(job, lambda: runtime.is_active_session(session), grace_s=grace)


def show(slot: Slot, body: Optional[Body] = None, *, on_end: Optional[Callable[[Any], None]] = None,
         hold: bool = False, controls: bool = True, problem: str = "This could not be done.",
         errors: Tuple[Type[BaseException], ...] = (), say_end: bool = True) -> None:
    """Draw the slot's live fragment (call it from the page's script, once per slot).

    `body(job)` draws the page's own view of the job, or of nothing (None); `controls` adds the progress bar,
    what the job is doing and a Stop button above it while the job runs. `on_end(job)` takes a finished
    job's result into the page's state (it may clear the slot). `hold`: no refresh now (a lesson waiting at
    a pause point). A job that failed with one of `errors` is shown once as `problem` with its message as
    text; any other failure is raised, as a bug. A stopped job is said once."""
    st.session_state[slot.needs_full] = False  # this is a full run: it draws whatever job has ended
    _say(st.session_state.pop(slot.note, None), problem)
    going = busy(slot) and not hold
    interval = st.session_state.get(slot.refresh) or LIVE_REFRESH_S
    st.session_state[slot.full_run] = True  # the fragment runs inside this full run now (not on its own)
    try:
        st.fragment(run_every=interval if going else None)(_tick)(slot, body, on_end, hold, controls, errors,
                                                                  say_end, problem)
    finally:
        st.session_state[slot.full_run] = False


def _say(note: Optional[Tuple[str, str]], problem: str) -> None:
    """How the last job ended, when it was stopped or failed."""
    if note is not None:
        kind, text = note
        if kind == "error":
            st.error(problem)
        st.text(text)  # may quote a file or a server: plain text


def _tick(slot: Slot, body: Optional[Body], on_end, hold: bool, controls: bool, errors, say_end: bool,
          problem: str) -> None:
    started = time.monotonic()
    if st.session_state.get(slot.needs_full):
        st.rerun()  # a job ended and the full rerun that draws it has not happened: ask again
    job = current(slot)
    if controls and job is not None and not job.finished:
        _controls(slot, job)
    if body is not None:
        body(job)
    if job is None:
        return
    if job.finished:
        if st.session_state.get(slot.ended) != job.serial:
            st.session_state[slot.ended] = job.serial
            _end(slot, job, on_end, errors, say_end)
            st.session_state[slot.needs_full] = True
            stopped_now = st.session_state.pop(slot.stop_asked, None) == job.serial
            if stopped_now and not st.session_state.get(slot.full_run):
                # Stopped by this click, in a fragment run: say so now and let the run finish, so what it drew
                # reaches the browser (a full run starting now would drop it); the next tick asks for it.
                _say(st.session_state.get(slot.note), problem)
                return
            st.rerun()
        return
    if hold:
        return
    now = st.session_state.get(slot.refresh) or LIVE_REFRESH_S
    following = refresh_interval(time.monotonic() - started, now)
    if following != now:
        st.session_state[slot.refresh] = following
        st.rerun()  # run_every is read where the fragment is defined: a full run sets the new interval


def _controls(slot: Slot, job: Job) -> None:
    controls(slot, job)


def controls(slot: Slot, job: Job, text: Optional[str] = None, fraction: Optional[float] = None) -> None:
    """The job's progress bar, what it is doing and its Stop button. A page that shows the job as it was at an
    earlier moment (a lesson held at a pause) says that moment instead (`text`, `fraction`), so the line above the
    view and the view name the same step; it passes controls=False to `show` and calls this itself."""
    progress = job.progress()
    stopping = job.stop_flag.is_set()
    bar, stop = st.columns([6, 1], vertical_alignment="center")
    with bar:
        st.progress(min(max(progress.fraction if fraction is None else fraction, 0.0), 1.0))
        # our words; a label may quote a name: plain text
        st.text("Stopping…" if stopping else (text or progress.text))
    stop.button("Stop", key=slot.stop_button, disabled=stopping, on_click=_stop, args=(slot, job))


def _stop(slot: Slot, job: Job) -> None:
    """The Stop button: ask the job to stop, and give it a moment to end (it checks its flag between
    steps), so the rerun this click makes already finds it ended instead of waiting for the next tick."""
    st.session_state[slot.stop_asked] = job.serial
    job.stop()
    job.join(STOP_WAIT_S)


def _end(slot: Slot, job: Job, on_end, errors, say_end: bool) -> None:
    if job.error is not None and not isinstance(job.error, errors):
        raise job.error  # a bug, not something the user can change: shown as one
    if say_end and job.error is not None:
        st.session_state[slot.note] = ("error", str(job.error))
    elif say_end and job.stopped and job.stop_flag.reason == USER_STOP:  # (one the page stopped says nothing)
        progress = job.progress()
        st.session_state[slot.note] = ("stopped", f"Stopped at {progress.done} of {progress.total}, as you asked: "
                                                  "nothing from that job was kept.")
    if on_end is not None:
        on_end(job)
