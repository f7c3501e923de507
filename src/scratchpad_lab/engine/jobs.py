"""One way to run long work: a `Job` runs a function on a worker thread, with progress and a cooperative stop.

Streamlit-free, so it can be unit-tested without a Streamlit runtime and the CLI can use the same work
functions without a thread. The page side (`ui/live.py`) only reads a job (`progress()`, `finished`,
`result`, `error`) and asks it to `stop()`; the worker never touches the page.

- start: `Job(work).start()` runs `work(report, stop)` on a daemon thread. `Job.start` is the one place
  any long work of the lab gets its thread (a run, a lesson, the prompt matrix, Compare, the sweep,
  Strategies, the compression-off replay, an uploaded trace's replay), so a check that must hold before
  any job starts goes there.
- run here: `job.run_here()` runs the same work in the caller's thread and returns its result (raising what it
  raised): the CLI runs a task's job this way, so a command and a page share one code path.
- progress: the work calls `report(done, total, text)`; `progress()` returns the last report.
- result: what the work returned (`result`), or the exception it raised (`error`).
- stop: `stop()` sets the job's `StopFlag`. Stopping is cooperative: long loops call `stop.check()`
  between steps (it raises `Stopped`), a replay checks between iterations (the runner's observer reads
  the same flag), and a model call in flight is abandoned. Work that ends by raising `Stopped` ends
  the job as "stopped".

`Run` (engine/run/runner.py) and the prompt lab's `Matrix` are jobs: they subclass `Job`.
"""
from __future__ import annotations

import itertools
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional

PENDING, RUNNING, DONE, STOPPED, FAILED = "pending", "running", "done", "stopped", "error"
ENDED = (DONE, STOPPED, FAILED)

Report = Callable[[int, Optional[int], Optional[str]], None]   # report(done, total, what it is doing now); None: as before
USER_STOP = "stopped by the user"          # the reason a Stop button gives
_SERIALS = itertools.count(1)


class Stopped(Exception):
    """Raised by work that was asked to stop (by `StopFlag.check`, or by the work itself)."""


class StopFlag(threading.Event):
    """A threading.Event with the reason it was set. Anything that waits on an Event can wait on it
    (the runner's pacing and its abandoned model calls do), so one flag stops every layer of a job."""

    def __init__(self) -> None:
        super().__init__()
        self.reason: Optional[str] = None

    def request(self, reason: str = USER_STOP) -> None:
        if not self.is_set():
            self.reason = reason
            self.set()

    def check(self) -> None:
        """Raise Stopped if a stop was asked for: called by long loops between their steps."""
        if self.is_set():
            raise Stopped(self.reason or "stopped")


@dataclass(frozen=True)
class Progress:
    done: int
    total: int              # 0: not known yet
    text: str = ""          # a short sentence: what the job is doing now

    @property
    def fraction(self) -> float:
        return min(1.0, max(0.0, self.done / self.total)) if self.total > 0 else 0.0


class Job:
    """Long work on a worker thread: start, progress, result, stop. Thread-safe reads from any thread."""

    def __init__(self, work: Optional[Callable[[Report, StopFlag], Any]] = None, *, name: str = "scratchpad-lab-job",
                 total: int = 0, text: str = "", stop: Optional[StopFlag] = None, tag: Any = None) -> None:
        """`name` names the worker thread; `tag` is the caller's note of what the job is for (which record
        a replay belongs to, say), kept with the job for whoever collects its result."""
        self._work = work
        self.serial = next(_SERIALS)  # tells one job from the next (an id() can be reused)
        self.tag = tag
        self.thread_name = name
        self.stop_flag = stop if stop is not None else StopFlag()
        self.status = PENDING
        self.result: Any = None
        self.error: Optional[BaseException] = None
        self._progress = Progress(0, total, text)
        self._lock = threading.Lock()
        self._thread: Optional[threading.Thread] = None
        self._began: Optional[float] = None
        self._ended: Optional[float] = None

    # ── the page side ────────────────────────────────────────────────────
    def start(self) -> "Job":
        """Run the work on a new daemon thread; returns self. The one place long work gets a thread."""
        if self._thread is not None:
            raise RuntimeError(f"the job {self.thread_name!r} was already started")
        self._began = time.monotonic()
        self.status = RUNNING
        self._thread = threading.Thread(target=self._main, name=self.thread_name, daemon=True)
        self._thread.start()
        return self

    def run_here(self) -> Any:
        """Run the work in this thread (the CLI's way: no worker thread, nothing to poll) and return its
        result; an exception the work raised is raised here, after the job has recorded how it ended."""
        if self._thread is not None or self.status != PENDING:
            raise RuntimeError(f"the job {self.thread_name!r} was already started")
        self._began = time.monotonic()
        self.status = RUNNING
        self._main()
        if self.error is not None:
            raise self.error
        if self.status == STOPPED:
            raise Stopped(self.stop_flag.reason or "stopped")
        return self.result

    def progress(self) -> Progress:
        with self._lock:
            return self._progress

    def stop(self, reason: str = USER_STOP) -> None:
        self.stop_flag.request(reason)

    @property
    def finished(self) -> bool:
        return self.status in ENDED

    @property
    def stopped(self) -> bool:
        return self.status == STOPPED

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def join(self, timeout: Optional[float] = None) -> bool:
        """Wait up to `timeout` s for the work to end; True if it has."""
        if self._thread is not None:
            self._thread.join(timeout)
        return self.finished

    def elapsed_s(self) -> float:
        if self._began is None:
            return 0.0
        return (self._ended or time.monotonic()) - self._began

    # ── the worker side ──────────────────────────────────────────────────
    def report(self, done: int, total: Optional[int] = None, text: Optional[str] = None) -> None:
        with self._lock:
            p = self._progress
            self._progress = Progress(int(done), p.total if total is None else int(total),
                                      p.text if text is None else text)

    def work(self, report: Report, stop: StopFlag) -> Any:
        """What the job does (subclasses override it; otherwise the function given)."""
        if self._work is None:
            raise TypeError("a Job needs a work function or a work() method")
        return self._work(report, stop)

    def _main(self) -> None:
        try:
            self.result = self.work(self.report, self.stop_flag)
            self.status = DONE
        except Stopped:
            self.status = STOPPED
        except BaseException as exc:  # handed to the page, which says what went wrong
            self.error = exc
            self.status = FAILED
        finally:
            self._ended = time.monotonic()


TAB_CLOSED = "stopped because its tab was closed"


def stop_when_gone(job: Job, alive: Callable[[], bool], grace_s: float, poll_s: float = 0.5) -> threading.Thread:
    """Watch `job` from a daemon thread and stop it (TAB_CLOSED) once `alive()` has been False for `grace_s`
    on end (the page's session is gone: its tab closed, and it did not come back in time). The watch ends
    with the job. A search's workers go with it: a stopped search kills its worker processes."""
    def watch() -> None:
        seen = time.monotonic()
        while not job.finished:
            try:
                here = alive()
            except Exception:  # noqa: BLE001 - a runtime shutting down: nobody is there
                here = False
            now = time.monotonic()
            if here:
                seen = now
            elif now - seen >= grace_s:
                job.stop(TAB_CLOSED)
                return
            if job.stop_flag.wait(poll_s):
                return  # stopped already (Stop, a limit): it ends on its own
    thread = threading.Thread(target=watch, name=f"{job.thread_name}-watch", daemon=True)
    thread.start()
    return thread


def abandonable(call: Callable[[], Any], stop: Optional[StopFlag], poll_s: float = 0.05) -> Any:
    """`call()` on a helper thread, waited for with the stop flag in view: a step that cannot check the
    flag itself (importing the LangChain packages takes seconds) ends the job at once when it is stopped;
    the helper thread finishes on its own and its result is dropped."""
    if stop is None:
        return call()
    box: dict = {}
    done = threading.Event()

    def target() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the job's thread below
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=target, name="scratchpad-lab-step", daemon=True).start()
    while not done.wait(poll_s):
        stop.check()
    if "error" in box:
        raise box["error"]
    return box["value"]
