"""The file formats, as pydantic models: a trace, a run record, and every event's payload.

Streamlit-free. This module is the one definition of what a file may hold: the loaders (trace.py,
records.py) validate through it, the CLI and the pages load through them, and the JSON Schema it
generates is what the guide publishes (docs/schemas/, docs/traces.md) for people who write traces:

    python -m scratchpad_lab.model.schemas trace     # the trace format's JSON Schema
    python -m scratchpad_lab.model.schemas run       # the run record's

Types are strict (no "3" for 3, no true for 1), numbers finite, text and lists bounded, kinds and
outcomes `Literal`s. An event's payload may carry fields not listed here (newer writers add some);
they are kept as they are, and nothing reads them without a model here saying what they are.
"""
from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Annotated, Any, Dict, List, Literal, Mapping, Optional, Type, Union

from pydantic import (BaseModel, ConfigDict, Field, ValidationError, create_model, field_validator)

from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.model.payloads import (EVENT_KINDS, MAX_TOOLS, PAYLOADS, Count, EventKind, Name, Outcome, Seconds,
                                          Text)

TRACE_SCHEMA = "scratchpad-lab/trace@1"
# A file's schema names its version; a change in what a field means (or where it is) is a new version,
# and every version the lab ever wrote still loads. run@2 keeps the run's config once, at the top: its
# run_start event no longer repeats it (run@1 did; loading one, the top-level config is the truth). run@3 holds the
# summarizer as one object, config.summarizer {kind, budget_chars, endpoint, prompt}; run@1 and run@2 wrote it as
# four loose fields (summarizer, extractive_budget_chars, summarizer_endpoint, summarizer_prompt), which fold into it
# as they load (RunConfig._one_summarizer).
RUN_SCHEMA = "scratchpad-lab/run@3"
RUN_SCHEMAS_READ = ("scratchpad-lab/run@1", "scratchpad-lab/run@2", RUN_SCHEMA)
# One file limit everywhere (CLI, loader, store, the pages' uploaders), in the bytes a person's file manager
# and Streamlit's uploader count: the uploader, in the browser, takes a megabyte as 1,000,000 bytes (1,024 x
# 1,024 only on Windows), so a limit of 10 x 1,024 x 1,024 refused 10,000,000-10,485,760-byte files on the page
# that the CLI and the store took. Said the same way everywhere: FILE_LIMIT. 10 MB unless whoever runs the lab
# raises it (FILE_CAP_ENV, read once at start: a command's or a server's environment, never a visitor's choice);
# the pages' uploads are also capped by Streamlit's server.maxUploadSize, set beside it in .streamlit/config.toml.
FILE_CAP_ENV = "SCRATCHPAD_LAB_MAX_FILE_MB"
DEFAULT_FILE_MB, MAX_FILE_MB = 10, 200


def file_cap_mb(environ: Optional[Mapping[str, str]] = None) -> int:
    """The file limit in megabytes: FILE_CAP_ENV when it is a whole number from 1 to MAX_FILE_MB, else 10."""
    text = (os.environ if environ is None else environ).get(FILE_CAP_ENV, "").strip()
    return int(text) if text.isdigit() and 1 <= int(text) <= MAX_FILE_MB else DEFAULT_FILE_MB


MAX_FILE_BYTES = file_cap_mb() * 1_000_000
FILE_LIMIT = f"{MAX_FILE_BYTES // 1_000_000} MB ({MAX_FILE_BYTES:,} bytes)"
# How to read a bigger file, in the one line that refuses one.
RAISE_FILE_LIMIT = (f"Use a shorter run or trace, or raise the limit: {FILE_CAP_ENV}=50 scratchpad-lab ... (whole "
                    f"megabytes, at most {MAX_FILE_MB}); for the pages, set it for the server and raise "
                    "server.maxUploadSize in .streamlit/config.toml to match.")
MAX_STEPS = 5000
MAX_EVENTS = 500_000
# The longest response one agent step may be, in a file or from a model, in characters. The agent's JSON
# parser (autourgos_agent.runtime.parse_json_object) retries at every "}" of text that is not JSON, which
# is quadratic in characters: bench/parse_cap.py measures its worst case at this size (well under a
# second). Characters, not bytes, so the published JSON Schema (`maxLength`) says exactly what the loader
# refuses; a model's reply is capped at the same number of bytes on the wire, which is never more text.
MAX_STEP_RESPONSE_CHARS = 12_000
# The actions (tool calls) one step may make, so the observations it may have; importers check it as they
# read each message, before matching results to calls (quadratic in calls: 40,000 in one message took minutes).
MAX_STEP_ACTIONS = 1000

class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, allow_inf_nan=False, extra="forbid", defer_build=True)


# ── traces ──────────────────────────────────────────────────────────────────

class ToolParameters(BaseModel):
    """A tool's JSON-Schema parameters, as far as the agent reads them into its prompt."""

    model_config = ConfigDict(strict=True, extra="allow")
    properties: Dict[Name, Dict[str, Any]] = Field(
        default_factory=dict, description="{parameter name: {\"type\": ..., \"description\": ...}}")
    required: List[Name] = Field(default_factory=list)


class ToolSpec(_Strict):
    name: Name = Field(min_length=1, description="the name the agent's actions call")
    description: Text = ""
    parameters: Optional[ToolParameters] = Field(None, description="JSON Schema of the tool's input")


class StepSpec(_Strict):
    response: str = Field(max_length=MAX_STEP_RESPONSE_CHARS,
                          description="the raw text the agent's LLM returned at this iteration, in the agent's "
                                      'reply format {"thought": ..., "actions": [{"action": ..., "action_input": '
                                      '{...}}], "final_answer": ...} (at most '
                                      f"{MAX_STEP_RESPONSE_CHARS:,} characters)")
    observations: List[Text] = Field(default_factory=list, max_length=MAX_STEP_ACTIONS,
                                     description="the raw result of each action of the response, in order")

    @field_validator("response", mode="wrap")
    @classmethod
    def _step_cap(cls, value: Any, handler: Any) -> str:
        # the cap is checked here, before the field's own maxLength, so the message says why it exists
        if isinstance(value, str) and len(value) > MAX_STEP_RESPONSE_CHARS:
            raise ValueError(step_too_large(len(value)))
        return handler(value)


# The most messages a recorded conversation may hold: every step's reply, its results and the turns between.
MAX_MESSAGES = 200_000


class CallSpec(_Strict):
    id: Name = Field(min_length=1, description="the call's id, unique in the conversation")
    name: Name = Field(min_length=1, description="the tool it calls")
    args: Dict[str, Any] = Field(default_factory=dict, description="its arguments")


class MessageSpec(_Strict):
    """One message of a recorded conversation, as the recording held it."""

    role: Literal["user", "assistant", "tool", "system"]
    text: Text = ""
    calls: List[CallSpec] = Field(default_factory=list, max_length=MAX_STEP_ACTIONS,
                                          description="an assistant message's tool calls")
    call_id: Optional[Name] = Field(None, description="a tool result: the id of the call it answers")
    name: Optional[Name] = Field(None, description="a tool result: the tool's name")
    usage: Optional[Dict[Name, Count]] = Field(None, description="an assistant reply's token usage, where recorded")


class CompactionSpec(_Strict):
    """A compaction the recording itself carries (the recording agent's own, e.g. Claude Code's)."""

    at: Count = Field(description="the index in `messages` of the first message after the compaction")
    replaced: Count = Field(0, description="how many messages before `at` it replaced")
    trigger: Name = ""
    tokens_before: Optional[Count] = None
    summary: Text = ""
    by: Name = Field("", description="the agent that made it (\"Claude Code\")")


class TraceFile(_Strict):
    """Any agent's trajectory: steps[i] is iteration i+1. A recorded conversation also keeps its own shape:
    its system prompt (`system`), its messages with their roles (`messages`: steps[i] is the i-th assistant
    message's model call) and any compaction it carries (`compactions`)."""

    model_config = ConfigDict(title="scratchpad-lab trace")
    schema_: Literal["scratchpad-lab/trace@1"] = Field(alias="schema")
    task: Text
    tools: List[ToolSpec] = Field(default_factory=list, max_length=MAX_TOOLS)
    steps: List[StepSpec] = Field(min_length=1, max_length=MAX_STEPS)
    system: Text = Field("", description="the recording's system prompt (the agent's, sent with every call)")
    messages: Optional[List[MessageSpec]] = Field(
        None, max_length=MAX_MESSAGES, description="the conversation as recorded, when the run is one")
    compactions: List[CompactionSpec] = Field(default_factory=list, max_length=MAX_STEPS)


def step_too_large(size: int) -> str:
    """Said of a step's response (the subject comes first: "steps[3].response is ...")."""
    return (f"is {size:,} characters; one agent step may be at most {MAX_STEP_RESPONSE_CHARS:,} characters (the "
            "agent's JSON parser slows down sharply on longer text that is not JSON), so shorten that step")


_NEEDS_ITERATION = {"iteration", "trigger", "compression", "trim"}


class _EventBase(_Strict):
    t: Seconds = Field(0.0, description="seconds since the run started")
    iteration: Optional[Count] = None


def _event_model(kind: str) -> type:
    payload = PAYLOADS[kind]
    iteration = (Count, ...) if kind in _NEEDS_ITERATION else (Optional[Count], None)
    needs_data = any(f.is_required() for f in payload.model_fields.values())
    data = (payload, ...) if needs_data else (payload, Field(default_factory=payload))
    return create_model(f"{kind.title().replace('_', '')}Event", __base__=_EventBase,
                        kind=(Literal[kind], ...), iteration=iteration, data=data)


if TYPE_CHECKING:  # what a checker may know of an event in a file: its models are made at import, one per kind
    class EventFile(_EventBase):
        kind: EventKind
        data: BaseModel
else:
    EventFile = Annotated[Union[tuple(_event_model(k) for k in EVENT_KINDS)], Field(discriminator="kind")]


class OutcomeSpec(_Strict):
    outcome: Outcome
    final_answer: Optional[Text] = None
    error: Optional[Text] = None


class ForkPointSpec(_Strict):
    """One fork point (engine/run/forking.py): at this iteration's compression, skipped or with other triggers."""

    iteration: Count = Field(description="the iteration of the parent's compression the fork starts at")
    skipped: bool = Field(description="that compression was skipped (the package found its summarizer busy)")
    parent_settings: Dict[Literal["summarize_every", "max_scratchpad_chars"], Optional[Count]] = Field(
        default_factory=dict, description="the middleware triggers in force before this iteration (from it on, "
                                          "the ones the next fork point, or the record's config, holds)")


class ForkSpec(ForkPointSpec):
    """Where a fork was made: the run it forks, and its fork point."""

    model_config = ConfigDict(title="where a fork was made")
    parent_id: Optional[Name] = Field(None, description="the parent run's id in the lab's store, if it was stored")
    parent_name: Name = Field("", description="the parent run's name (or its file's name)")
    earlier: List[ForkPointSpec] = Field(default_factory=list, max_length=100,
                                         description="the parent's own fork points before this one (a fork of a fork)")


class RunRecordFile(_Strict):
    """A finished run: its settings (never a key), every event, the outcome, and its trajectory."""

    model_config = ConfigDict(title="scratchpad-lab run record")
    schema_: Literal["scratchpad-lab/run@1", "scratchpad-lab/run@2", "scratchpad-lab/run@3"] = Field(alias="schema")
    created: Optional[Name] = None
    name: Optional[Name] = None
    label: Optional[Name] = None
    mode: Optional[Name] = None
    scenario: Optional[Name] = None
    config: RunConfig = Field(description="the run's settings, stored here once (the run_start event of a "
                                           "run@1 file repeats them; this copy is the one read)")
    outcome: OutcomeSpec
    versions: Dict[Name, Name] = Field(default_factory=dict, max_length=100)
    events: List[EventFile] = Field(max_length=MAX_EVENTS)
    trace: Optional[TraceFile] = None
    forked_from: Optional[ForkSpec] = Field(None, description="a fork: the run it was forked from, and where")


# ── errors as sentences ──────────────────────────────────────────────────────

_SAYS = {
    "missing": "is missing", "string_type": "must be text", "int_type": "must be a whole number",
    "float_type": "must be a number", "finite_number": "must be a finite number", "bool_type": "must be true or false",
    "dict_type": "must be an object", "model_type": "must be an object", "model_attributes_type": "must be an object",
    "list_type": "must be a list", "extra_forbidden": "is not a field of this file",
    "union_tag_not_found": "has no 'kind'",
}


def _path(loc: tuple) -> str:
    out = ""
    for i, part in enumerate(loc):
        if isinstance(part, int):
            out += f"[{part}]"
        elif i and isinstance(loc[i - 1], int) and part in EVENT_KINDS and loc[:1] == ("events",):
            continue  # the discriminator's own step in the path: events[3].compression.data -> events[3].data
        else:
            out += ("." if out else "") + ("schema" if part == "schema_" else str(part))
    return out or "the file"


def explain(exc: ValidationError, limit: int = 3) -> str:
    """pydantic's errors as sentences naming the part of the file, e.g. "events[3].data.before must be text"."""
    parts = []
    for err in exc.errors()[:limit]:
        kind, where = err["type"], _path(err["loc"])
        if kind in ("union_tag_invalid", "literal_error") and where.endswith(("kind", "]")):
            parts.append(f"{where} is not an event of a known kind (one of {', '.join(EVENT_KINDS)})")
        elif kind in _SAYS:
            parts.append(f"{where} {_SAYS[kind]}")
        elif kind == "value_error":
            parts.append(f"{where} {err.get('ctx', {}).get('error', err['msg'])}")  # our own "is ..." sentences
        else:
            parts.append(f"{where}: {err['msg'][0].lower()}{err['msg'][1:]}")
    more = len(exc.errors()) - limit
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "") + "."


def json_schema(which: str) -> Dict[str, Any]:
    models: Dict[str, Type[BaseModel]] = {"trace": TraceFile, "run": RunRecordFile}
    model = models[which]
    return model.model_json_schema(by_alias=True)


if __name__ == "__main__":
    print(json.dumps(json_schema(sys.argv[1] if len(sys.argv) > 1 else "trace"), indent=1))
