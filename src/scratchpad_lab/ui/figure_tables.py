"""How a figure reads in a table: a share (0 to 1) as a whole percentage, the same digits as in text
(`f"{share:.0%}"`: 0.375 reads "38%" in a sentence and in a table cell, never 0.375 or 37.5%); each figure
row's plain label; and the one "best in row" rule (★) the Strategies and Compare tables both mark.

The cell keeps a number (0-100), so a column still sorts by value; the column's format adds the sign.
"""
from __future__ import annotations

from typing import Any, Dict, Iterable, Set

import streamlit as st

from scratchpad_lab.analysis.figures import LABELS

# A figure row's label, by its field in a result row, wherever a table of figures is shown.
ROW_LABELS = {"compressions": LABELS["compressions"], "summarizer_calls": LABELS["summarizer_calls"],
              "summarizer_tokens_in": "summarizer tokens in", "summarizer_tokens_out": "summarizer tokens out",
              "summarizer_tokens": "summarizer tokens (in + out)",
              "summarizer_cost_usd": "summarizer price",
              "peak_context_tokens": LABELS["peak_tokens"], "peak_share": "peak, % of no compression",
              "mean_context_tokens": LABELS["mean_tokens"], "mean_share": "mean, % of no compression",
              "context_tokens_saved": "tokens saved vs no compression", "saved_share": "saved, % of no compression",
              "net_tokens_saved": "net tokens saved (after the summarizer's)",
              "facts_at_answer": "facts at the answer", "answer_facts_kept": "answer facts kept",
              "facts_recoverable": "facts in a file it names",
              "probes_answerable": "probes answerable",
              "facts_retained": LABELS["facts_retained"], "answer_score": LABELS["answer_score"],
              "trim_facts_retained": LABELS["trim_facts_retained"], "offloaded_files": "files offloaded",
              "kept_by_kind": LABELS["kept_by_kind"], "health": LABELS["health"],
              "pins_kept": LABELS["pins"], "pins_to_summarizer": "pins to summarizer"}
# Which way is better for a row (rows not listed have none: more compressions is neither better nor worse).
BETTER = {"summarizer_calls": min, "summarizer_tokens_in": min, "summarizer_tokens_out": min,
          "summarizer_tokens": min, "summarizer_cost_usd": min, "peak_context_tokens": min, "peak_share": min,
          "mean_context_tokens": min, "mean_share": min, "context_tokens_saved": max, "saved_share": max,
          "net_tokens_saved": max, "facts_at_answer": max, "answer_facts_kept": max, "probes_answerable": max,
          "facts_retained": max, "trim_facts_retained": max, "answer_score": max}
BEST = " ★"


def best_in_row(key: str, values: Dict[Any, Any]) -> Set[Any]:
    """The columns holding a row's best value (`values`: column -> value): none when the row has no better
    way, when a value is missing, or when all are equal (a tie everywhere is nobody's achievement). The
    caller passes only the columns that may win (Strategies: those that cut something)."""
    if key not in BETTER or not values or any(v is None for v in values.values()) or len(set(values.values())) < 2:
        return set()
    target = BETTER[key](values.values())
    return {column for column, v in values.items() if v == target}

PERCENT_FORMAT = "%d%%"


def whole_percent(share) -> object:
    """A share as the whole number its text shows ("38%" -> 38); a missing value stays missing."""
    try:
        if share is None or share != share:  # None or NaN
            return None
        return int(f"{float(share):.0%}"[:-1])
    except (TypeError, ValueError):
        return share  # a word ("no compression") is shown as it is


def percent_cells(frame, columns: Iterable[str]):
    """A copy of `frame` with these share columns as whole percentages (columns it lacks are skipped)."""
    out = frame.copy()
    for name in columns:
        if name in out.columns:
            out[name] = [whole_percent(v) for v in out[name]]
    return out


def percent_config(columns: Iterable[str], **options) -> Dict[str, object]:
    """The column_config that shows those columns with a % sign."""
    return {name: st.column_config.NumberColumn(name, format=PERCENT_FORMAT, **options) for name in columns}
