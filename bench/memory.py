"""Benchmark: the server's memory for a 1,600-step run record open in a tab.

    python bench/memory.py [--steps 1600]

Runs the app in-process with Streamlit's AppTest (the same script runs a server would do), puts a
replayed 1,600-step synthetic run in the tab's run list, shows it, then opens the same record again,
and prints the process's resident memory (VmRSS) after each step, with the record's JSON size. A
record opened again must cost (almost) nothing: the run list holds references, and a shipped sample
opened twice is one object (ui/library.open_sample); downloads build their JSON only when pressed.
"""
from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "tests"))  # synthetic traces


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

    from scratchpad_lab.engine.config import RunConfig
    from scratchpad_lab.engine.runner import Run, Source
    from synthetic import synthetic_trace
    from scratchpad_lab.ui.state import PLAY_RUNS

    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=600)
    at.run()
    gc.collect()
    start = rss_mb()
    print(f"app after its first page: {start:.0f} MB")
    started = time.perf_counter()
    record = Run(RunConfig.build(scenario=None), Source.for_trace(synthetic_trace(steps=args.steps, seed=2024))).run()
    size = len(record.to_json().encode())
    from scratchpad_lab.engine import extractive, tokens

    extractive.clear_caches()  # what is left is the record itself (the caches are the process's, not the tab's)
    tokens.clear_memos()
    gc.collect()
    made = rss_mb()
    print(f"a {args.steps}-step replay recorded ({time.perf_counter() - started:.1f} s): {len(record.events):,} events, "
          f"JSON {size / 1e6:.1f} MB; process {made:.0f} MB (+{made - start:.0f})")
    at.session_state[PLAY_RUNS] = [record]
    started = time.perf_counter()
    try:
        at.run(timeout=args.render_timeout)
    except RuntimeError as exc:  # AppTest's timeout: say so, with the memory reached
        print(f"showing the run did not finish within {args.render_timeout:g} s ({exc}); process {rss_mb():.0f} MB")
        return 1
    print(f"drawing the run took {time.perf_counter() - started:.1f} s")
    gc.collect()
    shown = rss_mb()
    print(f"the record in the tab's run list and shown: {shown:.0f} MB (+{shown - made:.0f} for showing it)")
    at.session_state[PLAY_RUNS] = [record, record]
    at.run()
    gc.collect()
    again = rss_mb()
    print(f"the same record opened again: {again:.0f} MB (+{again - shown:.0f}; one copy, two references)")
    if at.exception:
        print("the page raised:", at.exception)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
