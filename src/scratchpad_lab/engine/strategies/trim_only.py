"""`trim-only`: the agent's blunt trim and nothing else (the middleware is attached but can never fire).

Streamlit-free. Same observed replay as `autourgos-middleware`, with the middleware's triggers off.
"""
from __future__ import annotations

from typing import List, Optional

from scratchpad_lab.engine.studies.compare import NEVER
from scratchpad_lab.engine.jobs import StopFlag
from scratchpad_lab.model.trace import Trace
from scratchpad_lab.engine.strategies.autourgos_middleware import base_config, observed_run
from scratchpad_lab.engine.strategies.result import StrategyResult
from scratchpad_lab.engine.strategies.spec import StrategySpec
from scratchpad_lab.engine.strategies.chat_summarizer import BuiltSummarizer


def run(trace: Trace, spec: StrategySpec, summarizer: BuiltSummarizer, baseline: List[int],
        stop: Optional[StopFlag] = None) -> StrategyResult:
    s = spec.resolved()
    config = base_config(summarizer).replace(**NEVER, agent_trim_chars=s["agent_trim_chars"],
                                               max_tool_output_chars=s["max_tool_output_chars"])
    record = observed_run(config, trace, name=spec.name, stop=stop).run()
    if stop is not None:
        stop.check()
    return StrategyResult(spec.name, s, spec.title(), record.events, baseline, summarizer_model="none",
                          error=record.error, config=record.config)
