"""What replaying a file means: the one rule every caller (CLI replay and sweep, compare, every page) uses.

Streamlit-free. A file is untrusted, so it never decides where the lab connects or which key it sends:
- a trace is replayed step for step (its recorded responses and tool results), offline;
- a scenario run record is re-run by the scenario's deterministic scripted policy (same tool calls;
  its answer still comes from what is left in the scratchpad), offline;
- any other run record (a real-model run, a replay) is replayed step for step from its embedded trace,
  offline: its agent model is never called again.
The file's compression settings are kept; its endpoints (model, base URL, key variable) are dropped.
A summarizer model named in the file is only reported (`recorded_summarizer`): the replay uses the
summarizer the user chooses now, the offline extractive one unless they choose another.
"""
from __future__ import annotations

from typing import NamedTuple, Optional, Union

from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.engine.jobs import Report, StopFlag
from scratchpad_lab.model.records import RunRecord
from scratchpad_lab.engine.run.runner import Run, Source
from scratchpad_lab.model.trace import RecordError, Trace

EXTRACTIVE_NOTE = "this replay uses the offline extractive summarizer unless you choose another"


class Replay(NamedTuple):
    source: Source                          # where the steps come from (never a model)
    config: RunConfig                       # the file's settings without endpoints
    keeps_recorded_answer: bool             # a recorded trajectory ends with its recorded answer
    recorded_summarizer: Optional[str]      # the summarizer model the file names, as information only


def _describe(endpoint) -> str:
    # repr() escapes control characters: the file's words are shown on a terminal and a page
    return f"the model {endpoint.model!r} at {endpoint.url!r}"


def replay_source(loaded: Union[RunRecord, Trace], label: str = "") -> Replay:
    """How to replay a run record or a trace: (source, config, keeps_recorded_answer, recorded_summarizer).

    RecordError when a record holds nothing to replay."""
    if isinstance(loaded, Trace):
        return Replay(Source.for_trace(loaded, label or "trace"), RunConfig.build(scenario=None), True, None)
    config = loaded.config
    recorded = None
    kind = config.summarizer.kind
    if kind == "endpoint" and config.summarizer.endpoint is not None:
        recorded = _describe(config.summarizer.endpoint)
    elif kind == "same-as-agent" and config.agent_endpoint is not None:
        recorded = _describe(config.agent_endpoint) + " (the agent's own model)"
    elif kind == "builtin":  # minutes of this CPU: chosen again by the person, never by a file
        recorded = "the built-in model (SmolLM2-135M)"
    offline = {"agent_endpoint": None, "task": None,
               "summarizer": config.summarizer.but(kind="extractive" if recorded is not None else kind, endpoint=None)}
    if loaded.mode == "scenario" and loaded.scenario:
        return Replay(Source.for_scenario(loaded.scenario), config.replace(**offline, scenario=loaded.scenario),
                      False, recorded)
    if loaded.trace is None:
        raise RecordError("This run has no recorded trajectory (no embedded trace) to replay.")
    return Replay(Source.for_trace(loaded.trace, label or loaded.name or "recorded run"),
                  config.replace(**offline, scenario=None), True, recorded)


def recorded_trajectory(loaded: Union[RunRecord, Trace]) -> Trace:
    """The file's fixed trajectory (for systems that replay steps, not policies): a trace itself, or a
    record's embedded trace. Like replay_source, it carries no endpoint, base URL or key variable."""
    if isinstance(loaded, Trace):
        return loaded
    if loaded.trace is None:
        raise RecordError("This run has no recorded trajectory (no embedded trace) to replay.")
    return loaded.trace


def summarizer_notice(replay: Replay) -> Optional[str]:
    """The sentence a person sees when the file named a summarizer model that the replay will not call."""
    if replay.recorded_summarizer is None:
        return None
    return (f"The file's summaries were written by {replay.recorded_summarizer}; a file never chooses a model "
            f"or a key, so it is not called: {EXTRACTIVE_NOTE}.")


def replay_with_defaults(trace: Trace, name: str, label: str = "trace", stop: Optional[StopFlag] = None,
                         report: Optional[Report] = None) -> RunRecord:
    """A trace has no events of its own: replayed once with the package defaults, so it can be shown.
    As a job's work: `report(iteration, total, text)` as it goes; `stop` set: Stopped at its next iteration."""
    source, config, _, _ = replay_source(trace, label)  # (its work limit: engine/tasks' replay_trace checks it)
    record = Run(config, source, name=name, stop=stop, report=report).run()
    if stop is not None:
        stop.check()
    return record
