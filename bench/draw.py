"""Benchmark: how long the playground takes to draw one finished run of N steps (issue 15).

    python bench/draw.py [--steps 1600] [--timeout 600]

Replays a synthetic trace of N steps in-process (extractive summarizer, package defaults), puts the
record in a fresh session's run list as if the user had opened it, and times one full run of the real
app (`app.py`, the playground page) with Streamlit's AppTest: everything the page computes and draws
for that run (status, scratchpad, triggers, newest compression, chart, timeline, the compression cards,
what compression lost). Also printed: how many compression cards the page drew out of how many the run
has. Target: a few seconds for 1,600 steps.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))  # synthetic traces

from streamlit.testing.v1 import AppTest  # noqa: E402

from scratchpad_lab.model.config import RunConfig  # noqa: E402
from scratchpad_lab.engine.run.runner import Run, Source  # noqa: E402
from scratchpad_lab.ui.state import PLAY_RUNS, PLAY_SHOWN  # noqa: E402
from synthetic import synthetic_trace  # noqa: E402


def record_of(steps: int, seed: int):
    trace = synthetic_trace(steps=steps, seed=seed)
    return Run(RunConfig.build(scenario=None, summarizer="extractive"), Source.for_trace(trace),
               name=f"synthetic {steps} steps").run()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1600)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    record = record_of(args.steps, args.seed)
    compressions = sum(1 for e in record.events if e.kind == "compression")
    print(f"replayed {args.steps} steps in {time.perf_counter() - started:.1f} s: {len(record.events):,} events, "
          f"{compressions} compressions")
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=args.timeout)
    at.run()  # the empty page first (imports, session defaults), not counted
    at.session_state[PLAY_RUNS] = [record]
    at.session_state[PLAY_SHOWN] = 0
    started = time.perf_counter()
    at.run()
    seconds = time.perf_counter() - started
    if at.exception:
        print("the page raised:", at.exception[0].value)
        return 1
    cards = sum(1 for md in at.markdown if md.value.startswith("**Compression at iteration"))
    print(f"drew the {args.steps}-step run in {seconds:.2f} s ({cards} compression cards drawn of {compressions})")
    started = time.perf_counter()
    at.run()
    print(f"the same page again (a rerun, e.g. after a click): {time.perf_counter() - started:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
