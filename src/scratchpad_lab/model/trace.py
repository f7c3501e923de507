"""Trace files: any agent's trajectory, in one small JSON shape, so it can be replayed here.

    {"schema": "scratchpad-lab/trace@1", "task": "...",
     "tools": [{"name": "search", "description": "..."}],
     "steps": [{"response": "<raw text the agent LLM returned at this iteration>",
                "observations": ["<raw result of action 1>", "..."]}]}

steps[i] is iteration i+1; observations[k] answers the k-th action of that step's response. The
observations are raw (uncut): the agent cuts them to max_tool_output_chars on replay as usual.

A recorded conversation keeps its own shape beside the steps (the autourgos scratchpad form of it):

    "system": "<the agent's system prompt>",
    "messages": [{"role": "user", "text": "..."},
                 {"role": "assistant", "text": "...", "calls": [{"id": "c1", "name": "search", "args": {...}}]},
                 {"role": "tool", "call_id": "c1", "name": "search", "text": "..."}, ...],
    "compactions": [{"at": 40, "replaced": 39, "trigger": "manual", "tokens_before": 51234, "summary": "..."}]

The i-th assistant message is the model call of steps[i]. The message strategies are given `messages` (the
system prompt as the agent's system prompt, never a message); the autourgos strategies the steps, with `system`
as the agent's own `system_prompt`. A trace without `messages` (the lab's own) is its steps as one task.
Streamlit-free; loading never trusts the file: what a trace may hold is schemas.TraceFile.
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Type, TypeVar, Union

from pydantic import BaseModel, ValidationError

from scratchpad_lab.model.errors import LabError
from scratchpad_lab.model.schemas import (FILE_LIMIT, MAX_FILE_BYTES, RAISE_FILE_LIMIT, MAX_STEP_RESPONSE_CHARS, MAX_STEPS, TRACE_SCHEMA, TraceFile,  # noqa: F401
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
class ConversationMessage:
    """One recorded message: role "user" | "assistant" | "tool" | "system" (a later one), its text, an assistant
    message's calls ([{"id", "name", "args"}], ids unique in the conversation), a tool result's call id and tool."""

    role: str
    text: str = ""
    calls: List[Dict[str, Any]] = field(default_factory=list)
    call_id: Optional[str] = None
    name: Optional[str] = None
    usage: Optional[Dict[str, int]] = None

    def to_dict(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"role": self.role, "text": self.text}
        if self.calls:
            out["calls"] = [dict(c) for c in self.calls]
        for key in ("call_id", "name", "usage"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out


@dataclass
class Compaction:
    """A compaction the recording carries: before messages[at], `replaced` messages became `summary`."""

    at: int
    replaced: int = 0
    trigger: str = ""
    tokens_before: Optional[int] = None
    summary: str = ""
    by: str = ""          # the agent that made it ("Claude Code")

    def to_dict(self) -> Dict[str, Any]:
        return {"at": self.at, "replaced": self.replaced, "trigger": self.trigger,
                "tokens_before": self.tokens_before, "summary": self.summary, "by": self.by}


@dataclass
class Trace:
    task: str
    tools: List[TraceTool]
    steps: List[TraceStep]
    system: str = ""                                         # the recording's system prompt
    messages: Optional[List[ConversationMessage]] = None     # the conversation as recorded (None: the lab's own)
    compactions: List[Compaction] = field(default_factory=list)

    @property
    def user_turns(self) -> int:
        """The user turns of a recorded conversation (1 for a trace without one: its task)."""
        if self.messages is None:
            return 1
        return sum(1 for m in self.messages if m.role == "user")

    @property
    def tool_results(self) -> int:
        if self.messages is None:
            return sum(len(s.observations) for s in self.steps)
        return sum(1 for m in self.messages if m.role == "tool")

    def to_dict(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {
            "schema": TRACE_SCHEMA,
            "task": self.task,
            "tools": [t.to_dict() for t in self.tools],
            "steps": [{"response": s.response, "observations": list(s.observations)} for s in self.steps],
        }
        # only what a trace has: a trace of the lab's own writes what it always wrote
        if self.system:
            out["system"] = self.system
        if self.messages is not None:
            out["messages"] = [m.to_dict() for m in self.messages]
        if self.compactions:
            out["compactions"] = [c.to_dict() for c in self.compactions]
        return out

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
        steps = [TraceStep(s.response, list(s.observations)) for s in spec.steps]
        messages = None
        if spec.messages is not None:
            messages = [ConversationMessage(m.role, m.text, [c.model_dump() for c in m.calls], m.call_id, m.name,
                                            dict(m.usage) if m.usage is not None else None) for m in spec.messages]
            replies = sum(1 for m in messages if m.role == "assistant")
            if replies != len(steps):
                raise RecordError(f"the trace's conversation has {replies:,} assistant messages and {len(steps):,} "
                                  "steps; each assistant message is one step's model call, so the two must match.")
            ids = [c["id"] for m in messages for c in m.calls]
            if len(set(ids)) != len(ids):
                raise RecordError("the trace's conversation uses a tool call id twice; each call needs its own id.")
        compactions = [Compaction(c.at, c.replaced, c.trigger, c.tokens_before, c.summary, c.by)
                       for c in spec.compactions]
        if messages is not None and any(c.at > len(messages) for c in compactions):
            raise RecordError("a compaction of the trace is placed after the end of its conversation.")
        return cls(task=spec.task, tools=tools, steps=steps, system=spec.system, messages=messages,
                   compactions=compactions)


def compaction_words(trace: Trace) -> str:
    """The recording's own compaction in words: "Claude Code's own compaction, manual at 142,431 tokens"."""
    if not trace.compactions:
        return "no compaction of its own (the recording carries none)"
    c = trace.compactions[0]
    said = f"{c.by or 'the recording' + chr(39) + 's agent'}'s own compaction" + (f", {c.trigger}" if c.trigger else "")
    said += f" at {c.tokens_before:,} tokens" if c.tokens_before else ""
    return said + (f" (and {len(trace.compactions) - 1} more)" if len(trace.compactions) > 1 else "")


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
            f"{where} is {size:,} bytes; the limit is {FILE_LIMIT}. {RAISE_FILE_LIMIT}")
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
        raise RecordError(f"{p} is {p.stat().st_size:,} bytes; the limit is {FILE_LIMIT}. {RAISE_FILE_LIMIT}")
    return p.read_bytes()
