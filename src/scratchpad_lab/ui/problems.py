"""How a page shows a problem the user can fix, and the pages' one edge for `LabError`.

A problem is our sentence in `st.error`; what an error says may quote a file or a value the user typed,
so it is shown escaped (ui/markup.py) or as plain text, never as markup. app.py runs every page inside
`user_errors()`, so a LabError a page does not expect ends that page's drawing with its sentence, not a
traceback. A page wraps one action in `user_errors(heading)` where it must go on drawing after a
refusal, so the rest of the page, and what the user already had, stays.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Optional

import streamlit as st

from scratchpad_lab.model.errors import LabError
from scratchpad_lab.ui.markup import escape


def show_problem(heading: str, detail: str) -> None:
    """Our sentence as the error; the detail (which may quote a file) as plain text under it."""
    st.error(heading)
    st.text(detail)


def show_error(exc: LabError, heading: Optional[str] = None) -> None:
    """A LabError's sentence as the error (escaped), or as plain text under our `heading`."""
    if heading:
        show_problem(heading, exc.sentence)
    else:
        st.error(escape(exc.sentence))


@contextmanager
def user_errors(heading: Optional[str] = None) -> Iterator[None]:
    """Run the block; a LabError in it is shown (`show_error`) and the page goes on after the block."""
    try:
        yield
    except LabError as exc:
        show_error(exc, heading)
