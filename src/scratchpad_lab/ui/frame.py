"""The app's frame around every page, even when Streamlit runs a page's file alone.

A `pages/` folder beside `app.py` puts Streamlit in its old pages-folder mode until the first
`st.navigation` call of the process: a fresh server whose very first request is a page's own path
(`/benchmark`) runs `pages/benchmark.py` by itself, without `app.py`, so the page showed Streamlit's
raw list of files (app, benchmark, compare...) and none of the frame (page config, sidebar, links).
`app.py` calls `st.navigation`, which ends that mode for the whole process; a page file that finds the
mode still on has been run alone, so it ends the mode itself and asks for the run again: that run is
`app.py`'s, which opens the same page (by its path) inside the frame.

Only under a real server: AppTest turns the mode back on before every run of its own (and then runs a page
it switched to alone), where a rerun here would drop the click that started the run.
"""
from __future__ import annotations

import streamlit as st


def served() -> bool:
    """Whether this is a real `streamlit run` server (AppTest runs the scripts on a stand-in runtime)."""
    from streamlit.runtime import Runtime

    return Runtime.exists() and type(Runtime.instance()) is Runtime


def framed() -> None:
    """Called first by every file in pages/: a page run without the frame runs again with it."""
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory and served():
        PagesManager.uses_pages_directory = False  # what app.py's st.navigation sets, for every session
        st.rerun()
