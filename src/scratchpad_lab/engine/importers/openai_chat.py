"""OpenAI Chat Completions messages: a list of messages, an object with `messages` (and maybe `tools`),
JSON Lines of messages or of such objects, or a benchmark's list of tasks each with its messages under
`messages` or `traj` (as tau-bench publishes its trajectories).

Streamlit-free. Messages are {"role": "system"|"developer"|"user"|"assistant"|"tool"|"function",
"content": text, a list of parts, or null}; an assistant message may carry `tool_calls` ([{"id",
"type": "function", "function": {"name", "arguments": "<JSON text>"}}]) or the older `function_call`;
a tool message answers one by `tool_call_id`. The mapping to a trace is chat.py's. A file of several
conversations imports one of them (the first unless told) and says so.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from scratchpad_lab.engine.importers import Imported, JsonLines, TraceImportError
from scratchpad_lab.engine.importers.chat import Call, Message, text_of, to_trace, usage_of

ROLES = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant", "tool": "tool",
         "function": "tool"}


def _is_message(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("role"), str)


def _declared(container: Any) -> List[Dict[str, Any]]:
    """The tools a request object declares (`tools` of functions, or the older `functions`)."""
    out = []
    if not isinstance(container, dict):
        return out
    for tool in container.get("tools") or []:
        fn = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(fn, dict) and isinstance(fn.get("name"), str) and fn["name"]:
            out.append({"name": fn["name"], "description": fn.get("description") or "",
                        "parameters": fn.get("parameters")})
    for fn in container.get("functions") or []:
        if isinstance(fn, dict) and isinstance(fn.get("name"), str) and fn["name"]:
            out.append({"name": fn["name"], "description": fn.get("description") or "",
                        "parameters": fn.get("parameters")})
    return out


def _conversation_of(item: Any) -> Optional[Tuple[List[Any], List[Dict[str, Any]]]]:
    if isinstance(item, dict):
        for key in ("messages", "traj"):
            messages = item.get(key)
            if isinstance(messages, list) and messages and all(_is_message(m) for m in messages):
                return messages, _declared(item)
    if isinstance(item, list) and item and all(_is_message(m) for m in item):
        return item, []
    return None


def conversations(raw: Any) -> Tuple[List[Tuple[List[Any], List[Dict[str, Any]]]], str]:
    """([(messages, declared tools), ...], why none when the list is empty)."""
    one = _conversation_of(raw)
    if one is not None:
        return [one], ""
    if isinstance(raw, list) and raw:
        many = [_conversation_of(item) for item in raw]
        if all(c is not None for c in many):
            return many, ""
        if any(_is_message(m) for m in raw):
            bad = next(i for i, m in enumerate(raw) if not _is_message(m))
            return [], f"item {bad} of the list is not a message with a \"role\""
        return [], "a list whose items are neither messages with a \"role\" nor objects with \"messages\""
    if isinstance(raw, dict):
        return [], "a JSON object with no \"messages\" (or \"traj\") list of messages with a \"role\""
    return [], "not a list of messages"


def parse_message(raw: Dict[str, Any], where: str) -> Message:
    role = ROLES.get(raw["role"])
    if role is None:
        raise TraceImportError(f"{where} has the role {raw['role']!r}; a chat message's role is one of "
                               f"{', '.join(ROLES)}.")
    text = text_of(raw.get("content"))
    if role == "assistant":
        calls = []
        for call in raw.get("tool_calls") or []:
            fn = call.get("function") if isinstance(call, dict) else None
            if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
                raise TraceImportError(f"{where}: a tool call without a function name.")
            calls.append(Call(fn["name"], fn.get("arguments"), call.get("id") if isinstance(call.get("id"), str) else None))
        legacy = raw.get("function_call")
        if isinstance(legacy, dict) and isinstance(legacy.get("name"), str):
            calls.append(Call(legacy["name"], legacy.get("arguments")))
        return Message("assistant", text, calls, usage=usage_of(raw.get("usage")))
    if role == "tool":
        call_id = raw.get("tool_call_id")
        name = raw.get("name")
        return Message("tool", text, call_id=call_id if isinstance(call_id, str) else None,
                       name=name if isinstance(name, str) else None)
    return Message(role, text)


class OpenAIChatImporter:
    name = "openai-chat"
    label = "OpenAI chat messages"

    def refuses(self, raw: Any) -> Optional[str]:
        found, why = conversations(raw)
        return None if found else why

    def convert(self, raw: Any, *, task: Optional[str] = None, where: str = "file", conversation: int = 1) -> Imported:
        found, why = conversations(raw)
        if not found:
            raise TraceImportError(f"{where} is not {self.label}: {why}.")
        if not 1 <= conversation <= len(found):
            raise TraceImportError(f"{where} holds {len(found)} conversation(s); conversation {conversation} is not "
                                   f"one of them (1 to {len(found)}).")
        messages, declared = found[conversation - 1]
        notes = []
        if isinstance(raw, JsonLines):
            notes.append(f"read as JSON Lines ({len(raw):,} lines)")
        if len(found) > 1:
            notes.append(f"the file holds {len(found)} conversations; this is conversation {conversation} (choose "
                         "another with `scratchpad-lab import --conversation N`)")
        parsed = [parse_message(m, f"{where}: message {i + 1}") for i, m in enumerate(messages)]
        return to_trace(parsed, label=self.label, where=where, declared=declared, task=task, notes=notes)


IMPORTER = OpenAIChatImporter()
