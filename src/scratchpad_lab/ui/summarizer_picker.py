"""The one summarizer picker of the studies that summarize every strategy with one summarizer: Strategies (and
its Recommend view) and the Benchmark. It returns the person's SummarizerChoice: the offline extractive
summarizer (its budget), the built-in model on this CPU, or a model at an OpenAI-compatible endpoint.

Where the built-in model is not here, the picker says how to get it in one line (ui/builtin_notice.py) and
stops the page there, as a wrong endpoint does: nothing can run with a summarizer that cannot be built.
"""
from __future__ import annotations

import streamlit as st

from scratchpad_lab.engine.tasks import BUILTIN_LABEL
from scratchpad_lab.model.config import field_bounds, field_default
from scratchpad_lab.model.summarizer import BUILTIN_SPEED, SummarizerChoice
from scratchpad_lab.ui.builtin_notice import builtin_ready
from scratchpad_lab.ui.endpoints import endpoint_widgets
from scratchpad_lab.ui.markup import escape

KINDS = ("extractive", "builtin", "endpoint")
LABELS = {"extractive": "offline extractive (no key)", "builtin": "the built-in model (this CPU, weak, slow)",
          "endpoint": "a model endpoint"}
BUILTIN_CAPTION = (f"The {BUILTIN_LABEL}. One call at a time in this process, shared with every tab, "
                   f"{BUILTIN_SPEED}: keep the strategies and the grid small.")


def summarizer_picker(prefix: str, label: str = "Summarizer (serves every strategy)") -> SummarizerChoice:
    """The widgets (keys `{prefix}_summarizer`, `{prefix}_budget`, `{prefix}_sum_ep...`) and the choice made."""
    kind = st.radio(label, list(KINDS), horizontal=True, key=f"{prefix}_summarizer", format_func=LABELS.get)
    low, high = field_bounds("extractive_budget_chars")
    budget = st.number_input("Extractive summary budget (chars)", low, high, field_default("extractive_budget_chars"),
                             100, key=f"{prefix}_budget",
                             help="The offline summarizer keeps the salient lines of what it is given, up to this "
                                  "many characters.", disabled=kind != "extractive")
    if kind == "extractive":
        return SummarizerChoice("extractive", int(budget))
    if kind == "builtin":
        if not builtin_ready(fetch=True):
            st.stop()
        st.caption(BUILTIN_CAPTION)
        return SummarizerChoice("builtin", int(budget))
    endpoint, key, problem = endpoint_widgets(st.container(border=True), f"{prefix}_sum_ep", "Summarizer")
    if problem:
        st.error(escape(problem))
        st.stop()
    return SummarizerChoice("endpoint", int(budget), endpoint, key=key or None)
