"""The agent's reply format: what one step's response must be for autourgos-agent to act on it.

Streamlit-free. The agent's prompt (autourgos_agent.prompt.LOGIC_PROMPT) asks for one JSON object

    {"thought": "...", "actions": [{"action": "tool_name", "action_input": {"param": "value"}}],
     "final_answer": null}

with either a non-empty `actions` list and a null `final_answer`, or no actions and the answer.
`read_reply` is the agent's own parser (Agent._parser, run on a real Agent), never a copy of it;
`build_reply` writes a reply the agent reads back to exactly the parts it was given (the importers
rebuild raw replies with it).
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Dict, List, NamedTuple, Optional

# Shown to people who write replies by hand (docs/traces.md, messages); the agent's prompt has the same shape.
REPLY_FORMAT = ('{"thought": "...", "actions": [{"action": "tool_name", "action_input": {"param": "value"}}], '
                '"final_answer": null}')


class Reply(NamedTuple):
    thought: Optional[str]
    actions: List[Dict[str, Any]]
    final_answer: Optional[str]


@lru_cache(maxsize=1)
def _agent():
    from autourgos_agent import Agent  # the package's parser, on a real instance (it needs no model to parse)
    return Agent()


def read_reply(response: str) -> Reply:
    """What the agent reads in `response`: (thought, actions, final_answer), exactly as its loop does."""
    try:
        thought, actions, final_answer = _agent()._parser(response)
    except Exception:  # the loop treats a parser exception as a reply with nothing in it
        return Reply(None, [], None)
    return Reply(thought, list(actions), final_answer)


# Measured (bench/parse_cap.py's shapes): a response that is not JSON costs the parser about this many seconds
# per "}" of its {...} span times the span's length (one json.loads attempt per "}", each reading at most
# the span); the slowest shape, 12,000 characters of "}" in an open string, took 0.2-0.4 s.
PARSE_S_PER_BRACE_CHAR = 4e-9


def parse_seconds(response: str) -> float:
    """About how long the agent's parser takes on `response`, found in linear time (one json.loads of its
    widest {...} span), so a file's parse work can be judged before any of it is done. A span that is JSON
    is read at the first try; one that is not is tried again at every "}" (upper-bound leaning)."""
    start, end = response.find("{"), response.rfind("}")
    if start < 0 or end < start:
        return 0.0
    span = response[start:end + 1]
    try:
        json.loads(span)
        return 0.0
    except (ValueError, RecursionError):
        return PARSE_S_PER_BRACE_CHAR * span.count("}") * len(span)


def build_reply(thought: Optional[str], actions: List[Dict[str, Any]], final_answer: Optional[str],
                **extra: Any) -> str:
    """A raw reply in the agent's format. Backticks are written as JSON escapes (\\u0060): the agent's
    parser looks for a fenced ```json block first, and a fence inside a message or a tool result must not
    be taken for the reply. `extra` keys are kept in the object; the agent ignores keys it does not know."""
    text = json.dumps({"thought": thought, "actions": actions, "final_answer": final_answer, **extra},
                      ensure_ascii=False)
    return text.replace("`", "\\u0060")
