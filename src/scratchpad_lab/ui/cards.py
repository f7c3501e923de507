"""Compression cards: before and after side by side, what survived and what was dropped.

All scratchpad, prompt and reply text is untrusted (tool results, model output, uploaded files): it is
only ever shown with st.code / st.text, never as markdown or HTML. Badges carry our own fixed words.
"""
from __future__ import annotations

from typing import Dict, List, Optional

import streamlit as st

from ..diffing import as_diff_text, diff_lines
from ..facts import contains, fact_pattern


# Badge words are ours, chosen by key; nothing from the event (which may come from a file) is shown as a badge.
FLAG_BADGES = {
    "empty": ("empty reply: scratchpad kept", "orange"),
    "error_text": ("error instead of a summary", "red"),
    "longer_than_input": ("summary longer than its input", "violet"),
    "unchanged": ("unchanged: repeats the input", "orange"),
    "not_a_summary": ("not a summary", "red"),
    "wasted_call": ("wasted call: still over the cap", "gray"),
}
LOST_SHOWN = 40  # the list above the panels; every lost fact is marked in the before panel itself
REVIEW_BADGES = {"accepted": ("accepted by you", "green"), "edited": ("edited by you", "violet"),
                 "rejected": ("rejected by you", "orange"), "abandoned": ("review abandoned", "gray")}
REASON_BADGES = {"periodic": ("periodic trigger", "blue"), "size": ("size trigger", "gray")}


def badges(c: Dict) -> List[tuple]:
    out = [REASON_BADGES.get(c.get("reason"), ("unknown trigger", "gray"))]
    out += [FLAG_BADGES[f] for f in c.get("flags", []) if f in FLAG_BADGES]
    if c.get("status") == "error" and "error_text" not in c.get("flags", []):
        out.append(FLAG_BADGES["error_text"])
    if c.get("review") in REVIEW_BADGES:
        out.append(REVIEW_BADGES[c["review"]])
    return out


def mark_facts(text: str, facts: List[str]) -> str:
    """The text with each lost fact wrapped in « », so a reader finds it at a glance."""
    for fact in sorted(set(facts), key=len, reverse=True):
        if contains(text, fact):
            text = fact_pattern(fact).sub(lambda m: "«" + m.group(0) + "»", text)
    return text


def compression_card(c: Dict, key: str, cost: Optional[float] = None) -> None:
    """One compression: a compression event's data plus its iteration, annotated by quality.annotate
    (facts_before, facts_lost, facts_retained, flags)."""
    before, after = c.get("before", ""), c.get("after", "")
    lost = list(c.get("facts_lost", []))
    with st.container(border=True):
        head, *badge_cols = st.columns([3] + [1] * len(badges(c)))
        head.markdown(f"**Compression at iteration {int(c['iteration'])}**")
        for col, (label, color) in zip(badge_cols, badges(c)):
            col.badge(label, color=color)
        if c.get("why"):  # the narration (it may quote a summarizer's error): plain text
            st.text(c["why"])
        ratio = (c.get("after_chars", 0) / c["before_chars"]) if c.get("before_chars") else 0.0
        m1, m2, m3, m4, m5 = st.columns(5)
        share = c.get("facts_retained")
        m5.metric("facts kept", "—" if share is None else f"{share:.0%}",
                  help="Numbers, identifiers, dates, URLs, paths, e-mails, quoted strings and names in the "
                       "scratchpad before, found again after.")
        m1.metric("chars after", f"{c.get('after_chars', 0):,}", f"from {c.get('before_chars', 0):,}",
                  delta_color="off", delta_arrow="off")
        m2.metric("tokens after", f"{c.get('after_tokens', 0):,}", f"from {c.get('before_tokens', 0):,}",
                  delta_color="off", delta_arrow="off")
        m3.metric("after / before", f"{ratio:.0%}")
        m4.metric("summarizer latency", f"{float(c.get('latency_s') or 0):.3f} s")
        if lost:
            shown = ", ".join(lost[:LOST_SHOWN]) + (f", … and {len(lost) - LOST_SHOWN} more" if len(lost) > LOST_SHOWN else "")
            st.text(f"Lost ({len(lost)} of {len(c.get('facts_before', []))} facts, all marked « » below): " + shown)
        diff = diff_lines(mark_facts(before, lost), after)
        counts = diff.counts
        st.caption(f"Lines of the scratchpad before: {counts['kept']} kept, {counts['partial']} partly kept (~), "
                   f"{counts['dropped']} dropped (-). In the summary, + marks lines the summarizer wrote itself.")
        left, right = st.columns(2)
        with left:
            st.text("Before (scratchpad as the iteration started)")
            st.code(as_diff_text(diff.before), language="diff", height=360, wrap_lines=True)
        with right:
            st.text("After (what the agent is sent)")
            st.code(as_diff_text(diff.after), language="diff", height=360, wrap_lines=True)
        if c.get("error"):
            st.text("Summarizer error: " + str(c["error"]))
        with st.expander("Prompt sent to the summarizer"):
            st.code(str(c.get("prompt", "")), language=None, wrap_lines=True, height=300)
        with st.expander("Raw reply"):
            st.code(str(c.get("response", "")), language=None, wrap_lines=True, height=300)
        if c.get("review") in ("edited", "rejected"):
            with st.expander("The summarizer's original proposal (before your review)"):
                st.code(str(c.get("proposal", "")), language=None, wrap_lines=True, height=300)
        price = "no price known" if cost is None else f"${cost:.5f}"
        st.text(f"Summarizer: {c.get('model', '')} · tokens in {int(c.get('tokens_in') or 0):,}, "
                f"out {int(c.get('tokens_out') or 0):,} · cost {price}")
