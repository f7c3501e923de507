"""Benchmark: the server's memory for a 1,600-step run record open in a tab.

    python bench/memory.py [--steps 1600]

Runs the app in-process with Streamlit's AppTest (the same script runs a server would do), puts a
replayed 1,600-step synthetic run in the tab's run list, shows it, then opens the same record again,
and prints the process's resident memory (VmRSS) after each step, with the record's JSON size; in
brackets, the same after glibc's malloc_trim has handed freed memory back to the OS (what is still
held, not the allocator's high-water mark; each trim also lowers the next raw figure). The libraries
the run view imports (pandas, pyarrow, altair: the process's, once) are imported and counted before
the run is shown, so "showing it" is the tab's own cost. A record opened again must cost (almost)
nothing: the run list holds references, and a shipped sample opened twice is one object
(ui/library.open_sample); downloads build their JSON only when pressed.
"""
from __future__ import annotations

import argparse
import ctypes
import gc
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "tests"))  # synthetic traces


def held_mb() -> float:
    """RSS after a collection and malloc_trim(0): the memory still in use, without freed pages the
    allocator kept (glibc only; plain RSS elsewhere)."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    return rss_mb()


def deep_mb(root) -> float:
    """The size of the objects reachable from `root` (each counted once), in MB."""
    seen, total, stack = set(), 0, [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, type):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        elif hasattr(obj, "__dict__") and not isinstance(obj, str):
            stack.append(vars(obj))
    return total / 1e6


def clear_process_caches() -> None:
    """Empty the caches every tab shares (summaries, token counts, facts), so what stays is the tab's."""
    from scratchpad_lab.analysis import facts
    from scratchpad_lab.engine.summarize import extractive
    from scratchpad_lab.engine.run import tokens

    extractive.clear_caches()
    tokens.clear_memos()
    for cached in [getattr(facts, name) for name in dir(facts)]:
        if callable(getattr(cached, "cache_clear", None)):
            cached.cache_clear()


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1600)
    parser.add_argument("--render-timeout", type=float, default=600.0)
    args = parser.parse_args(argv)
    from streamlit.testing.v1 import AppTest

    from scratchpad_lab.model.config import RunConfig
    from scratchpad_lab.engine.run.runner import Run, Source
    from synthetic import synthetic_trace
    from scratchpad_lab.ui.state import PLAY_RUNS

    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=600)
    at.run()
    last = [0.0]

    def report(what: str) -> None:
        """Raw RSS, then what is held after a trim, and the change in what is held since the last line."""
        raw = rss_mb()
        held = held_mb()
        change = f" ({held - last[0]:+.0f})" if last[0] else ""
        last[0] = held
        print(f"{what}: {raw:.0f} MB [{held:.0f} MB held{change}]")

    report("app after its first page")
    from scratchpad_lab.engine.run import tokens

    Run(RunConfig.build(scenario=None), Source.for_trace(synthetic_trace(steps=5, seed=1))).run()  # warm-up
    tokens.count_tokens("the vocabulary, once per process")
    clear_process_caches()
    report("the runner, the agent and the tokenizer's vocabulary loaded (the process's, once)")
    started = time.perf_counter()
    record = Run(RunConfig.build(scenario=None), Source.for_trace(synthetic_trace(steps=args.steps, seed=2024))).run()
    size = len(record.to_json().encode())
    clear_process_caches()  # what is left is the record itself (the caches are the process's, not the tab's)
    print(f"a {args.steps}-step replay recorded ({time.perf_counter() - started:.1f} s): {len(record.events):,} events, "
          f"JSON {size / 1e6:.1f} MB, its objects {deep_mb(record):.1f} MB")
    report("  the record alone (process caches cleared)")
    import altair  # noqa: F401  (the view's libraries: the process's, imported once)
    import pandas  # noqa: F401
    import pyarrow  # noqa: F401
    report("the run view's libraries (pandas, pyarrow, altair) imported")
    at.session_state[PLAY_RUNS] = [record]
    started = time.perf_counter()
    try:
        at.run(timeout=args.render_timeout)
    except RuntimeError as exc:  # AppTest's timeout: say so, with the memory reached
        print(f"showing the run did not finish within {args.render_timeout:g} s ({exc}); process {rss_mb():.0f} MB")
        return 1
    print(f"drawing the run took {time.perf_counter() - started:.1f} s")
    report("the record in the tab's run list and shown")
    print(f"  the record's objects now: {deep_mb(record):.1f} MB (what the view cached on its events)")
    at.session_state[PLAY_RUNS] = [record, record]
    at.run()
    report("the same record opened again")
    clear_process_caches()
    report("  the same, the process's caches (facts, tokens, summaries) cleared")
    runs = at.session_state[PLAY_RUNS]
    print(f"the run list holds {len(runs)} references to {len({id(r) for r in runs})} record object(s)")
    if at.exception:
        print("the page raised:", at.exception)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
