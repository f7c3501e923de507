"""Benchmark: what replaying one trajectory under each strategy costs (wall time, peak memory), by size,
and what the lab's work limit (engine/limits.py) does with the issue-20 trace.

    PYTHONPATH=src python3 bench/work_limits.py [--steps 250,500,1000] [--strategies autourgos-middleware,deepagents,langmem]
                                                [--bytes-per-step 1800] [--big]

Each figure is one fresh process (`python -c`, start-up included): it loads a synthetic trace of N steps
of about `--bytes-per-step` bytes (tests/synthetic.py), runs `run_strategies` with the one strategy and
the offline extractive summarizer, and reports its wall time and peak resident memory (ru_maxrss). The
cost per step and the step count where a strategy would pass 1.5 GB or 120 s are read off these.
`--big` also writes the issue's probe (5,000 steps, about 9 MB, inside the file limits) and asks
check_work about it for the default three strategies, then runs `scratchpad-lab strategies` on it (the
command refuses it before it starts, unless the limit holds it to be within budget) and prints how long
that took and its memory.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "src"))

CHILD = """
import json, resource, sys, time
from scratchpad_lab.model.records import load_path
from scratchpad_lab.engine.strategies import make_spec, run_strategies
trace = load_path(sys.argv[1])
started = time.perf_counter()
results = run_strategies(trace, [make_spec(name, {}) for name in sys.argv[2].split(",")])
took = time.perf_counter() - started
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"s": took, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024,
                  "errors": [r.error for r in results if r.error]}))
"""


def write_trace(path: Path, steps: int, bytes_per_step: int) -> int:
    from synthetic import synthetic_trace
    # synthetic observations average (40 + max) / 2 chars, 1.6 tool calls a step, ~150 bytes of reply
    max_obs = max(100, int((bytes_per_step - 150) / 1.6 * 2 - 40))
    trace = synthetic_trace(steps=steps, seed=20, max_observation_chars=max_obs, parse_error_rate=0.02)
    path.write_text(json.dumps(trace.to_dict()), encoding="utf-8")
    return path.stat().st_size


def measure(path: Path, strategies: str, timeout: float = 900) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, str(path), strategies], capture_output=True,
                              text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"s": time.perf_counter() - started, "cpu_s": float("nan"), "peak_mb": float("nan"),
                "errors": [f"over {timeout:g} s"]}
    if done.returncode != 0:
        return {"s": time.perf_counter() - started, "cpu_s": float("nan"), "peak_mb": float("nan"),
                "errors": [done.stderr[-300:]]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", default="250,500,1000")
    parser.add_argument("--strategies", default="autourgos-middleware,deepagents,langmem")
    parser.add_argument("--bytes-per-step", type=int, default=1800)
    parser.add_argument("--big", action="store_true")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="lab-work-"))
    print(f"{'strategy':<22} {'steps':>6} {'file MB':>8} {'wall s':>8} {'cpu s':>8} {'peak MB':>8}")
    for steps in [int(s) for s in args.steps.split(",")]:
        path = tmp / f"trace-{steps}.json"
        size = write_trace(path, steps, args.bytes_per_step)
        for name in args.strategies.split(","):
            got = measure(path, name)
            print(f"{name:<22} {steps:>6} {size / 1e6:>8.2f} {got['s']:>8.1f} {got['cpu_s']:>8.1f} {got['peak_mb']:>8.0f}"
                  + (f"  errors: {got['errors']}" if got["errors"] else ""), flush=True)
    if args.big:
        big(tmp, args.bytes_per_step)


def big(tmp: Path, bytes_per_step: int) -> None:
    """The issue's probe, through `scratchpad-lab strategies` (one process each, as a user runs it)."""
    from scratchpad_lab.engine.limits import WorkLimitExceeded, check_work, estimate, strategy_replays
    from scratchpad_lab.engine.strategies import make_spec
    from scratchpad_lab.model.records import load_path
    path = tmp / "probe-5000.json"
    size = write_trace(path, 5000, bytes_per_step)
    trace = load_path(path)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    print(f"\nthe probe: 5,000 steps, {size / 1e6:.1f} MB")
    for names in (["autourgos-middleware", "deepagents", "langmem"],      # the page's default three
                  ["autourgos-middleware", "langmem", "trim-only"]):
        specs = [make_spec(n, {}) for n in names]
        e = estimate(trace, strategy_replays(specs))
        try:
            check_work(trace, strategies=specs)
            verdict = "within the limit"
        except WorkLimitExceeded:
            verdict = "over the limit"
        argv = [sys.executable, "-c", "import resource, sys; from scratchpad_lab.cli import main; code = main(sys.argv[1:]); "
                "u = resource.getrusage(resource.RUSAGE_SELF); "
                "print('peak_mb %.0f cpu_s %.1f' % (u.ru_maxrss / 1024, u.ru_utime + u.ru_stime), file=sys.stderr); "
                "sys.exit(code)", "strategies", str(path), "--json"]
        for name in names:
            argv += ["--strategy", name]
        started = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=1800)
        print(f"{' + '.join(names)}: estimated {e.cpu_s:.0f} s CPU, {e.held_mb:.0f} MB held: {verdict}; "
              f"`scratchpad-lab strategies`: exit {done.returncode} after {time.perf_counter() - started:.1f} s wall; "
              f"{done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ''}")
        if done.returncode == 2:
            print("    " + done.stderr.strip().splitlines()[0][:300])


if __name__ == "__main__":
    main()
