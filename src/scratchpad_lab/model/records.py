"""Run records: a finished run as JSON with a schema version, and loading such files safely.

Streamlit-free. A record holds the config (never a secret), every event, the outcome, the package
versions and the run's trajectory as an embedded trace, so it can be shown again by the same code as
a live run and replayed under other settings. Loading never trusts the file: size cap, JSON, schema,
types (schemas.RunRecordFile); every problem is one RecordError whose message says what to do.
"""
from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

from scratchpad_lab.model.config import ConfigError, RunConfig
from scratchpad_lab.model.events import Event
from scratchpad_lab.model.schemas import RUN_SCHEMA, RUN_SCHEMAS_READ, TRACE_SCHEMA, RunRecordFile
from scratchpad_lab.model.trace import RecordError, Trace, parse_json_bytes, read_file_bytes, validated

_PACKAGES = ("autourgos-agent", "autourgos-summarizer", "autourgos-openaichat", "scratchpad-lab",
             "tiktoken", "streamlit")


def package_versions() -> Dict[str, str]:
    return dict(_installed_versions())


@lru_cache(maxsize=1)
def _installed_versions() -> tuple:
    """Read once per process (~20 ms of metadata lookups; the modules running are the ones imported)."""
    out = []
    for name in _PACKAGES:
        try:
            out.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            out.append((name, "not installed"))
    return tuple(out)


@dataclass
class RunRecord:
    """`config` is the one source of the run's settings: the run_start event carries them too, for the
    pure functions that read only events, and that copy is made from `config` (when the record is
    built or loaded) and left out of the file."""

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
    # a fork (engine/run/forking.py): {parent_id, parent_name, iteration, skipped, parent_settings, earlier}, as
    # schemas.ForkSpec reads it; None for every other run (a file from before forks has none)
    forked_from: Optional[Dict[str, Any]] = None

    def __post_init__(self) -> None:
        dumped = self.config.model_dump()
        for e in self.events:
            if e.kind == "run_start" and e.payload.config != dumped:
                e.amend(config=dumped)

    def to_dict(self) -> Dict[str, Any]:
        return {
            "schema": RUN_SCHEMA, "created": self.created, "name": self.name, "label": self.label,
            "mode": self.mode, "scenario": self.scenario, "config": self.config.model_dump(mode="json"),
            "outcome": {"outcome": self.outcome, "final_answer": self.final_answer, "error": self.error},
            "versions": self.versions,
            "events": [_stored(e) for e in self.events],
            "trace": self.trace.to_dict() if self.trace else None,
            **({"forked_from": self.forked_from} if self.forked_from is not None else {}),
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
        """A RunRecord from decoded JSON, checked against schemas.RunRecordFile; RecordError says what is wrong."""
        if not isinstance(raw, dict):
            raise RecordError(f"{where}: expected a JSON object at the top level.")
        if raw.get("schema") not in RUN_SCHEMAS_READ:
            raise RecordError(f"{where}: schema is {raw.get('schema')!r}; expected {RUN_SCHEMA!r} "
                              f"(or a trace, {TRACE_SCHEMA!r}).")
        if isinstance(raw.get("config"), dict):  # first, so a bad setting is named with its allowed range
            try:
                RunConfig.from_file(raw["config"])
            except ConfigError as exc:
                raise RecordError(f"{where}: its config is not valid here: {exc}") from None
        spec = validated(RunRecordFile, raw, where)
        events = [Event(kind=e.kind, t=e.t, iteration=e.iteration, data=e.data.model_dump(exclude_unset=True))
                  for e in spec.events]
        return cls(config=spec.config, events=events, outcome=spec.outcome.outcome,
                   final_answer=spec.outcome.final_answer, error=spec.outcome.error, versions=dict(spec.versions),
                   trace=Trace.from_spec(spec.trace) if spec.trace else None, mode=spec.mode or "scenario",
                   scenario=spec.scenario, name=spec.name or "", label=spec.label or "", created=spec.created or "",
                   forked_from=spec.forked_from.model_dump(mode="json") if spec.forked_from else None)


def _stored(e: Event) -> Dict[str, Any]:
    """An event as the file keeps it: a run_start without the config (the record's top level holds it)."""
    out = e.to_dict()
    if e.kind == "run_start" and "config" in e.data:
        out["data"] = {k: v for k, v in e.data.items() if k != "config"}
    return out


def prompt_label(config: RunConfig) -> str:
    """The summarizer prompt as a person knows it: its prompt-lab name, else default or custom; or that the
    run's summarizer does not follow one."""
    if (config.summarizer.prompt or config.prompt_name) and not config.follows_prompt:
        return "not followed (extractive)"
    if config.prompt_name:
        return config.prompt_name
    return "custom" if config.summarizer.prompt else "package default"


def load_any(data: Union[bytes, str], where: str = "file") -> Union[RunRecord, Trace]:
    """A run record or a trace from untrusted bytes; RecordError on anything wrong. (Files in other
    formats are imported by the engine's loader, engine/files/loader.py, which every page and command uses.)"""
    return load_decoded(parse_json_bytes(data, where), where)


def load_decoded(raw: Any, where: str = "file") -> Union[RunRecord, Trace]:
    """A run record or a trace from decoded (untrusted) JSON; RecordError on anything wrong."""
    schema = raw.get("schema") if isinstance(raw, dict) else None
    if schema == TRACE_SCHEMA:
        return Trace.from_dict(raw, where)
    if schema in RUN_SCHEMAS_READ:
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
