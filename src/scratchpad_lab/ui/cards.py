"""Compression cards: before and after side by side, what survived and what was dropped.

All scratchpad, prompt and reply text is untrusted (tool results, model output, uploaded files): it is
only ever shown with st.code / st.text, never as markdown or HTML. Badges carry our own fixed words.
"""
from __future__ import annotations

from typing import Dict, List, Optional

import streamlit as st

from ..diffing import as_diff_text, diff_lines


def badges(c: Dict) -> List[tuple]:
    out = []
    status = c.get("status")
    if status == "empty":
        out.append(("empty reply: scratchpad kept", "orange"))
    elif status == "error":
        out.append(("summarizer error: scratchpad kept", "red"))
    if status == "ok" and c.get("after_chars", 0) > c.get("before_chars", 0):
        out.append(("summary longer than its input", "violet"))
    out.append((c.get("reason") or "?", "blue" if c.get("reason") == "periodic" else "gray"))
    return out


def compression_card(c: Dict, key: str, cost: Optional[float] = None) -> None:
    """One compression; `c` is a compression event's data plus its iteration."""
    before, after = c.get("before", ""), c.get("after", "")
    with st.container(border=True):
        head, *badge_cols = st.columns([3] + [1] * len(badges(c)))
        head.markdown(f"**Compression at iteration {int(c['iteration'])}**")
        for col, (label, color) in zip(badge_cols, badges(c)):
            col.badge(label, color=color)
        ratio = (c.get("after_chars", 0) / c["before_chars"]) if c.get("before_chars") else 0.0
        m1, m2, m3, m4 = st.columns(4)
        m1.metric("chars", f"{c.get('before_chars', 0):,} → {c.get('after_chars', 0):,}")
        m2.metric("tokens", f"{c.get('before_tokens', 0):,} → {c.get('after_tokens', 0):,}")
        m3.metric("after / before", f"{ratio:.0%}")
        m4.metric("summarizer latency", f"{float(c.get('latency_s') or 0):.3f} s")
        diff = diff_lines(before, after)
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
        price = "no price known" if cost is None else f"${cost:.5f}"
        st.text(f"Summarizer: {c.get('model', '')} · tokens in {int(c.get('tokens_in') or 0):,}, "
                f"out {int(c.get('tokens_out') or 0):,} · cost {price}")
