"""Benchmark: each strategy on 200, 800 and 1,600 steps, against the same work done without the lab, and
the recommender's time on a 120-step trace.

    python bench/strategies.py [--steps 200,800,1600] [--strategy NAME ...] [--recommend-steps 120]
                               [--skip-direct] [--skip-recommend]

Every figure is one fresh process (so peak memory is that run's alone: ru_maxrss, imports included),
the imports done before the clock starts on both sides, wall-clock seconds. The trace is
`tests/synthetic.py`'s (seed 1, every step but the last calls tools, so LangChain's agent graph can run
it). The lab side is `run_strategies(trace, [one spec])`, exactly what `scratchpad-lab strategies` runs
(the no-compression baseline included); the figures of its row (`row()`: facts kept, which reads every
compression's and trim's text) are timed on their own ("row s"). The direct side is the same work without the lab:
- the autourgos strategies: a plain replay (`runner.Run` of the trace with the package defaults, what
  `scratchpad-lab replay` runs);
- deepagents, clear-tool-uses, langchain-summarization: LangChain's own agent graph (`create_agent`) with
  the package's middleware, a fake model replaying the trace (tests/bare_reference.graph_replay);
- langmem: `summarize_messages` called before each model call, the way its docs use it.
Settings: each strategy's defaults, but langchain-summarization gets trigger_tokens=100,000 (its package
default is no trigger, so it would do nothing). Then `scratchpad-lab strategies` with four of them at the largest
size as one whole process (the issue measured 102 s and 2 GB), and the recommender. Targets (issue 23): the autourgos strategies within 1.5x a
plain replay, the LangChain ones within 1.2x the package driven directly, peak memory under 500 MB.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
AUTOURGOS = ("autourgos-middleware", "autourgos-builtin", "trim-only")
SETTINGS = {"langchain-summarization": {"trigger_tokens": 100_000}}
TARGET_AUTOURGOS, TARGET_LANGCHAIN, TARGET_MB = 1.5, 1.2, 500
FOUR = ("autourgos-middleware", "trim-only", "deepagents", "langmem")  # issue 23: 102 s and 2 GB at 1,600 steps

CHILD = r"""
import json, resource, sys, time
sys.path[:0] = [sys.argv[1] + "/src", sys.argv[1] + "/tests"]
side, steps, name, settings = sys.argv[2], int(sys.argv[3]), sys.argv[4], json.loads(sys.argv[5])
from synthetic import synthetic_trace
trace = synthetic_trace(steps=steps, seed=1, parse_error_rate=0)
from scratchpad_lab.engine.strategies import make_spec, run_strategies, strategy
from scratchpad_lab.engine.strategies.chat_summarizer import extractive_chat_model
spec = make_spec(name, settings)
if strategy(name).context == "messages":  # the imports, before the clock, on both sides
    import importlib; importlib.import_module(strategy(name).module)
    import langchain.agents, langchain_core.language_models.fake_chat_models, langgraph.graph.message
    if name == "langmem":
        import langmem.short_term
    if name == "deepagents":
        import deepagents.middleware.summarization, deepagents.backends.filesystem
from scratchpad_lab.engine.run.tokens import TokenCounter
TokenCounter(None)("warm the vocabulary")

def direct():
    s = spec.resolved()
    if name in ("autourgos-middleware", "autourgos-builtin", "trim-only"):
        from scratchpad_lab.model.config import RunConfig
        from scratchpad_lab.engine.run.runner import Run, Source
        return Run(RunConfig.build(scenario=None, summarizer="extractive", step_delay_s=0.0),
                   Source.for_trace(trace)).run()
    from bare_reference import graph_replay
    model = extractive_chat_model()
    if name == "clear-tool-uses":
        from scratchpad_lab.engine.strategies.clear_tool_uses import build_middleware
        return graph_replay(trace, [build_middleware(s)], keep=False)
    if name == "langchain-summarization":
        from scratchpad_lab.engine.strategies.langchain_summarization import build_middleware
        return graph_replay(trace, [build_middleware(model, s)], keep=False)
    if name == "deepagents":
        import tempfile
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

started = time.perf_counter()
if side == "lab":
    result = run_strategies(trace, [spec])[0]
    ran = time.perf_counter()
    extra = {"compressions": result.row()["compressions"], "row_seconds": round(time.perf_counter() - ran, 2)}
    started += time.perf_counter() - ran  # the row's figures are timed on their own
else:
    direct()
    extra = {}
print(json.dumps({"seconds": round(time.perf_counter() - started, 2),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024, **extra}))
"""

RECOMMEND = r"""
import json, resource, sys, time
sys.path[:0] = [sys.argv[1] + "/src", sys.argv[1] + "/tests"]
from synthetic import synthetic_trace
from scratchpad_lab.engine.studies.recommender import search
trace = synthetic_trace(steps=int(sys.argv[2]), seed=1, parse_error_rate=0)
workers = int(sys.argv[3])
started = time.perf_counter()
found = search(trace, workers=workers)
print(json.dumps({"seconds": round(time.perf_counter() - started, 2), "points": len(found.points),
                  "front": sum(1 for p in found.points if p.on_front), "workers": workers,
                  "summaries_reused": found.summaries_reused,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}))
"""


def child(side: str, steps: int, name: str) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, str(REPO), side, str(steps), name,
                           json.dumps(SETTINGS.get(name, {}))], capture_output=True, text=True)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    from scratchpad_lab.engine.strategies import names

    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", default="200,800,1600")
    parser.add_argument("--strategy", action="append")
    parser.add_argument("--recommend-steps", type=int, default=120)
    parser.add_argument("--skip-direct", action="store_true")
    parser.add_argument("--skip-recommend", action="store_true")
    parser.add_argument("--skip-four", action="store_true")
    args = parser.parse_args()
    picked = args.strategy or names()
    print(f"{'strategy':<24}{'steps':>6}{'lab s':>9}{'lab MB':>8}{'direct s':>10}{'direct MB':>10}{'ratio':>7}"
          f"{'target':>8}{'row s':>7}  compressions")
    for steps in [int(s) for s in args.steps.split(",")]:
        for name in picked:
            lab = child("lab", steps, name)
            direct = {} if args.skip_direct else child("direct", steps, name)
            if "error" in lab or "error" in direct:
                print(f"{name:<24}{steps:>6}  error: {lab.get('error') or direct.get('error')}")
                continue
            target = TARGET_AUTOURGOS if name in AUTOURGOS else TARGET_LANGCHAIN
            ratio = lab["seconds"] / direct["seconds"] if direct.get("seconds") else None
            print(f"{name:<24}{steps:>6}{lab['seconds']:>9.1f}{lab['peak_mb']:>8}"
                  f"{direct.get('seconds', float('nan')):>10.1f}{direct.get('peak_mb', 0):>10}"
                  f"{(f'{ratio:.2f}' if ratio else '-'):>7}{target:>8}{lab['row_seconds']:>7.1f}  {lab['compressions']}"
                  f"{'' if lab['peak_mb'] < TARGET_MB else '  (over 500 MB)'}", flush=True)
    if not args.skip_four:  # the figure: four of today's strategies through the CLI, one process
        import tempfile
        import time
        sys.path.insert(0, str(REPO / "tests"))
        from synthetic import synthetic_trace
        steps = max(int(s) for s in args.steps.split(","))
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "trace.json"
            path.write_text(json.dumps(synthetic_trace(steps=steps, seed=1, parse_error_rate=0).to_dict()))
            argv = ["strategies", str(path), "--json", "--no-work-limit"]
            for name in FOUR:
                argv += ["--strategy", name]
            code = ("import json, resource, sys; from scratchpad_lab.cli import main; rc = main(json.loads(sys.argv[1])); "
                    "print(json.dumps({'rc': rc, 'mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}), "
                    "file=sys.stderr)")
            started = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", code, json.dumps(argv)], capture_output=True, text=True,
                                  env={**os.environ, "PYTHONPATH": str(REPO / "src")})
            took = time.perf_counter() - started
            last = (done.stderr.strip().splitlines() or ["{}"])[-1]
            peak = json.loads(last).get("mb", 0) if last.startswith("{") else 0
        state = "ok" if done.returncode == 0 else f"exit {done.returncode}: {done.stderr.strip()[-200:]}"
        print(f"scratchpad-lab strategies, {steps} steps, {' + '.join(FOUR)}: {took:.1f} s whole process, "
              f"peak {peak} MB ({state})", flush=True)
    if not args.skip_recommend:
        for workers in (1, 2):
            done = subprocess.run([sys.executable, "-c", RECOMMEND, str(REPO), str(args.recommend_steps),
                                   str(workers)], capture_output=True, text=True)
            if done.returncode != 0:
                print("recommend: error:", done.stderr.strip().splitlines()[-1:])
                continue
            r = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"recommend, {args.recommend_steps} steps, {r['workers']} worker(s): {r['seconds']:.1f} s for "
                  f"{r['points']} points ({r['front']} on the front), {r['summaries_reused']} summaries reused, "
                  f"peak {r['peak_mb']} MB", flush=True)


if __name__ == "__main__":
    sys.path.insert(0, str(REPO / "src"))
    main()
