"""Pins: text a person says must survive compression, its limits, and the line that asks a summarizer for it.

Streamlit-free plain data and rules. A pin is a phrase (a lost fact, a line of the scratchpad, something typed);
a run carries its pins in its config (RunConfig.pins), so they travel with the run file and the stored run, and
every compression is checked against them (analysis/pin_checks.py: the one rule of a pin kept).

The limits are one home for every surface (the Playground, lessons, presets, `--pin`): a pin is not empty, a
pin is at most MAX_PIN_CHARS, and a run has at most MAX_PINS, because with "pass pins to the summarizer" on
they are all sent in every summarizer prompt (`with_pins`), which has its own limit (config.MAX_PROMPT_CHARS).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, List, Sequence, Tuple

MAX_PINS = 10          # pins a summarizer prompt carries (each is sent at every compression)
MAX_PIN_CHARS = 200    # one pin: a phrase or a line, not a document
# What "pass pins to the summarizer" adds to the summarizer's prompt, through its own prompt parameter.
ASK = "Keep these verbatim in the summary (copy each exactly):"


def normal(pin: str) -> str:
    """A pin as the lab keeps it: its whitespace made single, its ends stripped (a line of a scratchpad
    pinned as shown)."""
    return " ".join(str(pin).split())


def check_pins(pins: Iterable[str]) -> List[str]:
    """The pins, each normal and once, in their order; ValueError (a sentence naming the limit) for an empty
    pin, a pin over MAX_PIN_CHARS or more than MAX_PINS."""
    out: List[str] = []
    for n, raw in enumerate(pins, start=1):
        if not isinstance(raw, str):
            raise ValueError(f"Pin {n} must be text.")
        pin = normal(raw)
        if not pin:
            raise ValueError(f"Pin {n} is empty: write the text that must survive compression, or remove it.")
        if len(pin) > MAX_PIN_CHARS:
            raise ValueError(f"Pin {n} is {len(pin):,} characters; a pin may be at most {MAX_PIN_CHARS}: "
                             "pin a shorter phrase.")
        if pin not in out:
            out.append(pin)
    if len(out) > MAX_PINS:
        raise ValueError(f"{len(out)} pins given; a summarizer prompt carries at most {MAX_PINS}: "
                         f"remove {len(out) - MAX_PINS}.")
    return out


def pins_clause(pins: Sequence[str]) -> str:
    """The words a summarizer is sent for the pins: ASK, then one pin a line ("" without pins)."""
    if not pins:
        return ""
    return "\n\n" + ASK + "\n" + "\n".join(f"- {p}" for p in pins) + "\n"


def with_pins(template: str, pins: Sequence[str]) -> str:
    """A str.format prompt template (the autourgos middleware's, LangChain's) with the pins asked for at its
    end, a brace in a pin written as a literal brace."""
    return template + pins_clause(pins).replace("{", "{{").replace("}", "}}")


@dataclass(frozen=True)
class Pinned:
    """A study's pins (Strategies: one set for every strategy of the job) and its "pass pins to the summarizer"
    switch; the pins checked at construction (check_pins: ValueError naming the limit)."""

    pins: Tuple[str, ...] = ()
    to_summarizer: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "pins", tuple(check_pins(self.pins)))

    @property
    def asked(self) -> bool:
        """Are the pins sent to the summarizer (the switch on, and pins to send)?"""
        return self.to_summarizer and bool(self.pins)

    def prompt(self, template: str) -> str:
        """A str.format prompt template with the pins asked for at its end when they are sent; else as it is."""
        return with_pins(template, self.pins) if self.asked else template


NO_PINS = Pinned()
