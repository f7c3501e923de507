"""Which lines of a scratchpad survived a compression, and which were dropped.

Streamlit-free, so the classification is unit-tested and shared by every view of a compression.
A summary rarely copies lines whole, so a `before` line is:
  kept     - its text (whitespace-normalised) is in the summary;
  partial  - a piece of the summary (12+ chars, e.g. a clipped line) comes from it;
  dropped  - nothing of it is in the summary.
An `after` line is `carried` when its text comes from `before`, else `new` (the summarizer's words).
The word-level view (`merged_words`) and the aligned side-by-side view (`aligned_lines`) are below.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import List, Optional, Tuple

_BULLET = re.compile(r"^\s*(?:[-*•]\s+)?")
_MIN_PIECE = 12


def _norm(text: str) -> str:
    return " ".join(text.split())


def _pieces(line: str) -> List[str]:
    """Text a summary line carries over: without its bullet, split at ellipses (clipped lines)."""
    body = _BULLET.sub("", line, count=1)
    return [p.strip() for p in _norm(body).split("…") if len(p.strip()) >= _MIN_PIECE]


@dataclass
class LineDiff:
    before: List[Tuple[str, str]]    # (status, line): kept | partial | dropped | blank
    after: List[Tuple[str, str]]     # (status, line): carried | new | blank

    @property
    def counts(self) -> dict:
        out = {"kept": 0, "partial": 0, "dropped": 0}
        for status, _ in self.before:
            if status in out:
                out[status] += 1
        return out


def diff_lines(before: str, after: str) -> LineDiff:
    after_norm = _norm(after)
    before_norm = _norm(before)
    after_pieces = [p for line in after.splitlines() for p in _pieces(line)]
    before_out: List[Tuple[str, str]] = []
    for line in before.splitlines():
        text = _norm(line)
        if not text:
            before_out.append(("blank", line))
        elif text in after_norm:
            before_out.append(("kept", line))
        elif any(piece in text for piece in after_pieces):
            before_out.append(("partial", line))
        else:
            before_out.append(("dropped", line))
    after_out: List[Tuple[str, str]] = []
    for line in after.splitlines():
        text = _norm(_BULLET.sub("", line, count=1))
        if not text:
            after_out.append(("blank", line))
        elif text in before_norm or any(p in before_norm for p in _pieces(line)):
            after_out.append(("carried", line))
        else:
            after_out.append(("new", line))
    return LineDiff(before_out, after_out)


_MARK = {"kept": "  ", "partial": "~ ", "dropped": "- ", "blank": "  ", "carried": "  ", "new": "+ "}


def as_diff_text(lines: List[Tuple[str, str]]) -> str:
    """Lines prefixed for a `diff`-highlighted code block: '- ' dropped, '~ ' partly kept, '+ ' new."""
    return "\n".join(_MARK[status] + line for status, line in lines)


# ── word level: one merged text, and side by side with unchanged lines aligned ──────────────────────

_WORDS = re.compile(r"\s*\S+\s*|\s+")
_MAX_WORD_PAIRS = 4_000_000  # words before x words after in one changed block; beyond, that block is compared by line


def _words(text: str) -> List[str]:
    return _WORDS.findall(text)


def _key(word: str) -> str:
    return word.strip().rstrip(",.;:") or word.strip()


def _merge_same(pieces: List[Tuple[str, str]]) -> List[Tuple[str, str]]:
    out: List[Tuple[str, str]] = []
    for text, status in pieces:
        if not text:
            continue
        if out and out[-1][1] == status:
            out[-1] = (out[-1][0] + text, status)
        else:
            out.append((text, status))
    return out


_MIN_MATCH = 12  # chars of plain words (without spaces) a kept run needs inside a changed block


def _substantive(words: List[str]) -> bool:
    """A matched run worth showing as kept: long enough, or holding a word that carries information
    (a digit, a capital, a long word), so "A-1001" counts and "to the" does not."""
    return len("".join(words)) >= _MIN_MATCH or any(
        any(ch.isdigit() or ch.isupper() for ch in w) or len(w) >= 7 for w in words)


def _word_pieces(before: str, after: str) -> List[Tuple[str, str]]:
    a, b = _words(before), _words(after)
    if len(a) * len(b) > _MAX_WORD_PAIRS:
        return [(before, "dropped"), (after, "new")]
    # matched on the word alone (without the spacing after it, or a trailing comma or full stop), so a
    # word at the end of a summary line matches the same word mid-sentence in the scratchpad
    ka, kb = [_key(w) for w in a], [_key(w) for w in b]
    matcher = difflib.SequenceMatcher(None, ka, kb, autojunk=False)
    runs: List[Tuple[bool, str, str]] = []  # (kept, before text, after text)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        # a short run of common words ("to", "the step") matched inside rewritten text is chance, not
        # a kept phrase: it stays part of the change, so the change reads as whole phrases
        kept = op == "equal" and _substantive(ka[i1:i2])
        if runs and not kept and not runs[-1][0]:
            _, x, y = runs.pop()
            runs.append((False, x + "".join(a[i1:i2]), y + "".join(b[j1:j2])))
        else:
            runs.append((kept, "".join(a[i1:i2]), "".join(b[j1:j2])))
    out: List[Tuple[str, str]] = []
    for kept, dropped, new in runs:
        if kept:
            out.append((new, "kept"))  # the summary's own spacing and line breaks
            continue
        if dropped.strip() and new.strip():
            dropped = dropped.rstrip() + " "  # replaced words: the new ones follow on the same line
        # whitespace that changed is not worth a mark: the words around it say what happened
        if dropped.strip():
            out.append((dropped, "dropped"))
        if new.strip():
            out.append((new, "new"))
        elif new and not dropped.strip():
            out.append((new, "kept"))
    return out


def merged_words(before: str, after: str) -> List[Tuple[str, str]]:
    """The compression as one text: (piece, status) with status kept | dropped | new, in reading order.

    Lines are matched first (a summary keeps many lines whole, and this keeps large scratchpads fast);
    inside each changed block of lines, words are matched, so a line the summarizer shortened shows the
    words it dropped struck through next to the ones it kept. Pieces joined in order give `after`'s
    kept and new words and `before`'s kept and dropped words."""
    a_lines, b_lines = before.splitlines(keepends=True), after.splitlines(keepends=True)
    out: List[Tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(None, a_lines, b_lines, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out.append(("".join(a_lines[i1:i2]), "kept"))
        elif op == "delete":
            out.append(("".join(a_lines[i1:i2]), "dropped"))
        elif op == "insert":
            out.append(("".join(b_lines[j1:j2]), "new"))
        else:
            out += _word_pieces("".join(a_lines[i1:i2]), "".join(b_lines[j1:j2]))
    return _merge_same(out)


def word_counts(pieces: List[Tuple[str, str]]) -> dict:
    out = {"kept": 0, "dropped": 0, "new": 0}
    for text, status in pieces:
        out[status] += len(text.split())
    return out


@dataclass
class AlignedRow:
    before: Optional[str]   # None: no line on this side (the other side's line has no counterpart)
    after: Optional[str]
    before_mark: str        # " " kept, "-" dropped, "~" partly kept (some of its words are in the summary)
    after_mark: str         # " " carried, "+" written by the summarizer


_SIDE_MARK = {"kept": " ", "partial": "~", "dropped": "-", "blank": " ", "carried": " ", "new": "+"}


def aligned_lines(before: str, after: str) -> List[AlignedRow]:
    """Side by side with unchanged lines on the same row; each line carries at most one mark, the
    line's status from `diff_lines` (one home for what kept, partly kept and new mean)."""
    a_lines, b_lines = before.splitlines(), after.splitlines()
    status = diff_lines(before, after)
    a_mark = [_SIDE_MARK[s] for s, _ in status.before]
    b_mark = [_SIDE_MARK[s] for s, _ in status.after]
    rows: List[AlignedRow] = []
    matcher = difflib.SequenceMatcher(None, a_lines, b_lines, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            rows += [AlignedRow(a_lines[i1 + k], b_lines[j1 + k], " ", " ") for k in range(i2 - i1)]
            continue
        for k in range(max(i2 - i1, j2 - j1)):
            i, j = i1 + k, j1 + k
            rows.append(AlignedRow(a_lines[i] if i < i2 else None, b_lines[j] if j < j2 else None,
                                   a_mark[i] if i < i2 else " ", b_mark[j] if j < j2 else " "))
    return rows


def aligned_text(rows: List[AlignedRow]) -> Tuple[str, str]:
    """The two panes as text with the same number of lines: row k of one is row k of the other."""
    left = "\n".join(("" if r.before is None else f"{r.before_mark} {r.before}") for r in rows)
    right = "\n".join(("" if r.after is None else f"{r.after_mark} {r.after}") for r in rows)
    return left, right
