"""SWE-agent trajectories (`.traj`): the messages the model saw (`history`), its steps and info.

Streamlit-free. The file is one object: `history` (entries with `role` system / user / assistant and, in the newer
format, `tool`; assistant entries carry `thought` and `action`, and in the newer format OpenAI `tool_calls` answered
by `tool` entries with `tool_call_ids`), `trajectory` (one step per action, with the observation), `info`
(`exit_status`, `submission`, `model_stats`). The conversation is `history`, read by the chat mapping
(importers/chat.py); in the older format the model's action is in its text and the observation comes back as a user
message, so each reply becomes a step answered by a user turn. A `user` entry marked `is_demo` (a worked
demonstration put in the prompt) is part of what the model saw, and is kept.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

from scratchpad_lab.engine.importers import Imported, TraceImportError
from scratchpad_lab.engine.importers.chat import to_trace
from scratchpad_lab.engine.importers.openai_chat import parse_message

ROLES = ("system", "user", "assistant", "tool")


def _history(raw: Any) -> Optional[list]:
    history = raw.get("history") if isinstance(raw, dict) else None
    if isinstance(history, list) and history and all(isinstance(m, dict) and m.get("role") in ROLES for m in history):
        return history
    return None


def _as_openai(entry: Dict[str, Any]) -> Dict[str, Any]:
    """An entry as an OpenAI chat message: a tool entry's first `tool_call_ids` as its `tool_call_id`."""
    out = {k: entry[k] for k in ("role", "content", "tool_calls", "name") if k in entry}
    ids = entry.get("tool_call_ids")
    if entry.get("role") == "tool" and "tool_call_id" not in entry and isinstance(ids, list) and ids:
        out["tool_call_id"] = ids[0]
    elif "tool_call_id" in entry:
        out["tool_call_id"] = entry["tool_call_id"]
    return out


class SweAgentImporter:
    name = "swe-agent"
    label = "a SWE-agent trajectory"

    def refuses(self, raw: Any) -> Optional[str]:
        if _history(raw) is None:
            return "no \"history\" list of messages with a role (system, user, assistant or tool)"
        return None

    def convert(self, raw: Any, *, task: Optional[str] = None, where: str = "file", conversation: int = 1) -> Imported:
        if conversation != 1:
            raise TraceImportError(f"{where} holds one SWE-agent run; conversation {conversation} is not one of them "
                                   "(1).")
        history = _history(raw) or []
        notes = []
        demos = sum(1 for m in history if m.get("is_demo"))
        if demos:
            notes.append(f"{demos} demonstration message(s) in the prompt (`is_demo`) are kept: the model saw them")
        info = raw.get("info") if isinstance(raw.get("info"), dict) else {}
        if info.get("exit_status"):
            notes.append(f"the run's exit status: {str(info['exit_status'])[:80]}")
        parsed = [parse_message(_as_openai(m), f"{where}: history entry {i + 1}") for i, m in enumerate(history)]
        return to_trace(parsed, label=self.label, where=where, unit="history entries", task=task, notes=notes)


IMPORTER = SweAgentImporter()
