"""Synthetic traces: seeded, invented trajectories for tests and benchmarks.

Test and benchmark support (not shipped: tests/ is on the path of both). A synthetic trace looks like a real agent's: JSON steps with one to three tool calls,
tool results of very different sizes with identifiers planted in them (`ID-2347`, `ERR_503`, ...),
now and then a reply that is not JSON, and a final answer at the end. It is invented material.
"""
from __future__ import annotations

import json
import random
from typing import List, Optional

from scratchpad_lab.model.trace import Trace, TraceStep, TraceTool

_WORDS = ("latency", "cache", "replica", "request", "timeout", "shard", "queue", "retry", "backoff", "index",
          "vendor", "invoice", "region", "cluster", "quota", "ticket", "courier", "refund", "policy", "probe")
TOOLS = [
    TraceTool("search", "Search the knowledge base.",
              {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
    TraceTool("fetch", "Fetch a document by id.",
              {"type": "object", "properties": {"doc_id": {"type": "string"}}, "required": ["doc_id"]}),
    TraceTool("calc", "Evaluate an arithmetic expression.",
              {"type": "object", "properties": {"expr": {"type": "string"}}, "required": ["expr"]}),
]


def planted_id(rng: random.Random) -> str:
    kind = rng.choice(("ID", "ERR", "ORD", "TCK"))
    sep = "_" if kind == "ERR" else "-"
    return f"{kind}{sep}{rng.randint(100, 9999)}"


def _observation(rng: random.Random, size: int, planted: List[str]) -> str:
    words: List[str] = []
    length = 0
    while length < size:
        if rng.random() < 0.04:
            ident = planted_id(rng)
            planted.append(ident)
            word = ident
        elif rng.random() < 0.1:
            word = f"{rng.randint(1, 999)}.{rng.randint(0, 9)}ms"
        else:
            word = rng.choice(_WORDS)
        words.append(word)
        length += len(word) + 1
    return " ".join(words)


def synthetic_trace(steps: int = 30, seed: int = 0, max_observation_chars: int = 6000,
                    parse_error_rate: float = 0.05, planted: Optional[List[str]] = None) -> Trace:
    """A trace of `steps` iterations; the last one answers. Planted identifiers are appended to `planted`."""
    rng = random.Random(seed)
    planted = planted if planted is not None else []
    out: List[TraceStep] = []
    for i in range(1, steps):
        if rng.random() < parse_error_rate:
            out.append(TraceStep(f"I think step {i} needs more thought", []))
            continue
        actions, observations = [], []
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            tool = rng.choice(TOOLS)
            key = next(iter(tool.parameters["properties"]))
            actions.append({"action": tool.name, "action_input": {key: f"{rng.choice(_WORDS)} {i}"}})
            observations.append(_observation(rng, rng.randint(40, max_observation_chars), planted))
        response = json.dumps({"thought": f"Step {i}: look at {rng.choice(_WORDS)}.", "actions": actions,
                               "final_answer": None})
        out.append(TraceStep(response, observations))
    out.append(TraceStep(json.dumps({"thought": "done", "actions": [], "final_answer": f"Finished after {steps} steps."}), []))
    return Trace(task=f"Synthetic task #{seed}: collect the identifiers.", tools=list(TOOLS), steps=out)
