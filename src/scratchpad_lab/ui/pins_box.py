"""The Playground's pins: the sidebar's box of pins and its switch, and the buttons that pin a lost fact or a
line of the scratchpad.

A pin is the person's own text (model/pins.py has its limits, analysis/pin_checks.py the rule of a pin kept). It is
kept in one text area, one pin a line (state.K_PINS), so a typed phrase, a pinned chip and a pinned line are
the same thing, edited in one place; the run takes them when it starts (settings.read_config). Pin text is
untrusted on screen like any other: shown through widgets' plain labels, st.text, or escaped.
"""
from __future__ import annotations

from typing import List, Sequence

import streamlit as st

from scratchpad_lab.model.pins import MAX_PIN_CHARS, MAX_PINS, normal
from scratchpad_lab.ui.state import K_PINS, K_PINS_OPEN, K_PINS_TO_SUMMARIZER


def pins_from_state() -> List[str]:
    """The pins in the box, one a line; blank lines are no pins (an empty pin is refused where it is typed in
    other ways: a lesson, a preset, `--pin`)."""
    return [line for line in str(st.session_state.get(K_PINS) or "").splitlines() if line.strip()]


def pins_to_summarizer() -> bool:
    return bool(st.session_state.get(K_PINS_TO_SUMMARIZER))


def pin(text: str) -> None:
    """Add `text` to the pins (a button's callback: before the box is drawn again), once."""
    text = normal(text)
    pins = pins_from_state()
    if text and text not in [normal(p) for p in pins]:
        st.session_state[K_PINS] = "\n".join(pins + [text])


def set_pins(pins: Sequence[str]) -> None:
    """Put these pins in the box (a lesson's or a preset's)."""
    st.session_state[K_PINS] = "\n".join(pins)


def sidebar_pins(follows_prompt: bool) -> None:
    """The pins box and the switch, in the sidebar, inside a folded "Pins" expander whose widgets are drawn only
    while it is open (as Advanced's: the first page does without a text area); its title counts the pins, so
    a pin added from a card shows there at once, and the pins live on in session state while it is folded."""
    st.session_state.setdefault(K_PINS, "")
    st.session_state.setdefault(K_PINS_TO_SUMMARIZER, False)
    sb = st.sidebar
    count = len(pins_from_state())
    title = f"Pins: {count} must survive" + (", passed to the summarizer" if count and pins_to_summarizer() else "")
    box = sb.expander(title if count else "Pins: text that must survive", key=K_PINS_OPEN, on_change="rerun")
    if box.open:
        box.text_area("Pins: text that must survive (one a line)", key=K_PINS, height=90,
                      placeholder="e.g. A-1001\ndo not refund before the courier scan",
                      help=f"Every compression is checked against each pin; a lost pin is flagged on its card and in "
                           f"the status row. At most {MAX_PINS} pins of up to {MAX_PIN_CHARS} chars. Pin a lost fact "
                           "or a line of the scratchpad from a run below.")
        box.toggle("Pass pins to the summarizer", key=K_PINS_TO_SUMMARIZER,
                   help="Adds 'Keep these verbatim in the summary: ...' and the pins to the summarizer's prompt, so "
                        "you see whether asking helps. Only a model follows it: the extractive summarizer ignores "
                        "prompts.")
    if pins_to_summarizer() and pins_from_state() and not follows_prompt:
        sb.caption("The extractive summarizer does not follow prompts: choose a model as the Summarizer for the "
                   "pins to be asked for.")


def pin_picker(options: Sequence[str], key: str, label: str) -> None:
    """A picker of texts to pin (a card's lost facts, the scratchpad's lines) and its Pin button. The options
    are shown as a selectbox's plain text."""
    shown = [o for o in dict.fromkeys(normal(o) for o in options) if o and len(o) <= MAX_PIN_CHARS]
    if not shown:
        return
    with st.container(horizontal=True, vertical_alignment="bottom", gap="small"):
        st.selectbox(label, shown, key=f"{key}_pick", width=320)
        st.button("Pin it", key=f"{key}_pin", on_click=lambda: pin(st.session_state[f"{key}_pick"]),
                  help="Adds it to the pins in the sidebar: the next run checks every compression against it.")


def scratchpad_lines(events: Sequence) -> List[str]:
    """The lines the run's scratchpad held (every iteration's, as sent), once each, in the order they came:
    what "Pin a line of the scratchpad" offers."""
    seen: dict = {}
    for e in events:
        if e.kind == "iteration":
            for line in str(e.payload.scratchpad or "").splitlines():
                line = normal(line)
                if len(line) >= 3:
                    seen.setdefault(line, None)
    return list(seen)
