"""Session-state keys, in one place, prefixed by page; set with setdefault in `init_session`."""
from __future__ import annotations

import streamlit as st

PLAY_ACTIVE = "play_active_run"        # the Run going on now (or None); the worker appends to its log
PLAY_RUNS = "play_runs"                # finished RunRecords made or opened in this tab, oldest first
PLAY_SHOWN = "play_shown_run"          # index into PLAY_RUNS of the run shown below the live view
PLAY_PRICES = "play_price_table"       # {model prefix: (input, output) USD per 1M tokens}, from the editor
PLAY_NOTICE = "play_notice"            # one message to show once (e.g. why a sample could not open)


def init_session() -> None:
    st.session_state.setdefault(PLAY_ACTIVE, None)
    st.session_state.setdefault(PLAY_RUNS, [])
    st.session_state.setdefault(PLAY_SHOWN, None)
    st.session_state.setdefault(PLAY_NOTICE, None)
    st.session_state.setdefault(PLAY_PRICES, None)
