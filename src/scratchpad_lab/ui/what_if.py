""""What if...": fork a run at one of its compressions, and show the fork beside the original.

The Playground (the run on show), the Runs page (the run open) and the Strategies page (the autourgos middleware's
run) draw the same control under a run: pick a compression, skip it or give other triggers from there, press
What if... The fork is the door's `fork` task (engine/tasks/fork_tasks.py: the rule is engine/run/forking.py's), run as a
job in its own slot by the one live fragment (ui/live.py). When it ends, the fork is added to this tab's runs and
stored (unless storing is off), so it has its own link; it is then drawn beside its original: the size chart with
both lines, both runs' figures from the fork point on (analysis/forks.py, the one figures row), and where the two
first differ, and, for a parent summarized by a model, whose summaries the fork shows (the
parent's, given back, then its own summarizer's). Every word here is ours or a validated number; a run's name reaches the page only escaped or as text.
"""
from __future__ import annotations

from typing import Any, List, Optional

import streamlit as st

from scratchpad_lab.analysis.forks import difference_text
from scratchpad_lab.model.config import ConfigError, every_text, field_bounds, parse_every
from scratchpad_lab.model.errors import LabError
from scratchpad_lab.model.links import base_url, link_query
from scratchpad_lab.ui import live
from scratchpad_lab.ui.problems import show_problem
from scratchpad_lab.ui.state import FORK_JOB, FORK_RESULT, PLAY_RUNS
from scratchpad_lab.ui.store_view import autosave_on, store_run, stored_id

SKIP, OTHER = "skip that compression", "other settings from there"
FORK_ERRORS = (LabError, KeyError, ValueError)


def compressions_of(record: Any) -> List[int]:
    """The iterations where a summary replaced the scratchpad: where a fork can be made."""
    return [int(e.iteration) for e in record.events if e.kind == "compression" and e.payload.status == "ok"]


def _start(record: Any, key: str, parent_id: Optional[str], parent_name: str, summarizer: Any = None) -> None:
    from scratchpad_lab.engine.tasks import ForkRequest, fork
    at = st.session_state[f"{key}_at"]
    changes = {}
    skip = st.session_state.get(f"{key}_how", SKIP) == SKIP
    if not skip:
        try:
            changes["summarize_every"] = parse_every(st.session_state.get(f"{key}_every"), "Summarize every")
        except ConfigError as exc:
            st.session_state[f"{key}_problem"] = exc.sentence
            return
        changes["max_scratchpad_chars"] = int(st.session_state[f"{key}_cap"])
    try:
        job = fork(ForkRequest(record, int(at), skip=skip, changes=changes, parent_id=parent_id,
                               parent_name=parent_name, summarizer=summarizer))
    except LabError as exc:  # refused before it starts: said under the control
        st.session_state[f"{key}_problem"] = exc.sentence
        return
    live.start(FORK_JOB, job)


def _took_in(job) -> None:
    """The fork ended: keep it, add it to this tab's runs (so the Playground's picker has it) and store it."""
    if job.error is not None or job.result is None:
        return
    forked = job.result
    st.session_state[FORK_RESULT] = forked
    st.session_state[PLAY_RUNS].append(forked.record)
    if autosave_on():
        store_run(forked.record, name=forked.record.name, configs=[forked.record.config], what="The fork")


def _same(a: Any, b: Any) -> bool:
    """The fork on record is of this run (a run opened again may be a new object of the same run)."""
    return a is b or (a.created, a.name, len(a.events)) == (b.created, b.name, len(b.events))


def what_if(record: Any, key: str, parent_id: Optional[str] = None, parent_name: str = "",
            summarizer: Any = None) -> None:
    """The "What if..." control under a run, and the last fork of this run beside it. `summarizer`: who writes the
    fork's summaries when the page has the person's choice for it (the Strategies page: the one its run was made
    with); None: the replay rule's."""
    at_choices = compressions_of(record)
    with st.container(border=True, key=f"{key}_whatif"):
        st.markdown("**What if...** a compression had not happened here?")
        if not at_choices:
            st.text("This run made no compression: there is nothing to undo.")
            return
        c = record.config
        at, how = st.columns([2, 3], vertical_alignment="bottom")
        at.selectbox("Fork at the compression of iteration", at_choices, key=f"{key}_at")
        how.radio("The fork", [SKIP, OTHER], key=f"{key}_how", horizontal=True,
                  help="Skip: the run is replayed with the same settings, and at that iteration the middleware finds "
                       "its summarizer busy and does not compress. Other settings: the middleware's two triggers "
                       "change from that iteration on.")
        if st.session_state.get(f"{key}_how") == OTHER:
            every, cap = st.columns(2)
            every.text_input("Summarize every (from there; off for none)", value=every_text(c.summarize_every),
                             key=f"{key}_every")
            lo, hi = field_bounds("max_scratchpad_chars")
            cap.number_input("Compress when over (chars, from there)", min_value=lo, max_value=hi, step=500,
                             value=int(c.max_scratchpad_chars), key=f"{key}_cap")
        st.button("What if...", key=f"{key}_go", disabled=live.busy(FORK_JOB), on_click=_start,
                  args=(record, key, parent_id, parent_name, summarizer),
                  help="Replays this run from that compression, as a run of its own, and shows it beside this one.")
        problem = st.session_state.pop(f"{key}_problem", None)
        if problem:
            show_problem("That fork cannot be made:", problem)
        live.show(FORK_JOB, on_end=_took_in, errors=FORK_ERRORS, problem="The fork could not be made.")
        forked = st.session_state.get(FORK_RESULT)
        if forked is not None and _same(forked.parent, record):
            fork_view(forked, key)


def fork_view(forked: Any, key: str) -> None:
    """The fork beside its original: both lines on the size chart, the figures from the fork point on, where
    they first differ, and the fork's own link."""
    import pandas as pd  # lazy: the first page does without it
    from scratchpad_lab.ui.charts import overlay_chart
    c, origin = forked.comparison, forked.record.forked_from
    what = "that compression skipped" if origin["skipped"] else "other settings from there"
    st.markdown(f"**The fork at iteration {c.at}** ({what}) beside the original")
    with st.container(key=f"{key}_chart"):
        st.altair_chart(overlay_chart({"original": forked.parent.events, "fork": forked.record.events}, unit="chars"),
                        width="stretch")
    rows = [("compressions", lambda f: str(f.compressions)), ("summarizer calls", lambda f: str(f.summarizer_calls)),
            ("peak context tokens", lambda f: f"{f.peak_tokens:,}"),
            ("context tokens sent", lambda f: f"{f.context_tokens:,}"), ("facts kept", lambda f: f.facts_kept_text),
            ("pins kept", lambda f: f.pins_kept_text)]
    frame = pd.DataFrame([{"from iteration %d on" % c.at: label, "original": show(c.original), "fork": show(c.fork)}
                          for label, show in rows])
    st.dataframe(frame, hide_index=True, key=f"{key}_fork_figures")
    st.text(difference_text(c))
    if forked.notice:  # whose summaries the fork shows (engine/run/forking.py); a model's name from a file: as text
        st.text(forked.notice)
    run_id = stored_id(forked.record)
    if run_id:
        st.text("The fork's own link: " + base_url(st.context.url) + link_query(run=run_id))
    else:
        st.text("The fork is in this tab's runs (Playground); turn on “Store finished runs” to give it a link.")
