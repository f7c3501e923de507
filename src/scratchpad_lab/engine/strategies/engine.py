"""Run one trajectory under several strategies, and the baselines they are measured against.

Streamlit-free. The trajectory is a `Trace`: a trace file as loaded, or a run record's embedded
trajectory (replay never calls a recorded endpoint). "Tokens saved" is measured per strategy against
the same representation with nothing cut: the scratchpad strategies against the scratchpad with no
compression and no trim; the message strategies against every message in full. Context tokens are
counted with the lab's tokenizer on what is sent (the scratchpad; or the messages rendered as text),
never on system prompts or tool schemas, for every strategy alike.
On the page this runs as a job (engine/jobs.py): `progress` is told before each strategy, and `stop`
ends the run within a step: between strategies, between a replay's iterations, between the message
strategies' model calls, and while the LangChain packages are still being imported.
"""
from __future__ import annotations

import importlib
from typing import Callable, Dict, List, Optional, Sequence, Union

from scratchpad_lab.engine.jobs import StopFlag, abandonable
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


# What the message strategies import when they run (seconds, the first time in a process).
LANGCHAIN_MODULES = {
    "deepagents": ("deepagents.backends.filesystem", "deepagents.middleware.filesystem",
                   "deepagents.middleware.summarization", "langchain.agents.middleware.types",
                   "langgraph.graph.message", "langgraph.prebuilt.tool_node", "langgraph.types",
                   "langchain_core.language_models.chat_models"),
    "langmem": ("langmem.short_term", "langchain_core.messages", "langchain_core.language_models.chat_models"),
}


def _import_langchain(name: str) -> None:
    for module in LANGCHAIN_MODULES.get(name, ()):
        importlib.import_module(module)


def run_one(trace: Trace, spec: StrategySpec, summarizer: SummarizerSpec, baselines: Dict[str, List[int]],
            counter: TokenCounter, stop: Optional[StopFlag] = None) -> StrategyResult:
    entry = strategy(spec.name)  # the registry says which module runs it and what it is measured against
    kind = entry.context
    if kind == "messages":  # an import cannot look at the stop flag: it is waited for with the flag in view
        abandonable(lambda: _import_langchain(spec.name), stop)
    if kind not in baselines:
        if kind == "scratchpad":
            from scratchpad_lab.engine.strategies.autourgos_middleware import scratchpad_baseline
            baselines[kind] = scratchpad_baseline(trace, summarizer, stop=stop)
        else:
            baselines[kind] = message_baseline(trace, counter)
    module = importlib.import_module(entry.module)  # only now: the LangChain strategies' imports cost seconds
    if kind == "messages":
        return module.run(trace, spec, summarizer, baselines[kind], counter, stop=stop)
    return module.run(trace, spec, summarizer, baselines[kind], stop=stop)


def run_strategies(loaded: Union[RunRecord, Trace], specs: Sequence[StrategySpec],
                   summarizer: Optional[SummarizerSpec] = None,
                   progress: Optional[Callable[[int, int, str], None]] = None,
                   stop: Optional[StopFlag] = None) -> List[StrategyResult]:
    """Each strategy in turn. `progress(strategies done, strategies, the one running now)` before each and
    once at the end; `stop` set: Stopped (engine/jobs.py) is raised within a step."""
    if not 1 <= len(specs) <= MAX_STRATEGIES:
        raise StrategyError(f"pick 1 to {MAX_STRATEGIES} strategies, not {len(specs)}.")
    trace = recorded_trajectory(loaded)
    summarizer = summarizer or SummarizerSpec()
    counter = TokenCounter(summarizer.model_id if summarizer.kind == "endpoint" else None)
    baselines: Dict[str, List[int]] = {}
    results = []
    for index, spec in enumerate(specs):
        if stop is not None:
            stop.check()
        if progress:
            progress(index, len(specs), spec.title())
        results.append(run_one(trace, spec, summarizer, baselines, counter, stop=stop))
    if progress:
        progress(len(specs), len(specs), "done")
    return results
