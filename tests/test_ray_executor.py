"""The Ray executor (issue 32) on a local Ray cluster, one for this module (`ray.init(num_cpus=2,
include_dashboard=False)`, ended with `ray.shutdown()`; never `ray stop`, which would end every Ray process on
the machine): the same benchmark through the local and the Ray executor gives identical rows; its cells ran in
two worker processes that are not this one; a failing cell is one error row and the rest finish; a lost
worker's cell runs once more, then is reported; Stop leaves no cell running; an endpoint summarizer is served
by one client on the cluster, and its key reaches no Ray log. Faults are put into the workers through Ray's
own setup hook (tests/ray_faults.py)."""
import json
import os
import time
from pathlib import Path

import pytest

import ray_faults
from conftest import ROOT, shared_file
from scratchpad_lab.engine.studies.benchmark import BenchmarkRequest, run_benchmark
from scratchpad_lab.engine.cells.executor import ExecutorChoice
from scratchpad_lab.engine.jobs import StopFlag

ray = pytest.importorskip("ray", reason="needs Ray: pip install -r requirements-ray.txt")

TAU_BENCH = ("datasets", "tau-bench-airline", "gpt-4o-airline.json")
RAY = ExecutorChoice("ray")
GRID = {"trim-only": {"agent_trim_chars": (4000, 8000)},
        "autourgos-middleware": {"summarize_every": (4,), "max_scratchpad_chars": ("30%",)}}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    faults = tmp_path_factory.mktemp("faults")
    path = os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests")])
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": path, ray_faults.FAULTS_ENV: str(faults)},
                          "worker_process_setup_hook": "ray_faults.install"})
    yield faults
    ray.shutdown()


@pytest.fixture(scope="module")
def tau_slice(tmp_path_factory):
    runs = json.loads(shared_file(*TAU_BENCH).read_text(encoding="utf-8"))[:3]
    path = tmp_path_factory.mktemp("tau") / "three.json"
    path.write_text(json.dumps(runs))
    return path


def rows(result):
    """Every cell's row, sorted by (run, setting)."""
    return sorted((run["name"], label, json.dumps(row, sort_keys=True))
                  for run in result.runs for label, row in run["cells"].items())


def running_cells():
    """Processes of this machine running a cell now (a Ray worker is titled by the task it runs)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            title = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if title.startswith(b"ray::run_cell"):
            found.append(int(pid))
    return found


def test_the_same_benchmark_through_local_and_ray_gives_identical_rows_from_two_worker_processes(cluster, tau_slice):
    strategies = list(GRID)
    local = run_benchmark(BenchmarkRequest(tau_slice, strategies, GRID, workers=2))
    on_ray = run_benchmark(BenchmarkRequest(tau_slice, strategies, GRID, executor=RAY))
    assert not local.stopped and not on_ray.stopped
    assert rows(on_ray) == rows(local) and len(rows(local)) == 3 * 4
    assert [s.to_dict() for s in on_ray.settings] == [s.to_dict() for s in local.settings]
    placement = on_ray.placement
    assert sum(placement.counts.values()) == 9 and placement.executor == "ray" and not placement.started_cluster
    pids = {pid for _, pid in placement.counts}
    assert len(pids) >= 2 and os.getpid() not in pids
    assert "9 cells ran on the Ray cluster: 2 worker processes on 1 node." in placement.sentence()
    assert on_ray.to_dict()["placement"]["processes"] == len(pids)


def test_one_failing_cell_is_one_error_row_and_the_other_cells_finish(cluster, tau_slice):
    grid = {"trim-only": {"agent_trim_chars": (4000, ray_faults.RAISES, 8000)}}
    done = run_benchmark(BenchmarkRequest(tau_slice, ["trim-only"], grid, runs=1, executor=RAY))
    [run] = done.runs
    cells = {label: row for label, row in run["cells"].items() if label != "no compression"}
    failed = {label: row["error"] for label, row in cells.items() if row.get("error")}
    assert list(failed) == [f"trim-only:agent_trim_chars={ray_faults.RAISES}"]
    assert failed[f"trim-only:agent_trim_chars={ray_faults.RAISES}"] == \
        f"the cell failed on the cluster: RuntimeError: {ray_faults.REASON}"
    assert len(cells) == 3 and all(row["peak_context_tokens"] for label, row in cells.items() if label not in failed)
    assert done.setting(f"trim-only:agent_trim_chars={ray_faults.RAISES}").errors == 1 and not done.stopped


def test_a_lost_workers_cell_runs_once_more_and_a_cell_lost_twice_is_reported(cluster, tau_slice):
    grid = {"trim-only": {"agent_trim_chars": (4000, ray_faults.DIES_ONCE, ray_faults.DIES_ALWAYS)}}
    done = run_benchmark(BenchmarkRequest(tau_slice, ["trim-only"], grid, runs=1, executor=RAY))
    assert (cluster / "died-once").exists()  # its worker did die, the first time
    cells = done.runs[0]["cells"]
    assert cells[f"trim-only:agent_trim_chars={ray_faults.DIES_ONCE}"].get("error") is None
    assert cells[f"trim-only:agent_trim_chars={ray_faults.DIES_ONCE}"]["peak_context_tokens"] > 0
    lost = cells[f"trim-only:agent_trim_chars={ray_faults.DIES_ALWAYS}"]["error"]
    assert "worker running this cell was lost" in lost and done.placement.lost == 1
    assert "1 lost with their worker twice" in done.placement.sentence()


def test_stop_cancels_the_outstanding_cells_and_leaves_no_cell_running(cluster, tau_slice):
    flag = StopFlag()
    seen = []

    def progress(done, total, text):
        seen.append(done)
        if done >= 1:
            flag.request()
    grid = {"trim-only": {"agent_trim_chars": ray_faults.SLOW}}  # slow cells: some are outstanding at the Stop
    done = run_benchmark(BenchmarkRequest(tau_slice, ["trim-only"], grid, executor=RAY), progress, flag)
    assert done.stopped and done.points_done < done.points == 24
    deadline = time.monotonic() + 15
    while (running_cells() or ray.available_resources().get("CPU", 0) < 2) and time.monotonic() < deadline:
        time.sleep(0.1)  # waiting on the cluster to report the cancelled workers gone (bounded)
    assert running_cells() == [] and ray.available_resources().get("CPU") == 2.0


def test_an_endpoint_summarizer_on_ray_is_one_client_and_its_key_reaches_no_ray_log(cluster, tau_slice):
    from fake_openai import FakeOpenAI
    from scratchpad_lab.model.endpoint import Endpoint
    from scratchpad_lab.model.summarizer import SummarizerChoice

    key = "sk-test-ray-" + os.urandom(6).hex()
    grid = {"autourgos-middleware": {"summarize_every": (3,), "max_scratchpad_chars": ("30%",)}}
    with FakeOpenAI() as server:
        server.default = ("ok", "Key findings: the reservation, summarized by the endpoint.")
        choice = SummarizerChoice("endpoint", endpoint=Endpoint(model="fake-model", base_url=server.url), key=key)
        done = run_benchmark(BenchmarkRequest(tau_slice, ["autourgos-middleware"], grid, choice, runs=1,
                                              executor=RAY))
        requests = list(server.requests)
    rows_ = [run["cells"]["autourgos-middleware:summarize_every=3,max_scratchpad_chars=30%"] for run in done.runs]
    assert all(r.get("error") is None for r in rows_)
    calls = sum(r["summarizer_calls"] for r in rows_)
    assert calls > 0 and len(requests) == calls and all(r["summarizer_tokens_out"] == 7 * r["summarizer_calls"]
                                                        for r in rows_)
    assert all({k.lower(): v for k, v in r["headers"].items()}["authorization"] == f"Bearer {key}"
               for r in requests)  # it did travel, in memory
    session = Path(ray._private.worker._global_node.get_session_dir_path())
    for path in session.rglob("*"):
        if path.is_file() and not path.is_symlink():
            assert key.encode() not in path.read_bytes(), path


def test_the_recommender_on_ray_finds_the_same_points_and_front_as_on_this_machine(cluster, tau_slice):
    from scratchpad_lab.engine.files.dataset import read_dataset
    from scratchpad_lab.engine.studies.recommender import search

    trace = read_dataset(tau_slice, 1).usable[0].trace
    grid = {"trim-only": {"agent_trim_chars": (3000, 5000, 8000)}}
    local = search(trace, ["trim-only"], grid, workers=1)
    on_ray = search(trace, ["trim-only"], grid, executor=RAY)
    assert [p.to_dict() for p in on_ray.points] == [p.to_dict() for p in local.points]
    assert on_ray.points_in_workers == 3 and os.getpid() not in {pid for _, pid in on_ray.placement.counts}


def test_the_recommenders_pins_reach_its_ray_tasks(cluster):
    """A search's pins travel in its run's share: each Ray task's point is checked against them, the lost pin counted
    lost, and the points read as on this machine."""
    from scratchpad_lab.engine.studies.recommender import search
    from scratchpad_lab.model.pins import Pinned
    from scratchpad_lab.model.records import load_record

    record, pinned = load_record(ROOT / "sample_runs" / "support-ticket-tight.json"), Pinned(("A-1001",))
    grid = {"clear-tool-uses": {"trigger": (500, 100_000), "keep": (1,)}}
    local = search(record, ["clear-tool-uses"], grid, workers=1, pinned=pinned)
    on_ray = search(record, ["clear-tool-uses"], grid, executor=RAY, pinned=pinned)
    assert [p.to_dict() for p in on_ray.points] == [p.to_dict() for p in local.points]
    assert on_ray.points_in_workers == 2
    assert [p.figures["pins_lost"] for p in on_ray.points] == [["A-1001"], []]


@pytest.mark.parametrize("run", ["support-ticket-tight.json", "tau-slice"])
def test_a_sweep_on_ray_gives_the_rows_it_gives_on_this_machine(cluster, tau_slice, run, monkeypatch):
    """The sweep's cells go through the same executor (engine/cells/executor.py): on Ray, every cell a Ray task over
    the run's share (a scenario's record, re-run by its policy, or a recorded trajectory), the rows the same, in the
    same order, as in this process."""
    from scratchpad_lab.engine.cells import dispatch as executor
    from scratchpad_lab.engine.files.dataset import read_dataset
    from scratchpad_lab.engine.studies.compare import grid, sweep_rows
    from scratchpad_lab.model.records import load_record

    loaded = (read_dataset(tau_slice, 1).usable[0].trace if run == "tau-slice"
              else load_record(ROOT / "sample_runs" / run))
    places, real = [], executor.Cells.run

    def counted(self, *args, **kwargs):
        places.append(args[7])
        return real(self, *args, **kwargs)

    monkeypatch.setattr(executor.Cells, "run", counted)
    settings = grid([2, None], [1000, 4000])
    local = sweep_rows(loaded, settings, 1)
    on_ray = sweep_rows(loaded, settings, executor=RAY)
    assert on_ray == local and len(local) == 4
    assert [r["max_scratchpad_chars"] for r in on_ray] == [1000, 4000, 1000, 4000]
    assert places[1].executor == "ray" and sum(places[1].counts.values()) == 4
    assert os.getpid() not in {pid for _, pid in places[1].counts}
