"""Presenter mode: no sidebar, larger text in the live panes, for a projector.

The style is one constant of our own: nothing from a run, a file or a link is ever put into it.
With the sidebar hidden its toggle is hidden too, so a button at the top of the page leaves the mode.
"""
from __future__ import annotations

import streamlit as st

from scratchpad_lab.ui.state import PRESENTER

PRESENTER_CSS = """<style>
section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stExpandSidebarButton"] {
  display: none !important;
}
[data-testid="stMain"] [data-testid="stCode"] pre, [data-testid="stMain"] [data-testid="stCode"] code {
  font-size: 1.25rem !important; line-height: 1.45 !important;
}
[data-testid="stMain"] [data-testid="stText"], [data-testid="stMain"] [data-testid="stMarkdownContainer"] p,
[data-testid="stMain"] [data-testid="stWidgetLabel"] p, [data-testid="stMain"] [data-testid="stCaptionContainer"] {
  font-size: 1.3rem !important;
}
[data-testid="stMain"] [data-testid="stMetricValue"] { font-size: 2.6rem !important; }
[data-testid="stMain"] .block-container { max-width: 100% !important; padding-left: 2rem; padding-right: 2rem; }
</style>"""


def _leave() -> None:
    st.session_state[PRESENTER] = False


def presenter_toggle() -> None:
    """The sidebar toggle, and while it is on, the style and a button to leave the mode."""
    on = st.sidebar.toggle("Presenter mode", key=PRESENTER,
                           help="Hides the sidebar and enlarges the text of the live panes, for a projector.")
    if on:
        st.html(PRESENTER_CSS)
        st.button("Leave presenter mode", key="presenter_leave", on_click=_leave)
