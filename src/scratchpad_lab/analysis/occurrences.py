"""Many values looked for in one long text at once: which of them occur, each by facts.contains' rule (a whole
fact: not inside a longer identifier or number) or as plain text (`value in text`).

Streamlit-free, numpy only. Looking for each value in the whole text costs values x text: a 1,000,000-char
scratchpad of 125,000 distinct ids took 133 s to check against another, 37,000 dotted ids of two digits
("1.2.1.1") 114 s, 91,000 quoted Greek words 48 s (issue 46). Here the text is read once into rolling hashes
(a polynomial over its code points, mod 2**64), so any window's hash is two lookups, and every value is
looked for at once:
- a value shorter than ANCHOR chars: one pass over the text per such length (at most ANCHOR - 1 passes) finds
  every window whose hash is a value's;
- a longer value: the text's ANCHOR-char windows are sorted once; a value is looked for only where its rarest
  ANCHOR-char piece is, and those places are checked with its whole hash.
Each place found is then checked against the value's boundaries, and the first that passes is compared as
text, so a hash collision costs a comparison, never a wrong answer. The work is linear in the text and the
values, plus, for a long value all of whose pieces are everywhere in the text (values of "1.1.1..." in a text of
it), the places of its rarest piece, taken CHUNK at a time so memory stays bounded.
"""
from __future__ import annotations

from typing import Any, List, Sequence

WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")  # [A-Za-z0-9_]
ANCHOR = 8
CHUNK = 1 << 19          # candidate places checked at a time (a few MB of arrays)
_BASE = 0x9E3779B97F4A7C15  # odd, so it has an inverse mod 2**64


def _codes(text: str) -> Any:
    import numpy as np
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.uint64)


class _Hashes:
    """Rolling hashes of one text: `window(starts, lengths)` is the hash of each text[s:s + length]."""

    def __init__(self, text: str) -> None:
        import numpy as np

        n = len(text)
        self.codes = _codes(text)
        powers = np.ones(n + 1, dtype=np.uint64)
        powers[1:] = np.cumprod(np.full(n, _BASE, dtype=np.uint64))  # wraps mod 2**64, as meant
        self.inverse = np.ones(n + 1, dtype=np.uint64)
        self.inverse[1:] = np.cumprod(np.full(n, pow(_BASE, -1, 1 << 64), dtype=np.uint64))
        self.sums = np.zeros(n + 1, dtype=np.uint64)
        np.cumsum(self.codes * powers[:n], out=self.sums[1:])

    def window(self, starts: Any, lengths: Any) -> Any:
        return (self.sums[starts + lengths] - self.sums[starts]) * self.inverse[starts]


class Occurrences:
    """One text, read for looking many values up in it (`found`)."""

    def __init__(self, text: str) -> None:
        import numpy as np

        self.text, self.n = text, len(text)
        self.hashes = _Hashes(text)
        codes, n = self.hashes.codes, self.n
        # a word character at each place, and "[.,] then a decimal digit" (contains' right boundary); place n
        # (past the end) is neither, and so reads place -1 (before the start)
        ascii_word = np.zeros(128, dtype=bool)
        ascii_word[[ord(c) for c in WORD_CHARS]] = True
        self.word = np.zeros(n + 1, dtype=bool)
        self.word[:n] = (codes < 128) & ascii_word[np.minimum(codes, 127).astype(np.intp)]
        self.decimal_next = np.zeros(n + 1, dtype=bool)
        marks = np.nonzero((codes[:-1] == ord(".")) | (codes[:-1] == ord(",")))[0]
        self.decimal_next[[int(p) for p in marks if text[p + 1].isdecimal()]] = True
        self._anchors: Any = None

    def found(self, values: Sequence[str], relaxed: Sequence[bool] = (), whole: bool = True) -> List[bool]:
        """For each value: does it occur in the text (whole: by facts.contains' rule, relaxed where told; else as
        plain text)?"""
        import numpy as np

        count = len(values)
        out = np.zeros(count, dtype=bool)
        lengths = np.array([len(v) for v in values], dtype=np.int64)
        joined = _Hashes("".join(values))
        firsts = np.zeros(count, dtype=np.int64)
        firsts[1:] = np.cumsum(lengths)[:-1]
        full = joined.window(firsts, lengths)
        flags = {"relaxed": np.array(list(relaxed) or [False] * count, dtype=bool),
                 "left": np.array([v[:1].isalnum() or v[:1] == "_" for v in values], dtype=bool),
                 "right": np.array([v[-1:].isalnum() or v[-1:] == "_" for v in values], dtype=bool)}
        usable = (lengths > 0) & (lengths <= self.n)
        for length in range(1, ANCHOR):
            ks = np.nonzero(usable & (lengths == length))[0]
            if len(ks):
                self._short(values, ks, length, full, flags, whole, out)
        ks = np.nonzero(usable & (lengths >= ANCHOR))[0]
        if len(ks):
            self._long(values, ks, lengths, joined, firsts, full, flags, whole, out)
        return [bool(x) for x in out]

    def _short(self, values, ks, length, full, flags, whole, out) -> None:
        """Values of one length under ANCHOR: every window of that length whose hash is one of theirs."""
        import numpy as np

        wanted = full[ks]
        ranked_at = np.argsort(wanted, kind="stable")
        ranked = wanted[ranked_at]
        twins = ranked[1:] == ranked[:-1]
        for k in ks[ranked_at[1:][twins]]:  # two values, one hash (a collision): the later one looked up alone
            out[k] = self._plain(values[int(k)], bool(flags["relaxed"][k]), whole)
        hashes = self.hashes.window(np.arange(self.n - length + 1), length)
        at = np.minimum(np.searchsorted(ranked, hashes), len(ranked) - 1)
        places = np.nonzero(ranked[at] == hashes)[0]
        self._settle(values, ks[ranked_at[at[places]]], places, length, flags, whole, out)

    def _long(self, values, ks, lengths, joined, firsts, full, flags, whole, out) -> None:
        """Values of ANCHOR chars or more: each looked for where its rarest ANCHOR-char piece is."""
        import numpy as np

        if self._anchors is None:  # the text's ANCHOR-char windows, sorted once
            hashes = self.hashes.window(np.arange(self.n - ANCHOR + 1), ANCHOR)
            order = np.argsort(hashes, kind="stable")
            self._anchors = (hashes[order], order)
        ranked, order = self._anchors
        pieces = lengths[ks] - ANCHOR + 1                      # each value's ANCHOR-char pieces
        owner = np.repeat(np.arange(len(ks)), pieces)
        offset = np.arange(len(owner)) - np.repeat(np.cumsum(pieces) - pieces, pieces)
        piece_hashes = joined.window(firsts[ks][owner] + offset, ANCHOR)
        lows, highs = np.searchsorted(ranked, piece_hashes, "left"), np.searchsorted(ranked, piece_hashes, "right")
        by_count = np.lexsort((highs - lows, owner))           # each value's rarest piece first
        rarest = by_count[np.searchsorted(owner[by_count], np.arange(len(ks)))]
        lo, hi, off = lows[rarest], highs[rarest], offset[rarest]
        todo = np.nonzero(hi > lo)[0]
        while len(todo):  # CHUNK places at a time; a value with more takes several turns
            take = np.minimum(hi[todo] - lo[todo], np.maximum(1, CHUNK // len(todo)))
            at = np.repeat(lo[todo] - np.cumsum(take) + take, take) + np.arange(int(take.sum()))
            which = np.repeat(todo, take)
            places = order[at] - off[which]
            k = ks[which]
            fits = (places >= 0) & (places + lengths[k] <= self.n)
            places, k = places[fits], k[fits]
            same = self.hashes.window(places, lengths[k]) == full[k]
            self._settle(values, k[same], places[same], lengths[k[same]], flags, whole, out)
            lo[todo] += take
            todo = todo[(lo[todo] < hi[todo]) & ~out[ks[todo]]]

    def _settle(self, values, k, places, length, flags, whole, out) -> None:
        """Values `k` whose hash is at `places`: found where the boundaries hold and the text is the value."""
        import numpy as np

        if whole:
            ends = places + length
            keep = ~(flags["left"][k] & self.word[places - 1])
            keep &= ~(flags["right"][k] & (self.word[ends] | (~flags["relaxed"][k] & self.decimal_next[ends])))
            k, places = k[keep], places[keep]
        by_value = np.argsort(k, kind="stable")
        k, places = k[by_value], places[by_value]
        starts = np.searchsorted(k, np.unique(k))
        for first, stop in zip(starts, list(starts[1:]) + [len(k)]):
            value = values[int(k[first])]
            if not out[k[first]]:  # a collision fails the comparison; the value's next place is tried
                out[k[first]] = any(self.text.startswith(value, int(p)) for p in places[first:stop])

    def _plain(self, value: str, relaxed: bool, whole: bool) -> bool:
        return contains(self.text, value, relaxed) if whole else value in self.text


def contains(text: str, value: str, relaxed: bool = False) -> bool:
    """Is `value` in `text` as a whole fact (not inside a longer identifier or number)? `relaxed`
    also accepts it before a decimal part (an expected time 02:17:09 in a log's 02:17:09.381)."""
    if value not in text:
        return False
    # What fact_pattern(value, relaxed).search(text) answers, without compiling a pattern per value (a
    # long run has tens of thousands of distinct facts): each occurrence, overlapping ones too, is
    # checked against the same boundaries.
    at = text.find(value)
    while at >= 0:
        if whole_at(text, value, at, relaxed):
            return True
        at = text.find(value, at + 1)
    return False


def whole_at(text: str, value: str, at: int, relaxed: bool) -> bool:
    """Is the occurrence of `value` at `at` of `text` a whole fact (contains' boundaries)?"""
    after = at + len(value)
    left = value[:1].isalnum() or value[:1] == "_"
    right = value[-1:].isalnum() or value[-1:] == "_"
    return not (left and at and text[at - 1] in WORD_CHARS) and not (right and after < len(text) and (
        text[after] in WORD_CHARS or (not relaxed and text[after] in ".," and after + 1 < len(text)
                                       and text[after + 1].isdecimal())))
