"""The offline `extractive` summarizer: deterministic, no LLM, no network.

It is what lets the playground work at once with no key. It does what a careful note-taker with a
highlighter would: keep the salient lines of the scratchpad (lines with numbers, identifiers, names,
tool results), drop the rest, and lay them out in the summary shape the package's prompt asks for,
under a character budget. It is honest about being crude: it never invents text, it only copies.

It is called through the same `.invoke(prompt)` interface as a real model; the lab's summarizer
wrapper also hands it the scratchpad, query and iteration directly (`summarize(...)`), so it works
with any prompt template. The section names are read from the template when it lists them as
`Name: ...` lines, else the package's three (Key findings, Tool results, Current status).
"""
from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache
from itertools import islice
from typing import List, Optional, Sequence

from scratchpad_lab.model.config import field_default, package_prompt_fields, sections_from_template
from scratchpad_lab.analysis.facts import clear_caches as _clear_fact_caches, line_fact_spans, line_facts

_STRUCTURE = re.compile(r"^\s*(?:Step \d+:|\[Summarized up to step \d+\]|\[Summary of steps 1-\d+\]|\[Summary\]|"
                        r"\[\.\.\.earlier steps trimmed\.\.\.\]|(?:Key findings|Tool results):)\s*$")
_LINE_CAP = 240
_BULLET = re.compile(r"^\s*- (?=\S)")
# "Name: Asha Rao" carries a fact; the agent's own step labels (Thought:, Action:, ...) do not.
_LABELLED = re.compile(r"^\s*(?:- )?(?!(?:Thought|Action|Observation|Step|Final Answer)\b)[A-Z][A-Za-z ]{1,30}: \S")


_STOP = {"that", "this", "with", "from", "have", "what", "which", "when", "then", "into", "there", "their",
         "about", "needed", "find", "each", "and", "the", "for", "out", "any", "all", "was", "were"}


def _keywords(query: str) -> set:
    return {w for w in re.findall(r"[a-z][a-z-]{3,}", query.lower()) if w not in _STOP}


# How much keeping a fact of each kind is worth (facts.py finds them: the one fact extractor).
_WEIGHTS = {"url": 3, "email": 3, "path": 3, "identifier": 3, "datetime": 2, "number": 2, "quoted": 2, "name": 2}


def _weight(kind: str, text: str) -> float:
    # A bare small number (a table cell) says little alone; dates, times, amounts and units say more.
    return 0.5 if kind == "number" and text.isdigit() and len(text) <= 4 else _WEIGHTS[kind]


def salient_facts(line: str, keywords: frozenset = frozenset()) -> dict:
    """The facts a line carries (as facts.py finds them), each with a weight, plus a labelled value
    and words of the task. A line with none is not worth keeping."""
    found: dict = {}
    for fact in line_facts(line):
        found.setdefault(fact.text, _weight(fact.kind, fact.text))
    label = _LABELLED.match(line)
    if label:
        found.setdefault(line[:60], 2)
    if keywords:
        for word in set(re.findall(r"[a-z][a-z-]{3,}", line.lower())) & keywords:
            found.setdefault("kw:" + word, 1)
    return found


@lru_cache(maxsize=65536)  # the same lines come back in every later summary of a run
def _cached_facts(line: str, keywords: frozenset) -> tuple:
    return tuple(salient_facts(line, keywords).items())


@lru_cache(maxsize=16384)
def _clip(line: str, cap: int = _LINE_CAP) -> str:
    line = " ".join(line.split())
    if len(line) <= cap:
        return line
    # Keep the part with the most salient facts (found once in the whole line; a window counts the
    # facts wholly inside it): slide a window in coarse steps.
    spans = [(fact_start, fact_end, value, _weight(kind, value))
             for fact_start, fact_end, kind, value in line_fact_spans(line)]
    starts = [span[0] for span in spans]
    best, best_at = -1, 0
    for start in range(0, len(line) - cap + 1, max(1, cap // 4)):
        inside: dict = {}
        stop = start + cap
        for fact_start, fact_end, value, weight in islice(spans, bisect_left(starts, start), None):
            if fact_start >= stop:
                break
            if fact_end <= stop and value not in inside:
                inside[value] = weight
        found = sum(inside.values()) + (2 if _LABELLED.match(line[start:stop]) else 0)
        if found > best:
            best, best_at = found, start
    piece = line[best_at:best_at + cap]
    # Whole words only: a cut through "0.071%" would quote a fact that was never there ("71%").
    if best_at and not line[best_at - 1].isspace() and " " in piece:
        piece = piece[piece.index(" ") + 1:]
    if best_at + cap < len(line) and not line[best_at + cap].isspace() and " " in piece:
        piece = piece[:piece.rindex(" ")]
    return ("…" if best_at else "") + piece + ("…" if best_at + cap < len(line) else "")


def clear_caches() -> None:
    """Forget remembered lines (benchmarks measure a first replay with this)."""
    _clip.cache_clear()
    _cached_facts.cache_clear()
    _summary.cache_clear()
    _clear_fact_caches()


def _split_observation(line: str) -> List[str]:
    """Tool results often come as one long line; cut them into sentence-sized pieces."""
    if len(line) <= _LINE_CAP:
        return [line]
    pieces = _PIECE_BREAK.split(line)
    return [p for p in pieces if p.strip()]


# Where a long line is cut: whitespace after . ; ! or ?, a literal "\n", or " | ". Written to start with
# a character class so the engine skips to the candidates (it splits exactly as
# r"(?<=[.;!?])\s+|\\n|\s\|\s" does; tests/test_extractive.py compares the two).
_PIECE_BREAK = re.compile(r"[\s\\](?:(?<=[.;!?]\s)\s*|(?<=\\)n|(?<=\s)\|\s)")


@lru_cache(maxsize=512)
def _summary(budget_chars: int, scratchpad: str, query: str, iteration: int, template: Optional[str]) -> str:
    return ExtractiveSummarizer(budget_chars)._summarize(scratchpad, query, iteration, template)


class ExtractiveSummarizer:
    """A deterministic summarizer; `budget_chars` caps the length of every summary it writes."""

    model_name = "extractive (offline, no LLM)"

    def __init__(self, budget_chars: int = field_default("extractive_budget_chars")) -> None:
        self.budget_chars = budget_chars

    def invoke(self, prompt, **_kwargs) -> str:
        """Called as a plain model (e.g. the middleware's own `llm=`): read the package's prompt back
        into its parts; any other prompt is summarized as a whole."""
        text = str(prompt)
        parts = package_prompt_fields(text)
        if parts:
            return self.summarize(**parts, template=None)
        return self.summarize(scratchpad=text, query="", iteration=0, template=None)

    def summarize(self, scratchpad: str, query: str, iteration: int, template: Optional[str]) -> str:
        # Deterministic, so identical inputs share one summary: the cells of a sweep send the same
        # scratchpads until their settings first make a difference.
        return _summary(self.budget_chars, scratchpad, query, iteration, template)

    def _summarize(self, scratchpad: str, query: str, iteration: int, template: Optional[str]) -> str:
        sections = sections_from_template(template)
        header = f"[Summary of steps 1-{iteration}]" if iteration else "[Summary]"
        status = self._status_line(scratchpad, iteration)
        candidates: List[tuple] = []  # (order, text, is_result, facts)
        seen = set()
        first_seen: set = set()
        keywords = frozenset(_keywords(query))
        for raw in scratchpad.splitlines():
            if not raw.strip() or _STRUCTURE.match(raw):
                continue
            is_result = raw.lstrip().startswith("Observation:")
            raw = _BULLET.sub("", raw, count=1)  # a line of an earlier summary: its bullet is re-added
            for piece in _split_observation(raw):
                text = _clip(piece)
                key = text.lower()
                if key in seen or len(text) < 4:
                    continue
                seen.add(key)
                facts = dict(_cached_facts(text, keywords))
                for fact in facts:  # the first line with a fact is the one to keep (the first error...)
                    if fact in first_seen:
                        facts[fact] /= 2
                    else:
                        first_seen.add(fact)
                if facts:
                    candidates.append((len(candidates), text, is_result, facts))
        kept = self._select(candidates, self._room(header, sections, status))
        findings = [f"- {text}" for order, text, is_result, _ in candidates if order in kept and not is_result]
        results = [f"- {text}" for order, text, is_result, _ in candidates if order in kept and is_result]
        return self._layout(header, sections, findings, results, status)

    def _room(self, header: str, sections: Sequence[str], status: str) -> int:
        fixed = [header] + [f"{name}:" for name in sections] + [status]
        return self.budget_chars - sum(len(x) + 1 for x in fixed)

    @classmethod
    def _select(cls, candidates: List[tuple], room: int) -> set:
        kept, room = cls._greedy(candidates, room)
        # Room left after every fact is covered: keep the other salient lines too, earliest first.
        for cand in candidates:
            cost = len(cand[1]) + 3
            if cand[0] not in kept and cost <= room:
                kept.add(cand[0])
                room -= cost
        return kept

    @staticmethod
    def _greedy(candidates: List[tuple], room: int) -> tuple:
        """Greedy coverage: take the line that adds the most facts not yet kept per char it costs,
        until nothing fits or nothing new is left. Ties go to the earlier line. Returns (kept, room left).

        Each line's gain (the weight of its facts not yet kept) is kept up to date as facts get
        covered instead of being summed again for every line at every pick. The weights are
        quarters, halves and small whole numbers, so the running sums are exact: the same picks."""
        covered: set = set()
        kept: set = set()
        gains = [sum(cand[3].values()) for cand in candidates]  # candidates[k][0] == k
        roots = [(len(cand[1]) + 3) ** 0.5 for cand in candidates]
        holders: dict = {}  # fact -> the lines that have it
        for cand in candidates:
            for fact in cand[3]:
                holders.setdefault(fact, []).append(cand[0])
        pool = list(candidates)
        while pool and room > 0:
            best, best_value = None, 0.0
            for cand in pool:
                if len(cand[1]) + 3 > room:
                    continue
                value = gains[cand[0]] / roots[cand[0]]
                if value > best_value:
                    best, best_value = cand, value
            if best is None:
                break
            kept.add(best[0])
            for fact in best[3]:
                if fact not in covered:
                    covered.add(fact)
                    for order in holders[fact]:
                        gains[order] -= candidates[order][3][fact]
            room -= len(best[1]) + 3
            pool = [c for c in pool if c is not best and gains[c[0]] > 0]
        return kept, room

    def _status_line(self, scratchpad: str, iteration: int) -> str:
        steps = re.findall(r"^Step (\d+):", scratchpad, re.M)
        actions = re.findall(r"^Action: ([A-Za-z0-9_.-]+)\(", scratchpad, re.M)
        last = f"; last action: {actions[-1]}" if actions else ""
        upto = f"step {steps[-1]}" if steps else f"step {max(iteration - 1, 0)}"
        return f"Work continues after {upto}{last}."

    def _layout(self, header, sections, first, second, status) -> str:
        budget = self.budget_chars
        # The first section gets the findings, the second the tool results, the last one the status;
        # with fewer sections the bodies merge, and any extra middle sections stay empty.
        if len(sections) == 1:
            bodies = [first + second + [status]]
        elif len(sections) == 2:
            bodies = [first + second, None]
        else:
            bodies = [first, second] + [[] for _ in sections[2:-1]] + [None]
        lines = [header]
        for name, body in zip(sections, bodies):
            if body is None:
                lines.append(f"{name}: {status}")
            else:
                lines.append(f"{name}:")
                lines.extend(body)
        text = "\n".join(lines)
        if len(text) <= budget:
            return text
        cut = text[:budget]
        if not text[budget].isspace() and (" " in cut or "\n" in cut):  # never end inside a word
            cut = cut[:max(cut.rfind(" "), cut.rfind("\n"))]
        return cut
