"""Presenter mode: no sidebar, bigger numbers, text and chart, for a projector.

The style is one constant of our own: nothing from a run, a file or a link is ever put into it.
With the sidebar hidden its toggle is hidden too, so a row at the top of the page leaves the mode and,
on the Playground, switches the preset (the sidebar's own select is out of sight).
"""
from __future__ import annotations

import streamlit as st

from scratchpad_lab.ui.state import PRESENTER

PRESENTER_PRESET = "presenter_preset"  # the preset select of the presenter row (mirrors the sidebar's)

# The metric value holds a markdown paragraph: it is sized after the paragraph rule, or it would drop to
# the body text size. The page title is left out and the presenter's row sits in the header band, so the
# live view starts higher and fits 1280x800 with the bigger text.
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
[data-testid="stMain"] [data-testid="stMetric"] [data-testid="stMetricLabel"] p {
  font-size: 1.1rem !important;
}
[data-testid="stMain"] [data-testid="stMetric"] [data-testid="stMetricValue"],
[data-testid="stMain"] [data-testid="stMetric"] [data-testid="stMetricValue"] p {
  font-size: 2.6rem !important; line-height: 1.15 !important;
}
[data-testid="stMain"] [class*="st-key-"][class*="_triggers"] { min-height: 17rem; }
[data-testid="stMain"] [class*="st-key-"][class*="_triggers"] [data-testid="stText"],
[data-testid="stMain"] [class*="st-key-"][class*="_triggers"] [data-testid="stMarkdownContainer"] p {
  font-size: 1.15rem !important;
}
/* the scratchpad pane: view.PRESENTER_PANE_ROWS lines of view.PANE_COLS chars, in text at least 1.25rem */
[data-testid="stMain"] [class*="st-key-"][class*="_scratchpad"] [data-testid="stElementContainer"]:has(> [data-testid="stCode"]) {
  --pane-font: clamp(1.25rem, calc((100cqi - 2rem - 2px) / 25.8), 1.6rem);
}
[data-testid="stMain"] [class*="st-key-"][class*="_scratchpad"] [data-testid="stCode"] pre {
  height: calc(var(--pane-font) * 1.38 * 4 + 2rem) !important;
}
[data-testid="stMain"] [class*="st-key-"][class*="_scratchpad"] [data-testid="stCode"] pre,
[data-testid="stMain"] [class*="st-key-"][class*="_scratchpad"] [data-testid="stCode"] code {
  font-size: var(--pane-font) !important; line-height: 1.38 !important;
}
/* the scratchpad pane's one line (what it shows, and the whole scratchpad's button) stays whole at 1280 px */
[data-testid="stMain"] [class*="st-key-"][class*="_scratchpad"] [data-testid="stHorizontalBlock"] [data-testid="stText"],
[data-testid="stMain"] [class*="st-key-"][class*="_scratchpad"] [data-testid="stHorizontalBlock"] [data-testid="stText"] * {
  font-size: 1.15rem !important;
}
/* the status row stays one line at 1280 px with every metric it can show (summarizer calls too) */
[data-testid="stMain"] [class*="st-key-"][class*="_status"] [data-testid="stHorizontalBlock"] { gap: 1.1rem !important; }
@media (max-width: 1440px) {
  [data-testid="stMain"] [data-testid="stMetric"] [data-testid="stMetricValue"],
  [data-testid="stMain"] [data-testid="stMetric"] [data-testid="stMetricValue"] p { font-size: 2.15rem !important; }
}
[data-testid="stMain"] .st-key-live_chart { min-height: 14rem; }  /* its chart's height (view.py) */
[data-testid="stMain"] h1 { display: none !important; }
.st-key-presenter_row { position: fixed; top: 0.6rem; left: 2rem; z-index: 999990; width: auto !important; }
[data-testid="stMain"] .block-container { max-width: 100% !important; padding-left: 2rem; padding-right: 2rem; }
</style>"""


def _leave() -> None:
    st.session_state[PRESENTER] = False


def presenter_toggle(page_title: str = "") -> None:
    """The sidebar toggle, and while it is on, the style and the presenter's row: leave the mode, and on
    the Playground the preset."""
    on = st.sidebar.toggle("Presenter mode", key=PRESENTER,
                           help="Hides the sidebar and enlarges the numbers, the text and the chart of the live "
                                "view, for a projector.")
    if not on:
        return
    st.html(PRESENTER_CSS)
    with st.container(horizontal=True, vertical_alignment="bottom", key="presenter_row"):
        st.button("Leave presenter mode", key="presenter_leave", on_click=_leave)
        if page_title == "Playground":
            from scratchpad_lab.model.presets import presets  # lazy: only in presenter mode
            from scratchpad_lab.ui.sidebar_settings import K_PRESET, use_preset
            st.session_state[PRESENTER_PRESET] = st.session_state.get(K_PRESET, next(iter(presets())))
            st.selectbox("Preset", list(presets()), key=PRESENTER_PRESET, width=260,
                         on_change=lambda: use_preset(st.session_state[PRESENTER_PRESET]),
                         help="The sidebar's preset, here while the sidebar is hidden.")
