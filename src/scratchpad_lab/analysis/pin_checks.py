"""Pins kept: the one rule of whether a compression kept what a person pinned (model/pins.py), and the run's count.

Streamlit-free, pure functions over text and recorded events; the pins are read from the run's config (the
run_start event carries it), so a live run, a finished run, a loaded file and the CLI read them the same way.

- A compression holds a pin when the text it replaced holds it: the pin's words, in order, whitespace made
  single and case aside, as a whole (facts.contains: "A-100" is not held by "A-1001"). It lost the pin when
  what it wrote does not hold it.
- Only a compression that replaced something (status ok) is checked: one that replaced nothing kept all.
- Over a run: a pin is met when some compression held it, kept when it was met and no compression lost it
  (lost once, it counts as lost even if a later step read it again). "2 of 3 pins kept" counts the pins met;
  a pin no compression met is said apart ("1 never compressed"), never counted as kept.
A run with no pins has no pin figure: its other figures are what they were before pins.
"""
from __future__ import annotations

from functools import lru_cache
from typing import List, Sequence, Tuple

from scratchpad_lab.analysis.facts import contains
from scratchpad_lab.analysis.metrics import of_kind

NO_PINS = "no pins"


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def holds(text: str, pin: str) -> bool:
    """Does `text` hold `pin` (whitespace and case aside, as a whole)?"""
    return bool(pin.strip()) and contains(_norm(text), _norm(pin))


@lru_cache(maxsize=4096)  # the figures row, the cards and the status row ask of the same cuts
def _check(before: str, after: str, pins: tuple) -> Tuple[tuple, tuple]:
    held = tuple(p for p in pins if holds(before, p))
    return held, tuple(p for p in held if not holds(after, p))


def check(before: str, after: str, pins: Sequence[str]) -> Tuple[List[str], List[str]]:
    """(the pins `before` held, those of them `after` lost), in the pins' order."""
    held, lost = _check(before, after, tuple(pins))
    return list(held), list(lost)


def run_pins(events: Sequence) -> List[str]:
    """The pins of a run, from its config (run_start); [] for a run without, or a file from before pins."""
    starts = of_kind(events, "run_start")
    config = (starts[0].payload.config or {}) if starts else {}
    return [str(p) for p in config.get("pins") or []]


def over_compressions(events: Sequence) -> Tuple[List[str], List[str], List[str]]:
    """(the run's pins, those some compression met, those some compression lost), each in the pins' order."""
    pins = run_pins(events)
    if not pins:
        return [], [], []
    met, lost = set(), set()
    for e in of_kind(events, "compression"):
        if e.payload.status != "ok":
            continue
        held, gone = _check(e.payload.before or "", e.payload.after or "", tuple(pins))
        met.update(held)
        lost.update(gone)
    return pins, [p for p in pins if p in met], [p for p in pins if p in lost]


def pins_text(pins: int, met: int, kept: int) -> str:
    """The pin figure as every page and the CLI say it: "2 of 3 pins kept", with the pins no compression met
    said apart; "no pins" for a run without."""
    if not pins:
        return NO_PINS
    never = pins - met
    apart = f"{never} never compressed" if never else ""
    if not met:
        return f"{pins} pin{'s' if pins != 1 else ''}, none in a compressed scratchpad"
    return f"{kept} of {met} pin{'s' if met != 1 else ''} kept" + (f" ({apart})" if apart else "")
