"""Benchmark: a 6 x 6 sweep (36 replays) of one 100-step trace with the extractive summarizer.

    python bench/sweep.py [--seed N] [--steps 100] [--repeats 1] [--profile | --no-profile]

The grid is summarize_every 1, 2, 3, 5, 8, none x max_scratchpad_chars 1,000 ... 30,000, over a
synthetic trace (`synthetic_trace(steps=100)`), through exactly what the Compare page and
`scratchpad-lab sweep` run: `compare.compare` (one compression-off baseline replay per agent trim, then
one replay per cell) and `compare.row` (the sweep row, facts and savings included). Wall clock with
time.perf_counter, in one process, after a warm-up replay (imports, tiktoken vocabulary).
Target (issue 5): the whole sweep under 20 s on this 2-core machine.

--profile prints a cProfile of one sweep, grouped by who spends the time, and how much of the work is
the trajectory up to the first compression, which is the same for every cell and could be shared.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
from pathlib import Path
import time

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # synthetic, bare_reference

from scratchpad_lab.engine.studies import compare as compare_mod
from scratchpad_lab.engine.studies.compare import Setting, baseline_for, compare, grid, row
from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.engine.run.runner import Run, Source
from synthetic import synthetic_trace

SUMMARIZE_EVERY = (1, 2, 3, 5, 8, None)
MAX_SCRATCHPAD_CHARS = (1000, 2000, 4000, 8000, 15000, 30000)
TARGET_S = 20.0


def sweep(trace):
    """(rows, seconds in baseline replays, seconds in cell replays, seconds building rows, baselines)."""
    settings = [Setting(**{**s.changes(), "summarizer": "extractive"})
                for s in grid(SUMMARIZE_EVERY, MAX_SCRATCHPAD_CHARS)]
    timings = {"baseline": 0.0, "cells": 0.0}
    real_replay_one = compare_mod.replay_one

    def timed_replay_one(source, base, changes, keys=None, **kwargs):
        started = time.perf_counter()
        try:
            return real_replay_one(source, base, changes, keys, **kwargs)
        finally:
            # compare() builds a baseline with the NEVER settings; every other call is a cell.
            is_baseline = changes.get("max_scratchpad_chars") == compare_mod.NEVER["max_scratchpad_chars"] \
                and changes.get("summarize_every") is None and "summarizer" not in changes
            timings["baseline" if is_baseline else "cells"] += time.perf_counter() - started

    compare_mod.replay_one = timed_replay_one
    try:
        records, baselines, _ = compare(trace, settings)
    finally:
        compare_mod.replay_one = real_replay_one
    started = time.perf_counter()
    rows = [row(r, baseline_for(r, baselines)) for r in records]
    return rows, timings["baseline"], timings["cells"], time.perf_counter() - started, len(baselines)


_BUCKETS = (
    ("tiktoken encode (token counts)", lambda f, n: "tiktoken" in f or "CoreBPE" in n),
    ("facts / quality (rows: facts_retained)",
     lambda f, n: f.endswith(("scratchpad_lab/analysis/facts.py", "scratchpad_lab/analysis/quality.py",
                            "scratchpad_lab/analysis/figures.py"))),
    ("extractive summarizer", lambda f, n: f.endswith("scratchpad_lab/engine/summarize/extractive.py")),
    ("regex engine (re.sub / search / findall)",
     lambda f, n: n.startswith(("<method 'sub'", "<method 'search'", "<method 'findall'", "<method 'finditer'",
                                "<method 'match'", "<method 'split' of 're"))
     or f.endswith(("re/__init__.py", "re/_compiler.py", "re/_parser.py"))),
    ("inspect.signature (agent's handler dispatch)", lambda f, n: f.endswith(("inspect.py", "enum.py"))),
    ("lab observers, events, records, config", lambda f, n: "scratchpad_lab" in f or "pydantic" in f),
    ("autourgos packages", lambda f, n: "autourgos" in f),
    ("threads, locks, queues", lambda f, n: f.endswith(("threading.py", "thread.py", "_base.py", "queue.py"))
     or "lock" in n or "acquire" in n),
)


def _bucketed(stats):
    totals = {name: 0.0 for name, _ in _BUCKETS}
    totals["other builtins"] = 0.0
    for (filename, _line, func), (_cc, _nc, tottime, _ct, _callers) in stats.stats.items():
        for name, match in _BUCKETS:
            if match(filename, func):
                totals[name] += tottime
                break
        else:
            totals["other builtins"] += tottime
    return totals


def _cumulative(stats, endswith, func):
    return sum(ct for (f, _l, fn), (_cc, _nc, _tt, ct, _callers) in stats.stats.items()
               if f.endswith(endswith) and fn == func)


def profile(trace, top=25):
    profiler = cProfile.Profile()
    profiler.enable()
    sweep(trace)
    profiler.disable()
    stats = pstats.Stats(profiler, stream=io.StringIO())
    lines = ["own time under cProfile, by who spends it (s):"]
    totals = _bucketed(stats)
    for name, seconds in sorted(totals.items(), key=lambda kv: -kv[1]):
        lines.append(f"  {name:<48}{seconds:>8.2f}")
    lines.append(f"  {'total':<48}{sum(totals.values()):>8.2f}")
    lines.append("cumulative time of the main phases (s, under cProfile):")
    for label, endswith, func in (
            ("Run.run (all replays)", "scratchpad_lab/engine/run/runner.py", "run"),
            ("Run.__init__ (building agent, middleware)", "scratchpad_lab/engine/run/runner.py", "__init__"),
            ("ExtractiveSummarizer.summarize", "scratchpad_lab/engine/summarize/extractive.py", "summarize"),
            ("TokenCounter.__call__", "scratchpad_lab/engine/run/tokens.py", "__call__"),
            ("compare.row (all rows)", "scratchpad_lab/engine/studies/compare.py", "row"),
            ("figures.facts_over_compressions (facts_retained)", "scratchpad_lab/analysis/figures.py",
             "facts_over_compressions"),
            ("quality.savings", "scratchpad_lab/analysis/quality.py", "savings"),
            ("figures.figures (the figures row)", "scratchpad_lab/analysis/figures.py", "figures"),
            ("facts.extract_facts", "scratchpad_lab/analysis/facts.py", "extract_facts"),
            ("facts.contains", "scratchpad_lab/analysis/facts.py", "contains")):
        lines.append(f"  {label:<48}{_cumulative(stats, endswith, func):>8.2f}")
    out = io.StringIO()
    stats.stream = out
    stats.sort_stats("tottime").print_stats(top)
    return "\n".join(lines) + "\n\n── top functions by own time ──\n" + out.getvalue()


def shared_prefix(trace):
    """How much of each cell's replay is the part before its first compression (identical for all
    cells, and for the baseline): the replay of that prefix, timed once, times the cells."""
    base = RunConfig.build(scenario=None, summarizer="extractive", step_delay_s=0.0)
    source = Source.for_trace(trace)
    firsts = []
    for setting in grid(SUMMARIZE_EVERY, MAX_SCRATCHPAD_CHARS):
        record = Run(base.replace(**setting.changes()), source).run()
        first = next((e.iteration for e in record.events if e.kind == "compression"), None)
        firsts.append(first if first is not None else len(trace.steps) + 1)
    seconds = []
    for first in firsts:  # the prefix is a trace cut just before the first compression, compression off
        prefix = type(trace)(task=trace.task, tools=trace.tools, steps=trace.steps[:max(first - 1, 1)])
        started = time.perf_counter()
        Run(base.replace(summarize_every=None, max_scratchpad_chars=1_000_000), Source.for_trace(prefix)).run()
        seconds.append(time.perf_counter() - started)
    return firsts, seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=1, help="sweeps to time (each one printed)")
    parser.add_argument("--profile", action="store_true", help="also profile one sweep with cProfile "
                        "(done anyway when the best sweep is over 15 s, unless --no-profile)")
    parser.add_argument("--no-profile", action="store_true", help="never profile")
    args = parser.parse_args(argv)
    if hasattr(os, "getloadavg"):
        print(f"load average before the sweep: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")

    trace = synthetic_trace(steps=args.steps, seed=args.seed)
    Run(RunConfig.build(scenario=None, summarize_every=5), Source.for_trace(trace)).run()  # warm-up
    cells = len(SUMMARIZE_EVERY) * len(MAX_SCRATCHPAD_CHARS)
    print(f"trace: {len(trace.steps)} steps (seed {args.seed}), "
          f"{sum(len(o) for s in trace.steps for o in s.observations):,} chars of tool output; "
          f"grid {len(SUMMARIZE_EVERY)} x {len(MAX_SCRATCHPAD_CHARS)} = {cells} cells, extractive summarizer")
    totals = []
    for attempt in range(1, args.repeats + 1):
        started, cpu_started = time.perf_counter(), time.process_time()
        rows, baseline_s, cells_s, rows_s, n_baselines = sweep(trace)
        total = time.perf_counter() - started
        cpu = time.process_time() - cpu_started
        totals.append(total)
        assert len(rows) == cells
        # CPU time of this process (all its threads): what the sweep costs when other work shares the cores.
        print(f"sweep {attempt}: total {total:.2f} s  ({total / cells:.3f} s per cell; CPU {cpu:.2f} s)  | "
              f"baseline replays: {n_baselines} in {baseline_s:.2f} s | cell replays {cells_s:.2f} s "
              f"({cells_s / cells:.3f} s each) | rows (facts, savings) {rows_s:.2f} s | "
              f"target < {TARGET_S:g} s: {'OK' if total < TARGET_S else 'OVER'}")
    compressions = sum(r["compressions"] for r in rows)
    print(f"compressions over the grid: {compressions}; "
          f"cells that never compress: {sum(1 for r in rows if r['compressions'] == 0)}")
    if args.profile or (min(totals) > 15.0 and not args.no_profile):
        print("\n── cProfile of one sweep ──")
        print(profile(trace))
        firsts, seconds = shared_prefix(trace)
        print("── the shared part: each cell's replay up to its first compression ──")
        print(f"first compression at iteration (per cell): {firsts}")
        print(f"replaying those prefixes costs {sum(seconds):.2f} s in total over {cells} cells "
              f"(mean {sum(seconds) / cells:.3f} s, longest {max(seconds):.3f} s); sharing one prefix "
              f"would save at most {sum(seconds) - max(seconds):.2f} s of a sweep")
    return 0


if __name__ == "__main__":
    sys.exit(main())
