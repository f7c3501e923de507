"""Shared test support, one copy each: the app's path, a bounded "rerun until" for AppTest, bounded waits
on a run or on worker threads, `no_network`, and the package-fires oracle. Plain helpers are imported
(`from conftest import APP, run_until`); fixtures are asked for by name. The helper modules of this
folder (fake_openai, bare_reference, browser_support, synthetic) are importable because this folder is
put on sys.path here. No helper sleeps for a fixed time: each waits on the work itself, with a deadline.
"""
import os
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(__file__))

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")  # AppTest.from_file(APP): the whole app, with its navigation and sidebar
POLL_S = 0.05  # the longest wait on a page's running work between two reruns


# ── AppTest: rerun until ───────────────────────────────────────────────────────────────────────────

def run_until(at, predicate, timeout_s: float = 60.0, *, wait_on=None) -> bool:
    """Rerun the page (as its live fragment's timer would: AppTest never fires `run_every` itself) until
    `predicate(at)` holds; False if it still does not after `timeout_s`. Each rerun must raise nothing.
    Between reruns it waits on the page's running work, `wait_on(at)`: a Run (`join(timeout)`), a prompt
    Matrix (`wait(timeout)`) or None, so it goes on the moment that work ends; never a fixed sleep."""
    deadline = time.monotonic() + timeout_s
    while not predicate(at):
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        work = wait_on(at) if wait_on is not None else None
        if work is not None:
            _wait_on(work, min(POLL_S, left))
        at.run()
        assert not at.exception, [e.value for e in at.exception]
    return True


def _wait_on(work, seconds: float) -> None:
    (work.join if hasattr(work, "join") else work.wait)(seconds)


# ── without a page: a run, worker threads ───────────────────────────────────────────────────────────

def wait_until(work, done, timeout_s: float = 20.0) -> bool:
    """Without a page: wait on `work` (a Run, a prompt Matrix) until `done()` holds. False after
    `timeout_s`, or once the work has finished with `done()` still false; never a fixed sleep."""
    deadline = time.monotonic() + timeout_s
    while not done():
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        if work.finished:
            return done()
        _wait_on(work, min(POLL_S, left))
    return True


def threads_end(name_prefix: str, timeout_s: float = 10.0) -> bool:
    """Join every live thread whose name starts with `name_prefix` (a Run's "scratchpad-lab-run", the
    prompt matrix's "prompt-lab"); True when none is left within `timeout_s`."""
    deadline = time.monotonic() + timeout_s

    def alive():
        return [t for t in threading.enumerate() if t.name.startswith(name_prefix) and t.is_alive()]

    for thread in alive():
        thread.join(max(0.0, deadline - time.monotonic()))
    return not alive()


# ── no network ─────────────────────────────────────────────────────────────────────────────────────

@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to look up a host or open a connection fails the test. A file whose every test is
    offline says so once: `pytestmark = pytest.mark.usefixtures("no_network")`."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"network access attempted: {args!r}")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


# ── the package-fires oracle ───────────────────────────────────────────────────────────────────────

class _Agent:  # what the middleware reads of an agent
    current_query = "q"

    def __init__(self, scratchpad: str) -> None:
        self.scratchpad = scratchpad


class _CountingLLM:
    def __init__(self) -> None:
        self.calls = 0

    def invoke(self, prompt):
        self.calls += 1
        return "short summary"


def package_fires(iteration, chars, last=None, *, every, cap) -> bool:
    """Whether the real AutoSummarizeMiddleware calls its summarizer at `iteration` with a scratchpad of
    `chars` chars, `last` the length it last summarized (None: never), `every`/`cap` its two triggers."""
    from autourgos_summarizer import AutoSummarizeMiddleware

    llm, agent = _CountingLLM(), _Agent("x" * chars)
    middleware = AutoSummarizeMiddleware(summarize_every=every, max_scratchpad_chars=cap, llm=llm)
    if last is not None:
        middleware._set_last_summarized_length(agent, last)
    middleware.on_iteration_start(iteration, agent=agent)
    return llm.calls == 1
