"""How long Stop takes to end each kind of long job (engine/jobs.py), stopped at random moments.

Prints, per job, the median and the worst of the seconds from `job.stop()` to the job having ended, over
N stops at moments drawn with a fixed seed. The jobs are those the pages run: a replay (the compression-off
and upload replays are this), a comparison of six settings (Compare and the sweep), and the five strategies
(the first stop may fall in the LangChain imports). Run: PYTHONPATH=src python bench/stop_latency.py [N]
"""
from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from synthetic import synthetic_trace  # noqa: E402

from scratchpad_lab.engine.studies.compare import Setting, compare, compression_off  # noqa: E402
from scratchpad_lab.engine.jobs import Job  # noqa: E402
from scratchpad_lab.engine.strategies import NAMES, make_spec, run_strategies  # noqa: E402

SIX = [Setting(summarize_every=e, max_scratchpad_chars=c)
       for e, c in [(2, 2000), (3, 4000), (5, 8000), (None, 1_000_000), (4, 3000), (6, 6000)]]


def measure(name: str, work, runs: int, rng: random.Random, longest_s: float) -> None:
    took, ended_first = [], 0
    for _ in range(runs):
        job = Job(work).start()
        job.join(rng.uniform(0.05, longest_s))  # a random moment (returns early if the job ends first)
        if job.finished:
            ended_first += 1
            continue
        asked = time.monotonic()
        job.stop()
        job.join(30)
        took.append(time.monotonic() - asked)
    if took:
        print(f"{name:<32} stopped {len(took)} times: median {statistics.median(took) * 1000:7.1f} ms, "
              f"worst {max(took) * 1000:7.1f} ms" + (f" ({ended_first} ended before the stop)" if ended_first else ""))
    else:
        print(f"{name:<32} always ended before the stop")


def main(runs: int) -> None:
    rng = random.Random(7)
    long_trace = synthetic_trace(steps=600, seed=8, parse_error_rate=0, max_observation_chars=2000)
    strategies_trace = synthetic_trace(steps=150, seed=8, parse_error_rate=0, max_observation_chars=2000)
    specs = [make_spec(n, {}) for n in NAMES]
    measure("replay, 600 steps", lambda report, stop: compression_off(long_trace, stop=stop, report=report),
            runs, rng, 1.5)
    measure("compare, 6 settings x 600 steps",
            lambda report, stop: compare(long_trace, SIX, progress=report, stop=stop), runs, rng, 6.0)
    measure("strategies, 5 x 150 steps",
            lambda report, stop: run_strategies(strategies_trace, specs, progress=report, stop=stop), runs, rng, 8.0)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
