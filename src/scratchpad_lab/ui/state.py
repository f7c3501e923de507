"""Session-state keys, in one place, prefixed by page; set with setdefault in `init_session`."""
from __future__ import annotations

import streamlit as st

PLAY_ACTIVE = "play_active_run"        # the Run going on now (or None); the worker appends to its log
PLAY_RUNS = "play_runs"                # finished RunRecords made or opened in this tab, oldest first
PLAY_SHOWN = "play_shown_run"          # index into PLAY_RUNS of the run shown below the live view
PLAY_PRICES = "play_price_table"       # {model prefix: (input, output) USD per 1M tokens}, from the editor
PLAY_START_ERROR = "play_start_error"  # why the last Run click could not start a run (shown once)

RUNS_UPLOADS = "runs_uploads"          # runs and traces uploaded in this tab (runs_page.Entry), oldest first
RUNS_UPLOAD_SEEN = "runs_upload_seen"  # {uploader file id: None if it loaded, else what was wrong}: read once
RUNS_OPEN = "runs_open_entry"          # the key of the run open on the Runs page (survives page switches)
RUNS_STEP_OF = "runs_step_of"          # the key of the run the step slider's position belongs to

CMP_SOURCE = "cmp_source_entry"        # the key of the run or trace picked on the Compare page
CMP_TABLE = "cmp_settings_table"       # the settings table the editor starts from (a DataFrame)
CMP_EDITED = "cmp_settings_edited"     # the table as last edited: the editor restarts from it after a page switch
CMP_RESULT = "cmp_result"              # the last comparison (compare_page.Result), kept so reruns do not replay
CMP_SWEEP = "cmp_sweep_result"         # the last sweep (compare_page.Result)

PL_SOURCE = "pl_source_entry"          # the key of the run picked on the Prompt lab page (or "paste")
PL_MATRIX = "pl_matrix"                # the prompt-lab Matrix running or last run in this tab
PL_VERSIONS = "pl_prompt_versions"     # {version name: prompt text}: this tab's saved prompt versions
PL_OPEN = "pl_open_cell"               # (row, col) of the matrix cell opened as a compression card
PL_KEPT = "pl_kept_widgets"           # {widget key: value}: the page's inputs, restored after a page switch
PLAY_PROMPT_NAME = "play_prompt_name"  # (name, text): the named prompt the playground uses while its text is unchanged
PLAY_REVIEW = "play_review"            # the playground's "Review each compression" switch


def init_session() -> None:
    st.session_state.setdefault(PLAY_ACTIVE, None)
    st.session_state.setdefault(PLAY_RUNS, [])
    st.session_state.setdefault(PLAY_SHOWN, None)
    st.session_state.setdefault(PLAY_START_ERROR, None)
    st.session_state.setdefault(PLAY_PRICES, None)
    st.session_state.setdefault(RUNS_UPLOADS, [])
    st.session_state.setdefault(RUNS_UPLOAD_SEEN, {})
    st.session_state.setdefault(RUNS_OPEN, None)
    st.session_state.setdefault(RUNS_STEP_OF, None)
    st.session_state.setdefault(CMP_SOURCE, None)
    st.session_state.setdefault(CMP_EDITED, None)
    st.session_state.setdefault(CMP_RESULT, None)
    st.session_state.setdefault(CMP_SWEEP, None)
    st.session_state.setdefault(PL_SOURCE, None)
    st.session_state.setdefault(PL_MATRIX, None)
    st.session_state.setdefault(PL_VERSIONS, {})
    st.session_state.setdefault(PL_OPEN, None)
    st.session_state.setdefault(PL_KEPT, {})
    st.session_state.setdefault(PLAY_PROMPT_NAME, None)
