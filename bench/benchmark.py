"""Benchmark speed (issue 31, item 5): the whole `scratchpad-lab bench` study on real runs, its points per second
per core and peak memory, and its cost per point against the packages driven directly on the same runs and
settings.

    python bench/benchmark.py [--runs N] [--workers 2] [--ratio-runs 4] [--strategy NAME ...] [--skip-whole]
                              [--skip-ratio] [--recommend-runs N] [--executor local|ray] [--ray-address ADDRESS]

The dataset is ../shared/datasets/tau-bench-airline/gpt-4o-airline.json (read from beside the repository,
never copied in; public source: sierra-research/tau-bench, historical_trajectories/gpt-4o-airline.json), or the one
--dataset names (a file of runs or a folder: the long coding runs' ratio is
`--dataset ../shared/datasets/long-runs/mini-swe-agent --skip-whole --ratio-runs 3`).

- whole: one fresh process runs `run_benchmark` (engine/studies/benchmark.py) with the default grid on the first
  --runs runs (default all 148), --workers processes; wall-clock seconds from the request to the result
  (import and dataset read included), points per second per core (points / seconds / workers), and peak
  memory (ru_maxrss of the process and of its largest worker). The load average is printed before and after:
  on a busy machine the figures are the machine's, not the lab's.
- ratio: one fresh process, every package imported before any clock starts; for each of the first
  --ratio-runs runs and each default-grid point, the lab's point exactly as the benchmark runs it in a process
  (`recommend.run_point` with the run's shared context and its argument measures: the strategy, its row, its
  argument recall) against the same strategy and resolved settings driven directly: the autourgos agent with
  its middleware (tests/bare_reference.bare_replay; for autourgos-builtin the agent's trim without its own
  summarizer, so that ratio leans high), LangChain's own agent graph with the package's middleware
  (graph_replay), LangMem's summarize_messages before each call. The ratio is the sums' (lab / direct) per
  strategy and overall; the issue's target is 1.3x.
- on Ray (--executor ray, issue 32): the whole benchmark once more in a fresh process through the Ray executor,
  printed beside the local executor's: with no --ray-address, on a Ray cluster of this machine's cores that the
  process starts (its start is timed apart: `ray.init` alone, before the study), else on the cluster at the
  address. The rows of the two are compared (sorted by cell): they must be identical. Also where the cells ran.
- recommend in turn (--recommend-runs N): `scratchpad-lab recommend RUN --json` as a fresh process on each of the
  first N runs one after another (what a person would do without `bench`), against the whole benchmark of the
  same N runs; the issue's target is at most half the time.
- the old import (--old-import, issue 42): the whole benchmark once more on the same runs folded as the lab
  imported them before conversations kept their own shape (the system prompt inside the task, no messages: the
  message strategies then see the policy as a human message and the user's turns as tool results), and its
  points per second per core beside the new replay's.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET_RATIO, TARGET_MB = 1.3, 1024


def dataset_path() -> Path:
    for root in (REPO, REPO.parent.parent / "main" if REPO.parent.name == "wt" else REPO):
        path = root.parent / "shared" / "datasets" / "tau-bench-airline" / "gpt-4o-airline.json"
        if path.exists():
            return path
    raise SystemExit("needs ../shared/datasets/tau-bench-airline/gpt-4o-airline.json beside the repository")


WHOLE = r"""
import hashlib, json, os, resource, sys, time
started = time.perf_counter()
sys.path[:0] = [sys.argv[1] + "/src"]
from scratchpad_lab.engine.studies.benchmark import BenchmarkRequest, run_benchmark
from scratchpad_lab.engine.cells.executor import ExecutorChoice
strategies = json.loads(sys.argv[5]) or None
kind, address = (sys.argv[6], sys.argv[7] or None) if len(sys.argv) > 6 else ("local", None)
old_import = len(sys.argv) > 8 and sys.argv[8] == "old"
cluster_s = 0.0
if kind == "ray" and not address:  # the cluster's own start, apart from the study (the study then joins it)
    import ray
    from scratchpad_lab.engine.cells import ray_cluster
    begun = time.perf_counter()
    ray_cluster._join(ray, ExecutorChoice("ray"))
    cluster_s = time.perf_counter() - begun
dataset = sys.argv[2]
if old_import:  # each run as the lab imported it before (07eff0a): the system prompt folded into the task, no messages
    from scratchpad_lab.engine.files.dataset import read_dataset
    dataset = read_dataset(sys.argv[2])
    for run in dataset.usable:
        t = run.trace
        t.task = "System message:\n" + t.system + ("\n\nUser:\n" + t.task if t.task else "")
        t.system, t.messages = "", None
done = run_benchmark(BenchmarkRequest(dataset, strategies, runs=int(sys.argv[3]), workers=int(sys.argv[4]),
                                      executor=ExecutorChoice(kind, address)))
seconds = time.perf_counter() - started
rows = sorted((r["name"], label, json.dumps(row, sort_keys=True)) for r in done.runs for label, row in r["cells"].items())
print(json.dumps({"seconds": round(seconds, 1), "cluster_s": round(cluster_s, 1), "points": done.points_done,
                  "runs": len(done.runs), "placement": done.placement.sentence(),
                  "rows": hashlib.sha256(json.dumps(rows).encode()).hexdigest(),
                  "workers": done.workers, "settings": len(done.settings) - 1,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
                  "worker_peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024,
                  "chosen": [c.sentence for c in done.chosen],
                  "table": [[s.label, s.mean("argument_recall"), s.mean("gold_argument_recall"), s.mean("peak_share"),
                             s.never_compressed, s.on_front] for s in done.settings]}))
"""

RATIO = r"""
import json, sys, tempfile, time
sys.path[:0] = [sys.argv[1] + "/src", sys.argv[1] + "/tests"]
from scratchpad_lab.engine.files.dataset import read_dataset
from scratchpad_lab.engine.studies.benchmark import plan_settings, unit_of
from scratchpad_lab.engine.studies.run_calls import measure_for
from scratchpad_lab.engine.studies.recommender import point_context, run_point
from scratchpad_lab.engine.strategies.registry import strategy
from scratchpad_lab.engine.strategies.chat_summarizer import BuiltSummarizer, extractive_chat_model
from scratchpad_lab.engine.run.tokens import TokenCounter
import importlib
import langchain.agents, langchain_core.language_models.fake_chat_models, langgraph.graph.message
import langmem.short_term, deepagents.middleware.summarization, deepagents.backends.filesystem
from bare_reference import bare_replay, graph_replay
strategies = json.loads(sys.argv[4]) or None
settings = plan_settings(strategies, None)
for _, name, _ in settings:
    importlib.import_module(strategy(name).module)
    for module in strategy(name).imports:
        importlib.import_module(module)
counter = TokenCounter(None)
counter("warm the vocabulary")
plain = BuiltSummarizer().plain()

def direct(trace, name, s):
    if name == "autourgos-middleware":
        return bare_replay(trace, plain, summarize_every=s["summarize_every"], max_scratchpad_chars=s["max_scratchpad_chars"],
                           record=False)
    if name in ("trim-only", "autourgos-builtin"):
        trim = s["agent_trim_chars"] if name == "trim-only" else s["max_scratchpad_chars"]
        return bare_replay(trace, plain, summarize_every=None, max_scratchpad_chars=10**9, agent_trim_chars=trim,
                           max_tool_output_chars=s["max_tool_output_chars"], record=False)
    model = extractive_chat_model()
    if name == "clear-tool-uses":
        from scratchpad_lab.engine.strategies.clear_tool_uses import build_middleware
        return graph_replay(trace, [build_middleware(s)], keep=False)
    if name == "langchain-summarization":
        from scratchpad_lab.engine.strategies.langchain_summarization import build_middleware
        return graph_replay(trace, [build_middleware(model, s)], keep=False)
    if name == "deepagents":
        from deepagents.backends.filesystem import FilesystemBackend
        from scratchpad_lab.engine.strategies.deep_agents import build_middleware
        with tempfile.TemporaryDirectory() as tmp:
            fs, summ = build_middleware(model, FilesystemBackend(root_dir=tmp, virtual_mode=True), s)
            return graph_replay(trace, [fs, summ], keep=False, profile=model.profile)
    if name == "langmem":
        from langmem.short_term import summarize_messages
        from scratchpad_lab.engine.strategies.lang_mem import summarize_kwargs
        from scratchpad_lab.engine.strategies.messages import step_messages
        steps_ = step_messages(trace)
        messages, running = list(steps_[0]), None
        for k in range(1, len(steps_)):
            running = summarize_messages(messages, running_summary=running, model=model,
                                         **summarize_kwargs(s)).running_summary
            messages.extend(steps_[k])
        return running
    raise SystemExit(f"no direct side for {name}")

from scratchpad_lab.engine.strategies.spec import make_spec
lab, bare = {}, {}
for run in read_dataset(sys.argv[2], int(sys.argv[3])).usable:
    unit = unit_of(0, run, settings)
    context = point_context(run.trace, BuiltSummarizer(), None, measure_for(unit.calls), counter)
    for label, name, s in unit.points:
        started = time.perf_counter()
        run_point(name, s, None, context)
        lab[name] = lab.get(name, 0.0) + time.perf_counter() - started
        resolved = make_spec(name, s).resolved()
        started = time.perf_counter()
        try:
            direct(run.trace, name, resolved)
        except Exception:  # a run that ends without a final answer ends the bare agent with an error, as the lab's
            pass
        bare[name] = bare.get(name, 0.0) + time.perf_counter() - started
print(json.dumps({"lab": lab, "direct": bare}))
"""


def load_average() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=148)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--ratio-runs", type=int, default=4)
    parser.add_argument("--strategy", action="append")
    parser.add_argument("--skip-whole", action="store_true")
    parser.add_argument("--skip-ratio", action="store_true")
    parser.add_argument("--recommend-runs", type=int, default=0)
    parser.add_argument("--executor", choices=("local", "ray"), default="local")
    parser.add_argument("--ray-address", default="")
    parser.add_argument("--dataset", default="", help="another dataset (a file of runs or a folder, e.g. "
                        "../shared/datasets/long-runs/mini-swe-agent) instead of tau-bench's")
    parser.add_argument("--old-import", action="store_true",
                        help="also run the whole benchmark on the runs folded as the lab imported them before "
                             "conversations kept their own shape, and print both costs")
    args = parser.parse_args()
    path = args.dataset or str(dataset_path())
    picked = json.dumps(args.strategy or [])
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    print(f"cores: {os.cpu_count()}; load average at the start: {load_average()}", flush=True)
    if not args.skip_ratio:
        done = subprocess.run([sys.executable, "-c", RATIO, str(REPO), path, str(args.ratio_runs), picked],
                              capture_output=True, text=True, env=env)
        if done.returncode != 0:
            print("ratio: error:", done.stderr.strip()[-800:])
        else:
            r = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"per point, first {args.ratio_runs} runs, one process (lab point = strategy + row + argument "
                  f"recall; direct = the package alone):")
            print(f"  {'strategy':<26}{'lab s':>8}{'direct s':>10}{'ratio':>7}")
            for name in r["lab"]:
                print(f"  {name:<26}{r['lab'][name]:>8.2f}{r['direct'][name]:>10.2f}"
                      f"{r['lab'][name] / r['direct'][name]:>7.2f}")
            lab, bare = sum(r["lab"].values()), sum(r["direct"].values())
            print(f"  {'all':<26}{lab:>8.2f}{bare:>10.2f}{lab / bare:>7.2f}  (target {TARGET_RATIO}x); "
                  f"load average now {load_average()}", flush=True)
    if args.recommend_runs:
        import tempfile
        import time
        runs = json.loads(Path(path).read_text(encoding="utf-8"))[:args.recommend_runs]
        with tempfile.TemporaryDirectory() as tmp:
            started = time.perf_counter()
            for k, item in enumerate(runs):
                single = Path(tmp) / f"run{k}.json"
                single.write_text(json.dumps(item))
                subprocess.run([sys.executable, "-m", "scratchpad_lab.cli", "recommend", str(single), "--json"],
                               capture_output=True, env=env, check=True)
            in_turn = time.perf_counter() - started
        done = subprocess.run([sys.executable, "-c", WHOLE, str(REPO), path, str(args.recommend_runs),
                               str(args.workers), picked], capture_output=True, text=True, env=env)
        whole = json.loads(done.stdout.strip().splitlines()[-1])["seconds"] if done.returncode == 0 else None
        print(f"recommend on each of the first {args.recommend_runs} runs in turn: {in_turn:.1f} s; the benchmark of "
              f"the same runs: {whole} s ({whole / in_turn:.2f} of it; target at most 0.5); load average now "
              f"{load_average()}" if whole else f"benchmark error: {done.stderr.strip()[-400:]}", flush=True)
    def whole(what: str, *more: str):
        """One whole benchmark in a fresh process (WHOLE): its figures, or None after printing its error."""
        done = subprocess.run([sys.executable, "-c", WHOLE, str(REPO), path, str(args.runs), str(args.workers),
                               picked, *more], capture_output=True, text=True, env=env)
        if done.returncode != 0:
            print(f"{what}: error:", done.stderr.strip()[-800:])
            return None
        return json.loads(done.stdout.strip().splitlines()[-1])

    def print_table(rows) -> None:
        for row in rows:
            print("  " + "  ".join("-" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v)) for v in row))

    if not args.skip_whole:
        r = whole("whole")
        if r is None:
            return
        per_core = r["points"] / r["seconds"] / r["workers"]
        print(f"whole benchmark: {r['runs']} runs x {r['settings']} settings = {r['points']:,} points in "
              f"{r['seconds']:.1f} s on {r['workers']} workers: {per_core:.2f} points per second per core; peak "
              f"memory {r['peak_mb']} MB (largest worker {r['worker_peak_mb']} MB; target under {TARGET_MB} MB); "
              f"load average now {load_average()}")
        print_table(r["table"])
        for sentence in r["chosen"]:
            print("  " + sentence)
        if args.old_import:
            o = whole("old import", "local", "", "old")
            if o is None:
                return
            old_per_core = o["points"] / o["seconds"] / o["workers"]
            print(f"the same runs as the lab imported them before (system prompt in the task, user turns as tool "
                  f"results): {o['points']:,} points in {o['seconds']:.1f} s: {old_per_core:.2f} points per second per "
                  f"core; each run in its own shape costs {per_core / old_per_core:.2f} of that rate; load average now "
                  f"{load_average()}")
            print_table(o["table"])
        if args.executor == "ray":
            q = whole("ray", "ray", args.ray_address)
            if q is None:
                return
            cpus = q["workers"]
            print(f"the same on Ray: {q['points']:,} points in {q['seconds']:.1f} s from the request to the result "
                  f"({q['cluster_s']:.1f} s of it starting the cluster; {q['seconds'] - q['cluster_s']:.1f} s the "
                  f"study: {q['points'] / (q['seconds'] - q['cluster_s']) / cpus:.2f} points per second per core on "
                  f"{cpus} CPUs), against {r['seconds']:.1f} s local; peak memory of this process {q['peak_mb']} MB; "
                  f"rows {'identical to' if q['rows'] == r['rows'] else 'DIFFERENT from'} the local executor's; "
                  f"{q['placement']} Load average now {load_average()}")


if __name__ == "__main__":
    main()
