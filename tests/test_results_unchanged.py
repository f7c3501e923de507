"""Speed never changes a figure (issue 15): every replay and sweep row on the sample runs and on
synthetic trajectories equals what the code gave before the performance work
(tests/data/results_snapshot.json, written by tests/snapshot.py from that code)."""
import json
import os
import threading
from pathlib import Path

import pytest

from snapshot import snapshot

ADDED_BY_ISSUE_34 = {"kinds_before", "kinds_kept", "kept_by_kind", "health", "pins", "pins_met", "pins_kept", "pins_lost"}
NO_PINS = {"pins": 0, "pins_met": 0, "pins_kept": 0, "pins_lost": []}  # a run without pins: pin figures empty
RECORDED = json.loads((Path(__file__).parent / "data" / "results_snapshot.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def now():
    return snapshot()


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_every_replay_gives_the_recorded_figures_events_and_facts(name, now):
    for before, after in zip(RECORDED[name]["replays"], now[name]["replays"], strict=True):
        # every recorded figure is unchanged; the figures row gained only issue 34's new figures (facts kept by
        # kind and the health counts), which read facts the recorded ones already count, and change none of them
        assert {k: after["summary"][k] for k in before["summary"]} == before["summary"]
        assert set(after["summary"]) - set(before["summary"]) <= ADDED_BY_ISSUE_34
        assert {k: after["summary"][k] for k in NO_PINS} == NO_PINS
        assert after["final_answer"] == before["final_answer"]
        for part, digest in before["digests"].items():
            assert after["digests"][part] == digest, f"{name}: {part} changed"


@pytest.mark.parametrize("name", sorted(n for n in RECORDED if "sweep" in RECORDED[n]))
def test_every_sweep_row_is_the_recorded_row(name, now):
    assert now[name]["sweep"] == RECORDED[name]["sweep"]


@pytest.mark.parametrize("processes", [1, 2])
def test_the_cli_sweep_shared_over_processes_gives_the_recorded_rows(processes):
    """Over two processes (a worker process of the local executor beside this thread, engine/cells/local_pool.py)
    the rows are the recorded ones, in the recorded order, as in one."""
    from snapshot import SWEEP, _inputs

    from scratchpad_lab.engine.cells import dispatch as executor
    from scratchpad_lab.engine.studies.compare import grid, sweep_rows

    from scratchpad_lab.engine.cells import local_pool

    seen, places = [], []
    real = executor.Cells.run
    answered, in_worker, here = threading.Event(), local_pool.CellWorker.run, local_pool._cell_outcome

    def worker_ran(self, *args):
        out = in_worker(self, *args)
        answered.set()
        return out

    def after_a_worker(*args):  # this thread waits for a worker's first answer, so both ran cells
        assert answered.wait(120), "a worker process answered a cell"
        return here(*args)

    def counted(self, *args, **kwargs):
        seen.append(self.workers)
        places.append(args[7])
        return real(self, *args, **kwargs)

    executor.Cells.run = counted
    local_pool.CellWorker.run, local_pool._cell_outcome = worker_ran, after_a_worker if processes == 2 else here
    try:
        runs = [(name, sweep_rows(loaded, grid(SWEEP["summarize_every"], SWEEP["max_scratchpad_chars"]), processes))
                for name, loaded in _inputs() if "sweep" in RECORDED[name]]
    finally:
        executor.Cells.run = real
        local_pool.CellWorker.run, local_pool._cell_outcome = in_worker, here
    assert runs and set(seen) == {processes}, "every sweep ran on the executor with the processes asked for"
    for name, rows in runs:
        assert json.loads(json.dumps(rows)) == RECORDED[name]["sweep"], name
    elsewhere = {pid for placement in places for (_, pid) in placement.counts} - {os.getpid()}
    assert bool(elsewhere) == (processes == 2), "with two processes a worker process ran cells; with one none did"
