"""Run records: a finished run as JSON with a schema version, and loading such files safely.

Streamlit-free. A record holds the config (never a secret), every event, the outcome, the package
versions and the run's trajectory as an embedded trace, so it can be shown again by the same code as
a live run and replayed under other settings. Loading never trusts the file: size cap, JSON, schema,
types; every problem is one RecordError whose message says what to do.
"""
from __future__ import annotations

import datetime as _dt
import json
import math
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

from .config import ConfigError, RunConfig
from .events import EVENT_KINDS, Event
from .trace import TRACE_SCHEMA, RecordError, Trace, parse_json_bytes, read_file_bytes

RUN_SCHEMA = "scratchpad-lab/run@1"
OUTCOMES = ("answered", "stopped", "timeout", "max_iterations", "error")
_PACKAGES = ("autourgos-agent", "autourgos-summarizer", "autourgos-openaichat", "scratchpad-lab",
             "tiktoken", "streamlit")


def package_versions() -> Dict[str, str]:
    out = {}
    for name in _PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


@dataclass
class RunRecord:
    config: RunConfig
    events: List[Event]
    outcome: str
    final_answer: Optional[str] = None
    error: Optional[str] = None
    versions: Dict[str, str] = field(default_factory=dict)
    trace: Optional[Trace] = None
    mode: str = "scenario"
    scenario: Optional[str] = None
    name: str = ""
    label: str = ""
    created: str = field(default_factory=lambda: _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))

    def to_dict(self) -> Dict[str, Any]:
        return {
            "schema": RUN_SCHEMA, "created": self.created, "name": self.name, "label": self.label,
            "mode": self.mode, "scenario": self.scenario, "config": self.config.model_dump(mode="json"),
            "outcome": {"outcome": self.outcome, "final_answer": self.final_answer, "error": self.error},
            "versions": self.versions,
            "events": [e.to_dict() for e in self.events],
            "trace": self.trace.to_dict() if self.trace else None,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=1)

    def save(self, path: Union[str, Path]) -> Path:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(self.to_json(), encoding="utf-8")
        return p

    @classmethod
    def from_dict(cls, raw: Any, where: str = "run record") -> "RunRecord":
        if not isinstance(raw, dict):
            raise RecordError(f"{where}: expected a JSON object at the top level.")
        if raw.get("schema") != RUN_SCHEMA:
            raise RecordError(f"{where}: schema is {raw.get('schema')!r}; expected {RUN_SCHEMA!r} "
                              f"(or a trace, {TRACE_SCHEMA!r}).")
        config = raw.get("config")
        if not isinstance(config, dict):
            raise RecordError(f"{where}: 'config' must be an object.")
        try:
            run_config = RunConfig.build(**config)
        except ConfigError as exc:
            raise RecordError(f"{where}: its config is not valid here: {exc}") from None
        outcome = raw.get("outcome")
        if not isinstance(outcome, dict) or outcome.get("outcome") not in OUTCOMES:
            raise RecordError(f"{where}: 'outcome.outcome' must be one of {', '.join(OUTCOMES)}.")
        for key in ("final_answer", "error"):
            if outcome.get(key) is not None and not isinstance(outcome.get(key), str):
                raise RecordError(f"{where}: 'outcome.{key}' must be text or null.")
        events_raw = raw.get("events")
        if not isinstance(events_raw, list):
            raise RecordError(f"{where}: 'events' must be a list.")
        events = [_check_event(e, i, where) for i, e in enumerate(events_raw)]
        trace = Trace.from_dict(raw["trace"], f"{where} (embedded trace)") if raw.get("trace") else None
        text = {k: raw.get(k) for k in ("mode", "scenario", "name", "label", "created")}
        for key, value in text.items():
            if value is not None and not isinstance(value, str):
                raise RecordError(f"{where}: '{key}' must be text.")
        versions = raw.get("versions") or {}
        if not isinstance(versions, dict):
            raise RecordError(f"{where}: 'versions' must be an object.")
        return cls(config=run_config, events=events, outcome=outcome["outcome"],
                   final_answer=outcome.get("final_answer"), error=outcome.get("error"),
                   versions={str(k): str(v) for k, v in versions.items()}, trace=trace,
                   mode=text["mode"] or "scenario", scenario=text["scenario"], name=text["name"] or "",
                   label=text["label"] or "", created=text["created"] or "")


_NUMERIC = {"t"}


def _check_event(raw: Any, index: int, where: str) -> Event:
    if not isinstance(raw, dict) or not isinstance(raw.get("kind"), str) or raw["kind"] not in EVENT_KINDS:
        raise RecordError(f"{where}: events[{index}] is not an event of a known kind.")
    t = raw.get("t", 0)
    if not isinstance(t, (int, float)) or isinstance(t, bool) or not abs(t) <= 1e9 or not math.isfinite(t):
        raise RecordError(f"{where}: events[{index}].t must be a number of seconds.")
    iteration = raw.get("iteration")
    if iteration is not None and (not isinstance(iteration, int) or isinstance(iteration, bool) or iteration < 0):
        raise RecordError(f"{where}: events[{index}].iteration must be a whole number or null.")
    if not isinstance(raw.get("data", {}), dict):
        raise RecordError(f"{where}: events[{index}].data must be an object.")
    return Event.from_dict(raw)


def load_any(data: Union[bytes, str], where: str = "file") -> Union[RunRecord, Trace]:
    """A run record or a trace from untrusted bytes; RecordError on anything wrong."""
    raw = parse_json_bytes(data, where)
    schema = raw.get("schema") if isinstance(raw, dict) else None
    if schema == TRACE_SCHEMA:
        return Trace.from_dict(raw, where)
    if schema == RUN_SCHEMA:
        return RunRecord.from_dict(raw, where)
    raise RecordError(f"{where}: schema is {schema!r}; expected a run record ({RUN_SCHEMA!r}) "
                      f"or a trace ({TRACE_SCHEMA!r}).")


def load_path(path: Union[str, Path]) -> Union[RunRecord, Trace]:
    return load_any(read_file_bytes(path), str(path))


def load_record(path: Union[str, Path]) -> RunRecord:
    loaded = load_path(path)
    if not isinstance(loaded, RunRecord):
        raise RecordError(f"{path} is a trace, not a run record.")
    return loaded
