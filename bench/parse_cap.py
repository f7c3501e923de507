"""How long the agent's JSON parser takes on the worst text a step may hold, at and around the cap.

    PYTHONPATH=src python3 bench/parse_cap.py

autourgos_agent.runtime.parse_json_object retries json.loads at every "}" of text that is not JSON,
so its time grows with the square of the length. The shapes below are the slowest found: a string that
never ends, full of "}" (each retry reads it all). It prints the parse time of each shape at sizes up to
4x the cap, then the replay of a trace with one such step at the cap, and the refusal of a 200 KB one.
"""
from __future__ import annotations

import json
import time

from autourgos_agent.runtime import parse_json_object

from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.model.records import load_any
from scratchpad_lab.engine.run.runner import Run, Source
from scratchpad_lab.model.trace import MAX_STEP_RESPONSE_CHARS, RecordError

SHAPES = {
    "open string of }": lambda n: ('{"a":"' + "}" * n)[:n],
    "open string of x}": lambda n: ('{"a":"' + "x}" * n)[:n],
    "deep list, open string of }": lambda n: ('{"a":' + "[" * 50 + '"' + "}" * n)[:n],
}


def best_of(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def garbage_trace(size: int) -> bytes:
    steps = [{"response": json.dumps({"thought": "look", "actions": [{"action": "search", "action_input": {"q": "x"}}],
                                      "final_answer": None}), "observations": ["result " * 50]}] * 3
    steps.append({"response": SHAPES["deep list, open string of }"](size), "observations": []})
    steps.append({"response": json.dumps({"thought": "done", "actions": [], "final_answer": "ok"})})
    return json.dumps({"schema": "scratchpad-lab/trace@1", "task": "t",
                       "tools": [{"name": "search", "description": "s"}], "steps": steps}).encode()


def main() -> None:
    cap = MAX_STEP_RESPONSE_CHARS
    print(f"cap: {cap:,} characters per step response")
    print(f"{'shape':<30}" + "".join(f"{n:>12,}" for n in (cap // 2, cap, 2 * cap, 4 * cap)))
    for name, make in SHAPES.items():
        row = [best_of(lambda: parse_json_object(make(n))) for n in (cap // 2, cap, 2 * cap, 4 * cap)]
        print(f"{name:<30}" + "".join(f"{t:>11.3f}s" for t in row))
    trace = load_any(garbage_trace(cap))
    Run(RunConfig.build(scenario=None), Source.for_trace(load_any(garbage_trace(10)))).run()  # warm-up: tokenizer
    started = time.perf_counter()
    record = Run(RunConfig.build(scenario=None), Source.for_trace(trace)).run()
    print(f"replay of a trace with one worst-case step at the cap: {time.perf_counter() - started:.2f} s "
          f"({record.outcome})")
    started = time.perf_counter()
    try:
        load_any(garbage_trace(200_000))
        print("a 200 KB garbage step was NOT refused")
    except RecordError as exc:
        print(f"a 200 KB garbage step is refused in {time.perf_counter() - started:.3f} s: {exc}")


if __name__ == "__main__":
    main()
