"""LangChain / LangGraph messages: `messages_to_dict` output, and `dumpd` of a message list (or of a
LangGraph state, an object whose `messages` is such a list).

Streamlit-free, and LangChain is never imported: the files are plain JSON.

    messages_to_dict: [{"type": "human"|"ai"|"system"|"tool", "data": {"content", "tool_calls", ...}}]
    dumpd:            [{"lc": 1, "type": "constructor", "id": [..., "AIMessage"], "kwargs": {...}}]

An AI message's `tool_calls` are [{"name", "args": {...}, "id"}] (its `invalid_tool_calls`, whose
`args` is text that did not parse, count as calls too, and OpenAI-shaped calls in
`additional_kwargs.tool_calls` are read when `tool_calls` is empty); a tool message answers one by
`tool_call_id`. The mapping to a trace is chat.py's, the same as for OpenAI messages.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from scratchpad_lab.engine.importers import Imported, JsonLines, TraceImportError
from scratchpad_lab.engine.importers.chat import Call, Message, text_of, to_trace, usage_of

TYPES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool", "function": "tool",
         "chat": "user", "AIMessageChunk": "assistant", "HumanMessageChunk": "user"}
CLASSES = {"HumanMessage": "human", "AIMessage": "ai", "SystemMessage": "system", "ToolMessage": "tool",
           "FunctionMessage": "function", "ChatMessage": "chat", "AIMessageChunk": "ai",
           "HumanMessageChunk": "human", "SystemMessageChunk": "system", "ToolMessageChunk": "tool"}


def as_dict_form(item: Any) -> Optional[Tuple[str, Dict[str, Any]]]:
    """(type, data) of one message in either form, or None when it is neither."""
    if not isinstance(item, dict):
        return None
    if item.get("lc") == 1 and item.get("type") == "constructor" and isinstance(item.get("id"), list) \
            and item["id"] and isinstance(item.get("kwargs"), dict):
        kind = CLASSES.get(str(item["id"][-1]))
        return (kind, item["kwargs"]) if kind else None
    if isinstance(item.get("type"), str) and isinstance(item.get("data"), dict) and item["type"] in TYPES:
        return item["type"], item["data"]
    return None


def _message_list(raw: Any) -> Tuple[Optional[List[Tuple[str, Dict[str, Any]]]], str]:
    if isinstance(raw, dict) and "messages" in raw:
        raw = raw["messages"]  # a LangGraph state
    if not isinstance(raw, list) or not raw:
        return None, "not a list of LangChain messages (nor an object with one under \"messages\")"
    forms = [as_dict_form(item) for item in raw]
    if all(f is not None for f in forms):
        return forms, ""
    bad = next(i for i, f in enumerate(forms) if f is None)
    return None, (f"item {bad} is neither {{\"type\": \"human\"|\"ai\"|\"tool\"|\"system\", \"data\": {{...}}}} "
                  "(messages_to_dict) nor a dumpd message ({\"lc\": 1, \"type\": \"constructor\", ...})")


def _calls(data: Dict[str, Any], where: str) -> Tuple[List[Call], int]:
    calls: List[Call] = []
    for call in data.get("tool_calls") or []:
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise TraceImportError(f"{where}: a tool call without a name.")
        calls.append(Call(call["name"], call.get("args"), call.get("id") if isinstance(call.get("id"), str) else None))
    invalid = 0
    for call in data.get("invalid_tool_calls") or []:
        if isinstance(call, dict) and isinstance(call.get("name"), str):
            calls.append(Call(call["name"], call.get("args"), call.get("id") if isinstance(call.get("id"), str) else None))
            invalid += 1
    if not calls:
        extra = data.get("additional_kwargs") if isinstance(data.get("additional_kwargs"), dict) else {}
        for call in extra.get("tool_calls") or []:
            fn = call.get("function") if isinstance(call, dict) else None
            if isinstance(fn, dict) and isinstance(fn.get("name"), str):
                calls.append(Call(fn["name"], fn.get("arguments"), call.get("id") if isinstance(call.get("id"), str) else None))
    return calls, invalid


class LangChainImporter:
    name = "langchain"
    label = "LangChain messages"

    def refuses(self, raw: Any) -> Optional[str]:
        found, why = _message_list(raw)
        return None if found is not None else why

    def convert(self, raw: Any, *, task: Optional[str] = None, where: str = "file", conversation: int = 1) -> Imported:
        found, why = _message_list(raw)
        if found is None:
            raise TraceImportError(f"{where} is not {self.label}: {why}.")
        if conversation != 1:
            raise TraceImportError(f"{where} holds one conversation; there is no conversation {conversation}.")
        messages, invalid = [], 0
        for i, (kind, data) in enumerate(found):
            role = TYPES[kind]
            text = text_of(data.get("content"))
            if role == "assistant":
                calls, bad = _calls(data, f"{where}: message {i + 1}")
                invalid += bad
                messages.append(Message("assistant", text, calls, usage=usage_of(data.get("usage_metadata"))))
            elif role == "tool":
                call_id, name = data.get("tool_call_id"), data.get("name")
                messages.append(Message("tool", text, call_id=call_id if isinstance(call_id, str) else None,
                                        name=name if isinstance(name, str) else None))
            else:
                messages.append(Message(role, text))
        notes = ["read as JSON Lines"] if isinstance(raw, JsonLines) else []
        if invalid:
            notes.append(f"{invalid} invalid tool call(s) (arguments LangChain could not parse) were kept as calls")
        return to_trace(messages, label=self.label, where=where, task=task, notes=notes)


IMPORTER = LangChainImporter()
