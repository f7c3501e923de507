"""Links in the app: open the moment a link names (once, on arrival), and show the link for what is on screen.

Parsing and validation live in scratchpad_lab.model.links (streamlit-free); this module only moves validated
values into session state and switches page. The note shown for a bad link is ours (links.py never
quotes the URL), and the link shown for copying is built from our own validated values.
"""
from __future__ import annotations

from typing import Dict

import streamlit as st

from scratchpad_lab.model.links import base_url, check_iteration, link_query, parse_link
from scratchpad_lab.ui.library import open_sample, sample_files
from scratchpad_lab.ui.state import (LESSON_PICK, LINK_NOTE, PLAY_RUNS, RUNS_OPEN, RUNS_SCROLL, RUNS_STEP_OF,
                                     shown_play_index)
from scratchpad_lab.ui.store_view import run_id_for_entry, stored_id

RUNS_SELECT = "runs_open"   # the Runs page's select of the open run (runs_page.pick_entry's widget key)
RUNS_STEP = "runs_step"     # the Runs page's step slider (runs_page._step_slider's widget key)


def _open_sample(target) -> None:
    from scratchpad_lab.model.trace import RecordError  # lazy, as below: app.py imports this module for every first page
    files = {p.name: p for p in sample_files()}
    try:
        record = open_sample(files[target.sample])
    except (RecordError, KeyError):
        target.notes.append("That sample run could not be opened; the default page opened instead.")
        target.page = None
        return
    _at_step(target, record, f"sample:{target.sample}")


def _open_stored(target) -> None:
    """A stored run, from any visitor: the link's id is the only way to it."""
    from scratchpad_lab.engine.tasks import StoreError  # lazy: only a link to a stored run needs the store
    from scratchpad_lab.ui.runs_page import all_entries, open_stored
    try:
        key = open_stored(target.run)
    except StoreError as exc:
        target.notes.append(("That run is not in this lab's store (it was deleted, or the link was cut short); "
                             "the default page opened instead.") if exc.kind == "not_found" else
                            "The stored run could not be opened: the run store cannot be read right now. "
                            "The default page opened instead.")
        target.page = None
        return
    entry = next(e for e in all_entries()[0] if e.key == key)
    _at_step(target, entry.record, key)


def _at_step(target, record, key: str) -> None:
    iterations = sorted({int(e.iteration) for e in record.events if e.kind == "iteration"})
    compressions = sorted({int(e.iteration) for e in record.events if e.kind == "compression"})
    check_iteration(target, iterations, compressions)
    st.session_state[RUNS_OPEN] = st.session_state[RUNS_SELECT] = key
    st.session_state[RUNS_STEP_OF] = key
    st.session_state[RUNS_STEP] = target.step or (iterations[-1] if iterations else 1)
    st.session_state[RUNS_SCROLL] = True  # the page lands on the step, not on the list of runs above it
    if target.card is not None:
        target.notes.append(f"The compression card of iteration {target.card} is the first card below the chart.")


def open_from_link(pages: Dict[str, "st.Page"]) -> None:
    """Apply the query parameters the app was opened with, once; then drop them from the URL."""
    params = {key: st.query_params.get_all(key) for key in st.query_params.keys()}
    if not params:
        return
    st.query_params.clear()
    from scratchpad_lab.engine.tasks import all_lessons  # lazy: only a link needs the lessons (and the analysis they import)
    target = parse_link(params, [p.name for p in sample_files()], [item.number for item in all_lessons()])
    if target.page == "runs" and target.run:
        _open_stored(target)
    elif target.page == "runs":
        _open_sample(target)
    elif target.page == "lessons":
        st.session_state[LESSON_PICK] = target.lesson
    st.session_state[LINK_NOTE] = " ".join(target.notes) or None
    if target.page in pages:
        st.switch_page(pages[target.page])


def show_note() -> None:
    note = st.session_state.get(LINK_NOTE)
    if note:
        st.session_state[LINK_NOTE] = None
        st.info(note, icon=":material/link:")  # our own words and validated numbers only


def current_query(page_title: str) -> str:
    if page_title == "Lessons" and st.session_state.get(LESSON_PICK):
        return link_query(lesson=st.session_state[LESSON_PICK])
    opened = st.session_state.get(RUNS_OPEN) or ""
    if page_title == "Runs" and (opened.startswith("sample:") or run_id_for_entry(opened)):
        step = st.session_state.get(RUNS_STEP)
        step = step if isinstance(step, int) else None
        if opened.startswith("sample:"):
            return link_query(sample=opened[len("sample:"):], step=step)
        return link_query(run=run_id_for_entry(opened), step=step)
    if page_title == "Playground":
        runs = st.session_state.get(PLAY_RUNS) or []
        shown = shown_play_index(runs)
        record = runs[shown] if shown is not None else None
        if record is not None and stored_id(record):
            return link_query(run=stored_id(record))
    return ""


def link_box(page_title: str) -> None:
    """The link for what is on screen (a sample at its step, a lesson), in a copyable code box in the sidebar."""
    query = current_query(page_title)
    if not query:  # the address bar holds this one; a code box would cost the first page its 1.5 MB highlighter
        st.sidebar.caption("Open a stored or sample run on the Runs page, or a lesson, and its link shows here.")
        return
    st.sidebar.caption("Link to what is on screen (a run at its step, or a lesson):")
    st.sidebar.code(base_url(st.context.url) + query, language=None, wrap_lines=True)
