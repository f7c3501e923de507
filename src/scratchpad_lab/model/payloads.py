"""Event kinds and their payloads: one pydantic model per kind says what an event's `data` holds.

The bottom of the data layer: `events.py` reads an event's data through `payload_of`, and `schemas.py`
checks a loaded file against the same models, so a payload's fields have one home.
"""
from __future__ import annotations

from typing import AbstractSet, Annotated, Any, Callable, Dict, List, Literal, Optional, Tuple, Type, get_args

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

# Every kind an event can have. What each kind's `data` holds is its model below.
EventKind = Literal["run_start", "iteration", "trigger", "compression", "trim", "llm_call", "tool_call", "thought",
                    "pause", "resume", "final_answer", "error", "finish", "call_start"]
EVENT_KINDS: Tuple[str, ...] = get_args(EventKind)
Outcome = Literal["answered", "stopped", "timeout", "max_iterations", "error"]
OUTCOMES = get_args(Outcome)
MAX_TOOLS = 500


NAME_CHARS = 500
Name = Annotated[str, StringConstraints(max_length=NAME_CHARS)]   # names, model ids, labels, reasons
Text = Annotated[str, StringConstraints(max_length=4_000_000)]    # scratchpads, prompts, tool results
Count = Annotated[int, Field(ge=0, le=10**12)]
Seconds = Annotated[float, Field(ge=-1e9, le=1e9)]

class _Payload(BaseModel):
    """An event's data: the listed fields are checked; others are kept as they are (forward compatible)."""

    model_config = ConfigDict(strict=True, allow_inf_nan=False, extra="allow", defer_build=True)


# ── event payloads (what each kind's `data` holds) ───────────────────────────

class ToolInfo(_Payload):
    name: Name
    description: Text = ""


class RunStartData(_Payload):
    task: Text = ""
    config: Dict[str, Any] = Field(default_factory=dict, description="the run's RunConfig (a run record file "
                                   "keeps it once, at its top level, and puts it back here when loaded)")
    mode: Name = "scenario"
    scenario: Optional[Name] = None
    tools: List[ToolInfo] = Field(default_factory=list, max_length=MAX_TOOLS)
    agent_model: Optional[Name] = None
    agent_model_id: Optional[Name] = Field("scripted", description="absent: the offline scripted agent")
    summarizer_model_id: Optional[Name] = Field("extractive", description="absent: the offline extractive summarizer")
    label: Optional[Name] = None


class IterationData(_Payload):
    before_chars: Count = 0
    before_tokens: Count = 0
    chars: Count = 0
    tokens: Count = 0
    scratchpad: Text = Field("", description="the scratchpad as sent to the agent's LLM")
    messages: Count = Field(0, description="message strategies: how many messages the model call was sent")


class TriggerData(_Payload):
    chars: Count = 0
    summarize_every: Optional[Count] = None
    max_scratchpad_chars: Optional[Count] = None
    periodic_due: bool = False
    over_cap: bool = False
    size_armed: bool = True
    last_summarized_chars: Optional[Count] = None
    predicted: bool = False
    predicted_reason: Optional[Literal["periodic", "size"]] = None
    fired: bool = False
    reason: Optional[Literal["periodic", "size"]] = None
    skipped: bool = Field(False, description="a fork skipped this iteration's compression (engine/run/forking.py): the "
                                             "package found its summarizer busy and did not call it")


class CompressionData(_Payload):
    reason: Literal["periodic", "size"]
    trigger: Optional[Name] = Field(None, description="a compared strategy's own rule that fired (deepagents, LangMem)")
    status: Literal["ok", "empty", "error"]
    before: Text
    after: Text
    prompt: Text = ""
    response: Text = ""
    model: Name = ""
    latency_s: Seconds = 0.0
    tokens_in: Count = 0
    tokens_out: Count = 0
    before_chars: Count = 0
    after_chars: Count = 0
    before_tokens: Count = 0
    after_tokens: Count = 0
    error: Optional[Text] = None
    review: Optional[Literal["accepted", "edited", "rejected", "abandoned"]] = Field(
        None, description="review mode: what the person did with the summarizer's proposal (response is what was used)")
    proposal: Optional[Text] = Field(None, description="review mode: the summarizer's own reply, before the review")
    summarizer_called: bool = Field(True, description="false when a strategy cut without calling its summarizer")
    reused: bool = Field(False, description="a fork: its parent's recorded reply to exactly this input, given back "
                                            "without calling the summarizer (model, tokens and time are the parent's)")


class TrimData(_Payload):
    before_chars: Count = 0
    after_chars: Count = 0
    before: Optional[Text] = Field(None, description="the scratchpad before the trim, when the writer kept it")
    after: Optional[Text] = Field(None, description="... and after it")


class LlmCallData(_Payload):
    response: Text = ""
    latency_s: Seconds = 0.0
    tokens_in: Count = 0
    tokens_out: Count = 0
    model: Name = ""


class ToolCallData(_Payload):
    position: Count = 0
    tool: Name = ""
    input: Any = Field(None, description="the action's input, as the agent's LLM wrote it")
    result: Text = ""
    result_chars: Count = 0
    offloaded_to: Optional[Text] = Field(None, description="deepagents: the file the result was moved to, if any")
    offloaded_by: Optional[Name] = Field(None, description="the rule that moved it (tool result eviction, overflow clip)")
    offloaded_at: Optional[Count] = Field(None, description="the model call at which it was moved")


class TextData(_Payload):
    text: Text = ""


class PauseData(_Payload):
    reason: Text = ""


class ResumeData(_Payload):
    paused_s: Seconds = 0.0


class CallStartData(_Payload):
    """A network model call began (the agent's model or the summarizer): the live status says what the run
    waits for, and how long, until the call's own event (llm_call, compression) or the run's end."""
    waiting_for: Name = ""   # "the agent's model" | "the summarizer" | "your review" (review mode)
    model: Name = ""


class ErrorData(_Payload):
    error_type: Name = ""
    message: Text = ""


class FinishData(_Payload):
    outcome: Outcome
    iterations: Count = 0
    elapsed_s: Seconds = 0.0


PAYLOADS: Dict[str, Type[BaseModel]] = {
    "run_start": RunStartData, "iteration": IterationData, "trigger": TriggerData,
    "compression": CompressionData, "trim": TrimData, "llm_call": LlmCallData, "tool_call": ToolCallData,
    "thought": TextData, "pause": PauseData, "resume": ResumeData, "final_answer": TextData,
    "error": ErrorData, "finish": FinishData, "call_start": CallStartData,
}
assert set(PAYLOADS) == set(EVENT_KINDS), "every event kind has a payload model"


def _constructor(model: Any) -> Callable[[Dict[str, Any]], Any]:
    """`model.model_construct(**data)`, in a fraction of the time: the same instance (fields from `data`,
    the model's defaults for the others, unlisted keys as extras, no validation), without its per-field
    alias and default lookups, which cost several microseconds per event on runs of 10,000 events."""
    fields = model.__pydantic_fields__
    assert not any(f.alias or f.validation_alias for f in fields.values()), "payload fields have no aliases"
    assert not model.__pydantic_post_init__
    defaults = {n: f.default for n, f in fields.items() if not f.is_required() and f.default_factory is None}
    factories = [(n, f.default_factory) for n, f in fields.items() if f.default_factory is not None]
    names = frozenset(fields)
    new, setattr_ = model.__new__, object.__setattr__

    def construct(data: Dict[str, Any]) -> Any:
        values = defaults.copy()
        given: AbstractSet[str]
        extra: Dict[str, Any]
        if names.issuperset(data):  # the lab's own events: every key is a listed field
            values.update(data)
            given, extra = set(data), {}
        else:
            extra = {k: v for k, v in data.items() if k not in names}
            values.update((k, v) for k, v in data.items() if k in names)
            given = names.intersection(data)
        for name, factory in factories:
            if name not in given:
                values[name] = factory()
        payload = new(model)
        setattr_(payload, "__dict__", values)
        setattr_(payload, "__pydantic_fields_set__", given)
        setattr_(payload, "__pydantic_extra__", extra)
        setattr_(payload, "__pydantic_private__", None)
        return payload
    return construct


_CONSTRUCTORS = {kind: _constructor(model) for kind, model in PAYLOADS.items()}


def payload_of(kind: str, data: Dict[str, Any]) -> Any:
    """An event's data as its kind's payload model, unvalidated (what `Event.payload` returns)."""
    return _CONSTRUCTORS[kind](data)
