"""Claude Code session files (`~/.claude/projects/<project>/<session>.jsonl`): the main thread as a conversation,
with the compaction Claude Code itself made.

Streamlit-free. A session is JSON Lines, one record a line: `type` user / assistant / system / progress /
file-history-snapshot / ..., linked by `parentUuid`. What is read:
- `user` and `assistant` records of the main thread (`isSidechain` false). One API response is spread over several
  assistant records, one content block each, sharing `message.id`: they are one reply. Its `text` blocks are the
  reply's text, its `tool_use` blocks (`id`, `name`, `input`) its tool calls; `thinking` blocks are left out (the
  API does not send a turn's thinking back in later turns) and counted. A user record's content is the person's
  words (a string, or `text` blocks), or `tool_result` blocks (`tool_use_id`, `content` as text or text blocks,
  `is_error`) answering calls, each however long; an error result is marked "[tool error]".
- a `system` record with `subtype: "compact_boundary"` and `compactMetadata` (`trigger`, `preTokens`) is Claude Code's
  own compaction: the `user` record after it marked `isCompactSummary` is the summary it wrote. Both go into the
  trace's `compactions` (where it fired, with how many tokens, what it replaced, what it wrote); the summary is not
  a message of the conversation (every strategy is shown the whole session, and Claude Code's row its summary).
- everything else (`progress` hook and tool events, `file-history-snapshot`, other system records) is not part of
  the conversation. Side-chain records and subagent runs (their own files under `<session>/subagents/`, linked by
  `agent_progress` events) are separate runs: the report says how many there are, to open on their own.
"""
from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

from scratchpad_lab.engine.importers import Imported, TraceImportError
from scratchpad_lab.engine.importers.chat import Call, Message, text_of, to_trace, usage_of

ERROR_MARK = "[tool error] "
RECORD_TYPES = ("user", "assistant", "system", "progress", "file-history-snapshot", "summary")


def _records(raw: Any) -> Optional[List[Dict[str, Any]]]:
    if not isinstance(raw, list) or not raw or not all(isinstance(r, dict) for r in raw):
        return None
    talk = [r for r in raw if r.get("type") in ("user", "assistant") and isinstance(r.get("message"), dict)]
    if not talk or not any("sessionId" in r or "uuid" in r for r in talk):
        return None
    return raw


def _result_text(block: Dict[str, Any]) -> str:
    content = block.get("content")
    text = text_of(content) if content is not None else ""
    return ERROR_MARK + text if block.get("is_error") else text


class ClaudeCodeImporter:
    name = "claude-code"
    label = "a Claude Code session"

    def refuses(self, raw: Any) -> Optional[str]:
        if _records(raw) is None:
            return "not JSON Lines of Claude Code records (user and assistant records with a \"message\" and a session)"
        return None

    def convert(self, raw: Any, *, task: Optional[str] = None, where: str = "file", conversation: int = 1) -> Imported:
        records = _records(raw) or []
        if conversation != 1:
            raise TraceImportError(f"{where} is one Claude Code session; conversation {conversation} is not one of "
                                   "them (1). Its subagent runs are files of their own.")
        messages: List[Message] = []
        compactions: List[Dict[str, Any]] = []
        talk = [r for r in records if r.get("type") in ("user", "assistant")]
        # a subagent's file (or a compaction call's) is all side chain: it is its own run, read as its thread
        own_run = bool(talk) and all(r.get("isSidechain") for r in talk)
        side = thinking = 0
        subagents = set()
        pending: Optional[Dict[str, Any]] = None   # a compaction waiting for its summary record
        reply_id: Optional[str] = None   # the id of the latest reply, and where it is
        reply_at: Optional[int] = None
        for record in records:
            kind = record.get("type")
            if kind == "progress":
                data = record.get("data") if isinstance(record.get("data"), dict) else {}
                if data.get("type") == "agent_progress" and data.get("agentId"):
                    subagents.add(str(data["agentId"]))
                continue
            if kind == "system" and record.get("subtype") == "compact_boundary":
                meta = record.get("compactMetadata") if isinstance(record.get("compactMetadata"), dict) else {}
                pending = {"before": len(messages), "trigger": meta.get("trigger") or "",
                           "tokens_before": meta.get("preTokens") if isinstance(meta.get("preTokens"), int) else None,
                           "summary": "", "by": "Claude Code"}
                compactions.append(pending)
                reply_id = reply_at = None
                continue
            if kind not in ("user", "assistant") or not isinstance(record.get("message"), dict):
                continue
            if record.get("isSidechain") and not own_run:
                side += 1
                continue
            message = record["message"]
            content = message.get("content")
            if kind == "user" and record.get("isCompactSummary"):
                if pending is not None:
                    pending["summary"] = text_of(content)
                    pending = None
                continue
            blocks = content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
            if kind == "assistant":
                # one response's blocks share its id, and Claude Code writes a tool's result as soon as it has it,
                # so a block may come after the results of the response's earlier calls: it is still that reply
                same = reply_id is not None and message.get("id") == reply_id and reply_at is not None and \
                    all(m.role == "tool" for m in messages[reply_at + 1:])
                reply = messages[reply_at] if same else Message("assistant", "", [],
                                                                 usage=usage_of(message.get("usage")))
                reply.usage = usage_of(message.get("usage")) or reply.usage  # each record of it may carry it
                for block in blocks:
                    if not isinstance(block, dict):
                        continue
                    if block.get("type") == "text" and str(block.get("text") or "").strip():
                        reply.text = (reply.text + "\n" if reply.text else "") + str(block["text"])
                    elif block.get("type") == "tool_use" and isinstance(block.get("name"), str):
                        reply.calls.append(Call(block["name"], block.get("input"),
                                                block.get("id") if isinstance(block.get("id"), str) else None))
                    elif block.get("type") in ("thinking", "redacted_thinking"):
                        thinking += 1
                if not same:
                    messages.append(reply)
                    reply_at = len(messages) - 1
                reply_id = message.get("id") if isinstance(message.get("id"), str) else None
                continue
            words = []
            for block in blocks:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_result":
                    call_id = block.get("tool_use_id")
                    messages.append(Message("tool", _result_text(block),
                                            call_id=call_id if isinstance(call_id, str) else None))
                elif block.get("type") == "text":
                    words.append(str(block.get("text") or ""))
                else:
                    words.append(json.dumps(block, ensure_ascii=False))
            if any(w.strip() for w in words):
                messages.append(Message("user", "\n".join(words)))
                reply_id = reply_at = None  # the person spoke: the next reply is a new one
        if not messages:
            raise TraceImportError(f"{where}: a Claude Code session with no user or assistant record in its main "
                                   "thread: there is nothing to replay.")
        notes = [f"read as JSON Lines ({len(records):,} records; progress, snapshot and system records are not part "
                 "of the conversation)", "the session file does not record Claude Code's own system prompt or tool "
                 "schemas: the message strategies are given none"]
        for c in compactions:
            tokens = f" at {c['tokens_before']:,} tokens" if c["tokens_before"] else ""
            notes.append(f"Claude Code's own compaction ({c['trigger'] or 'unmarked'}{tokens}) is kept with the "
                         f"trace, with the {len(c['summary']):,}-character summary it wrote")
        if own_run:
            agent = next((str(r["agentId"]) for r in talk if r.get("agentId")), "")
            notes.append(f"a subagent's run{f' (agent {agent})' if agent else ''}: its records are a side chain of "
                         "another session, read here as a run of its own")
        if thinking:
            notes.append(f"{thinking} thinking block(s) are left out (the API does not send them back in later turns)")
        if side:
            notes.append(f"{side} side-chain record(s) are not included: they are another run")
        if subagents:
            notes.append(f"{len(subagents)} subagent run(s) not included ({', '.join(sorted(subagents))}): open their "
                         "files (<session>/subagents/agent-<id>.jsonl) on their own")
        return to_trace(messages, label=self.label, where=where, unit="messages", task=task, notes=notes,
                        compactions=compactions)


IMPORTER = ClaudeCodeImporter()
