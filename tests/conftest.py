"""Shared test setup: tests import helpers (fake_openai) from this folder."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))


# ── long jobs in AppTest (ui/live.py): AppTest never fires run_every, so a test reruns the page itself ──

def live_jobs_done(at) -> bool:
    """Every page job of the session (ui/state.LIVE_SLOTS) has ended and its page has taken it in."""
    from scratchpad_lab.ui.state import LIVE_SLOTS
    for slot in LIVE_SLOTS:
        job = at.session_state[slot.job] if slot.job in at.session_state else None
        if job is None:
            continue
        ended = at.session_state[slot.ended] if slot.ended in at.session_state else None
        if not job.finished or ended != job.serial:
            return False
    return True


def live_job(at, slot):
    """The job in `slot` (ui/state.Slot), or None."""
    return at.session_state[slot.job] if slot.job in at.session_state else None


def rerun_until(at, done=live_jobs_done, timeout_s: float = 120.0, what: str = "the page"):
    """Rerun `at` (as the live fragment's refresh would) until `done(at)`; fail after `timeout_s`.
    Between reruns it waits on a job still going for at most 0.05 s (it returns as soon as the job ends),
    never a fixed sleep. Returns `at`."""
    import time
    from scratchpad_lab.ui.state import LIVE_SLOTS
    deadline = time.monotonic() + timeout_s
    while True:
        assert not at.exception, [e.value for e in at.exception]
        if done(at):
            return at
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not get there within {timeout_s:g} s")
        going = [j for j in (live_job(at, s) for s in LIVE_SLOTS) if j is not None and not j.finished]
        if going:
            going[0].join(0.05)
        at.run()
