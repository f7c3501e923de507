"""How a share (0 to 1) reads in a data frame: a whole percentage, the same digits as in text
(`f"{share:.0%}"`: 0.375 reads "38%" in a sentence and in a table cell, never 0.375 or 37.5%).

The cell keeps a number (0-100), so a column still sorts by value; the column's format adds the sign.
"""
from __future__ import annotations

from typing import Dict, Iterable

import streamlit as st

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
