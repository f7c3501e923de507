"""Speed never changes a figure (issue 15): every replay and sweep row on the sample runs and on
synthetic trajectories equals what the code gave before the performance work
(tests/data/results_snapshot.json, written by tests/snapshot.py from that code)."""
import json
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


SHARED_SWEEP = r"""
import json, sys
sys.path[:0] = sys.argv[1:3]
from snapshot import SWEEP, _inputs
from scratchpad_lab.engine.studies.compare import _can_fork, grid, sweep_rows
assert _can_fork(), "a fresh process is single-threaded: the pool path is taken"
print(json.dumps({name: sweep_rows(loaded, grid(SWEEP["summarize_every"], SWEEP["max_scratchpad_chars"]), 2)
                  for name, loaded in _inputs()}))
"""


@pytest.mark.parametrize("processes", [1, 2])
def test_the_cli_sweep_shared_over_processes_gives_the_recorded_rows(processes):
    """Over two processes the cells fork from a single-threaded process, as the CLI is; a test worker may hold
    threads another test left (the built-in model, loaded once per process, keeps its own), where the sweep
    rightly runs in place, so the two-process sweep runs in a fresh interpreter."""
    import subprocess
    import sys

    from snapshot import SWEEP, _inputs

    from scratchpad_lab.engine.studies.compare import grid, sweep_rows

    if processes == 2:
        here = Path(__file__).parent
        done = subprocess.run([sys.executable, "-c", SHARED_SWEEP, str(here), str(here.parent / "src")],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        rows = json.loads(done.stdout)
        for name in RECORDED:
            if "sweep" in RECORDED[name]:
                assert rows[name] == RECORDED[name]["sweep"], name
        return
    for name, loaded in _inputs():
        if "sweep" in RECORDED[name]:
            rows = sweep_rows(loaded, grid(SWEEP["summarize_every"], SWEEP["max_scratchpad_chars"]), processes)
            assert json.loads(json.dumps(rows)) == RECORDED[name]["sweep"], name
