"""Which lines of a scratchpad survived a compression, and which were dropped.

Streamlit-free, so the classification is unit-tested and shared by every view of a compression.
A summary rarely copies lines whole, so a `before` line is:
  kept     - its text (whitespace-normalised) is in the summary;
  partial  - a piece of the summary (12+ chars, e.g. a clipped line) comes from it;
  dropped  - nothing of it is in the summary.
An `after` line is `carried` when its text comes from `before`, else `new` (the summarizer's words).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Tuple

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
