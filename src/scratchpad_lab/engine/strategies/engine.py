"""Run one trajectory under several strategies, and the baselines they are measured against.

Streamlit-free. The trajectory is a `Trace`: a trace file as loaded, or a run record's embedded
trajectory (replay never calls a recorded endpoint). Every strategy is read against the no-compression
baseline of its own form (its registry entry's `context`), so a run that cut nothing reads exactly
100 % of the peak, of the mean and of the facts, and saves 0 tokens:

- "messages": the whole conversation before each model call, every message in full, behind the agent's system
  prompt when the recording has one (`message_baseline`); its facts are those of that conversation before the
  last call (`trajectory_text`).
- "scratchpad": the same trajectory replayed through the same real agent with nothing cut (the middleware
  never fires, the agent trims nothing and keeps every tool result whole: compare.UNCUT); its tokens are
  what each call sent, its facts those of what the last call was sent.

Each form's baseline is worked out once per trajectory (`shared_work`) and shared by its strategies.
Context tokens are counted with the lab's tokenizer (o200k) on what is sent: the scratchpad; or the messages
rendered as text, with the recording's system prompt (a real agent sends it with every call), never tool schemas
nor what a package adds to the system prompt itself (deepagents' filesystem instructions). The agent's cut of each tool result to
max_tool_output_chars is a cut like any other: it counts as part of what the autourgos strategies save.
Pins (model/pins.py) are one set for every strategy of a job: each strategy's compressions are checked against
them by the one rule (analysis/pin_checks.py, through the figures row), and with the switch on they reach a strategy
whose package takes a prompt through that prompt (its registry entry's `prompt_parameter`; the others get none).
On the page this runs as a job (engine/jobs.py): `progress` is told before each strategy, and `stop`
ends the run within a step: between strategies, between a replay's iterations, between the message
strategies' model calls, and while the LangChain packages are still being imported.
"""
from __future__ import annotations

import importlib
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Sequence, Union

from scratchpad_lab.analysis.kept import fact_values
from scratchpad_lab.engine.jobs import StopFlag, abandonable
from scratchpad_lab.model.pins import NO_PINS, Pinned
from scratchpad_lab.model.records import RunRecord
from scratchpad_lab.engine.run.replay import recorded_trajectory
from scratchpad_lab.engine.run.tokens import TokenCounter
from scratchpad_lab.model.trace import Trace
from scratchpad_lab.engine.strategies.result import StrategyResult
from scratchpad_lab.engine.strategies.registry import StrategyError, strategy
from scratchpad_lab.engine.strategies.messages import seen_as
from scratchpad_lab.engine.strategies.spec import MAX_STRATEGIES, StrategySpec
from scratchpad_lab.engine.strategies.chat_summarizer import BuiltSummarizer

BASELINE = "no compression"


def message_baseline(trace: Trace, counter: TokenCounter, stop: Optional[StopFlag] = None) -> List[int]:
    """The message strategies' no-compression baseline: tokens of the whole conversation before each model
    call, nothing cut (the task, and every step's reply and tool results in full, as messages; `messages.py`).
    Linear in the steps: each step's messages are counted once. The stop flag is looked at every step (a long
    trace's count takes half a second here, seconds on a loaded machine)."""
    from scratchpad_lab.engine.strategies.messages import MessageCounter, step_parts, system_part
    tokens = MessageCounter(counter)
    steps = step_parts(trace)
    system = system_part(trace)
    out, total = [], tokens(([system] if system else []) + steps[0])
    for step in steps[1:]:
        if stop is not None:
            stop.check()
        out.append(total)
        total += tokens(step)
    return out


def _import_langchain(name: str) -> None:
    """What the strategy's run imports (its registry entry's `imports`: seconds, the first time in a process)."""
    for module in strategy(name).imports:
        importlib.import_module(module)


def trajectory_text(trace: Trace) -> str:
    """The whole conversation the last model call would be sent with no compression (messages.py's rendering)."""
    from scratchpad_lab.engine.strategies.messages import render_all, step_parts, system_part
    system = system_part(trace)
    return render_all(([system] if system else []) + [m for step in step_parts(trace)[:-1] for m in step])


class _Once:
    """A value worked out at its first call and kept (shared by every strategy of one trajectory)."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make, self._value, self._lock = make, None, threading.Lock()

    def __call__(self) -> Any:
        with self._lock:
            if self._value is None:
                self._value = self._make()
            return self._value


@dataclass
class Baseline:
    """One form's no-compression run of a trajectory: the tokens each model call sent, what the last call was
    sent, and its facts (analysis/kept.py; read when a row first needs them: the fact search over a long
    trace costs seconds). A strategy of that form that cut nothing sends exactly this."""

    form: str
    tokens: List[int]
    last_context: str
    facts: Callable[[], FrozenSet[str]] = field(repr=False)

    @classmethod
    def of(cls, form: str, tokens: List[int], last_context: str) -> "Baseline":
        return cls(form, tokens, last_context, _Once(lambda: fact_values(last_context)))


def _messages_baseline(trace: Trace, summarizer: BuiltSummarizer, counter: TokenCounter,
                       stop: Optional[StopFlag]) -> Baseline:
    return Baseline.of("messages", message_baseline(trace, counter, stop), trajectory_text(trace))


def _scratchpad_baseline(trace: Trace, summarizer: BuiltSummarizer, counter: TokenCounter,
                         stop: Optional[StopFlag]) -> Baseline:
    """The real agent's replay with nothing cut (the scratchpad strategies' own path, compare.UNCUT). Only
    the last call's scratchpad is kept: every earlier one is dropped from its event as the next is emitted,
    so a long trajectory's uncut scratchpads are never all held at once. A replay that ends early (its step
    cap, say) ends so for the strategies too: its calls are theirs."""
    from scratchpad_lab.engine.studies.compare import UNCUT
    from scratchpad_lab.engine.run.runner import Run, Source
    from scratchpad_lab.engine.strategies.autourgos_middleware import base_config, keys_for

    config = base_config(summarizer).replace(**UNCUT, step_delay_s=0.0)
    lab_run = Run(config, Source.for_trace(trace), keys=keys_for(summarizer), name=BASELINE, stop=stop)
    log, emit, last = lab_run.log, lab_run.log.emit, []

    def emit_light(kind: str, iteration: Optional[int] = None, **data: Any) -> Any:
        event = emit(kind, iteration, **data)
        if kind == "iteration":
            if last:
                last.pop().amend(scratchpad="")
            last.append(event)
        return event

    log.emit = emit_light
    record = lab_run.run()
    if stop is not None:
        stop.check()
    uncut = StrategyResult(BASELINE, dict(UNCUT), BASELINE, record.events, [], task=trace.task)
    return Baseline.of("scratchpad", uncut.sent_tokens, uncut.last_context)


# How each form's no-compression baseline is made (a strategy's form is its registry entry's `context`).
BASELINES: Dict[str, Callable[[Trace, BuiltSummarizer, TokenCounter, Optional[StopFlag]], Baseline]] = {
    "messages": _messages_baseline, "scratchpad": _scratchpad_baseline}


def shared_work(trace: Trace, form: str, summarizer: BuiltSummarizer, counter: TokenCounter,
                baselines: Dict[str, Any], stop: Optional[StopFlag] = None) -> Baseline:
    """The no-compression baseline of `form` for this trajectory, worked out once (the first strategy of that
    form asks; the others, also on other threads of a search, share it)."""
    once = baselines.setdefault(form, _Once(lambda: BASELINES[form](trace, summarizer, counter, stop)))
    return once()


def run_one(trace: Trace, spec: StrategySpec, summarizer: BuiltSummarizer, baselines: Dict[str, Any],
            counter: TokenCounter, scenario: Optional[str] = None, stop: Optional[StopFlag] = None,
            pinned: Pinned = NO_PINS) -> StrategyResult:
    entry = strategy(spec.name)  # the registry says which module runs it and how it is called
    if entry.context == "messages":  # an import cannot look at the stop flag: it is waited for with the flag in view
        abandonable(lambda: _import_langchain(spec.name), stop)
    base = shared_work(trace, entry.context, summarizer, counter, baselines, stop)
    module = importlib.import_module(entry.module)  # only now: the LangChain strategies' imports cost seconds
    extra = {"pins": pinned} if entry.prompt_parameter else {}  # the pins reach only a package that takes a prompt
    if entry.context == "messages":
        result = module.run(trace, spec, summarizer, base.tokens, counter, stop=stop, **extra)
    else:
        result = module.run(trace, spec, summarizer, base.tokens, stop=stop, **extra)
    result.facts_of_trajectory, result.task, result.scenario = base.facts, trace.task, scenario
    result.seen_as = seen_as(trace, entry.context)
    if entry.recorded:  # whose compaction it is, where it fired
        from scratchpad_lab.model.trace import compaction_words
        result.seen_as = f"{compaction_words(trace)}; {result.seen_as}"
    # what "why it never fired" sets its rule against: only for a run that never compressed (once per trace and count)
    if entry.own_count != "chars" and not any(e.kind == "compression" for e in result.events):
        from scratchpad_lab.engine.strategies.units import own_peak
        result.own_peak_tokens = own_peak(trace, entry.own_count)
    if pinned.pins:
        carry_pins(result, pinned)
    return result


def carry_pins(result: StrategyResult, pinned: Pinned) -> None:
    """The run's pins in its config (run_start), where the one rule reads them (analysis/pins.run_pins): every
    compression of the strategy is checked against them; and the switch, for its row. A run without pins is left
    as it was, so its row is what it was before pins."""
    start = next((e for e in result.events if e.kind == "run_start"), None)
    if start is not None:
        start.amend(config={**(start.payload.config or {}), "pins": list(pinned.pins)})
    result.pins_to_summarizer = pinned.to_summarizer


def scenario_of(loaded: Union[RunRecord, Trace]) -> Optional[str]:
    """The built-in scenario a run record came from (its facts and probes say what an answer needs)."""
    return loaded.scenario if isinstance(loaded, RunRecord) else None


def run_strategies(loaded: Union[RunRecord, Trace], specs: Sequence[StrategySpec],
                   summarizer: Optional[BuiltSummarizer] = None,
                   progress: Optional[Callable[[int, int, str], None]] = None,
                   stop: Optional[StopFlag] = None, pinned: Pinned = NO_PINS) -> List[StrategyResult]:
    """Each strategy in turn. `progress(strategies done, strategies, the one running now)` before each and
    once at the end; `stop` set: Stopped (engine/jobs.py) is raised within a step; `pinned`: the job's pins."""
    if not 1 <= len(specs) <= MAX_STRATEGIES:
        raise StrategyError(f"pick 1 to {MAX_STRATEGIES} strategies, not {len(specs)}.")
    trace = recorded_trajectory(loaded)
    summarizer = summarizer or BuiltSummarizer()
    if stop is not None and summarizer.stop_event is None:
        # The job's flag reaches the endpoint client (summarizer.client()), so Stop closes a summary call in
        # flight and cancels its retries on every path: the runner's (scratchpad strategies) and the chat
        # model a message strategy calls, which has no flag of its own to look at.
        summarizer.stop_event = stop
    counter = TokenCounter(summarizer.model_id if summarizer.kind == "endpoint" else None)
    baselines: Dict[str, Any] = {}
    scenario = scenario_of(loaded)
    results = []
    for index, spec in enumerate(specs):
        if stop is not None:
            stop.check()
        if progress:
            progress(index, len(specs), spec.title())
        results.append(run_one(trace, spec, summarizer, baselines, counter, scenario, stop=stop, pinned=pinned))
    if progress:
        progress(len(specs), len(specs), "done")
    return results
