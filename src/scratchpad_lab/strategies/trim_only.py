"""`trim-only`: the agent's blunt trim and nothing else (the middleware is attached but can never fire).

Streamlit-free. Same observed replay as `autourgos-middleware`, with the middleware's triggers off.
"""
from __future__ import annotations

from typing import List

from ..analysis.compare import NEVER
from ..files.trace import Trace
from .autourgos_middleware import base_config, observed_run
from .result import StrategyResult
from .settings import StrategySpec
from .summarizer import SummarizerSpec


def run(trace: Trace, spec: StrategySpec, summarizer: SummarizerSpec, baseline: List[int]) -> StrategyResult:
    s = spec.resolved()
    config = base_config(summarizer).replace(**NEVER, agent_trim_chars=s["agent_trim_chars"])
    record = observed_run(config, trace, name=spec.name).run()
    return StrategyResult(spec.name, s, spec.title(), record.events, baseline, summarizer_model="none",
                          error=record.error)
