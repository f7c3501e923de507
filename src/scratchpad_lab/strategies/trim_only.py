"""`trim-only`: the agent's blunt trim and nothing else (the middleware is attached but can never fire).

Streamlit-free. Same observed replay as `autourgos-middleware`, with the middleware's triggers off.
"""
from __future__ import annotations

from typing import List

from ..compare import NEVER, replay_one
from ..runner import Source
from ..trace import Trace
from .autourgos_middleware import base_config
from .result import StrategyResult
from .settings import StrategySpec
from .summarizer import SummarizerSpec


def run(trace: Trace, spec: StrategySpec, summarizer: SummarizerSpec, baseline: List[int]) -> StrategyResult:
    s = spec.resolved()
    record = replay_one(Source.for_trace(trace), base_config(summarizer), {**NEVER, "agent_trim_chars": s["agent_trim_chars"]})
    return StrategyResult(spec.name, s, spec.title(), record.events, baseline, summarizer_model="none",
                          error=record.error)
