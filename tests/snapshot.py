"""What the engine computes for a fixed set of inputs, as plain JSON: the equivalence oracle of the
performance work (issue 15). `tests/data/results_snapshot.json` was written by this module from the
code *before* any optimisation; `test_results_unchanged.py` recomputes and compares exactly.

    PYTHONPATH=src python3 tests/snapshot.py > tests/data/results_snapshot.json   # only to re-record

Inputs: every recorded run in sample_runs/ replayed with package defaults and with a tight setting,
two synthetic trajectories, and a 3 x 3 sweep (rows exactly as `scratchpad-lab sweep --json` prints)
on one sample run and one synthetic trajectory.

Re-recorded once for issue 19, when the summary became the figures row (figures.figures): it gained
failed_calls, facts_before/kept/retained and trim_facts_*, lost compressions_ok (compressions now means
it), and every figure it held before was checked equal.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from scratchpad_lab.engine.studies.compare import baseline_for, compare, grid, replay_one, row
from scratchpad_lab.engine.run.replay import replay_source
from scratchpad_lab.analysis.figures import figures
from scratchpad_lab.analysis.quality import annotate, facts_by_step
from scratchpad_lab.model.records import load_path
from synthetic import synthetic_trace

REPO = Path(__file__).resolve().parents[1]
SAMPLES = sorted((REPO / "sample_runs").glob("*.json"))
REPLAY_SETTINGS = [{"summarize_every": 5, "max_scratchpad_chars": 15000},
                   {"summarize_every": 2, "max_scratchpad_chars": 2000, "extractive_budget_chars": 600}]
SWEEP = dict(summarize_every=[2, 5, None], max_scratchpad_chars=[1000, 4000, 15000])


def _inputs():
    for path in SAMPLES:
        yield path.name, load_path(path)
    yield "synthetic-60-seed-7", synthetic_trace(steps=60, seed=7)
    yield "synthetic-40-seed-3", synthetic_trace(steps=40, seed=3, max_observation_chars=9000)


def _digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _replay_result(record) -> dict:
    """The run's figures in full, and a digest of everything per iteration and per compression."""
    s = figures(record.events, record.scenario)
    return {
        "summary": {k: v for k, v in s.to_dict().items() if k != "summarizer_latency_s"},
        "final_answer": record.final_answer,
        "digests": {key: _digest(value) for key, value in _details(record).items()},
    }


def _details(record) -> dict:
    return {
        "iterations": [(e.iteration, e.data["before_chars"], e.data["before_tokens"], e.data["chars"],
                        e.data["tokens"]) for e in record.events if e.kind == "iteration"],
        "compressions": [{k: c[k] for k in ("iteration", "reason", "status", "after", "tokens_in", "tokens_out",
                                              "facts_before", "facts_lost", "facts_retained", "flags")}
                         for c in annotate(record.events)],
        "facts_by_step": [vars(f) for f in facts_by_step(record.events)],
        "events": [(e.kind, e.iteration, {k: v for k, v in e.data.items() if k not in _TIMINGS})
                   for e in record.events if e.kind != "run_start"],  # run_start holds the inputs
    }


_TIMINGS = ("latency_s", "elapsed_s", "paused_s")  # wall-clock figures: never equal from run to run


def snapshot(names=None) -> dict:
    out = {}
    for name, loaded in _inputs():
        if names and name not in names:
            continue
        source, base = replay_source(loaded)[:2]
        replays = [_replay_result(replay_one(source, base, changes)) for changes in REPLAY_SETTINGS]
        entry = {"replays": replays}
        if name in ("support-ticket-defaults.json", "synthetic-60-seed-7"):
            records, baselines, _ = compare(loaded, grid(SWEEP["summarize_every"], SWEEP["max_scratchpad_chars"]))
            entry["sweep"] = [row(r, baseline_for(r, baselines)) for r in records]
        out[name] = entry
    return json.loads(json.dumps(out))  # tuples to lists, as the fixture stores them


if __name__ == "__main__":
    json.dump(snapshot(sys.argv[1:] or None), sys.stdout, indent=1, sort_keys=True)
