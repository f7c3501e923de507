"""Run one trajectory under several strategies, and the baselines they are measured against.

Streamlit-free. The trajectory is a `Trace`: a trace file as loaded, or a run record's embedded
trajectory (replay never calls a recorded endpoint). Every strategy is measured against one
no-compression baseline: the whole conversation before each model call, every message in full
(`message_baseline`). Context tokens are counted with the lab's tokenizer on what is sent (the
scratchpad; or the messages rendered as text), never on system prompts or tool schemas, for every
strategy alike; so a scratchpad strategy that cut nothing reads within about 1 % of the baseline (the
scratchpad's own wording), and the agent's cut of each tool result to max_tool_output_chars counts as
part of what the autourgos strategies save.
On the page this runs as a job (engine/jobs.py): `progress` is told before each strategy, and `stop`
ends the run within a step: between strategies, between a replay's iterations, between the message
strategies' model calls, and while the LangChain packages are still being imported.
"""
from __future__ import annotations

import importlib
import threading
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from scratchpad_lab.analysis.kept import fact_values
from scratchpad_lab.engine.jobs import StopFlag, abandonable
from scratchpad_lab.model.records import RunRecord
from scratchpad_lab.engine.replay import recorded_trajectory
from scratchpad_lab.engine.tokens import TokenCounter
from scratchpad_lab.model.trace import Trace
from scratchpad_lab.engine.strategies.result import StrategyResult
from scratchpad_lab.engine.strategies.registry import StrategyError, strategy
from scratchpad_lab.engine.strategies.settings import MAX_STRATEGIES, StrategySpec
from scratchpad_lab.engine.strategies.summarizer import SummarizerSpec

BASELINE, FACTS = "no compression", "trajectory facts"


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


def _import_langchain(name: str) -> None:
    """What the strategy's run imports (its registry entry's `imports`: seconds, the first time in a process)."""
    for module in strategy(name).imports:
        importlib.import_module(module)


def trajectory_text(trace: Trace) -> str:
    """The whole conversation the last model call would be sent with no compression (messages.py's rendering)."""
    from scratchpad_lab.engine.strategies.messages import render_all, step_parts
    return render_all([m for step in step_parts(trace)[:-1] for m in step])


def shared_work(trace: Trace, counter: TokenCounter, baselines: Dict[str, Any]) -> Dict[str, Any]:
    """What every strategy on one trajectory is measured against, worked out once: the no-compression
    baseline and the trajectory's facts (analysis/kept.py)."""
    if BASELINE not in baselines:
        baselines[BASELINE] = message_baseline(trace, counter)
    if FACTS not in baselines:  # read when a row first needs it (the fact search over a long trace costs seconds)
        baselines[FACTS] = _Once(lambda: fact_values(trajectory_text(trace)))
    return baselines


class _Once:
    """A value worked out at its first call and kept (shared by every strategy of one trajectory)."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make, self._value, self._lock = make, None, threading.Lock()

    def __call__(self) -> Any:
        with self._lock:
            if self._value is None:
                self._value = self._make()
            return self._value


def run_one(trace: Trace, spec: StrategySpec, summarizer: SummarizerSpec, baselines: Dict[str, Any],
            counter: TokenCounter, scenario: Optional[str] = None, stop: Optional[StopFlag] = None) -> StrategyResult:
    entry = strategy(spec.name)  # the registry says which module runs it and how it is called
    if entry.context == "messages":  # an import cannot look at the stop flag: it is waited for with the flag in view
        abandonable(lambda: _import_langchain(spec.name), stop)
    shared_work(trace, counter, baselines)
    module = importlib.import_module(entry.module)  # only now: the LangChain strategies' imports cost seconds
    if entry.context == "messages":
        result = module.run(trace, spec, summarizer, baselines[BASELINE], counter, stop=stop)
    else:
        result = module.run(trace, spec, summarizer, baselines[BASELINE], stop=stop)
    result.facts_of_trajectory, result.task, result.scenario = baselines[FACTS], trace.task, scenario
    return result


def scenario_of(loaded: Union[RunRecord, Trace]) -> Optional[str]:
    """The built-in scenario a run record came from (its facts and probes say what an answer needs)."""
    return loaded.scenario if isinstance(loaded, RunRecord) else None


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
    baselines: Dict[str, Any] = {}
    scenario = scenario_of(loaded)
    results = []
    for index, spec in enumerate(specs):
        if stop is not None:
            stop.check()
        if progress:
            progress(index, len(specs), spec.title())
        results.append(run_one(trace, spec, summarizer, baselines, counter, scenario, stop=stop))
    if progress:
        progress(len(specs), len(specs), "done")
    return results
