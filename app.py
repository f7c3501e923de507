"""Scratchpad Lab: the frame. Page config, session defaults, navigation over pages/, the shared sidebar."""
import streamlit as st

from scratchpad_lab.ui.state import init_session

st.set_page_config(page_title="Scratchpad Lab", page_icon="🗜️", layout="wide")
init_session()
pg = st.navigation([
    st.Page("pages/playground.py", title="Playground", icon="▶️", default=True),
    st.Page("pages/runs.py", title="Runs", icon="🗂️"),
    st.Page("pages/compare.py", title="Compare", icon="⚖️"),
    st.Page("pages/prompt_lab.py", title="Prompt lab", icon="🧪"),
])
st.sidebar.caption("Scratchpad Lab shows what context compression does to an LLM agent: the real "
                   "autourgos-agent with the real autourgos-summarizer middleware. Works offline, no key.")
pg.run()
