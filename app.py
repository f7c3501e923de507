"""Scratchpad Lab: the frame. Page config, session defaults, navigation over pages/, the shared sidebar,
and the one edge where an error a user can cause (a LabError) is shown as a sentence."""
import streamlit as st

from scratchpad_lab.model.endpoint import hosted_mode
from scratchpad_lab.ui.link_state import link_box, open_from_link, show_note
from scratchpad_lab.ui.presenter import presenter_toggle
from scratchpad_lab.ui.problems import user_errors
from scratchpad_lab.ui.state import init_session
from scratchpad_lab.ui.store_view import keep_visitor_cookie
from scratchpad_lab.ui.warm import warm_up
from scratchpad_lab.ui.style import ICON

if hosted_mode():  # a visitor never sees a traceback or an exception's text (Streamlit's own option)
    st.set_option("client.showErrorDetails", "none")
# The page icon is a file the app serves: a `:material/...:` page icon (or none, when a page's own material
# icon stands in) makes every visitor's browser fetch an svg from fonts.gstatic.com.
st.set_page_config(page_title="Scratchpad Lab", page_icon=ICON, layout="wide")
init_session()
pages = {
    "playground": st.Page("pages/playground.py", title="Playground", icon=":material/play_arrow:", default=True),
    "runs": st.Page("pages/runs.py", title="Runs", icon=":material/folder_open:"),
    "compare": st.Page("pages/compare.py", title="Compare", icon=":material/balance:"),
    "prompt_lab": st.Page("pages/prompt_lab.py", title="Prompt lab", icon=":material/science:"),
    "strategies": st.Page("pages/strategies.py", title="Strategies", icon=":material/alt_route:"),
    "benchmark": st.Page("pages/benchmark.py", title="Benchmark", icon=":material/leaderboard:"),
    "lessons": st.Page("pages/lessons.py", title="Lessons", icon=":material/school:"),
}
pg = st.navigation(list(pages.values()))
open_from_link(pages)
st.sidebar.caption("Scratchpad Lab shows what context compression does to an LLM agent: the real "
                   "autourgos-agent with the real autourgos-summarizer middleware. Works offline, no key.")
presenter_toggle(pg.title)
keep_visitor_cookie()  # hosted mode: this browser's id, so its stored runs are listed to it after a reload
show_note()
with user_errors():  # the pages' one edge: an error a user can cause is shown as its sentence
    pg.run()
link_box(pg.title)
warm_up()  # once per server, after the first page is drawn: what the first Run needs (ui/warm.py)
