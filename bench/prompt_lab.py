"""Benchmark: a 3 x 2 prompt-lab matrix (3 prompts x 2 endpoint models) against the fake chat server
with a fixed reply delay. The calls are made concurrently, so it should take about one delay, not six.

    PYTHONPATH=src python bench/prompt_lab.py [--delay 0.5] [--repeats 3]

The snapshot is the first compression of sample_runs/support-ticket-defaults.json. The fake server is
tests/fake_openai.py (in-process, 127.0.0.1). Wall clock with time.perf_counter after a warm-up matrix
(imports, tiktoken vocabulary, the openai client).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from fake_openai import FakeOpenAI, echo_marker  # noqa: E402
from scratchpad_lab.engine.studies.promptlab import (PROMPT_LIBRARY, Matrix, PromptVariant,  # noqa: E402
                                      snapshot_at_compression)
from scratchpad_lab.model.endpoint import Endpoint  # noqa: E402
from scratchpad_lab.model.records import load_record  # noqa: E402
from scratchpad_lab.model.summarizer import SummarizerChoice  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--delay", type=float, default=0.5)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    snapshot = snapshot_at_compression(load_record(REPO / "sample_runs" / "support-ticket-defaults.json"), 1)
    prompts = [PromptVariant(name, text) for name, text in list(PROMPT_LIBRARY.items())[:3]]
    with FakeOpenAI() as fake, FakeOpenAI() as other:
        for server in (fake, other):
            server.default = ("ok", echo_marker)
        specs = [SummarizerChoice("endpoint", endpoint=Endpoint(provider="custom", base_url=fake.url, model="fake-a"), key="k"),
                 SummarizerChoice("endpoint", endpoint=Endpoint(provider="custom", base_url=other.url, model="fake-b"), key="k")]
        Matrix(snapshot, prompts, specs).run(timeout=60)  # warm-up, no delay
        fake.delay = other.delay = args.delay
        times = []
        for _ in range(args.repeats):
            started = time.perf_counter()
            matrix = Matrix(snapshot, prompts, specs).run(timeout=60)
            times.append(time.perf_counter() - started)
            assert all(c.status == "ok" for c in matrix.cells), [c.to_json()["error"] for c in matrix.cells]
    serial = 6 * args.delay
    print(f"3 x 2 matrix, {args.delay:.2f} s reply delay, {args.repeats} repeats: "
          f"best {min(times):.2f} s, worst {max(times):.2f} s "
          f"(one delay {args.delay:.2f} s; six calls one after another would take {serial:.2f} s)")


if __name__ == "__main__":
    main()
