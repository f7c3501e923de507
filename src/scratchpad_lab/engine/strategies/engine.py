"""Run one trajectory under several strategies, and the baselines they are measured against.

Streamlit-free. The trajectory is a `Trace`: a trace file as loaded, or a run record's embedded
trajectory (replay never calls a recorded endpoint). "Tokens saved" is measured per strategy against
the same representation with nothing cut: the scratchpad strategies against the scratchpad with no
compression and no trim; the message strategies against every message in full. Context tokens are
counted with the lab's tokenizer on what is sent (the scratchpad; or the messages rendered as text),
never on system prompts or tool schemas, for every strategy alike.
"""
from __future__ import annotations

import importlib
from typing import Callable, Dict, List, Optional, Sequence, Union

from scratchpad_lab.model.records import RunRecord
from scratchpad_lab.engine.replay import recorded_trajectory
from scratchpad_lab.engine.tokens import TokenCounter
from scratchpad_lab.model.trace import Trace
from scratchpad_lab.engine.strategies.result import StrategyResult
from scratchpad_lab.engine.strategies.registry import StrategyError, strategy
from scratchpad_lab.engine.strategies.settings import MAX_STRATEGIES, StrategySpec
from scratchpad_lab.engine.strategies.summarizer import SummarizerSpec

def message_baseline(trace: Trace, counter: TokenCounter) -> List[int]:
    """Tokens of the whole conversation before each model call (nothing cut)."""
    from scratchpad_lab.engine.strategies.messages import MessageCounter, step_messages
    tokens = MessageCounter(counter)
    steps = step_messages(trace)
    out, total = [], tokens(steps[0])
    for step in steps[1:]:
        out.append(total)
        total += tokens(step)
    return out


def run_one(trace: Trace, spec: StrategySpec, summarizer: SummarizerSpec, baselines: Dict[str, List[int]],
            counter: TokenCounter) -> StrategyResult:
    entry = strategy(spec.name)  # the registry says which module runs it and what it is measured against
    kind = entry.context
    if kind not in baselines:
        if kind == "scratchpad":
            from scratchpad_lab.engine.strategies.autourgos_middleware import scratchpad_baseline
            baselines[kind] = scratchpad_baseline(trace, summarizer)
        else:
            baselines[kind] = message_baseline(trace, counter)
    module = importlib.import_module(entry.module)  # only now: the LangChain strategies' imports cost seconds
    if kind == "messages":
        return module.run(trace, spec, summarizer, baselines[kind], counter)
    return module.run(trace, spec, summarizer, baselines[kind])


def run_strategies(loaded: Union[RunRecord, Trace], specs: Sequence[StrategySpec],
                   summarizer: Optional[SummarizerSpec] = None,
                   progress: Optional[Callable[[int, int, str], None]] = None) -> List[StrategyResult]:
    if not 1 <= len(specs) <= MAX_STRATEGIES:
        raise StrategyError(f"pick 1 to {MAX_STRATEGIES} strategies, not {len(specs)}.")
    trace = recorded_trajectory(loaded)
    summarizer = summarizer or SummarizerSpec()
    counter = TokenCounter(summarizer.model_id if summarizer.kind == "endpoint" else None)
    baselines: Dict[str, List[int]] = {}
    results = []
    for index, spec in enumerate(specs):
        if progress:
            progress(index, len(specs), spec.title())
        results.append(run_one(trace, spec, summarizer, baselines, counter))
    if progress:
        progress(len(specs), len(specs), "done")
    return results
