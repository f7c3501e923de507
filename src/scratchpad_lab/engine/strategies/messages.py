"""The trajectory as messages (one documented way), and messages as text.

Streamlit-free; langchain-core is imported only when a message strategy runs (it costs seconds).

How a trajectory (a `Trace`) becomes messages, for deepagents and LangMem alike:
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

import hashlib
import json
from functools import lru_cache
from typing import Any, Dict, List, Sequence, Tuple

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


def step_messages(trace: Trace) -> List[List[Any]]:
    """[[task]] + one list per step: [AIMessage, ToolMessage...]."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    out: List[List[Any]] = [[HumanMessage(trace.task, id="task")]]
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
        msgs = [AIMessage(content, id=f"ai-{step}", tool_calls=calls)]
        for k, call in enumerate(calls):
            text = s.observations[k] if k < len(s.observations) else ""
            msgs.append(ToolMessage(text, tool_call_id=call["id"], name=call["name"], id=f"tool-{step}-{k}"))
        out.append(msgs)
    return out


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


def message_key(message: Any) -> str:
    text = render(message)
    return f"{getattr(message, 'id', '')}:{len(text)}:{hashlib.blake2b(text.encode('utf-8', 'surrogatepass'), digest_size=8).hexdigest()}"


class MessageCounter:
    """Tokens of messages with the lab's tokenizer, each distinct message counted once."""

    def __init__(self, count) -> None:
        self.count = count
        self._memo: Dict[str, Tuple[int, int]] = {}
        # The same message objects are counted again at every step (the conversation so far): by object,
        # while its content and tool calls are the same objects, the figures are read without rendering
        # and hashing the message again (that made a long trace's replay quadratic in its text).
        self._seen: Dict[int, Tuple[Any, Any, Any, Tuple[int, int]]] = {}

    def one(self, message: Any) -> Tuple[int, int]:
        """(tokens, chars) of one rendered message."""
        content, calls = getattr(message, "content", None), getattr(message, "tool_calls", None)
        seen = self._seen.get(id(message))
        if seen is not None and seen[0] is message and seen[1] is content and seen[2] is calls:
            return seen[3]
        key = message_key(message)
        if key not in self._memo:
            text = render(message)
            self._memo[key] = (self.count(text), len(text))
        self._seen[id(message)] = (message, content, calls, self._memo[key])
        return self._memo[key]

    def __call__(self, messages: Sequence[Any]) -> int:
        return sum(self.one(m)[0] for m in messages)

    def chars(self, messages: Sequence[Any]) -> int:
        """Chars of render_all(messages) (the two-newline joins included)."""
        return sum(self.one(m)[1] for m in messages) + 2 * max(len(messages) - 1, 0)
