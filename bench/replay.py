"""Benchmark: the lab's observed replay against the bare packages on the same 200-step trace.

    python bench/replay.py [--seed N] [--repeats 3] [--profile]

Both sides run the real `autourgos-agent` and the real `AutoSummarizeMiddleware` with the offline
extractive summarizer (budget 1,500 chars) and the package defaults (summarize_every 5,
max_scratchpad_chars 15,000). The bare side has no observers at all (`bare_replay(..., record=False)`);
the observed side is exactly what the UI and the CLI run (`Run(...).run()`), events, token counts and
record included. Best of N wall-clock times (time.perf_counter), in one process, bare side first.
Cold: every process-wide cache (summary lines, facts, token counts, summaries) cleared before each
timed replay; warm: the same trace again with the caches as the previous replay left them.
Targets (issue 15): observed/bare <= 1.15 cold and warm, and the whole observed replay under 3 s.
"""
from __future__ import annotations

import argparse
import cProfile
import functools
import io
import pstats
import sys
from pathlib import Path
import time

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # synthetic, bare_reference

from bare_reference import bare_replay
from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.engine.summarize.extractive import ExtractiveSummarizer
from scratchpad_lab.engine.run.runner import Run, Source
from synthetic import synthetic_trace
from scratchpad_lab.engine.summarize import extractive
from scratchpad_lab.engine.run.tokens import clear_memos, get_encoding

RATIO_TARGET = 1.15
OBSERVED_TARGET_S = 3.0


def observed(trace):
    record = Run(RunConfig.build(scenario=None, summarizer="extractive"), Source.for_trace(trace)).run()
    assert record.outcome == "answered", record.error
    return record


def bare(trace):
    return bare_replay(trace, ExtractiveSummarizer(1500), record=False)


def cold():
    """Forget what earlier replays of this trace left in the process-wide caches (remembered summary
    lines, token counts), so each timed run costs what a user's first replay of the trace costs."""
    extractive.clear_caches()
    clear_memos()


def best_of(fn, trace, repeats, first_replay=True):
    best, result = float("inf"), None
    for _ in range(repeats):
        if first_replay:
            cold()
        started = time.perf_counter()
        result = fn(trace)
        best = min(best, time.perf_counter() - started)
    return best, result


# Where time is spent, by who spends it (own time of each function, grouped by file and name).
_BUCKETS = (
    ("tiktoken encode (lab token counts)", lambda f, n: "tiktoken" in f or "CoreBPE" in n),
    ("inspect.signature (agent's per-handler dispatch)", lambda f, n: f.endswith(("inspect.py", "enum.py"))),
    ("extractive summarizer (both sides)", lambda f, n: "scratchpad_lab/engine/summarize/extractive.py" in f or "re.Pattern" in n),
    ("lab observers, events, record", lambda f, n: "scratchpad_lab" in f),
    ("autourgos packages", lambda f, n: "autourgos" in f),
)


def _by_bucket(stats):
    totals = {name: 0.0 for name, _ in _BUCKETS}
    totals["other (threads, locks, builtins)"] = 0.0
    for (filename, _line, func), (_cc, _nc, tottime, _ct, _callers) in stats.stats.items():
        for name, match in _BUCKETS:
            if match(filename, func):
                totals[name] += tottime
                break
        else:
            totals["other (threads, locks, builtins)"] += tottime
    return totals


def profile(trace, top=20):
    profiles = {}
    for side, fn in (("observed", observed), ("bare", bare)):
        profiler = cProfile.Profile()
        profiler.enable()
        fn(trace)
        profiler.disable()
        profiles[side] = pstats.Stats(profiler, stream=io.StringIO())
    observed_b, bare_b = _by_bucket(profiles["observed"]), _by_bucket(profiles["bare"])
    lines = [f"{'own time under cProfile, s':<52}{'observed':>10}{'bare':>10}{'extra':>10}"]
    for name in observed_b:
        lines.append(f"{name:<52}{observed_b[name]:>10.3f}{bare_b[name]:>10.3f}"
                     f"{observed_b[name] - bare_b[name]:>+10.3f}")
    lines.append(f"{'total':<52}{sum(observed_b.values()):>10.3f}{sum(bare_b.values()):>10.3f}"
                 f"{sum(observed_b.values()) - sum(bare_b.values()):>+10.3f}")
    out = io.StringIO()
    stats = profiles["observed"]
    stats.stream = out
    stats.sort_stats("tottime").print_stats(top)
    calls = {func: nc for (f, _l, func), (_cc, nc, *_rest) in stats.stats.items()}
    lines.append(f"\ntiktoken encode calls: {calls.get('encode', 0)}; "
                 f"inspect.signature calls: observed {calls.get('signature', 0)}, bare "
                 f"{ {func: nc for (f, _l, func), (_cc, nc, *_r) in profiles['bare'].stats.items()}.get('signature', 0)}")
    return "\n".join(lines) + "\n\n── observed replay, top functions by own time ──\n" + out.getvalue()


def attribute(trace, bare_s, observed_s, repeats):
    """Wall-clock cost of the two suspects, without the profiler's distortion: time the observed replay
    again with (a) token counting stubbed out, (b) the agent's per-call signature check memoised."""
    import autourgos_agent.base as agent_base

    from scratchpad_lab.engine.run.tokens import TokenCounter

    lines = []
    real_count = TokenCounter.__call__
    TokenCounter.__call__ = lambda self, text: 0
    try:
        no_tokens_s, _ = best_of(observed, trace, repeats)
    finally:
        TokenCounter.__call__ = real_count
    lines.append(f"observed without tiktoken counts      : {no_tokens_s:.3f} s -> token counting costs "
                 f"{observed_s - no_tokens_s:.3f} s (ratio would be {no_tokens_s / bare_s:.2f})")
    manager = agent_base.CallbackManager
    real_check = manager.__dict__["_accepts_agent_kwarg"]
    manager._accepts_agent_kwarg = staticmethod(functools.lru_cache(maxsize=None)(real_check.__func__))
    try:
        cached_bare_s, _ = best_of(bare, trace, repeats)
        cached_observed_s, _ = best_of(observed, trace, repeats)
    finally:
        manager._accepts_agent_kwarg = real_check
    # The lab hands the agent presigned hooks (its own and the middleware's), so memoising the agent's check
    # saves the bare side what the lab already saves: a negative difference is the lab's saving.
    lines.append(f"with the signature check memoised     : bare {cached_bare_s:.3f} s, observed {cached_observed_s:.3f} s "
                 f"-> the lab's hooks cost {observed_s - cached_observed_s - (bare_s - cached_bare_s):+.3f} s of "
                 f"signature checks more than bare's (ratio would be {cached_observed_s / cached_bare_s:.2f})")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of one observed replay")
    args = parser.parse_args(argv)

    trace = synthetic_trace(steps=args.steps, seed=args.seed)
    get_encoding("o200k_base")  # vocabulary load is a one-off per process, not per run: keep it out of the timing
    observed(trace)  # warm-up: imports, first-call caches
    bare(trace)

    bare_s, bare_result = best_of(bare, trace, args.repeats)
    observed_s, record = best_of(observed, trace, args.repeats)
    warm_bare_s, _ = best_of(bare, trace, args.repeats, first_replay=False)
    warm_observed_s, _ = best_of(observed, trace, args.repeats, first_replay=False)
    compressions = sum(1 for e in record.events if e.kind == "compression")
    ratio = observed_s / bare_s

    print(f"trace: {len(trace.steps)} steps (seed {args.seed}), "
          f"{sum(len(o) for s in trace.steps for o in s.observations):,} chars of tool output")
    print(f"bare packages, no observers : {bare_s:.3f} s  (best of {args.repeats}, each a first replay)")
    print(f"lab observed replay         : {observed_s:.3f} s  (best of {args.repeats}, each a first replay)")
    print(f"ratio observed/bare         : {ratio:.2f}  (target <= {RATIO_TARGET}) "
          f"{'OK' if ratio <= RATIO_TARGET else 'OVER'}")
    print(f"observed replay under {OBSERVED_TARGET_S:g} s   : {'yes' if observed_s < OBSERVED_TARGET_S else 'no'}")
    print(f"compressions                : {compressions} "
          f"(bare: {bare_result['iterations']} iterations, same final answer: "
          f"{bare_result['final_answer'] == record.final_answer})")
    print(f"events recorded             : {len(record.events):,}")
    warm_ratio = warm_observed_s / warm_bare_s
    print(f"same trace again, warm caches: bare {warm_bare_s:.3f} s, observed {warm_observed_s:.3f} s, ratio "
          f"{warm_ratio:.2f} (target <= {RATIO_TARGET}) {'OK' if warm_ratio <= RATIO_TARGET else 'OVER'}")
    if args.profile or ratio > RATIO_TARGET:
        print("\n── where the lab's extra time goes ──")
        print(attribute(trace, bare_s, observed_s, max(args.repeats, 5)))
        print("\n── cProfile of one replay on each side ──")
        print(profile(trace))
    return 0


if __name__ == "__main__":
    sys.exit(main())
