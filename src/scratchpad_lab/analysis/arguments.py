"""Argument recall: did the context a strategy sent still hold the values the agent's next tool call needed?

Pure functions over plain data (no engine, no package): the engine hands in the recorded tool calls, what the
run learned and when, the text that never counts, and what each model call was sent.

- a **needed value** of a recorded tool call is a leaf of its arguments (a string of 3 or more characters,
  or a number; never a boolean) that the run learned earlier: it occurs in a user turn or a tool result of
  an earlier step, and not in the text that never counts (the system prompt and the task, which every run
  is given whatever it compresses). Each distinct value counts once per call.
- a **command or a text** (a string leaf with whitespace in it, that was not learned whole: a coding agent's
  `bash` command, an edit's old and new text) needs the **identifiers** in it that the run learned earlier: tokens
  of 4 or more characters with a path or code mark in them (`/`, `.`, `_`, a digit, or a capital after a lower-case
  letter), such as `django/db/models/fields.py`, `test_fields` or `CharField`. Plain words never count. A tool
  call that takes one whole shell command then has needed values too (before, almost none of its commands had
  been seen whole, so coding runs had no argument recall at all).
- it is **kept** at that call when it is still present, verbatim, in the context sent for the model call
  that made the tool call. A string is looked for as it is; a number as its decimal text (an integral float
  also as the integer), not inside a longer number (12 is not found in 2012).
- **argument recall** of a run is kept needed values / needed values over all its calls (None when no call
  needed a learned value). Doing nothing sends every earlier message in full, so it reads 1.0 by construction.
- **gold-argument recall**: the same for a dataset's gold actions (e.g. tau-bench's write calls), each read
  at the first recorded call of the same tool, or at the last model call when the run never made that call.
- what was lost is kept: for each call, the values it needed that its context no longer held.
- **kept, recoverable, lost**: a value missing from the context that sits in a file the strategy wrote and its
  context names (deepagents' conversation history and large-result files: the agent can `read_file` it) is
  *recoverable*, neither kept nor lost; `recoverable(iteration)` gives the text of those files (empty for a
  strategy that writes none).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

MIN_STRING_CHARS = 3


@dataclass(frozen=True)
class ToolCall:
    iteration: int       # the model call (1-based) that made it
    tool: str
    arguments: Any


@dataclass(frozen=True)
class Learned:
    iteration: int       # the step whose action brought it (a tool result, or a user turn as the `user` tool's result)
    text: str


@dataclass
class CallRecall:
    iteration: int
    tool: str
    needed: List[Any] = field(default_factory=list)
    lost: List[Any] = field(default_factory=list)
    recoverable: List[Any] = field(default_factory=list)   # not in the context, in a file the context names

    def to_dict(self) -> Dict[str, Any]:
        out = {"iteration": self.iteration, "tool": self.tool, "needed": len(self.needed), "lost": list(self.lost)}
        if self.recoverable:
            out["recoverable"] = list(self.recoverable)
        return out


@dataclass
class Recall:
    calls: List[CallRecall]

    @property
    def needed(self) -> int:
        return sum(len(c.needed) for c in self.calls)

    @property
    def recoverable(self) -> int:
        return sum(len(c.recoverable) for c in self.calls)

    @property
    def kept(self) -> int:
        return self.needed - sum(len(c.lost) for c in self.calls) - self.recoverable

    @property
    def share(self) -> Optional[float]:
        return round(self.kept / self.needed, 4) if self.needed else None

    @property
    def recoverable_share(self) -> Optional[float]:
        return round(self.recoverable / self.needed, 4) if self.needed else None

    def losses(self) -> List[Dict[str, Any]]:
        """Each call that lost or offloaded something: its iteration, tool, how many values it needed, which it
        lost and which sit in a file its context names."""
        return [c.to_dict() for c in self.calls if c.lost or c.recoverable]


def leaves(value: Any) -> List[Any]:
    """The argument leaves that count: strings of 3 or more characters and numbers, in order, each once."""
    out: List[Any] = []

    def walk(v: Any) -> None:
        if isinstance(v, bool) or v is None:
            return
        if isinstance(v, dict):
            for item in v.values():
                walk(item)
        elif isinstance(v, (list, tuple)):
            for item in v:
                walk(item)
        elif isinstance(v, (int, float)):
            if v == v and v not in (float("inf"), float("-inf")):
                out.append(v)
        elif isinstance(v, str) and len(v.strip()) >= MIN_STRING_CHARS:
            out.append(v)

    walk(value)
    seen, unique = set(), []
    for v in out:
        key = (type(v) is str, repr(v))
        if key not in seen:
            seen.add(key)
            unique.append(v)
    return unique


def _number_pattern(value: Any) -> "re.Pattern[str]":
    forms = {repr(value)} if isinstance(value, float) else {str(value)}
    if isinstance(value, float) and value.is_integer():
        forms.add(str(int(value)))
    alternatives = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
    return re.compile(rf"(?<![\d.])(?:{alternatives})(?![\d]|\.\d)")


def occurs(value: Any, text: str) -> bool:
    """Whether the value is present verbatim in the text (a number not as part of a longer number)."""
    if isinstance(value, str):
        return value in text
    return _number_pattern(value).search(text) is not None


_TOKEN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./-]*[A-Za-z0-9_]")
_MARKED = re.compile(r"[/._]|\d|[a-z][A-Z]")
MIN_IDENTIFIER_CHARS = 4


def identifiers(text: str) -> List[str]:
    """The identifier-like tokens of a command or a text, in order, each once: paths, file and function names, ids
    (4 or more characters with a `/`, `.`, `_`, a digit or an inner capital); never a plain word."""
    out: List[str] = []
    for token in _TOKEN.findall(text):
        if len(token) >= MIN_IDENTIFIER_CHARS and _MARKED.search(token) and token not in out:
            out.append(token)
    return out


def needed_at(arguments: Any, iteration: int, learned: Sequence[Learned], given: str) -> List[Any]:
    """The leaves of `arguments` learned before model call `iteration` and not in the `given` text; for a command
    or a text not learned whole, the identifiers in it learned so (see the module's docstring)."""
    before = [item.text for item in learned if item.iteration < iteration]
    out: List[Any] = []
    for value in leaves(arguments):
        if occurs(value, given):
            continue
        if any(occurs(value, t) for t in before):
            out.append(value)
        elif isinstance(value, str) and any(c.isspace() for c in value.strip()):
            seen = "\n".join(before)
            out.extend(t for t in identifiers(value) if t not in out and t in seen and t not in given)
    return out


def recall(targets: Sequence[ToolCall], learned: Sequence[Learned], given: str,
           sent: Callable[[int], str], recoverable: Optional[Callable[[int], str]] = None) -> Recall:
    """For each target call, its needed values, those missing from `sent(iteration)`, and of those the ones in
    `recoverable(iteration)` (the files its context names)."""
    out = []
    for call in targets:
        needed = needed_at(call.arguments, call.iteration, learned, given)
        context = sent(call.iteration) if needed else ""
        missing = [v for v in needed if not occurs(v, context)]
        files = recoverable(call.iteration) if missing and recoverable is not None else ""
        out.append(CallRecall(call.iteration, call.tool, needed, [v for v in missing if not occurs(v, files)],
                              [v for v in missing if files and occurs(v, files)]))
    return Recall(out)


def gold_targets(gold: Sequence[Tuple[str, Any]], calls: Sequence[ToolCall], last_iteration: int) -> List[ToolCall]:
    """Each gold action (tool, arguments) placed at the first recorded call of that tool, else at the last call."""
    first: Dict[str, int] = {}
    for call in calls:
        first.setdefault(call.tool, call.iteration)
    return [ToolCall(first.get(tool, last_iteration), tool, arguments) for tool, arguments in gold]
