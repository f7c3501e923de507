"""A benchmark over the work limit is refused from the runs' sizes, before any run's unit is built (issue 46: a hosted
5,000-run benchmark was refused only after 69-138 s, the time its units took), and Stop ends the reading of the runs."""
from __future__ import annotations

import json

import pytest

from scratchpad_lab.engine import limits
from scratchpad_lab.engine.files.dataset import read_dataset_bytes
from scratchpad_lab.engine.jobs import StopFlag
from scratchpad_lab.engine.limits import WorkLimitExceeded, check_benchmark
from scratchpad_lab.engine.strategies.spec import make_spec
from scratchpad_lab.engine.studies import benchmark
from scratchpad_lab.engine.studies.benchmark import BenchmarkRequest, plan_settings, run_benchmark, sized_plan, unit_of


def _run(k: int) -> dict:
    call = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
        "name": "get_user", "arguments": json.dumps({"user_id": f"mia_li_{k}"})}}]}
    return {"task_id": k, "reward": k % 2, "traj": [
        {"role": "system", "content": "You are an airline agent."}, {"role": "user", "content": f"my id is mia_li_{k}"},
        call, {"role": "tool", "tool_call_id": "c1", "content": json.dumps({"reservations": ["ZFA04Y"], "notes": "x" * k})},
        {"role": "assistant", "content": "Done."}]}


@pytest.fixture(scope="module")
def dataset():
    return read_dataset_bytes(json.dumps([_run(k) for k in range(30)]).encode(), "runs.json")


def test_a_benchmark_over_the_limit_is_refused_in_one_line_before_any_run_is_read(dataset, monkeypatch):
    def never(*a, **k):
        raise AssertionError("a unit was built before the work limit was checked")
    monkeypatch.setattr(benchmark, "unit_of", never)
    monkeypatch.setitem(limits.BUDGETS, "job_wall_s", (1.0, 1.0))
    with pytest.raises(WorkLimitExceeded) as refused:
        run_benchmark(BenchmarkRequest(dataset, None, workers=2))
    said = str(refused.value)
    assert "\n" not in said and "30 runs" in said and "--runs N" in said


def test_the_sized_check_costs_the_runs_as_their_built_units_do(dataset):
    """The yardstick: on these runs the check from sizes reads what the check over the built units reads."""
    settings = plan_settings(None, None)
    units = [unit_of(i, run, settings) for i, run in enumerate(dataset.usable)]
    built = check_benchmark([(u.run.trace, [make_spec(n, s) for _, n, s in u.points]) for u in units], workers=2)
    sized = check_benchmark(sized_plan(dataset.usable, settings), workers=2)
    assert sized.cpu_s == pytest.approx(built.cpu_s, rel=0.05) and sized.steps == built.steps


def test_stop_while_the_runs_are_read_ends_the_benchmark_with_nothing_measured(dataset):
    flag = StopFlag()
    flag.request("stopped by the probe")
    done = run_benchmark(BenchmarkRequest(dataset, ["trim-only"], workers=1), stop=flag)
    assert done.stopped == "stopped by the probe" and done.runs == [] and done.points_done == 0
