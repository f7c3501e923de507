"""A share setting ("30%") in the unit the package compares its trigger with: its own count of the run's peak.

Streamlit-free; langchain-core (and, for deepagents, its filesystem middleware) is imported only when a token
share is resolved, which is when a message strategy is about to run anyway.

Each strategy's registry entry names what its package counts (`own_count`):
- "chars": the autourgos strategies compare characters (the scratchpad's length);
- "messages": LangChain's summarization, its clear-tool-uses edit and LangMem count the conversation's messages
  with `count_tokens_approximately` (the system prompt is not one of them: it is the agent's, outside the state);
- "request": deepagents counts the messages plus the system message (the agent's, with its own filesystem
  instructions added) and the tool schemas (the run's and its filesystem tools).
The peak is that count of the no-compression conversation before its last model call (it only grows), so "30%"
means 30 % of what the package itself would have measured there, and a share setting fires where it says.
"""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

from scratchpad_lab.model.trace import Trace

OWN_COUNTS = ("chars", "messages", "request")
_KEPT: Dict[Tuple[int, str], Tuple[Trace, int]] = {}


def _before_last_call(trace: Trace) -> List[Any]:
    from scratchpad_lab.engine.strategies.messages import step_messages
    return [m for step in step_messages(trace)[:-1] for m in step]


def _chars(trace: Trace) -> int:
    """The conversation's characters before the last call, as the lab renders it (no system prompt: the
    scratchpad does not hold it)."""
    from scratchpad_lab.engine.strategies.messages import render_all, step_parts
    return len(render_all([m for step in step_parts(trace)[:-1] for m in step]))


def _messages(trace: Trace) -> int:
    from langchain_core.messages.utils import count_tokens_approximately
    return int(count_tokens_approximately(_before_last_call(trace)))


def _request(trace: Trace) -> int:
    """deepagents' own count (messages + system message + tools) of the request its filesystem middleware makes
    of the whole conversation; the request is only looked at, never sent."""
    import tempfile

    from deepagents.backends.filesystem import FilesystemBackend
    from deepagents.middleware.filesystem import FilesystemMiddleware
    from langchain.agents.middleware.types import ModelRequest
    from langchain_core.messages.utils import count_tokens_approximately

    from scratchpad_lab.engine.strategies.deep_agents import tool_dicts
    from scratchpad_lab.engine.strategies.messages import system_message
    from scratchpad_lab.engine.strategies.chat_summarizer import extractive_chat_model

    seen: List[Any] = []
    with tempfile.TemporaryDirectory(prefix="scratchpad-lab-count-") as tmp:
        fs = FilesystemMiddleware(backend=FilesystemBackend(root_dir=tmp, virtual_mode=True))
        messages = _before_last_call(trace)
        request = ModelRequest(model=extractive_chat_model(), messages=messages, system_message=system_message(trace),
                               tools=[*fs.tools, *tool_dicts(trace)], state={"messages": messages})
        fs.wrap_model_call(request, lambda r: seen.append(r))
    sent = seen[0] if seen else request
    counted = ([sent.system_message] if sent.system_message is not None else []) + list(sent.messages)
    return int(count_tokens_approximately(counted, tools=list(sent.tools)))


_COUNTERS = {"chars": _chars, "messages": _messages, "request": _request}


def own_peak(trace: Trace, own_count: str) -> int:
    """The run's no-compression peak by this count (worked out once per trace and count)."""
    key = (id(trace), own_count)
    kept = _KEPT.get(key)
    if kept is not None and kept[0] is trace:
        return kept[1]
    value = _COUNTERS[own_count](trace)
    _KEPT[key] = (trace, value)
    while len(_KEPT) > 16:
        _KEPT.pop(next(iter(_KEPT)))
    return value


def peaks_for(trace: Trace, name: str) -> Dict[str, int]:
    """{"chars": ..., "tokens": ...}: the peak a share of strategy `name`'s settings is taken of, in each unit a
    knob may have (a "tokens" knob: the package's own count; a "chars" knob: characters). Computed lazily."""
    from scratchpad_lab.engine.strategies.registry import strategy

    entry = strategy(name)
    return _Peaks(trace, entry.own_count)


class _Peaks(dict):
    """A mapping that works out each unit's peak only when a share in that unit is resolved."""

    def __init__(self, trace: Trace, own_count: str) -> None:
        super().__init__()
        self.trace, self.own_count = trace, own_count

    def __missing__(self, unit: str) -> int:
        count = "chars" if unit == "chars" or self.own_count == "chars" else self.own_count
        value = own_peak(self.trace, count)
        self[unit] = value
        return value
