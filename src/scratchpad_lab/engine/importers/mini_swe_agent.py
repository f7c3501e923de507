"""mini-swe-agent trajectories (`<instance>.traj.json`): OpenAI chat messages, a closing `exit` message, and info.

Streamlit-free. The file is one object: `trajectory_format` ("mini-swe-agent-1.1"), `instance_id`, `info`
(`exit_status`, `submission`, `model_stats`, `config`) and `messages`: a system prompt, the task, then assistant
messages (text and one `bash` tool call each) answered by `tool` messages. Every message carries `extra` (the raw
API response, parsed actions, cost, timestamps): not part of the conversation, never read. The last message has
the role `exit`: the submission, which was never sent to the model: it is left out, and the report says so. The
conversation is then read by the chat mapping (importers/chat.py), as OpenAI messages are.
"""
from __future__ import annotations

from typing import Any, Optional

from scratchpad_lab.engine.importers import Imported, TraceImportError
from scratchpad_lab.engine.importers.chat import to_trace
from scratchpad_lab.engine.importers.openai_chat import parse_message

EXIT = "exit"


def _messages(raw: Any) -> Optional[list]:
    messages = raw.get("messages") if isinstance(raw, dict) else None
    if isinstance(messages, list) and messages and all(isinstance(m, dict) and isinstance(m.get("role"), str)
                                                        for m in messages):
        return messages
    return None


class MiniSweAgentImporter:
    name = "mini-swe-agent"
    label = "a mini-swe-agent trajectory"

    def refuses(self, raw: Any) -> Optional[str]:
        messages = _messages(raw)
        if messages is None:
            return "no \"messages\" list of messages with a \"role\""
        marked = str(raw.get("trajectory_format") or "").startswith("mini-swe-agent")
        if not marked and messages[-1].get("role") != EXIT:
            return "no \"trajectory_format\" of mini-swe-agent and no closing \"exit\" message"
        return None

    def convert(self, raw: Any, *, task: Optional[str] = None, where: str = "file", conversation: int = 1) -> Imported:
        messages = _messages(raw) or []
        if conversation != 1:
            raise TraceImportError(f"{where} holds one mini-swe-agent run; conversation {conversation} is not one "
                                   "of them (1).")
        notes = []
        closing = [m for m in messages if m.get("role") == EXIT]
        said = [m for m in messages if m.get("role") != EXIT]
        if closing:
            chars = sum(len(str(m.get("content") or "")) for m in closing)
            notes.append(f"the closing `exit` message (the submission, {chars:,} characters; never sent to the model) "
                         "is left out")
        if any("extra" in m for m in said):
            notes.append("each message's `extra` (the raw API response, costs, timestamps) is not part of the "
                         "conversation and is not read")
        info = raw.get("info") if isinstance(raw.get("info"), dict) else {}
        if info.get("exit_status"):
            notes.append(f"the run's exit status: {str(info['exit_status'])[:80]}")
        parsed = [parse_message(m, f"{where}: message {i + 1}") for i, m in enumerate(said)]
        return to_trace(parsed, label=self.label, where=where, task=task, notes=notes)


IMPORTER = MiniSweAgentImporter()
