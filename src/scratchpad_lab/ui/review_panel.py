"""Review mode in the playground: each proposed summary waits for the person (accept, edit, reject).

The engine is review.py (a ReviewGate the run observer calls); this module draws the switch and the
panel. The panel is drawn inside the playground's live fragment, so it appears within a refresh of
the run pausing. Scratchpad and proposal text are untrusted: st.code and a text area only.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from scratchpad_lab.ui.state import PLAY_REVIEW

if TYPE_CHECKING:
    from scratchpad_lab.engine.tasks import ReviewGate
# The switch is on the first page; the gate (fact analysis) and the cards are imported where a run uses them.


def review_switch() -> None:
    st.session_state.setdefault(PLAY_REVIEW, False)
    st.toggle("Review each compression", key=PLAY_REVIEW,
              help="When the middleware calls the summarizer, the run pauses and shows you the proposed summary "
                   "next to the scratchpad it would replace. Accept it, edit it, or reject it (the package then "
                   "keeps the scratchpad and tries again at its next trigger).")


def review_on() -> bool:
    """Whether a run started now is reviewed: the switch (the run task attaches the gate, engine/tasks)."""
    return bool(st.session_state.get(PLAY_REVIEW))


def _edit(gate: ReviewGate, key: str) -> None:
    gate.decide("edited", str(st.session_state.get(key, "")))


def review_panel(run) -> None:
    from scratchpad_lab.engine.tasks import ReviewGate
    from scratchpad_lab.ui.cards import mark_facts
    gate = getattr(run.observer, "reviewer", None)
    if not isinstance(gate, ReviewGate) or run.finished:
        return
    pending = gate.pending
    if pending is None:
        st.caption("Review mode: each proposed summary will wait for you before it applies.")
        return
    n = pending.number
    kept = len(pending.facts_before) - len(pending.facts_lost)
    with st.container(border=True, key="play_review_box"):
        st.markdown(f"**Review compression {n} (iteration {pending.iteration})**: the run waits for your decision.")
        st.text(f"The proposal keeps {kept} of {len(pending.facts_before)} facts of the scratchpad."
                + (" Lost: " + " · ".join(pending.facts_lost[:20]) + (" …" if len(pending.facts_lost) > 20 else "")
                   if pending.facts_lost else ""))
        left, right = st.columns(2)
        with left:
            st.text("The scratchpad it would replace (lost facts marked « »)")
            st.code(mark_facts(pending.before, pending.facts_lost), language=None, wrap_lines=True, height=360)
        with right:
            key = f"play_review_text_{n}"
            st.text_area("Proposed summary (edit it, then press Use my edit)", value=pending.proposal, key=key,
                         height=360)
        b1, b2, b3 = st.columns(3)
        b1.button("Accept", key=f"play_review_accept_{n}", type="primary", on_click=gate.decide, args=("accepted",))
        b2.button("Use my edit", key=f"play_review_edit_{n}", on_click=_edit, args=(gate, key))
        b3.button("Reject: keep the scratchpad", key=f"play_review_reject_{n}", on_click=gate.decide,
                  args=("rejected",))
