"""Facts: the things in a scratchpad that matter and are easy to lose, found deterministically.

Streamlit-free, regex only, fast (a 50,000-char scratchpad in a few milliseconds). Kinds, tried in
this order, each claiming its text so a later kind never re-reads it (a date is not also a number):

  url         https://example.com/a?b=1
  email       a.rao@example.in
  path        /var/log/app.log, src/lab/run.py, C:\\logs\\x.txt
  datetime    2026-03-14 02:17:09, 2026-03-14, 14:02, Friday 13 March, 17 November 2026
  identifier  A-1001, ERR_503, ID-2347, CHG-7741, v4.18.2, chk-eu-11, db.pool.max_size, arXiv:2611.04217
  number      INR 99.00, $120.50, 0.071%, 3,072 atoms, 950ms, 1,040 seconds (numbers with a unit or
              currency, decimals, and bare numbers of three or more digits: a bare 7 or 91 is not a fact)
  quoted      "double-quoted strings" (3-80 chars)
  name        capitalized names: Asha Rao, Lindqvist Quantum Lab, Pune. A single capitalised word is not
              a name at the start of a line or sentence (or after an opening quote), nor when it is a
              weekday or month name, or a common English word (data/common_words.txt: Gold, Visa, Closing)

Facts are values, never keys: the key of a JSON object (nested ones too, pretty-printed or on one line,
alone or embedded in text, escaped inside a JSON string) or of a Python dict's repr (`'status': ...`) is
blanked before any kind reads the line, so `"account_id": "AC-118"` gives AC-118 and not account_id. A
key is a quoted string right after `{`, `,`, `[` or a line's start and right before `:`; the same word
as a value (`"cabin": "economy"`) is still a fact.

A fact is "in" a text when it appears there with the same boundaries (not as part of a longer
identifier or number), so ID-2347 is not found inside ID-23470.
"""
from __future__ import annotations

import re
from pathlib import Path
from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, Iterable, List, Optional, Sequence

from scratchpad_lab.analysis.occurrences import WORD_CHARS, contains  # noqa: F401 (contains: read as facts.contains too)

_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|December|"
           "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec")
_DAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Mon|Tue|Wed|Thu|Fri|Sat|Sun"
_UNITS = (r"%|ms|µs|ns|s|sec|secs|seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|"
          r"milliseconds?|microseconds?|nanoseconds?|micrometres?|micrometers?|nanometres?|nanometers?|"
          r"KB|MB|GB|TB|kB|Mbps|Gbps|kg|g|km|m|cm|mm|°C|°F|rupees?|dollars?|euros?|USD|EUR|INR|GBP|"
          r"atoms|qubits|items?|orders?|users?|requests?|req/s|rps|x")
_LOWER = "[a-zß-öø-ÿ]"  # lower-case letters, accented ones too (Ingrid Sørbø is one name)
_CURRENCY = r"(?:[$€£₹]|USD|EUR|INR|GBP|Rs\.?)"

KINDS = ("url", "email", "path", "datetime", "identifier", "number", "quoted", "name")
QUOTED = (3, 80)  # the length of what is inside the quotes for a quoted string to be a fact
_PATTERNS = [
    ("url", re.compile(r"\bhttps?://[^\s\"'<>)\]}]+[^\s\"'<>)\]}.,;:!?]")),
    ("email", re.compile(r"\b[\w.+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,8}\b")),
    ("path", re.compile(r"(?<![\w/.:-])(?:~|\.{1,2})?(?:/[\w.@-]+){2,}/?|(?<![\w/])[A-Za-z]:\\(?:[\w .-]+\\)*[\w.-]+"
                        r"|(?<![\w/.-])[\w.-]+(?:/[\w.-]+)+\.[A-Za-z0-9]{1,6}\b")),
    ("datetime", re.compile(
        r"\b\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b"
        rf"|\b(?:(?:{_DAYS}),? )?\d{{1,2}} (?:{_MONTHS})(?: \d{{4}})?\b"
        rf"|\b(?:(?:{_DAYS}),? )?(?:{_MONTHS}) \d{{1,2}}(?:st|nd|rd|th)?(?:,? \d{{4}})?\b"
        r"|\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp][Mm])?\b")),
    ("identifier", re.compile(
        r"\b[A-Za-z][A-Za-z]*:\d{4}\.\d{4,5}(?:v\d+)?\b"                      # arXiv:2611.04217
        r"|\bv\d+(?:\.\d+){1,3}\b"                                          # v4.18.2
        r"|\b\d+(?:\.\d+){2,}\b"                                             # 10.118.4.21, 1.2.3
        r"|\b(?=[A-Za-z0-9_.-]{0,64}\d)[A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)+\b"  # A-1001, chk-eu-11, ERR_503
        r"|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b"                               # ERR_DB_POOL_EXHAUSTED
        r"|\b[a-z][a-z0-9]*(?:[._][a-z0-9]+){2,}\b"                         # db.pool.max_size
        r"|\b[A-Z]{1,5}\d{2,}[A-Z0-9]*\b")),                               # NX2, INV88213
    ("number", re.compile(
        rf"{_CURRENCY} ?\d[\d,]{{0,40}}+(?:\.\d+)?"
        rf"|\b\d[\d,]{{0,40}}+(?:\.\d+)? ?(?:{_UNITS})(?![A-Za-z])"
        r"|\b\d+\.\d+\b|\b\d{1,3}(?:,\d{3})+\b|\b\d{3,}\b")),
    # every quoted string is read whole, so a short or long one is passed over as a whole and the next
    # string's opening quote is never taken for a closing one; only 3 to 80 chars inside make a fact (QUOTED)
    ("quoted", re.compile(r"\"([^\"\n]*)\"|“([^“”\n]*)”")),
    ("name", re.compile(rf"(?<![.!?:] )\b[A-Z]{_LOWER}{{2,}}(?: (?:of |de |van |von )?[A-Z]{_LOWER}+)*\b"
                        rf"|\b[A-Z]{_LOWER}+(?: [A-Z]{_LOWER}+)+\b")),
]
# Capitalized words that are the agent's own structure or ordinary sentence words, never names.
_NOT_NAMES = {"Step", "Thought", "Action", "Observation", "Final", "Answer", "Summary", "Summarized", "Key",
              "Tool", "Current", "Error", "Errors", "The", "This", "That", "These", "Those", "There", "Then",
              "When", "What", "Which", "Who", "Why", "How", "None", "True", "False", "Null", "Yes", "No",
              "Please", "Thanks", "Okay", "Note", "Notes", "Status", "Results", "Result", "Findings", "Work",
              "Available", "Context", "Question", "Rules", "Original", "Steps", "Provide", "Remove", "Sorry",
              "INFO", "WARN", "DEBUG"} | set(_DAYS.split("|")) | set(_MONTHS.split("|")) | \
    {day + "s" for day in _DAYS.split("|") if len(day) > 3}
_COMMON_WORDS = frozenset(
    line.strip() for line in (Path(__file__).resolve().parents[1] / "data" / "common_words.txt").read_text(encoding="utf-8").splitlines()
    if line.strip() and not line.startswith("#"))
# What may come right before a sentence's (or a quotation's, or a title's) first word.
_SENTENCE_OPENERS = tuple('.!?:;"“‘([{]-*•>')


def _trim_name(text: str, m_start: int, m_end: int, value: str) -> tuple:
    """(name, start) without leading ordinary words ("When Asha Rao" -> "Asha Rao"), or ("", 0) when
    no name is left: an ordinary word, or a single word that starts a line or labels a value."""
    start = m_start
    words = value.split(" ")
    while words and (words[0] in _NOT_NAMES or words[0] in ("of", "de", "van", "von")):
        start += len(words[0]) + 1
        words = words[1:]
    if not words:
        return "", 0
    value = " ".join(words)
    if len(words) == 1:
        opens_line, last = _before_word(text, start)
        if opens_line or text[m_end:m_end + 1] == ":" or last in _SENTENCE_OPENERS or value.lower() in _COMMON_WORDS:
            return "", 0
    return value, start


_BULLETS = frozenset(" \t-*•>")


def _before_word(text: str, start: int) -> tuple:
    """(whether only whitespace and bullet marks come before `start` on its line, the last other character before
    it or ""), read back from `start` only as far as it must: a line of many single names costs each name the gap
    before it, never the whole line before it."""
    at = start
    while at > 0 and text[at - 1] != "\n" and text[at - 1].isspace():
        at -= 1
    last = text[at - 1] if at > 0 and text[at - 1] != "\n" else ""
    while at > 0 and text[at - 1] in _BULLETS:
        at -= 1
    return at == 0 or text[at - 1] == "\n", last


@dataclass(frozen=True)
class Fact:
    kind: str
    text: str


def extract_facts(text: str, expected: Iterable[str] = ()) -> List[Fact]:
    """Every distinct fact in `text`, in order of first appearance; `expected` strings (a scenario's
    expected facts) that occur in the text come first, as kind "expected". Facts never span lines,
    so lines are read one by one and remembered (the same lines recur in scratchpad after scratchpad)."""
    found: Dict[str, Fact] = {}
    for value in expected:
        if value and expected_in(text, value):
            found.setdefault(value, Fact("expected", value))
    for line in text.split("\n"):
        for fact in line_facts(line):
            found.setdefault(fact.text, fact)
    return list(found.values())


# Every month name the datetime pattern knows starts with one of these; every ISO date has "d-dd-".
_MONTH_HEADS = tuple(dict.fromkeys(month[:3] for month in _MONTHS.split("|")))
_ISO_DATE_HINT = re.compile(r"-\d\d-(?<=\d-\d\d-)")


def _may_match(kind: str, line: str, has_digit: bool) -> bool:
    """False when a kind's pattern cannot match the line (a character it needs is absent): skipping
    it saves a regex pass over a long tool-result line and finds exactly the same facts."""
    if kind == "url":
        return "http" in line
    if kind == "email":
        return "@" in line
    if kind == "path":
        return "/" in line or "\\" in line
    if kind == "datetime":  # a date has "-dd-", a time ":", the other forms a month's name
        return has_digit and (":" in line or any(month in line for month in _MONTH_HEADS)
                              or _ISO_DATE_HINT.search(line) is not None)
    if kind == "number":
        return has_digit
    if kind == "identifier":
        return has_digit or "_" in line or "." in line
    if kind == "quoted":
        return '"' in line or "“" in line
    return True


# How each kind's pattern is searched for (speed only: the matches are exactly the pattern's own).
# Python's regex engine tries a pattern at every position of a line, and a long tool result costs ~1 ms
# over the eight kinds. Where every match of a kind starts with one of a few characters, the search
# pattern begins with that character class, which the engine skips to in C, and then checks the kind's
# own pattern there (a lookahead inside a one-character lookbehind); where every match starts right
# after a non-word character (or at the line's start), it skips to the non-word characters. The match
# itself is then taken with the kind's own pattern at the position found, so it is the same match;
# tests/test_facts.py compares both ways on many lines.
_FIRST_CHARS = {"url": "h", "datetime": r"\dMTWFSJAOND", "number": r"\d$€£₹UEIGR", "quoted": '"“', "name": "A-Z"}
# Kinds whose every match starts at the line's start or right after a non-word character, with what
# must follow there for any of the kind's alternatives to match (a cheap test that skips plain words).
# (For identifiers: a run of digits with two dots, or a word whose letters and digits end at "-_.:", or a
# few capitals before two digits; each alternative of the pattern starts so, and a plain word or a
# plain number like 166.9ms is passed over at once.)
_AT_WORD_START = {"identifier": r"\d++\.\d++\.|[A-Za-z][A-Za-z0-9]*+[-_.:]|[A-Z]{1,5}\d\d",
                  "path": r"(?<![\w/.:-])[~./]|(?<![\w/])[A-Za-z]:\\|(?<![\w/.-])[\w.-]+/"}


def _searcher(kind: str, pattern: re.Pattern) -> Optional[re.Pattern]:
    """The search for `kind`: its whole pattern is captured as group 1 (its own groups follow)."""
    if kind in _FIRST_CHARS:
        first = f"[{_FIRST_CHARS[kind]}]"
        return re.compile(rf"{first}(?<=(?=({pattern.pattern})){first})")
    if kind in _AT_WORD_START:
        return re.compile(rf"\W(?={_AT_WORD_START[kind]})(?=({pattern.pattern}))")
    return None


_SEARCHERS = {kind: _searcher(kind, pattern) for kind, pattern in _PATTERNS}
_DIGIT = re.compile(r"\d")


def _value_span(m: re.Match, first: int, last: int) -> tuple:
    """The span of the first of groups first..last that matched something (a quoted fact's inside),
    else of group first - 1 (the whole match)."""
    for i in range(first, last + 1):
        if m.group(i):
            return m.span(i)
    return m.span(first - 1)


def _matches(kind: str, pattern: re.Pattern, text: str):
    """(start, end, value start, value end) of each match `pattern.finditer(text)` gives (none of these
    patterns matches empty text), found faster: one pass of the kind's searcher, which reports every
    place the pattern matches; a place inside the previous match is passed over, as finditer would."""
    groups = pattern.groups
    searcher = _SEARCHERS[kind]
    if searcher is None:
        for m in pattern.finditer(text):
            yield (*m.span(), *_value_span(m, 1, groups))
        return
    end = 0
    at_word_start = kind in _AT_WORD_START
    if at_word_start:  # a match at the very start has no non-word character before it
        m = pattern.match(text, 0)
        if m:
            yield (*m.span(), *_value_span(m, 1, groups))
            end = m.end()
    # The search goes on from the previous match's end (for a non-word searcher, from the character before it,
    # which it reads as the one before the next match): a place inside a match is never tried, so a long match
    # (a line of "1.1.1...", of "Zorba Zorba ...") is read once, not once from each of its characters.
    while True:
        found = searcher.search(text, max(0, end - 1) if at_word_start else end)
        if found is None:
            return
        start, end = found.span(1)
        yield (start, end, *_value_span(found, 2, groups + 1)) if groups else (start, end, start, end)


# An object's key: a quoted string (double, single, or escaped double quotes of JSON inside a JSON string)
# that opens the line or follows `{`, `,` or `[`, and is followed by `:`. Group 1 is the key with its quotes.
_KEY = re.compile(r"""(?:^|[{,\[])\s*("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\\"(?:[^"\\\n]|\\[^"])*\\")\s*:""")


def _without_keys(line: str) -> str:
    """The line with every object key blanked (same length, so spans still index the line)."""
    if ":" not in line or not ('"' in line or "'" in line):
        return line
    out, last = [], 0
    for m in _KEY.finditer(line):
        start, end = m.span(1)
        out.append(line[last:start])
        out.append(" " * (end - start))
        last = end
    if not out:
        return line
    out.append(line[last:])
    return "".join(out)


@lru_cache(maxsize=65536)
def line_facts(line: str) -> tuple:
    """The facts of one line, in order (remembered: the summarizer and every view ask for the same lines)."""
    return tuple(Fact(kind, value) for _start, _end, kind, value in line_fact_spans(line))


@lru_cache(maxsize=8192)
def line_fact_spans(line: str) -> tuple:
    """(start, end, kind, text) of each fact of one line, in order of start."""
    work = _without_keys(line)  # keys are never facts: no kind sees them
    spans: List[tuple] = []
    has_digit = _DIGIT.search(work) is not None  # the patterns' digits are \d
    for kind, pattern in _PATTERNS:
        if not _may_match(kind, line, has_digit):
            continue

        pieces, last = [], 0  # what pattern.sub() gives, each match replaced by blanks once claimed
        for m_start, m_end, start, end in _matches(kind, pattern, work):
            raw = line[start:end]
            value = raw.strip()  # from the line itself: earlier kinds blanked `work`
            if value is not raw:
                start += len(raw) - len(raw.lstrip())
            pieces.append(work[last:m_start])
            last = m_end
            if kind == "quoted" and not QUOTED[0] <= len(raw) <= QUOTED[1]:
                pieces.append(work[m_start:m_end])  # passed over whole; later kinds still read inside it
                continue
            if kind == "name":
                value, start = _trim_name(line, m_start, m_end, value)  # context from the line itself
                if not value:
                    pieces.append(work[m_start:m_end])
                    continue
            spans.append((start, start + len(value), kind, value))
            pieces.append(" " * (m_end - m_start))
        if pieces:
            pieces.append(work[last:])
            work = "".join(pieces)
    return tuple(sorted(spans, key=lambda span: span[0]))


def clear_caches() -> None:
    """Forget remembered lines (benchmarks measure a first replay with this)."""
    line_facts.cache_clear()
    line_fact_spans.cache_clear()
    _RETENTIONS.clear()
    _RETENTIONS_CHARS[0] = 0


_BOUNDARY_CACHE: Dict[tuple, re.Pattern] = {}


_WORD_CHARS = WORD_CHARS  # [A-Za-z0-9_]
# Past this much work (values x chars of the text), many values are looked for in a text at once
# (analysis/occurrences.py), not one by one: below it, the one-by-one search is the quicker.
AT_ONCE_FROM = 20_000_000


def present_in(text: str, values: Sequence[str], relaxed: Sequence[bool] = (), whole: bool = True) -> List[bool]:
    """For each value: is it in `text`, as a whole fact (`contains`, relaxed where told) or, with `whole` False, as
    plain text (`value in text`)? The same answers as asking one by one, in time linear in the text."""
    relaxed = list(relaxed) or [False] * len(values)
    if len(values) * len(text) < AT_ONCE_FROM:
        return [(contains(text, v, r) if whole else v in text) for v, r in zip(values, relaxed)]
    from scratchpad_lab.analysis.occurrences import Occurrences
    return Occurrences(text).found(values, relaxed, whole)


def fact_pattern(value: str, relaxed: bool = False) -> re.Pattern:
    """A regex finding `value` with fact boundaries (cached: the same facts are looked for often)."""
    pattern = _BOUNDARY_CACHE.get((value, relaxed))
    if pattern is None:
        left = r"(?<![A-Za-z0-9_])" if value[:1].isalnum() or value[:1] == "_" else ""
        right = ""
        if value[-1:].isalnum() or value[-1:] == "_":
            right = r"(?![A-Za-z0-9_])" if relaxed else r"(?![A-Za-z0-9_]|[.,]\d)"
        pattern = re.compile(left + re.escape(value) + right)
        if len(_BOUNDARY_CACHE) > 4096:
            _BOUNDARY_CACHE.clear()
        _BOUNDARY_CACHE[(value, relaxed)] = pattern
    return pattern


@dataclass
class Retention:
    before: List[Fact]
    kept: List[Fact]
    lost: List[Fact]

    @property
    def share(self) -> Optional[float]:
        return round(len(self.kept) / len(self.before), 4) if self.before else None


def expected_in(text: str, value: str) -> bool:
    """Is a scenario's expected fact in `text`? The one rule for the answer score, the scripted
    agent's answer and the cards: whole-fact boundaries, relaxed before a decimal part."""
    return contains(text, value, relaxed=True)


def is_in(text: str, fact: Fact) -> bool:
    return expected_in(text, fact.text) if fact.kind == "expected" else contains(text, fact.text)


_RETENTIONS: Dict[tuple, tuple] = {}  # (before, after, expected) -> (facts, kept, lost)
# The texts the memo's keys refer to, in chars (they are the events' own strings, shared, not copies):
# emptied past 32 million, so a 1,600-step run's compressions (~9 million) stay remembered while its
# views redraw, and a sweep never keeps more than ~32 MB of finished cells' texts alive.
_RETENTIONS_CHARS = [0]


def retention(before: str, after: str, expected: Sequence[str] = ()) -> Retention:
    """The facts of `before`, split into those still in `after` and those lost. Remembered per (before,
    after, expected): the cells of a sweep share most of their compressions (a 6 x 6 sweep of 100 steps
    has 2,515 compressions and 637 distinct ones), and a view asks again for the ones it shows."""
    key = (before, after, tuple(expected))
    found = _RETENTIONS.get(key)
    if found is None:
        facts = extract_facts(before, expected)
        kept: List[Fact] = []
        lost: List[Fact] = []
        present = present_in(after, [f.text for f in facts], [f.kind == "expected" for f in facts])
        for f, there in zip(facts, present):  # each fact looked for once
            (kept if there else lost).append(f)
        if _RETENTIONS_CHARS[0] > 32_000_000:
            _RETENTIONS.clear()
            _RETENTIONS_CHARS[0] = 0
        _RETENTIONS_CHARS[0] += len(before) + len(after)
        found = _RETENTIONS[key] = (tuple(facts), tuple(kept), tuple(lost))
    return Retention(list(found[0]), list(found[1]), list(found[2]))
