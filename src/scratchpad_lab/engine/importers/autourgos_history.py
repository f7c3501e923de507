"""autourgos-agent `history=` files (`Task_<timestamp>_<uid>.json`, written by autourgos_agent/history.py).

Streamlit-free. The file: {"query", "agent_name", "start_time", "end_time", "iterations": [{"iteration",
"thought", "tools": [{"tool", "params"}], "observations": [{"tool", "result"}]}], "final_response",
"error"}. It is lossy, and the report says how:

- the query is written as "[REDACTED: length=N]" unless the agent was told to keep it: the task is then
  that placeholder unless one is given (`--task`);
- the writer cuts every string over 512 characters ("... [TRUNCATED]") and replaces secret-shaped values
  with "[REDACTED]": tool results, thoughts, parameters and the final answer replay as they were written;
- the raw reply is not kept: each step's reply is rebuilt from the iteration's thought and tools (and
  the final answer on the last) in the agent's reply format. An iteration with no tool and no answer was
  a reply the agent could not use, and its thought is the text the writer kept of it: that text is
  replayed as the raw reply, so the agent again finds no action in it;
- the tools the agent had are not written: the trace declares the tools the run called, with the
  parameters the calls used.
"""
from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Optional

from scratchpad_lab.engine.importers import Imported, ImportReport, TraceImportError
from scratchpad_lab.engine.importers.chat import json_type
from scratchpad_lab.engine.run.reply import build_reply
from scratchpad_lab.model.schemas import MAX_STEP_ACTIONS, MAX_STEP_RESPONSE_CHARS, MAX_STEPS
from scratchpad_lab.model.trace import RecordError, Trace
from scratchpad_lab.model.untrusted import clean_text

REDACTED_QUERY = re.compile(r"^\[REDACTED: length=(\d+)\]$")
TRUNCATED = "... [TRUNCATED]"
SECRET = "[REDACTED]"
KEYS = ("query", "iterations", "final_response")


def _count(value: Any, needle: str, *, ending: bool = False) -> int:
    if isinstance(value, str):
        return int(value.endswith(needle)) if ending else value.count(needle)
    if isinstance(value, dict):
        return sum(_count(v, needle, ending=ending) for v in value.values())
    if isinstance(value, list):
        return sum(_count(v, needle, ending=ending) for v in value)
    return 0


def _plural(n: int, word: str) -> str:
    if n == 1:
        return f"1 {word}"
    return f"{n} {word[:-1]}ies" if word.endswith("y") else f"{n} {word}s"


class AutourgosHistoryImporter:
    name = "autourgos-history"
    label = "autourgos-agent history"

    def refuses(self, raw: Any) -> Optional[str]:
        if not isinstance(raw, dict):
            return "not a JSON object"
        missing = [k for k in KEYS if k not in raw]
        if missing:
            return "no " + ", ".join(f'"{k}"' for k in missing)
        if not isinstance(raw["iterations"], list):
            return "\"iterations\" is not a list"
        return None

    def convert(self, raw: Any, *, task: Optional[str] = None, where: str = "file", conversation: int = 1) -> Imported:
        if conversation != 1:
            raise TraceImportError(f"{where} is one run; there is no conversation {conversation}.")
        iterations = raw["iterations"]
        if not iterations:
            raise TraceImportError(f"{where}: the history has no iterations: the run made no model call to replay.")
        notes: List[str] = []
        query = raw.get("query")
        redacted = REDACTED_QUERY.match(query) if isinstance(query, str) else None
        if task:
            if redacted and len(task) != int(redacted.group(1)):
                notes.append(f"the task is the one given ({len(task):,} characters; the run's query was "
                             f"{int(redacted.group(1)):,})")
            else:
                notes.append("the task is the one given")
        elif redacted:
            notes.append(f"the query was not recorded ({query}), so the task is that placeholder: give the real task "
                         "with `scratchpad-lab import FILE --task TEXT`")
        own_task = task or (query if isinstance(query, str) else json.dumps(query, ensure_ascii=False))
        final = raw.get("final_response")
        error = raw.get("error")
        tools: Dict[str, Dict[str, Any]] = {}
        steps, unusable = [], 0
        last = len(iterations)
        if last > MAX_STEPS:  # before any is read
            raise TraceImportError(f"{where}: {last:,} iterations; a trace may have at most {MAX_STEPS:,} steps. "
                                   "Import a shorter run.")
        for number, it in enumerate(iterations, start=1):
            if not isinstance(it, dict):
                raise TraceImportError(f"{where}: iterations[{number - 1}] is not an object.")
            calls, seen = it.get("tools") or [], it.get("observations") or []
            if calls == SECRET or seen == SECRET:
                raise TraceImportError(f"{where}: iteration {number}'s tools or observations were not recorded "
                                       "(the writer's include_tools / include_observations was off), so its steps "
                                       "cannot be rebuilt.")
            if not isinstance(calls, list) or not isinstance(seen, list):
                raise TraceImportError(f"{where}: iterations[{number - 1}] has tools or observations that are not "
                                       "lists.")
            if max(len(calls), len(seen)) > MAX_STEP_ACTIONS:
                raise TraceImportError(f"{where}: iteration {number} has {max(len(calls), len(seen)):,} tool calls or "
                                       f"observations; a step may make at most {MAX_STEP_ACTIONS:,} (the step limit "
                                       "on actions). Import a shorter run.")
            thought = it.get("thought")
            thought = thought if isinstance(thought, str) and thought else None
            actions = []
            for call in calls:
                name = call.get("tool") or call.get("name") if isinstance(call, dict) else None
                if not isinstance(name, str) or not name:
                    raise TraceImportError(f"{where}: iteration {number} has a tool call without a tool name.")
                params = call.get("params")
                params = params if isinstance(params, dict) else ({} if params is None else {"input": params})
                actions.append({"action": name, "action_input": params})
                spec = tools.setdefault(name, {"name": name, "description": f"{name} (from the run's history; "
                                               "the history does not record tool descriptions)",
                                               "parameters": {"type": "object", "properties": {}}})
                for key, value in params.items():
                    spec["parameters"]["properties"].setdefault(key, {"type": json_type(value)})
            observations = [clean_text(o["result"] if isinstance(o, dict) and isinstance(o.get("result"), str)
                                       else json.dumps(o.get("result") if isinstance(o, dict) else o,
                                                       ensure_ascii=False))
                            for o in seen]
            if actions:
                response = build_reply(thought, actions, None)
            elif number == last and isinstance(final, str):
                response = build_reply(thought, [], final)
            else:  # the agent found no action in this reply: its thought is what the writer kept of the raw text
                response = thought or ""
                unusable += 1
            if len(response) > MAX_STEP_RESPONSE_CHARS:
                raise TraceImportError(f"{where}: iteration {number} rebuilds to a reply of {len(response):,} characters; "
                                       f"one agent step may be at most {MAX_STEP_RESPONSE_CHARS:,}.")
            steps.append({"response": clean_text(response), "observations": observations})
        if error:
            notes.append(f"the run ended with an error ({str(error)[:120]}): there is no final answer")
        elif not isinstance(final, str):
            notes.append("the history has no final answer")
        cut = {part: _count(value, TRUNCATED, ending=True) for part, value in (
            ("tool results", [s["observations"] for s in steps]),
            ("thoughts", [it.get("thought") for it in iterations if isinstance(it, dict)]),
            ("parameters", [it.get("tools") for it in iterations if isinstance(it, dict)]),
            ("final answer", final), ("query", query if task is None else None))}
        total_cut = sum(cut.values())
        rebuilt = len(steps) - unusable
        notes.insert(0, f"{_plural(rebuilt, 'raw reply')} rebuilt from thought and tools in the agent's reply format "
                        "(the history keeps no raw reply)")
        if unusable:
            notes.insert(1, f"{_plural(unusable, 'iteration')} with no action and no answer replayed as the text the "
                            "history kept of the reply")
        if total_cut:
            notes.append(f"{_plural(total_cut, 'text')} the history writer cut at 512 characters (\"{TRUNCATED}\"): "
                         + ", ".join(f"{n} {part}" for part, n in cut.items() if n))
        secrets = _count([s["observations"] for s in steps], SECRET) + _count(
            [it.get("tools") for it in iterations if isinstance(it, dict)], SECRET) + _count(
            [it.get("thought") for it in iterations if isinstance(it, dict)], SECRET) + _count(final, SECRET)
        if secrets:
            notes.append(f"{_plural(secrets, 'value')} the writer replaced as secret-shaped (\"{SECRET}\")")
        notes.append(f"{_plural(len(tools), 'tool')} declared from the calls the run made (the history lists no tools)")
        trace_raw = {"schema": "scratchpad-lab/trace@1", "task": clean_text(own_task), "tools": list(tools.values()),
                     "steps": steps}
        try:
            trace = Trace.from_dict(trace_raw, where)
        except RecordError as exc:
            raise TraceImportError(f"{where}: imported as {self.label}, but the result is not a valid trace: "
                                   f"{exc}") from None
        summary = f"{_plural(len(iterations), 'iteration')} → {_plural(len(steps), 'step')}"
        return Imported(trace, ImportReport(self.label, summary, notes, cut=total_cut, rebuilt=rebuilt,
                                            task_missing=bool(redacted) and not task))


IMPORTER = AutourgosHistoryImporter()
