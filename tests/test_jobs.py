"""engine/jobs.py, the one way long work runs: start, progress, result, and a cooperative stop that ends a
job within a second, for the jobs the pages run (a run, Compare, the strategies) and for a step that cannot
look at the flag itself. Each wait is bounded by a deadline and ends as soon as its condition holds."""
from __future__ import annotations

import threading
import time

import pytest

from scratchpad_lab.engine.studies.compare import Setting, compare
from scratchpad_lab.engine.jobs import DONE, FAILED, Job, StopFlag, Stopped, abandonable
from scratchpad_lab.engine.run.runner import Run, Source
from scratchpad_lab.engine.strategies import make_spec, names, run_strategies, strategy
from scratchpad_lab.engine.strategies.engine import message_baseline
from scratchpad_lab.engine.run.tokens import TokenCounter
from scratchpad_lab.model.config import RunConfig
from synthetic import synthetic_trace

STOP_BOUND_S = 1.0  # the promise: Stop ends a job within a second


def _until(job: Job, condition, timeout_s: float = 60.0) -> bool:
    """Wait (on the job itself, so it returns the moment the job ends) until `condition()` or the deadline."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        job.join(0.02)
    return True


def _stop_within_bound(job: Job) -> float:
    """Ask the job to stop; the seconds it took to end, failing if that is over the bound."""
    asked = time.monotonic()
    job.stop()
    job.join(STOP_BOUND_S)
    took = time.monotonic() - asked
    assert job.finished, f"still going {took:.2f} s after Stop ({job.progress()})"
    return took


def test_a_job_runs_its_work_on_a_worker_thread_with_progress_and_keeps_the_result():
    seen = {}

    def work(report, stop):
        seen["thread"] = threading.current_thread().name
        for i in range(3):
            report(i + 1, 3, f"step {i + 1}")
        return "answer"

    job = Job(work, name="test-job", total=3, text="waiting")
    assert job.progress().text == "waiting" and not job.finished and job.status == "pending"
    job.start()
    assert _until(job, lambda: job.finished)
    assert job.status == "done" and job.result == "answer" and job.error is None
    assert seen["thread"] == "test-job" != threading.current_thread().name
    assert job.progress() == type(job.progress())(3, 3, "step 3") and job.progress().fraction == 1.0
    with pytest.raises(RuntimeError):
        job.start()  # a job runs once


def test_an_error_in_the_work_is_kept_for_the_page_and_ends_the_job():
    def work(report, stop):
        raise ValueError("the file has no steps")

    job = Job(work).start()
    assert _until(job, lambda: job.finished)
    assert job.status == "error" and isinstance(job.error, ValueError) and job.result is None


def test_stop_ends_a_loop_that_checks_between_steps_within_a_second():
    def work(report, stop):
        step = 0
        while True:  # each step takes 0.2 s and cannot be cut short; the flag is read between steps
            stop.check()
            threading.Event().wait(0.2)
            step += 1
            report(step, 0, f"step {step}")

    job = Job(work).start()
    assert _until(job, lambda: job.progress().done >= 2)
    _stop_within_bound(job)
    assert job.stopped and job.stop_flag.reason == "stopped by the user" and job.result is None


def test_a_step_that_cannot_look_at_the_flag_is_waited_for_with_it_in_view():
    release = threading.Event()

    def work(report, stop):
        report(1, 2, "importing")
        return abandonable(lambda: release.wait(30), stop)  # blocks like a slow import

    job = Job(work).start()
    assert _until(job, lambda: job.progress().text == "importing")
    try:
        _stop_within_bound(job)
        assert job.stopped
    finally:
        release.set()
    assert abandonable(lambda: 5, None) == 5 and abandonable(lambda: 6, StopFlag()) == 6


def test_a_run_is_a_job_its_progress_counts_iterations_and_stop_ends_it_within_a_second():
    run = Run(RunConfig.build(scenario=None, summarizer="extractive", step_delay_s=0.2),
              Source.for_trace(synthetic_trace(steps=200, seed=3)), pace=True)
    assert run.progress().total == 201 and run.progress().done == 0
    run.start()
    assert _until(run, lambda: run.progress().done >= 2)
    now = run.progress()
    assert now.text == f"iteration {now.done} of at most 201"
    _stop_within_bound(run)
    assert run.record.outcome == "stopped" and "stopped by the user" in run.record.error


def test_compare_reports_each_replay_and_stops_within_a_second():
    trace = synthetic_trace(steps=400, seed=5, max_observation_chars=1500)
    settings = [Setting(summarize_every=e, max_scratchpad_chars=c)
                for e, c in [(2, 2000), (3, 4000), (5, 8000), (None, 1_000_000), (4, 3000), (6, 6000)]]
    job = Job(lambda report, stop: compare(trace, settings, progress=report, stop=stop)).start()
    assert _until(job, lambda: job.progress().done >= 1)
    now = job.progress()  # one reading: the setting being replayed now
    assert now.total == 6 and now.text == settings[now.done].label()
    assert not job.finished, "the comparison must still be going to be stopped"
    _stop_within_bound(job)
    assert job.stopped and job.result is None


def test_compare_with_a_stop_flag_set_before_it_starts_replays_nothing():
    flag = StopFlag()
    flag.request()
    with pytest.raises(Stopped):
        compare(synthetic_trace(steps=20, seed=1), [Setting()], stop=flag)


@pytest.mark.parametrize("name", names())
def test_the_strategies_report_each_strategy_and_stop_within_a_second_whichever_is_running(name):
    trace = synthetic_trace(steps=150, seed=8, parse_error_rate=0, max_observation_chars=2000)
    specs = [make_spec(name, {}), make_spec("trim-only" if name != "trim-only" else "langmem", {})]
    job = Job(lambda report, stop: run_strategies(trace, specs, progress=report, stop=stop)).start()
    assert _until(job, lambda: job.progress().text == specs[0].title())  # told before it runs
    assert job.progress().total == 2
    assert not job.finished, "the strategy must still be going to be stopped"
    _stop_within_bound(job)
    assert job.stopped and job.result is None


class _StopAfterChecks(StopFlag):
    """A stop flag that sets itself at its n-th check: shows where a loop looks at the flag."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n, self.checks = n, 0

    def check(self) -> None:
        self.checks += 1
        if self.checks >= self.n:
            self.request()
        super().check()


@pytest.mark.parametrize("name", [n for n in names() if strategy(n).context == "messages"])
def test_the_message_strategies_look_at_the_flag_between_their_model_calls(name):
    from scratchpad_lab.engine.strategies.engine import _import_langchain

    _import_langchain(name)  # loaded: the flag is then looked at by the strategy's own step loop
    trace = synthetic_trace(steps=40, seed=8, parse_error_rate=0)
    baseline = _StopAfterChecks(10_000)
    message_baseline(trace, TokenCounter(), baseline)  # the no-compression count looks at it once a step
    # then once before the strategy; without a look before each model call it would never get 4 further
    with pytest.raises(Stopped):
        run_strategies(trace, [make_spec(name, {})], stop=_StopAfterChecks(baseline.checks + 4))


def test_the_no_compression_count_of_a_long_trace_looks_at_the_flag_every_step():
    # half a second for 150 steps here, seconds on a loaded machine: a Stop then must not wait for its end
    trace = synthetic_trace(steps=150, seed=8, parse_error_rate=0, max_observation_chars=2000)
    flag = _StopAfterChecks(5)
    with pytest.raises(Stopped):
        message_baseline(trace, TokenCounter(), flag)
    assert flag.checks == 5


def test_every_message_strategy_has_its_imports_waited_for_with_the_flag_in_view():
    # a strategy missing here would import LangChain where Stop cannot reach it (seconds, the first time)
    # (the modules are the registry entry's `imports`, which engine._import_langchain loads)
    assert {n for n in names() if strategy(n).imports} == {n for n in names() if strategy(n).context == "messages"}


def test_run_here_runs_the_work_in_the_callers_thread_and_returns_its_result():
    """The CLI runs a task's job in place: the same work, the same progress, no worker thread."""
    seen = []

    def work(report, stop):
        seen.append(threading.current_thread())
        report(1, 2, "half way")
        return "done"

    job = Job(work, total=2)
    assert job.run_here() == "done"
    assert seen == [threading.current_thread()] and job.status == DONE and job.finished
    assert job.progress().text == "half way"
    with pytest.raises(RuntimeError, match="already started"):
        job.run_here()


def test_run_here_raises_what_the_work_raised_after_the_job_has_ended():
    job = Job(lambda report, stop: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        job.run_here()
    assert job.status == FAILED and isinstance(job.error, ZeroDivisionError)
