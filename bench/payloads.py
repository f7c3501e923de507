"""Benchmark: what reading events through their payload models costs (issue 10; issue 15's budgets).

    python bench/payloads.py [--steps 1600] [--repeats 5]

Replays a synthetic trace of N steps in-process (extractive summarizer, package defaults), then times,
best of N, in one process:
- building every event's payload once (`Event.payload`, a pydantic model built without validation), in
  microseconds per event, on fresh copies of the events (nothing cached);
- the run's figures as the pages compute them (the figures row `figures.figures`, `trigger_state`, `facts_by_step`) on
  fresh copies (cold: every payload built on the way) and again on the same events (warm: payloads kept).
Times are this process's CPU time (time.process_time), steadier than wall-clock on a shared machine.
Target: a few microseconds per event; the cold figures no more than a few ms above the warm ones.
Runs on code without `Event.payload` too (then the payload line is skipped), to compare before/after.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # synthetic traces

from scratchpad_lab.analysis.figures import figures as figures_row  # noqa: E402
from scratchpad_lab.analysis.quality import facts_by_step  # noqa: E402
from scratchpad_lab.analysis.triggers import trigger_state  # noqa: E402
from scratchpad_lab.model.config import RunConfig  # noqa: E402
from scratchpad_lab.model.events import Event  # noqa: E402
from scratchpad_lab.engine.run.runner import Run, Source  # noqa: E402
from synthetic import synthetic_trace  # noqa: E402


def fresh(events):
    """New Event objects with the same data: what a loaded file or a new session holds (nothing cached)."""
    return [Event(e.kind, e.t, e.iteration, e.data) for e in events]


def figures(events, config) -> None:
    figures_row(events)
    trigger_state(events, config)
    facts_by_step(events)


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.process_time()
        fn()
        times.append(time.process_time() - started)
    return min(times)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1600)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    config = RunConfig.build(scenario=None, summarizer="extractive")
    record = Run(config, Source.for_trace(synthetic_trace(steps=args.steps, seed=args.seed))).run()
    events = record.events
    print(f"{args.steps} steps: {len(events):,} events")
    if hasattr(Event, "payload"):
        def build_all():
            for e in fresh(events):
                e.payload
        copy_s = best(lambda: fresh(events), args.repeats)
        build_s = best(build_all, args.repeats) - copy_s
        print(f"payload built once per event : {build_s * 1e6 / len(events):.2f} us per event "
              f"({build_s * 1e3:.1f} ms for the run)")
        warm_events = fresh(events)
        build_all_warm = lambda: [e.payload for e in warm_events]  # noqa: E731
        build_all_warm()
        print(f"payload read again (kept)    : {best(build_all_warm, args.repeats) * 1e6 / len(events):.3f} us per event")
    cold = best(lambda: figures(fresh(events), config), args.repeats)
    warm_events = fresh(events)
    figures(warm_events, config)
    warm = best(lambda: figures(warm_events, config), args.repeats)
    print(f"figures row + trigger_state + facts_by_step: cold {cold * 1e3:.1f} ms, warm {warm * 1e3:.1f} ms "
          f"(best of {args.repeats})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
