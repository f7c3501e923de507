"""Run one trajectory under several strategies, and the baselines they are measured against.

Streamlit-free. The trajectory is a `Trace`: a trace file as loaded, or a run record's embedded
trajectory (replay never calls a recorded endpoint). Every strategy is measured against one
no-compression baseline: the whole conversation before each model call, every message in full
(`message_baseline`). Context tokens are counted with the lab's tokenizer on what is sent (the
scratchpad; or the messages rendered as text), never on system prompts or tool schemas, for every
strategy alike; so a scratchpad strategy that cut nothing reads within about 1 % of the baseline (the
scratchpad's own wording), and the agent's cut of each tool result to max_tool_output_chars counts as
part of what the autourgos strategies save.
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

BASELINE = "no compression"


def message_baseline(trace: Trace, counter: TokenCounter) -> List[int]:
    """The one no-compression baseline every strategy is measured against: tokens of the whole conversation
    before each model call, nothing cut (the task, and every step's reply and tool results in full, as
    messages; `messages.py`). Linear in the steps: each step's messages are counted once."""
    from scratchpad_lab.engine.strategies.messages import MessageCounter, step_parts
    tokens = MessageCounter(counter)
    steps = step_parts(trace)
    out, total = [], tokens(steps[0])
    for step in steps[1:]:
        out.append(total)
        total += tokens(step)
    return out


def run_one(trace: Trace, spec: StrategySpec, summarizer: SummarizerSpec, baselines: Dict[str, List[int]],
            counter: TokenCounter) -> StrategyResult:
    entry = strategy(spec.name)  # the registry says which module runs it and how it is called
    if BASELINE not in baselines:
        baselines[BASELINE] = message_baseline(trace, counter)
    module = importlib.import_module(entry.module)  # only now: the LangChain strategies' imports cost seconds
    if entry.context == "messages":
        return module.run(trace, spec, summarizer, baselines[BASELINE], counter)
    return module.run(trace, spec, summarizer, baselines[BASELINE])


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
