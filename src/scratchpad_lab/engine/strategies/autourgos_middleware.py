"""`autourgos-middleware`: today's path, the real agent with the real AutoSummarizeMiddleware.

Streamlit-free. The trajectory is replayed step for step through the lab's observed replay
(`runner.Run` with the trace as its source), so its events are exactly the lab's usual ones. With "pass pins to
the summarizer" the pins go in its RunConfig as a run's do (RunConfig.pins_to_summarizer), so the middleware's own
prompt asks for them, exactly as in a run. The result keeps that run (`StrategyResult.run`, less its copy of the
trajectory): it is the run What if... forks on the Strategies page (engine/run/forking.py's rule holds this middleware's
lock and triggers).
"""
from __future__ import annotations

from typing import Dict, List, Optional

from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.model.events import Event
from scratchpad_lab.engine.jobs import StopFlag
from scratchpad_lab.model.pins import NO_PINS, Pinned
from scratchpad_lab.engine.run.runner import Run, Source
from scratchpad_lab.model.trace import Trace
from scratchpad_lab.engine.strategies.result import Quirk, StrategyResult
from scratchpad_lab.engine.strategies.spec import StrategySpec
from scratchpad_lab.engine.strategies.chat_summarizer import ReusedReplies, BuiltSummarizer

TRIM_MARKER = "[...earlier steps trimmed...]"
SUMMARY_MARKERS = ("[Summarized up to step",)


def base_config(summarizer: BuiltSummarizer) -> RunConfig:
    return RunConfig.build(scenario=None, summarizer=summarizer.choice)


def keys_for(summarizer: BuiltSummarizer) -> Optional[Dict[str, str]]:
    return {"summarizer": summarizer.key()} if summarizer.kind == "endpoint" else None


def observed_run(config: RunConfig, trace: Trace, keys: Optional[Dict[str, str]] = None,
                 name: str = "", stop: Optional[StopFlag] = None) -> Run:
    """The lab's observed replay of `trace`, whose `trim` events also carry the scratchpad text before
    and after the agent's own trim (the agent's `_trim_scratchpad` is wrapped on the instance and calls
    the package's own; the lab's observer still emits the event, this adds the texts to it)."""
    lab_run = Run(config.replace(step_delay_s=0.0), Source.for_trace(trace), keys=keys, name=name, stop=stop)
    agent, log = lab_run.agent, lab_run.log
    own = agent._trim_scratchpad

    def observed(scratchpad: str) -> str:
        count = len(log)
        trimmed = own(scratchpad)
        if trimmed != scratchpad and len(log) > count:
            for e in reversed(log.snapshot()):
                if e.kind == "trim":
                    e.amend(before=scratchpad, after=trimmed)
                    break
        return trimmed

    agent._trim_scratchpad = observed
    return lab_run


def trim_quirks(events: List[Event]) -> List[Quirk]:
    """The agent's blunt trim cutting away the head of a summary (its marker line is gone after)."""
    out: List[Quirk] = []
    for e in events:
        if e.kind != "trim":
            continue
        before, after = str(e.payload.before or ""), str(e.payload.after or "")
        if any(m in before for m in SUMMARY_MARKERS) and not any(m in after for m in SUMMARY_MARKERS):
            out.append(Quirk(e.iteration or 0, "trim-dropped-summary",
                             "The agent's hard trim cut the scratchpad from the front and took the summary's "
                             "head with it: the summary is no longer whole in what is sent."))
    return out


def run(trace: Trace, spec: StrategySpec, summarizer: BuiltSummarizer, baseline: List[int],
        stop: Optional[StopFlag] = None, pins: Pinned = NO_PINS) -> StrategyResult:
    s = spec.resolved()
    changes = {key: s[key] for key in ("summarize_every", "max_scratchpad_chars", "agent_trim_chars",
                                       "max_tool_output_chars")}
    if pins.pins:  # as a run carries them: checked against every compression, and asked for in the prompt if on
        changes.update(pins=list(pins.pins), pins_to_summarizer=pins.to_summarizer)
    lab_run = observed_run(base_config(summarizer).replace(**changes), trace, keys_for(summarizer), spec.name,
                           stop=stop)
    if summarizer.hosted is not None and summarizer.kind == "endpoint":  # a Ray worker: the job's one client
        lab_run.middleware.llm.inner = summarizer.hosted
    if summarizer.store is not None and summarizer.calls_a_model:  # a search's reuse of identical requests
        lab_run.middleware.llm.inner = ReusedReplies(lab_run.middleware.llm.inner, summarizer.store)
    record = lab_run.run()
    if stop is not None:
        stop.check()
    record.trace = None  # the trajectory is the job's (StrategiesOutcome.run_of): a result keeps no second copy
    return StrategyResult(spec.name, s, spec.title(), record.events, baseline, quirks=trim_quirks(record.events),
                          summarizer_model=summarizer.label, error=record.error, config=record.config, run=record)
