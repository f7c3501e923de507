"""The trajectory as messages, as a LangChain agent holds it, and messages as text.

Streamlit-free; langchain-core is imported only when a message strategy runs (it costs seconds).

A recorded conversation (a `Trace` with `messages`) is given as recorded: its system prompt is the agent's
system prompt (`system_part`: sent in front of every model call, never one of the state's messages), user
turns are HumanMessages, replies AIMessages with their tool calls, results ToolMessages with their call ids
(ids `m-<index in the conversation>`). The model is called once per assistant message: before the k-th it has
everything recorded before it (the user turns and results between replies included).

A trace of the lab's own (no `messages`: one task and a scratchpad of steps) becomes messages this way:
- the task is the first HumanMessage (id `task`);
- each step's response is an AIMessage (id `ai-<step>`): its content is the step's thought (and its
  final answer, if it gives one), or the raw reply when the agent's parser finds no JSON in it; its
  tool calls are the step's actions as the real agent's parser reads them (id `call-<step>-<k>`;
  an `action_input` that is not an object becomes `{"input": value}`);
- each observation is a ToolMessage (id `tool-<step>-<k>`) with the raw result, in full (the
  autourgos agent would cut it to max_tool_output_chars; each message system applies its own cuts);
- the model is called once per step: before step k it has the task and steps 1..k-1.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Dict, List, Optional, Sequence, Tuple

from scratchpad_lab.model.trace import Trace


def _parse(response: str) -> Tuple[Any, list, Any]:
    """The real agent's own parser, so the actions are the ones the autourgos strategies execute."""
    from autourgos_agent import Agent
    agent = _parser_agent()
    try:
        return Agent._parser(agent, response)
    except Exception:  # the agent counts such a reply as a parse error and goes on
        return None, [], None


@lru_cache(maxsize=1)
def _parser_agent():
    from autourgos_agent import Agent

    class _Stub:
        def invoke(self, prompt: Any, **_kwargs: Any) -> str:
            return ""
    return Agent(llm=_Stub())


@dataclass(frozen=True)
class PlainMessage:
    """A message as plain data (what `render` and `MessageCounter` read), made without LangChain: the
    baseline of the autourgos strategies needs no LangChain import (it costs seconds)."""

    type: str                       # "system" | "human" | "ai" | "tool"
    id: str
    content: str
    name: Optional[str] = None
    tool_calls: Tuple[Dict[str, Any], ...] = ()
    tool_call_id: Optional[str] = None


_PARTS: Dict[int, Tuple[Trace, List[List[PlainMessage]]]] = {}  # id(trace) -> (trace, its messages): the
_PARTS_KEPT = 4                                                 # agent's parser runs once per trace


SYSTEM_ID = "system"


def system_part(trace: Trace) -> Optional[PlainMessage]:
    """The agent's system prompt, when the recording has one: sent with every call, never a state message."""
    return PlainMessage("system", SYSTEM_ID, trace.system) if trace.system else None


def _conversation_parts(trace: Trace) -> List[List[PlainMessage]]:
    """[what came before the first reply] + one list per assistant message: [it, what came after it...]."""
    out: List[List[PlainMessage]] = [[]]
    for index, m in enumerate(trace.messages or []):
        mid = f"m-{index}"
        if m.role == "assistant":
            calls = tuple({"name": c["name"], "args": c.get("args") or {}, "id": c["id"], "type": "tool_call"}
                          for c in m.calls)
            out.append([PlainMessage("ai", mid, m.text, tool_calls=calls)])
        elif m.role == "tool":
            out[-1].append(PlainMessage("tool", mid, m.text, name=m.name, tool_call_id=m.call_id))
        else:
            out[-1].append(PlainMessage("system" if m.role == "system" else "human", mid, m.text))
    return out


def step_parts(trace: Trace) -> List[List[PlainMessage]]:
    """[[the messages before the first model call]] + one list per step: [the AI message, the messages after it
    (its tool results; in a conversation also the user turns before the next reply)...], as plain data. The
    system prompt is not among them (`system_part`)."""
    kept = _PARTS.get(id(trace))
    if kept is not None and kept[0] is trace:
        return kept[1]
    out = _conversation_parts(trace) if trace.messages is not None else _scratchpad_parts(trace)
    _PARTS[id(trace)] = (trace, out)
    while len(_PARTS) > _PARTS_KEPT:
        _PARTS.pop(next(iter(_PARTS)))
    return out


def _scratchpad_parts(trace: Trace) -> List[List[PlainMessage]]:
    """A trace of the lab's own (one task, scratchpad steps) as messages: the task, then each step's reply and
    results (the module's docstring says how)."""
    out = [[PlainMessage("human", "task", trace.task)]]
    for step, s in enumerate(trace.steps, start=1):
        thought, actions, final = _parse(s.response)
        if thought is None and not actions and final is None:
            content = s.response
        else:
            content = str(thought or "")
            if final is not None:
                content = (content + "\n" if content else "") + f"Final answer: {final}"
        calls = []
        for k, action in enumerate(actions):
            args = action.get("action_input", {}) if isinstance(action, dict) else {}
            calls.append({"name": str(action.get("action", "") if isinstance(action, dict) else ""),
                          "args": args if isinstance(args, dict) else {"input": args},
                          "id": f"call-{step}-{k}", "type": "tool_call"})
        msgs = [PlainMessage("ai", f"ai-{step}", content, tool_calls=tuple(calls))]
        for k, call in enumerate(calls):
            text = s.observations[k] if k < len(s.observations) else ""
            msgs.append(PlainMessage("tool", f"tool-{step}-{k}", text, name=call["name"], tool_call_id=call["id"]))
        out.append(msgs)
    return out


def _langchain(m: PlainMessage) -> Any:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    if m.type == "human":
        return HumanMessage(m.content, id=m.id)
    if m.type == "system":
        return SystemMessage(m.content, id=m.id)
    if m.type == "ai":
        return AIMessage(m.content, id=m.id, tool_calls=[dict(c) for c in m.tool_calls])
    return ToolMessage(m.content, tool_call_id=m.tool_call_id, name=m.name, id=m.id)


def step_messages(trace: Trace) -> List[List[Any]]:
    """step_parts as new LangChain messages for each run: [[before the first call]] + [[AIMessage, ...]...]."""
    return [[_langchain(m) for m in parts] for parts in step_parts(trace)]


def system_message(trace: Trace) -> Any:
    """The agent's system prompt as a LangChain SystemMessage (None without one): one object for a whole run, put
    in front of what every call sent, so the counter's running sums share it."""
    part = system_part(trace)
    return _langchain(part) if part is not None else None


def with_system(system: Any, messages: Sequence[Any]) -> List[Any]:
    """What a call sends: the agent's system prompt (when it has one) in front of the messages."""
    return [system, *messages] if system is not None else list(messages)


def results_after(step: Sequence[Any]) -> List[Tuple[int, Any, Dict[str, Any]]]:
    """A step's tool results, each with its position among them and its call's arguments (by its call id)."""
    ai, rest = step[0], step[1:]
    args = {c.get("id"): c.get("args", {}) for c in getattr(ai, "tool_calls", None) or []}
    tools = [m for m in rest if getattr(m, "type", "") == "tool"]
    return [(k, m, args.get(m.tool_call_id, {})) for k, m in enumerate(tools)]


def user_tool_results(trace: Trace) -> int:
    """How many of the steps' calls are to the import's `user` tool (importers/chat.py): the calls whose results are
    the person's later turns (two turns in a row answer one call, so the report's count of turns may be higher)."""
    from scratchpad_lab.engine.importers.chat import USER_TOOL_DESCRIPTION

    people = {t.name for t in trace.tools if t.description == USER_TOOL_DESCRIPTION}
    if not people:
        return 0
    return sum(1 for step in trace.steps for action in _parse(step.response)[1]
               if isinstance(action, dict) and action.get("action") in people)


def _spread(values: List[int]) -> str:
    values = sorted(values)
    low, high, middle = values[0], values[-1], values[len(values) // 2]
    return f"{low:,}" if low == high else f"{low:,}-{high:,} (median {middle:,})"


def seen_over(traces: Sequence[Trace], form: str) -> str:
    """How a strategy of this form saw a dataset's runs, in a line ("as a LangChain agent: a system prompt on 148
    of 148 runs, 2-16 user turns (median 7), 0-20 tool results (median 8)")."""
    if not traces:
        return ""
    n = len(traces)
    systems = sum(1 for t in traces if t.system)
    results = _spread([t.tool_results for t in traces])
    if form == "messages":
        return (f"as a LangChain agent: a system prompt on {systems:,} of {n:,} runs, "
                f"{_spread([t.user_turns for t in traces])} user turns, {results} tool results")
    later = sum(1 for t in traces if user_tool_results(t))
    said = f"as an autourgos agent's scratchpad: one task and {_spread([len(t.steps) for t in traces])} steps"
    if systems:
        said += f", the recording's system prompt as its system_prompt on {systems:,} of {n:,} runs"
    if later:
        said += f", later user turns as results of a `user` tool on {later:,} runs"
    return said


def seen_as(trace: Trace, form: str) -> str:
    """How a strategy of this form sees the run, in a line ("as a LangChain agent: system prompt, 9 user turns,
    14 tool results")."""
    results = trace.tool_results
    said = f"{results:,} tool result{'s' * (results != 1)}"
    if form == "messages":
        turns = trace.user_turns
        head = "system prompt, " if trace.system else "no system prompt, "
        return f"as a LangChain agent: {head}{turns:,} user turn{'s' * (turns != 1)}, {said}"
    head = "its system_prompt set to the recording's, " if trace.system else ""
    later = user_tool_results(trace)
    turns = f", its later user turns as the results of {later:,} call{'s' * (later != 1)} to a `user` tool" if later else ""
    return f"as an autourgos agent's scratchpad: {head}one task, {len(trace.steps):,} steps, {said}{turns}"


def content_text(message: Any) -> str:
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "\n".join(parts)


def render(message: Any) -> str:
    """One message as plain text: `[role] content`, then one line per tool call."""
    role = getattr(message, "type", "message")
    name = getattr(message, "name", None)
    head = f"[{role}{' ' + name if role == 'tool' and name else ''}]"
    lines = [f"{head} {content_text(message)}"]
    for call in getattr(message, "tool_calls", None) or []:
        lines.append(f"  -> {call.get('name')}({json.dumps(call.get('args', {}), ensure_ascii=False)})")
    return "\n".join(lines)


def render_all(messages: Sequence[Any]) -> str:
    return "\n\n".join(render(m) for m in messages)


def message_key(message: Any) -> tuple:
    """What makes a message's rendered text (`render`), cheaply: its kind, ids, name, and its content and
    tool-call arguments by length and hash. A string's hash is computed once and kept by the string, and a
    copied message (LangChain copies the whole conversation at every call) shares its strings, so looking up
    an unchanged message costs no rendering: what keeps counting a conversation linear in its length."""
    fields = getattr(message, "__dict__", None) or {}  # a pydantic message's fields (getattr of an absent
    content = fields.get("content", "")                   # field raises inside pydantic, which is slow)
    body = (len(content), hash(content)) if isinstance(content, str) else \
        (-1, hash(json.dumps(content, sort_keys=True, default=str)))
    calls = tuple((c.get("id"), c.get("name"), _args_key(c.get("args"))) for c in (fields.get("tool_calls") or ()))
    return (fields.get("type", ""), fields.get("id"), fields.get("name"), fields.get("tool_call_id"), body, calls)


def _args_key(args: Any) -> Any:
    if isinstance(args, dict):
        return tuple((k, (len(v), hash(v)) if isinstance(v, str) else _args_key(v)) for k, v in args.items())
    if isinstance(args, (list, tuple)):
        return tuple(_args_key(v) for v in args)
    return repr(args)


class MessageCounter:
    """Tokens of messages with the lab's tokenizer, each distinct message counted once.

    A strategy counts the conversation at every model call, and the conversation mostly grows at its end:
    the counter remembers the last few lists it measured (`TRACKS`) with running sums, and a new list that
    starts with the same message objects reuses them, so only the messages after the common prefix are
    looked up. That keeps a run's counting linear in the steps where a message lookup at every call for
    every message would be quadratic."""

    TRACKS = 6

    def __init__(self, count) -> None:
        self.count = count
        self._memo: Dict[tuple, Tuple[int, int]] = {}
        self._tracks: List[Tuple[List[Any], List[int], List[int]]] = []  # (messages, running tokens, chars)

    def one(self, message: Any) -> Tuple[int, int]:
        """(tokens, chars) of one rendered message."""
        key = message_key(message)
        found = self._memo.get(key)
        if found is None:
            text = render(message)
            found = self._memo[key] = (self.count(text), len(text))
        return found

    def measure(self, messages: Sequence[Any]) -> Tuple[int, int]:
        """(tokens, chars of render_all) of a list of messages."""
        messages = list(messages)
        if not messages:
            return 0, 0
        best, shared = None, 0
        for track in self._tracks:
            old = track[0]
            if not old or old[0] is not messages[0]:
                continue
            limit, n = min(len(old), len(messages)), 1
            while n < limit and old[n] is messages[n]:
                n += 1
            if n > shared:
                best, shared = track, n
        if best is None:
            tokens, chars = [], []
        elif shared == len(best[0]) == len(messages):  # the same list again
            self._tracks.remove(best)
            self._tracks.insert(0, best)
            return best[1][-1], best[2][-1] + 2 * (len(messages) - 1)
        else:  # the track it grew from stays: another list may grow from it too (the state, what was sent)
            tokens, chars = best[1][:shared], best[2][:shared]
        total_t, total_c = (tokens[-1], chars[-1]) if tokens else (0, 0)
        for message in messages[shared:]:
            t, c = self.one(message)
            total_t += t
            total_c += c
            tokens.append(total_t)
            chars.append(total_c)
        self._tracks.insert(0, (messages, tokens, chars))
        del self._tracks[self.TRACKS:]
        return total_t, total_c + 2 * (len(messages) - 1)

    def __call__(self, messages: Sequence[Any]) -> int:
        return self.measure(messages)[0]

    def chars(self, messages: Sequence[Any]) -> int:
        """Chars of render_all(messages) (the two-newline joins included)."""
        return self.measure(messages)[1]


class RecordedModel:
    """The model call a LangChain middleware wraps (its `handler` in `wrap_model_call`), answered with the
    trajectory's recorded reply; it keeps the request the middleware sent (`request`), which is what the
    model would have been given."""

    def __init__(self, reply: Any) -> None:
        self.reply = reply
        self.request: Any = None

    def __call__(self, request: Any) -> Any:
        from langchain.agents.middleware.types import ModelResponse  # LangChain only where a strategy runs
        self.request = request
        return ModelResponse(result=[self.reply])
