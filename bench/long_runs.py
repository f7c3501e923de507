"""Long coding-agent runs (issue 44): import time, each strategy's replay time at its defaults, and peak memory, on
the real runs in ../shared/datasets/long-runs/ (read from beside the repository, never copied in).

    python bench/long_runs.py [--strategy NAME ...]

Each file is imported and replayed in a fresh process (the packages imported before any clock starts), so the
figures are per session: import seconds, then each strategy's seconds at its defaults (`scratchpad-lab strategies`'s
work: the strategy, its baseline and its row), and the process's peak memory (ru_maxrss). The load average is printed
before and after: on a busy machine the figures are the machine's, not the lab's. Beside each strategy's seconds, what
the work limit (engine/limits.py) prices that replay at: a price below the time taken would let a long run past the
limit. Each strategy's package driven directly on the same sessions: `bench/benchmark.py --dataset
../shared/datasets/long-runs/mini-swe-agent --skip-whole` (its per-point ratio).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

ONE = r"""
import json, resource, sys, time
sys.path[:0] = [sys.argv[1] + "/src"]
import importlib
from scratchpad_lab.engine.strategies.registry import default_names, strategy
for name in default_names(True):
    for module in strategy(name).imports:
        importlib.import_module(module)
    importlib.import_module(strategy(name).module)
from scratchpad_lab.engine.files.loader import load_file
from scratchpad_lab.engine.strategies import make_spec, run_strategies
started = time.perf_counter()
trace = load_file(sys.argv[2]).item
imported = time.perf_counter() - started
names = json.loads(sys.argv[3]) or default_names(bool(trace.compactions))
from scratchpad_lab.engine.files.dataset import read_dataset
warm = read_dataset(sys.argv[1] + "/sample_runs/imported", 1).usable[0].trace  # each strategy's first use, untimed
for name in names:
    if name != "recorded-compaction":
        run_strategies(warm, [make_spec(name, {})])[0].row()
seconds, cpu = {}, {}
for name in names:
    begun, used = time.perf_counter(), time.process_time()
    [result] = run_strategies(trace, [make_spec(name, {})])
    result.row()
    seconds[name] = round(time.perf_counter() - begun, 2)
    cpu[name] = round(time.process_time() - used, 2)
from scratchpad_lab.engine.limits import estimate, strategy_replays
priced = {name: round(estimate(trace, strategy_replays([make_spec(name, {})])).cpu_s, 2) for name in names}
chars = sum(len(m.text) + sum(len(json.dumps(c.get("args", {}))) for c in m.calls) for m in trace.messages or [])
print(json.dumps({"import_s": round(imported, 2), "steps": len(trace.steps), "chars": chars, "seconds": seconds,
                  "cpu": cpu, "priced": priced,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--strategy", action="append")
    args = parser.parse_args()
    root = REPO.parent / "shared" / "datasets" / "long-runs"
    if not root.is_dir():
        raise SystemExit("needs ../shared/datasets/long-runs beside the repository")
    files = sorted(p for p in root.rglob("*") if (p.suffix in (".jsonl", ".traj") or p.name.endswith(".traj.json"))
                   and "subagents" not in p.parts)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    priced_under = 0
    print(f"cores: {os.cpu_count()}; load average at the start: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    for path in files:
        done = subprocess.run([sys.executable, "-c", ONE, str(REPO), str(path), json.dumps(args.strategy or [])],
                              capture_output=True, text=True, env=env)
        if done.returncode != 0:
            print(f"{path.name}: error: {done.stderr.strip()[-400:]}")
            continue
        r = json.loads(done.stdout.strip().splitlines()[-1])
        each = ", ".join(f"{n} {s:.1f} s ({r['cpu'][n]:.2f} CPU s, limit prices {r['priced'][n]:.2f})"
                         for n, s in r["seconds"].items())
        over = [n for n in r["seconds"] if r["priced"][n] < r["cpu"][n]]
        priced_under += len(over)
        print(f"{path.name}: {r['chars']:,} content chars, {r['steps']} steps; import {r['import_s']:.2f} s; {each}; "
              f"peak {r['peak_mb']} MB" + (f"; priced below its time: {', '.join(over)}" if over else ""), flush=True)
    print(f"replays the work limit priced below their CPU seconds: {priced_under}")
    print(f"load average at the end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
