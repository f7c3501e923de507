"""Fact kinds: the one rule of what kind a fact is, as a person recognises it, and what each kind lost.

Streamlit-free, pure functions over text and recorded events. The facts themselves come from facts.py (values,
never JSON keys); this module only sorts them, so facts kept (figures.py) is unchanged by it:

  id           identifiers: ticket, order, reservation, flight and payment ids (A-1001, ZFA04Y, HAT170,
               credit_card_4421486), versions and addresses (v4.18.2, 10.118.4.21)
  amount       numbers and amounts: $120.50, 3,072 atoms, 950ms, 250
  date         dates and times: 2024-05-15, 17 November 2026, 14:02
  path         file paths and URLs: /var/log/app.log, https://example.com/a
  name         emails and names: a.rao@example.in, Asha Rao
  code         commands and code: a quoted command or expression ("git push --force", "x = f(1)"), a dotted
               setting name (db.pool.max_size), a function or tool name (get_order_history)
  instruction  the user's own words: a line of a user turn (the task after its "User:" mark, and each later
               user turn of an imported chat) that the scratchpad held
  other        quoted text that is none of these ("975 Sunset Drive", "economy")

A quoted fact (a JSON string value) is read by what is inside the quotes: a command or code; a short code of
capitals and digits (reservation "NO6JO3", airport "JFK") is an id; words that each start with a capital are a
name ("Mia", "Austin"); anything else is other.

A scenario's expected fact is read as the kind of the one fact it is (an expected "INV88213" is an id).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from scratchpad_lab.analysis.facts import Fact, line_facts, present_in, retention
from scratchpad_lab.analysis.metrics import of_kind

KINDS = ("id", "amount", "date", "path", "name", "code", "instruction", "other")
# (one, many): how a count of each kind reads on a card and in the CLI ("lost 3 ids, 2 amounts")
NAMES = {"id": ("id", "ids"), "amount": ("amount", "amounts"), "date": ("date", "dates"),
         "path": ("path or URL", "paths and URLs"), "name": ("name", "names"),
         "code": ("command or code", "commands and code"),
         "instruction": ("line of the user's", "lines of the user's"), "other": ("quoted text", "quoted texts")}
_BY_FACT_KIND = {"identifier": "id", "number": "amount", "datetime": "date", "url": "path", "path": "path",
                 "email": "name", "name": "name"}
_CODE = re.compile(r"[(){}\[\]=;|$<>`]|--|&&|^\s*(?:git|pip|npm|npx|python3?|node|curl|wget|ls|cd|grep|sed|awk|"
                   r"kubectl|docker|make|sudo|cat|rm|mv|cp|ssh|chmod|export|SELECT|INSERT|UPDATE|DELETE)\b")
# a dotted setting (db.pool.max_size; not v4.18.2 or 10.1.2.3) or a function or tool name (get_order_history:
# lower-case words joined by "_", no digit, where a payment id credit_card_4421486 has one)
_SETTING = re.compile(r"^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+$|^[a-z]+(?:_[a-z]+)+$")
# inside quotes: a short code of capitals and digits (a reservation "NO6JO3", an airport "JFK"), or words that
# each start with a capital ("Mia", "Asha Rao", "Austin")
_CODE_ID = re.compile(r"^(?=.*[A-Z])[A-Z0-9]{3,10}$")
_PROPER = re.compile(r"^[A-Z][a-zß-öø-ÿ]+(?: [A-Z][a-zß-öø-ÿ]+){0,3}$")
USER_MARK = "\n\nUser:\n"         # where an imported chat's task puts its user turns (importers/chat.py)
USER_TOOLS = ("user", "user_turn")  # the tool an imported chat's later user turn is a call to
MIN_INSTRUCTION = 8               # a user line shorter than this ("ok", "yes") is not an instruction


@lru_cache(maxsize=65536)
def kind_of(fact: Fact) -> str:
    """The kind (KINDS) of one fact of facts.py."""
    if fact.kind in ("expected", "quoted"):  # read by what it is: one fact of another kind, whole
        inner = [f for f in line_facts(fact.text) if f.kind != "quoted"]
        if len(inner) == 1 and inner[0].text == fact.text:
            return kind_of(inner[0])
        if fact.kind == "expected":
            return "other"
    if fact.kind == "quoted":  # a JSON string value: read by what is inside the quotes
        if _CODE.search(fact.text):
            return "code"
        if _CODE_ID.match(fact.text):
            return "id"
        return "name" if _PROPER.match(fact.text) else "other"
    if fact.kind == "identifier" and _SETTING.match(fact.text):
        return "code"
    return _BY_FACT_KIND.get(fact.kind, "other")


def _norm(text: str) -> str:
    return " ".join(text.split())


def user_turns(events: Sequence) -> List[Tuple[int, str]]:
    """(iteration, text) of each user turn a run recorded, oldest first: the task's user part (iteration 0;
    the whole task when it has no "User:" mark, as a scenario's task is the user's request) and each later
    user turn of an imported chat (a call to its `user` tool, whose result is the user's message)."""
    out: List[Tuple[int, str]] = []
    for e in of_kind(events, "run_start"):
        task = str(e.payload.task or "")
        out.append((0, task.rsplit(USER_MARK, 1)[1] if USER_MARK in task else task))
    for e in of_kind(events, "tool_call"):
        if e.payload.tool in USER_TOOLS and str(e.payload.result or "").strip():
            out.append((int(e.iteration or 0), str(e.payload.result)))
    return [(i, t) for i, t in out if t.strip()]


def instruction_lines(turn: str) -> List[str]:
    """The lines of one user turn that count as instructions (whitespace made single)."""
    return [line for line in (_norm(raw) for raw in turn.splitlines()) if len(line) >= MIN_INSTRUCTION]


@dataclass
class KindLoss:
    """What one cut did to each kind: facts before and kept per kind, the lost ones, and whether the user's newest
    message that the text held is gone from it."""

    before: Dict[str, int] = field(default_factory=dict)
    kept: Dict[str, int] = field(default_factory=dict)
    lost: Dict[str, List[str]] = field(default_factory=dict)
    last_instruction_lost: bool = False


def kind_loss(before: str, after: str, expected: Sequence[str] = (), turns: Sequence[str] = ()) -> KindLoss:
    """Each kind's facts in `before` and how many are still in `after` (facts.retention's rule), and the user's
    lines (`turns`, oldest first) that `before` held: kept when `after` still holds them whole."""
    counts_before, counts_kept, lost = _fact_kinds(before, after, tuple(expected))
    out = KindLoss(dict(counts_before), dict(counts_kept), {k: list(v) for k, v in lost})
    held, kept, newest_lost = _instructions(before, after, tuple(turns))
    if held:
        out.before["instruction"] = len(held)
        if kept:
            out.kept["instruction"] = len(kept)
        lost_lines = [line for line in held if line not in kept]
        if lost_lines:
            out.lost["instruction"] = lost_lines
    out.last_instruction_lost = newest_lost
    return out


@lru_cache(maxsize=4096)  # the figures row and the cards ask of the same cuts, a sweep's cells share most
def _fact_kinds(before: str, after: str, expected: tuple) -> tuple:
    """(((kind, facts before)...), ((kind, kept)...), ((kind, lost values)...)) of one cut, by facts.retention."""
    r = retention(before, after, expected)
    lost_values = {f.text for f in r.lost}
    counts_before: Dict[str, int] = {}
    counts_kept: Dict[str, int] = {}
    lost: Dict[str, List[str]] = {}
    for f in r.before:
        kind = kind_of(f)
        counts_before[kind] = counts_before.get(kind, 0) + 1
        if f.text in lost_values:
            lost.setdefault(kind, []).append(f.text)
        else:
            counts_kept[kind] = counts_kept.get(kind, 0) + 1
    return (tuple(counts_before.items()), tuple(counts_kept.items()),
            tuple((k, tuple(v)) for k, v in lost.items()))


def last_instruction_lost(before: str, after: str, turns: Sequence[str]) -> bool:
    """Is the user's newest message that `before` held (some line of it) wholly gone from `after`?"""
    return _instructions(before, after, tuple(turns))[2]


@lru_cache(maxsize=4096)
def _instructions(before: str, after: str, turns: tuple) -> tuple:
    """(the user's lines `before` held, those `after` still holds, whether the newest turn held is wholly gone);
    remembered: the cards, the figures row and the health checks ask of the same cuts."""
    if not turns:
        return (), frozenset(), False
    had, has = _norm(before), _norm(after)
    asked = [instruction_lines(turn) for turn in turns]
    in_had = _lines_in(had, {line for lines in asked for line in lines})
    held: List[str] = []
    newest_held: List[str] = []
    for lines in asked:
        lines = [line for line in lines if line in in_had]
        if lines:
            held += lines
            newest_held = lines
    kept = _lines_in(has, set(held))
    return tuple(held), kept, bool(newest_held) and not any(line in kept for line in newest_held)


def _lines_in(text: str, lines: Set[str]) -> FrozenSet[str]:
    """The lines that are in `text` (`line in text`), in time linear in the text (facts.present_in)."""
    asked = list(lines)
    return frozenset(line for line, there in zip(asked, present_in(text, asked, whole=False)) if there)


def loss_words(loss: KindLoss) -> str:
    """"lost 3 ids, 2 amounts, the user's last instruction": each kind's lost count in KINDS order, our words."""
    parts = []
    for kind in KINDS:
        n = len(loss.lost.get(kind, []))
        if not n or kind == "instruction":
            continue
        parts.append(f"{n} {NAMES[kind][0] if n == 1 else NAMES[kind][1]}")
    if loss.last_instruction_lost:
        parts.append("the user's last instruction")
    elif loss.lost.get("instruction"):
        n = len(loss.lost["instruction"])
        parts.append(f"{n} {NAMES['instruction'][0] if n == 1 else NAMES['instruction'][1]} own words")
    return "lost " + ", ".join(parts) if parts else ""


def shares(before: Dict[str, int], kept: Dict[str, int]) -> Dict[str, float]:
    """{kind: share kept} for each kind that had facts, in KINDS order."""
    return {k: round(kept.get(k, 0) / before[k], 4) for k in KINDS if before.get(k)}


NO_KINDS = "no facts to keep"


def kept_by_kind_text(kept: Dict[str, float], runs: Optional[Dict[str, int]] = None,
                      recoverable: Optional[Dict[str, float]] = None) -> str:
    """A figures row's kept_by_kind as every page and the CLI print it: "ids 80%, amounts 50%"; with `runs` ({kind:
    runs the share is a mean over}, a benchmark setting's), each share says so: "ids 80% (3 runs)"; with
    `recoverable` ({kind: share dropped into a file the context names}), "ids 60% (+35% in a named file)"."""
    if not kept and not recoverable:
        return NO_KINDS
    recoverable = recoverable or {}

    def over(kind: str) -> str:
        said = f" (+{recoverable[kind]:.0%} in a named file)" if recoverable.get(kind) else ""
        if runs is None or kind not in runs:
            return said
        return said + f" ({runs[kind]} run{'s' if runs[kind] != 1 else ''})"
    kinds = [k for k in KINDS if k in kept or recoverable.get(k)]
    return ", ".join(f"{NAMES[k][1] if k != 'instruction' else 'the user' + chr(39) + 's own lines'} "
                     f"{kept.get(k, 0.0):.0%}" + over(k) for k in kinds)
