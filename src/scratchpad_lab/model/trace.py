"""Trace files: any agent's trajectory, in one small JSON shape, so it can be replayed here.

    {"schema": "scratchpad-lab/trace@1", "task": "...",
     "tools": [{"name": "search", "description": "..."}],
     "steps": [{"response": "<raw text the agent LLM returned at this iteration>",
                "observations": ["<raw result of action 1>", "..."]}]}

steps[i] is iteration i+1; observations[k] answers the k-th action of that step's response. The
observations are raw (uncut): the agent cuts them to max_tool_output_chars on replay as usual.
Streamlit-free; loading never trusts the file: what a trace may hold is schemas.TraceFile.
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Type, TypeVar, Union

from pydantic import BaseModel, ValidationError

from scratchpad_lab.model.errors import LabError
from scratchpad_lab.model.schemas import (FILE_LIMIT, MAX_FILE_BYTES, MAX_STEP_RESPONSE_CHARS, MAX_STEPS, TRACE_SCHEMA, TraceFile,  # noqa: F401
                      explain)
from scratchpad_lab.model.untrusted import clean_json, may_hold_surrogates

M = TypeVar("M", bound=BaseModel)


class RecordError(LabError, ValueError):
    """A run or trace file cannot be used; the message says what is wrong and what to do."""


@dataclass
class TraceTool:
    name: str
    description: str = ""
    parameters: Dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"name": self.name, "description": self.description}
        if self.parameters:
            out["parameters"] = self.parameters
        return out


@dataclass
class TraceStep:
    response: str
    observations: List[str] = field(default_factory=list)


@dataclass
class Trace:
    task: str
    tools: List[TraceTool]
    steps: List[TraceStep]

    def to_dict(self) -> Dict[str, Any]:
        return {
            "schema": TRACE_SCHEMA,
            "task": self.task,
            "tools": [t.to_dict() for t in self.tools],
            "steps": [{"response": s.response, "observations": list(s.observations)} for s in self.steps],
        }

    @classmethod
    def from_dict(cls, raw: Any, where: str = "trace") -> "Trace":
        """A Trace from decoded JSON, checked against schemas.TraceFile; RecordError says what is wrong."""
        if not isinstance(raw, dict):
            raise RecordError(f"{where}: expected a JSON object at the top level.")
        if raw.get("schema") != TRACE_SCHEMA:
            raise RecordError(f"{where}: schema is {raw.get('schema')!r}; expected {TRACE_SCHEMA!r}.")
        return cls.from_spec(validated(TraceFile, raw, where))

    @classmethod
    def from_spec(cls, spec: TraceFile) -> "Trace":
        tools = [TraceTool(t.name, t.description, t.parameters.model_dump(exclude_unset=True) if t.parameters else {})
                 for t in spec.tools]
        return cls(task=spec.task, tools=tools, steps=[TraceStep(s.response, list(s.observations)) for s in spec.steps])


def validated(model: Type[M], raw: Any, where: str) -> M:
    """`raw` checked against one of the file models in schemas.py; RecordError with sentences if it does not fit."""
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise RecordError(f"{where}: {explain(exc)}") from None


def parse_json_bytes(data: Union[bytes, str], where: str) -> Any:
    """Decode an untrusted JSON document with a size cap, raising RecordError on anything wrong."""
    size = len(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    if size > MAX_FILE_BYTES:
        raise RecordError(
            f"{where} is {size:,} bytes; the limit is {FILE_LIMIT}. Use a shorter run or trace.")
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        raw = json.loads(text)
        return clean_json(raw) if may_hold_surrogates(text) else raw  # text from a file is made safe here
    except UnicodeDecodeError:
        raise RecordError(f"{where} is not UTF-8 text; expected a JSON run record or trace.") from None
    except RecursionError:
        raise RecordError(f"{where} is nested too deeply to be a run record or trace.") from None
    except json.JSONDecodeError as exc:
        raise RecordError(f"{where} is not valid JSON ({exc.msg} at line {exc.lineno}).") from None
    except ValueError as exc:  # an integer of more digits than Python will convert
        if "digits" in str(exc):
            raise RecordError(f"{where} holds a number of more than {sys.get_int_max_str_digits():,} digits; no "
                              "field of a run record or trace is a number that long. Remove it.") from None
        raise RecordError(f"{where} holds a value that cannot be read as JSON.") from None


def read_file_bytes(path: Union[str, Path]) -> bytes:
    p = Path(path)
    if not p.is_file():
        raise RecordError(f"{p} does not exist or is not a file.")
    if p.stat().st_size > MAX_FILE_BYTES:
        raise RecordError(f"{p} is {p.stat().st_size:,} bytes; the limit is {FILE_LIMIT}. Use a shorter run or trace.")
    return p.read_bytes()
