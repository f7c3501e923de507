"""Shared test support, one copy each: the app's path, a bounded "rerun until" for AppTest, bounded waits
on a run or on worker threads, `no_network`, and the package-fires oracle. Plain helpers are imported
(`from conftest import APP, rerun_until`; `shared_file` for ../shared's real datasets); fixtures are asked for by name. The helper modules of this
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
# the built-in model's threads: one, whatever the cores (its default is cores - 1; the tests share the machine)
os.environ.setdefault("SCRATCHPAD_LAB_BUILTIN_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")  # AppTest.from_file(APP): the whole app, with its navigation and sidebar
POLL_S = 0.05  # the longest wait on a page's running work between two reruns


def _main_checkout(root: Path) -> Path:
    """The repository's main checkout: `root` itself, or, for a git worktree (its .git is a file naming
    `<main>/.git/worktrees/<name>`), the checkout that worktree belongs to."""
    git = root / ".git"
    if git.is_file():
        text = git.read_text(encoding="utf-8").strip()
        if text.startswith("gitdir:"):
            gitdir = Path(text.partition(":")[2].strip())
            if gitdir.parent.name == "worktrees" and gitdir.parent.parent.name == ".git":
                return gitdir.parent.parent.parent
    return root


def shared_file(*parts: str) -> Path:
    """A file of the shared folder beside the repository (`../shared/...`: real datasets, read from there and
    never copied in); a test that needs it skips, with the reason starting "needs ../shared", where it is absent."""
    for root in dict.fromkeys((ROOT, _main_checkout(ROOT))):
        path = root.parent.joinpath("shared", *parts)
        if path.exists():
            return path
    pytest.skip(f"needs ../shared/{'/'.join(parts)} beside the repository (real data, never copied into it)")


def _wait_on(work, seconds: float) -> None:
    (work.join if hasattr(work, "join") else work.wait)(seconds)


# ── two workers (pytest-xdist, `-n auto --dist loadgroup`) ────────────────────────────────────────────

@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the groups into each test's id
def pytest_collection_modifyitems(config, items):
    """Each file's tests stay together on one worker (its module fixtures, an app server or an AppTest, are
    made once), and every browser test runs on one worker, one at a time, in a lane of its own beside the other
    worker's files: a browser test's own timing (a Stop within a bound, a live run seen before it ends, charts
    drawn, the layout sampled while live) is never checked beside a second Chromium and app server. (Two
    browser lanes saved 25 s of 9 minutes here, and on a fresh checkout four browser tests then failed for
    load; with one lane beside the other tests, all 30 passed at a load average of 10 on the 2 cores.)"""
    for item in items:
        group = "browser" if item.get_closest_marker("browser") else item.nodeid.split("::", 1)[0]
        item.add_marker(pytest.mark.xdist_group(group))
    # The browser lane is the longest (about 7 minutes): it starts first, so the other worker's files fill the
    # time beside it instead of running after it.
    items.sort(key=lambda item: not item.get_closest_marker("browser"))


# ── skips: visible everywhere, failures in CI ─────────────────────────────────────────────────────────

STRICT_SKIPS_ENV = "SCRATCHPAD_LAB_STRICT_SKIPS"  # .ci/run sets it: there every skip is a failure


def _strict_skips() -> bool:
    return os.environ.get(STRICT_SKIPS_ENV, "") not in ("", "0")


def _skip_reason(report) -> str:
    longrepr = report.longrepr
    return longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)


def _fail_a_skip(report) -> None:
    """A test (or a whole file) that skipped, where skips are not allowed: a failure that says why it
    skipped, so CI cannot pass with the browser, PostgreSQL or ../shared tests quietly left out."""
    report.outcome = "failed"
    report.longrepr = (f"skipped, and {STRICT_SKIPS_ENV} is set (CI runs every test): "
                       f"{_skip_reason(report)}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if _strict_skips() and report.skipped and not hasattr(report, "wasxfail"):
        _fail_a_skip(report)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    report = outcome.get_result()
    if _strict_skips() and report.skipped:
        _fail_a_skip(report)


# ── each lane's time, said at the end of every run (CI's output carries it) ───────────────────────────

_LANES: dict = {}  # worker id: seconds spent in tests, of them in browser tests, and when its last test ended
_STARTED: list = []


def pytest_sessionstart(session):
    _STARTED.append(time.monotonic())


def pytest_runtest_logreport(report):
    """In the controlling process: add each test's phases to the lane (xdist worker) that ran it."""
    node = getattr(report, "node", None)
    worker = getattr(getattr(node, "gateway", None), "id", "main")
    lane = _LANES.setdefault(worker, {"tests_s": 0.0, "browser_s": 0.0, "ended_s": 0.0})
    lane["tests_s"] += report.duration
    if "browser" in report.keywords:
        lane["browser_s"] += report.duration
    lane["ended_s"] = time.monotonic() - _STARTED[0] if _STARTED else 0.0


def pytest_terminal_summary(terminalreporter, config):
    """One line per lane: when it ended and how long its tests took (the browser tests' share), so a slow run
    says which lane was the long one."""
    if hasattr(config, "workerinput") or not _LANES:
        return
    terminalreporter.write_line("lanes: " + " · ".join(
        f"{worker} ended at {lane['ended_s']:.0f} s, {lane['tests_s']:.0f} s in tests"
        + (f" ({lane['browser_s']:.0f} s browser)" if lane["browser_s"] else "")
        for worker, lane in sorted(_LANES.items())))


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


@pytest.fixture
def rebinding_dns(monkeypatch):
    """DNS rebinding, as an attacker's name server does it: `rebind.example` resolves to a public address
    (1.1.1.1) once, for the lab's check, and to 127.0.0.1 after; every connection is refused and noted.
    Returns (lookups, connects): the names looked up and the addresses connected to, in order."""
    real = socket.getaddrinfo
    answers = iter(["1.1.1.1"] + ["127.0.0.1"] * 50)
    lookups, connects = [], []

    def rebinding(host, port, *args, **kwargs):
        if host == "rebind.example":
            lookups.append(host)
            return real(next(answers), port, *args, **kwargs)
        return real(host, port, *args, **kwargs)

    def refuse(address, *args, **kwargs):
        connects.append(address)
        raise ConnectionRefusedError(111, "refused in the test")

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    monkeypatch.setattr(socket, "create_connection", refuse)
    return lookups, connects


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

# ── the run store (issue 24): never the user's own data folder ────────────────────────────────────

import secrets as _secrets  # noqa: E402

import pytest  # noqa: E402

TEST_PG_ENV = "SCRATCHPAD_LAB_TEST_PG"  # a PostgreSQL URL whose role may create databases (.ci/run sets it)


@pytest.fixture(scope="session", autouse=True)
def lab_store_in_tmp(tmp_path_factory):
    """The whole session (and every app server a test starts) stores into a temporary SQLite file and data
    folder, never ~/.local/share/scratchpad-lab."""
    folder = tmp_path_factory.mktemp("lab-store")
    saved = {k: os.environ.get(k) for k in ("SCRATCHPAD_LAB_DB", "XDG_DATA_HOME")}
    os.environ["SCRATCHPAD_LAB_DB"] = str(folder / "lab.db")
    os.environ["XDG_DATA_HOME"] = str(folder / "data-home")
    yield folder
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(autouse=True)
def lab_store_per_test(lab_store_in_tmp, monkeypatch):
    """Each test starts with an empty store of its own (runs and prompt versions stored by one test are not
    listed in the next); servers started by module fixtures keep the session's."""
    folder = lab_store_in_tmp / _secrets.token_hex(6)
    folder.mkdir()
    url = "sqlite:///" + str(folder / "lab.db")
    monkeypatch.setenv("SCRATCHPAD_LAB_DB", url)
    yield url
    if "scratchpad_lab.engine.store" in sys.modules:
        sys.modules["scratchpad_lab.engine.store"].forget(url)


@pytest.fixture
def lab_db(lab_store_per_test):
    """This test's own, empty SQLite store (SCRATCHPAD_LAB_DB points at it); its URL."""
    return lab_store_per_test


@pytest.fixture
def pg_db(monkeypatch):
    """A fresh PostgreSQL database for one test, made through SCRATCHPAD_LAB_TEST_PG and dropped after;
    SCRATCHPAD_LAB_DB points at it. Skipped, saying why, when that variable is not set (CI sets it)."""
    admin = os.environ.get(TEST_PG_ENV)
    if not admin:
        pytest.skip(f"{TEST_PG_ENV} is not set: the PostgreSQL store tests need a server whose role may create "
                    "databases (bash .ci/run installs and starts Debian's postgresql and sets it)")
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url
    name = "lab_t_" + _secrets.token_hex(6)
    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(admin).set(database=name).render_as_string(hide_password=False)
    monkeypatch.setenv("SCRATCHPAD_LAB_DB", url)
    try:
        yield url
    finally:
        from scratchpad_lab.engine.store import forget
        forget(url)
        with engine.connect() as conn:
            conn.execute(text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true'))
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def any_db(request):
    """The same test on a fresh SQLite file and on a fresh PostgreSQL database."""
    return request.getfixturevalue("lab_db" if request.param == "sqlite" else "pg_db")

# ── AppTest: one copy of the small helpers every page test uses ─────────────────────────────────────────

def ok(at):
    """`at` after a script run that raised nothing (else fail with what it raised)."""
    assert not at.exception, [e.value for e in at.exception]
    return at


def active_run(at):
    """The Playground's run still going in this session, or None."""
    return at.session_state["play_active_run"]


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


def rerun_until(at, done=live_jobs_done, timeout_s: float = 120.0, what: str = "the page", *, wait_on=None):
    """Rerun `at` (as the live fragment's refresh would: AppTest never fires `run_every` itself) until
    `done(at)` holds, by default until every page job has ended and been taken in; fail naming `what` after
    `timeout_s`. No rerun may raise. Between reruns it waits, for at most POLL_S, on the work `wait_on(at)`
    gives (a Run, a prompt Matrix: anything with `join` or `wait`; None for none), else on a page job still
    going, so it goes on the moment that work ends; never a fixed sleep. Returns `at`."""
    from scratchpad_lab.ui.state import LIVE_SLOTS
    deadline = time.monotonic() + timeout_s
    while True:
        assert not at.exception, [e.value for e in at.exception]
        if done(at):
            return at
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"{what} did not get there within {timeout_s:g} s")
        work = wait_on(at) if wait_on is not None else None
        if work is None:
            work = next((j for j in (live_job(at, s) for s in LIVE_SLOTS) if j is not None and not j.finished), None)
        if work is not None:
            _wait_on(work, min(POLL_S, left))
        at.run()
