"""Warm-up: what the first Run needs is made ready while the first visitor reads the first page.

The first page imports little (tests/test_first_page.py), so without this the first Run after the server
starts paid for the whole run stack at once, in the middle of the run: the agent, the summarizer and the
tokenizer on the worker thread, and the run view's analysis, pandas, pyarrow, altair and its schema
validator in the page's first live refresh. The live view froze for seconds after iteration 1 and the chart
came last (issue 30 item 8). So, once per server process and only under a real server (AppTest has no
runtime), the end of the first script run starts one daemon thread that does that work for real and keeps
nothing: one offline run of the default scenario through the door, then the pieces the live view draws from
its events (the size chart as Vega-Lite, the timeline as Arrow, the newest compression's annotation). The
page is drawn before it starts, so the first visitor does not wait for it; a Run pressed meanwhile waits
for no more than it would have done itself. It logs one line when done (the browser tests wait for it).
"""
from __future__ import annotations

import logging
import threading
import time

WARM_LOG = "Scratchpad Lab: warmed the run stack"  # the line the log gets when the warm-up is done
_lock = threading.Lock()
_started = False
logger = logging.getLogger(__name__)


# The browser's half: its chart library is a chunk of Streamlit's JavaScript loaded when the page first shows a
# chart, and loading it held the browser for seconds in the middle of the first live run. So every page carries
# one chart of no data, out of sight, and the chunk loads with the first page. A spec with no `data` costs the
# server nothing (Streamlit converts only a spec's data, through pandas, which the first page does without).
WARM_CHART = {"mark": "point", "width": 1, "height": 1}
HIDE_CSS = "<style>.st-key-warm_chart { display: none !important; }</style>"
# The same holds for every element whose browser code Streamlit loads on first use: until it has loaded, the
# browser draws a grey placeholder block in its place. A fresh browser's first run drew them where the status row
# (metrics), the scratchpad (code), the triggers (progress bars), the chart's unit switch (radio) and the timeline
# (data frame) go, and at its end where the download button and the loss panel's questions go (issue 45 item 3).
# So the frame draws one of each, out of sight, after the page: a real server only (AppTest has no browser), after
# everything else, so the first page shows its Run button as fast as before (bench/live_latency.py), and on a
# session's first page only: the browser keeps the code it loaded, and the next run of the page drops them.
WARM_PARTS = "frame_warm_parts"  # session state: this session's browser has been sent them


def _browser_parts() -> None:
    """One of each such element, in the hidden box (ours: no text from anywhere else)."""
    import pyarrow  # the data frame's own format (no pandas): the server's warm-up imports it anyway
    import streamlit as st

    st.metric("warm", 0)
    st.progress(0)
    st.code("", language=None)
    st.radio("warm", ["warm"], key="warm_radio", label_visibility="collapsed")
    st.dataframe(pyarrow.table({"warm": [0]}), key="warm_frame")
    st.download_button("warm", data=b"", key="warm_download", file_name="warm.txt")
    st.text_input("warm", key="warm_text", label_visibility="collapsed")


def warm_up() -> None:
    """The browser's chart library and the other elements' code loaded with the page; and, once per process under
    a real server only, the server's run stack warmed on a thread of its own."""
    global _started
    import streamlit as st

    from scratchpad_lab.ui.frame import served

    st.html(HIDE_CSS)  # our own fixed style
    with st.sidebar.container(key="warm_chart"):
        st.vega_lite_chart(WARM_CHART, width=1, height=1)
        if served() and not st.session_state.get(WARM_PARTS):  # AppTest: no browser to load anything
            st.session_state[WARM_PARTS] = True
            _browser_parts()

    if not served():  # AppTest: nothing to warm, and no thread beside its runs
        return
    with _lock:
        if _started:
            return
        _started = True
    threading.Thread(target=_warm, name="scratchpad-lab-warm-up", daemon=True).start()


def _warm() -> None:
    began = time.monotonic()
    try:
        from scratchpad_lab.engine.tasks import RunRequest, run
        from scratchpad_lab.model.config import RunConfig

        record = run(RunRequest(RunConfig.build(scenario="support-ticket", summarize_every=2,
                                                max_scratchpad_chars=2000))).run_here()
        import pyarrow

        from scratchpad_lab.ui.charts import size_chart
        from scratchpad_lab.ui.view import annotated_cards, timeline_frame

        size_chart(record.events, record.config).to_dict()  # compiles altair's schema validator once
        pyarrow.Table.from_pandas(timeline_frame(record.events))
        annotated_cards(record.events, [e for e in record.events if e.kind == "compression"][-1:])
        import scratchpad_lab.ui.loss  # noqa: F401 (the finished run's loss panel)
    except Exception:  # a warm-up that fails costs the first run its speed, never the page
        logger.exception("Scratchpad Lab: the warm-up failed; the first run pays for its imports")
        return
    # Streamlit's logger level is "info" by default; a plain print reaches the server's log whatever it is
    print(f"{WARM_LOG} in {time.monotonic() - began:.1f} s", flush=True)
