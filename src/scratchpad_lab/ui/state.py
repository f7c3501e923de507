"""Session-state keys, in one place, prefixed by page; set with setdefault in `init_session`."""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from scratchpad_lab.model.config import DEFAULT_PACE_S

PLAY_ACTIVE = "play_active_run"        # the Run going on now (or None); the worker appends to its log
PLAY_RUNS = "play_runs"                # finished RunRecords made or opened in this tab, oldest first
PLAY_SHOWN = "play_shown_run"          # index into PLAY_RUNS of the run last added, opened or picked
PLAY_PICKER = "play_show"              # the "Show run" picker's key prefix (play_picker_key)
PLAY_PRICES_BY_MODEL = "play_prices_by_model"  # {model prefix: (input, output) USD per 1M tokens}, read from the editor
PLAY_PRICE_ROWS = "play_price_rows"    # the price editor's rows (a DataFrame) it starts from; set in endpoints.py
PLAY_START_ERROR = "play_start_error"  # why the last Run click could not start a run (shown once)

RUNS_UPLOADS = "runs_uploads"          # runs and traces uploaded in this tab (runs_page.Entry), oldest first
RUNS_UPLOAD_SEEN = "runs_upload_seen"  # {uploader file id: None if it loaded, else what was wrong}: read once
RUNS_UPLOAD_HASHES = "runs_upload_hashes"  # {SHA-256 of an upload's bytes: its Entry's key}: a file uploaded again opens the first
RUNS_OPEN = "runs_open_entry"          # the key of the run open on the Runs page (survives page switches)
RUNS_STEP_OF = "runs_step_of"          # the key of the run the step slider's position belongs to
RUNS_SCROLL = "runs_scroll_to_step"    # a link opened a step: the next draw of the Runs page scrolls to it (once)

CMP_SOURCE = "cmp_source_entry"        # the key of the run or trace picked on the Compare page
CMP_TABLE = "cmp_settings_table"       # the settings table the editor starts from (a DataFrame)
CMP_EDITED = "cmp_settings_edited"     # the table as last edited: the editor restarts from it after a page switch
CMP_RESULT = "cmp_result"              # the last comparison (compare_page.ComparisonResult), kept so reruns do not replay
CMP_SWEEP = "cmp_sweep_result"         # the last sweep (compare_page.ComparisonResult)

PL_SOURCE = "pl_source_entry"          # the key of the run picked on the Prompt lab page (or "paste")
PL_MATRIX = "pl_matrix"                # the prompt-lab Matrix running or last run in this tab
PL_VERSIONS = "pl_prompt_versions"     # {version name: prompt text}: this tab's saved prompt versions
PL_OPEN = "pl_open_cell"               # (row, col) of the matrix cell opened as a compression card
PL_USED = "pl_used_in_playground"     # the name just sent to the playground (a one-time confirmation)
PL_UPLOAD_SEEN = "pl_prompt_upload_seen"  # the uploader id of the prompt file last added as a version
PL_KEPT = "pl_kept_widgets"           # {widget key: value}: the page's inputs, restored after a page switch
PLAY_PROMPT_NAME = "play_prompt_name"  # (name, text): the named prompt the playground uses while its text is unchanged
PLAY_REVIEW = "play_review"            # the playground's "Review each compression" switch
STRAT_SOURCE = "strat_source_entry"    # the key of the run or trace picked on the Strategies page
STRAT_RESULT = "strat_result"          # the last strategies run (strategies_page.Shown), kept across reruns
STRAT_RECOMMEND = "strat_recommend"    # (entry key, recommend.Search): the last search on the Strategies page
STRAT_OPEN_POINT = "strat_open_point"  # ((entry key, point's --strategy argument), its StrategyResult): the point open as a run

LOSS_COMPRESSION_OFF = "loss_compression_off"  # {id(record): (record, the same path with compression off)}
LOSS_USER_PROBES = "loss_user_probes"  # probe questions the user added: [(question, expected answer)]

# The playground's run settings: the sidebar widgets' keys (drawn in settings.py).
K_SCENARIO = "play_scenario"
K_PRESET = "play_preset"
K_EVERY = "play_summarize_every"
K_CAP = "play_max_scratchpad_chars"
K_TRIM = "play_agent_trim_chars"
K_SUMMARIZER = "play_summarizer"
K_PROMPT = "play_summarizer_prompt"
K_BUDGET = "play_extractive_budget"
K_TOOL_CAP = "play_max_tool_output_chars"
K_MAX_IT = "play_max_iterations"
K_WALL = "play_wall_clock"
K_PACE = "play_pacing"
K_AGENT = "play_agent"
K_TASK = "play_task"
K_PINS = "play_pins"              # the pins, one a line (a text area; ui/pins_box.py adds a chip or a line to it)
K_PINS_TO_SUMMARIZER = "play_pins_to_summarizer"  # the "Pass pins to the summarizer" switch
K_PINS_OPEN = "play_pins_open"      # the sidebar's Pins expander is open (its widgets are drawn only then)
K_ADVANCED = "play_advanced_open"  # the sidebar's Advanced expander is open (its widgets are drawn only then)

LESSON_PICK = "lesson_pick"            # the number (1-based) of the lesson chosen on the Lessons page (a widget key)
LESSON_RUN = "lesson_run"              # the Run of the lesson going on or just finished (or None)
LESSON_OF = "lesson_run_of"            # the number of the lesson that LESSON_RUN belongs to
LESSON_STAGE = "lesson_stage"          # index of the pause point the lesson waits for or shows
LESSON_AT = "lesson_at_pause"          # True while the lesson holds at a pause point (the live refresh is off)
LESSON_PACE = "lesson_pace"            # seconds per scripted step in a lesson (a widget key)
LESSON_GOTO = "lesson_goto"            # the lesson "Next lesson" asked for, taken into LESSON_PICK by the next run

LIB_VISITOR = "lib_visitor_id"        # hosted mode: this browser's random id (also kept in its cookie)
LIB_AUTOSAVE = "lib_autosave"          # store finished runs, uploads and results (the Playground's switch)
LIB_STORED = "lib_stored_ids"          # {id(record or trace): (it, run id)}: what of this tab is stored, under which id
LIB_NOT_STORED = "lib_not_stored"     # {id(record or trace): (it, why)}: what could not be stored, and why
LIB_OPENED = "lib_opened_entries"      # {"stored:<id>" or "bench:<n>": runs_page.Entry}: stored runs and benchmark runs opened in this tab
LIB_NOTICES = "lib_notices"            # True once this session took the store's notices for its visitor (shown once)
LIB_JUST_STORED = "lib_just_stored"   # the stored id of the upload just stored (or found stored): the picker selects it once
LIB_MESSAGE = "lib_message"            # (level, text): what the store last said (a problem, what it removed); shown once

ENDPOINTS_KEPT = "endpoints_kept"      # {widget prefix: {widget key: value}}: endpoints kept while their widgets are not drawn
LINK_NOTE = "link_note"                # what was wrong with the link the app was opened with (shown once)
PRESENTER = "presenter_mode"           # presenter mode on/off (a widget key)


@dataclass(frozen=True)
class Slot:
    """Where a page keeps its one long job (ui/live.py draws it): the job's key, and the live view's own
    keys, all prefixed by the page: `<prefix>_refresh_s` (the refresh interval now: it backs off when
    renders are slow), `<prefix>_needs_full_rerun` (a job ended and the full page has not drawn it yet),
    `<prefix>_job_ended` (the serial of the job whose end was handled), `<prefix>_job_note` (how the last
    job ended, when stopped or failed: shown once), `<prefix>_stop_asked` (the serial of the job whose Stop
    was just pressed), `<prefix>_in_full_run` (the fragment is being drawn by a full run of the page), and
    the Stop button `<prefix>_stop`."""

    prefix: str
    job: str

    @property
    def refresh(self) -> str:
        return f"{self.prefix}_refresh_s"

    @property
    def needs_full(self) -> str:
        return f"{self.prefix}_needs_full_rerun"

    @property
    def ended(self) -> str:
        return f"{self.prefix}_job_ended"

    @property
    def note(self) -> str:
        return f"{self.prefix}_job_note"

    @property
    def full_run(self) -> str:
        return f"{self.prefix}_in_full_run"

    @property
    def stop_asked(self) -> str:
        return f"{self.prefix}_stop_asked"

    @property
    def stop_button(self) -> str:
        return f"{self.prefix}_stop"


PLAY_JOB = Slot("play", PLAY_ACTIVE)     # the Playground's run (its own Stop and Pause are in the run view)
LESSON_JOB = Slot("lesson", LESSON_RUN)  # the lesson's run
PL_JOB = Slot("pl", PL_MATRIX)           # the prompt matrix
CMP_JOB = Slot("cmp", "cmp_job")         # the Compare page's comparison or sweep (one at a time)
STRAT_JOB = Slot("strat", "strat_job")   # the strategies run
STRAT_REC_JOB = Slot("strat_rec", "strat_rec_job")  # the Recommend view's search (beside the strategies run)
STRAT_POINT_JOB = Slot("strat_point", "strat_point_job")  # the Recommend view's point being opened as a run
LOSS_JOB = Slot("loss", "loss_job")      # the loss panel's replay with compression off
BENCH_JOB = Slot("bench", "bench_job")   # the Benchmark page's study of a dataset
FETCH_JOB = Slot("fetch", "fetch_job")   # the built-in model's file being fetched (any page that offers it)
BENCH_RESULT = "bench_result"            # the last finished (or stopped) benchmark, kept across reruns
FORK_JOB = Slot("fork", "fork_job")      # "What if...": a fork being replayed (Playground, Runs, Strategies)
FORK_RESULT = "fork_result"              # the last fork made (tasks.Forked): drawn beside the run it forks
BENCH_STARTED = "bench_started"          # (BenchmarkRequest, DecideRequest or None) of the benchmark running now
BENCH_RAN = "bench_ran"                  # the BenchmarkRequest BENCH_RESULT was made by (its dataset, its summarizer)
BENCH_CHART_PICK = "bench_chart_pick"    # the setting last clicked on the front chart (applied to the picker once)
BENCH_OPENED = "bench_opened_worst"      # ui/worst_runs.OpenedWorst: the worst run last opened in Strategies
BENCH_DECIDE_JOB = Slot("bench_dec", "bench_dec_job")  # the next call re-decided, after the benchmark
BENCH_DECIDED = "bench_decided"          # the last agreement table (a DecideResult), or its refusal (a sentence)
UPLOAD_KEYS = ("runs_upload", "cmp_upload", "strat_upload", "pl_upload")  # the uploaders (runs_page.upload_widget)


def upload_slot(key: str) -> Slot:
    """An uploader's replay of a trace (one per uploader widget key)."""
    return Slot(key, f"{key}_job")


def upload_added(key: str) -> str:
    """The key of the Entry an uploader's replay just added, waiting to be opened (read once)."""
    return f"{key}_added"


LIVE_SLOTS = (PLAY_JOB, LESSON_JOB, PL_JOB, CMP_JOB, STRAT_JOB, STRAT_REC_JOB, STRAT_POINT_JOB, LOSS_JOB,
              BENCH_JOB, BENCH_DECIDE_JOB, FETCH_JOB, FORK_JOB) + tuple(
    upload_slot(k) for k in UPLOAD_KEYS)


# The playground's settings are sidebar widgets drawn only on its page. Streamlit drops the state of a widget
# a script run does not draw, so a visit to another page would reset them all (and a prompt taken from the
# prompt lab would lose the summarizer chosen for it): every page's run saves them again, which keeps them.
PLAY_SETTINGS = (K_SCENARIO, K_PRESET, K_EVERY, K_CAP, K_TRIM, K_SUMMARIZER, K_PROMPT, K_BUDGET, K_TOOL_CAP,
                 K_MAX_IT, K_WALL, K_PACE, K_AGENT, K_TASK, PLAY_REVIEW, K_PINS, K_PINS_TO_SUMMARIZER)


def init_session() -> None:
    for key in PLAY_SETTINGS:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]
    st.session_state.setdefault(PLAY_ACTIVE, None)
    st.session_state.setdefault(PLAY_RUNS, [])
    st.session_state.setdefault(PLAY_SHOWN, None)
    st.session_state.setdefault(PLAY_START_ERROR, None)
    st.session_state.setdefault(PLAY_PRICES_BY_MODEL, None)
    st.session_state.setdefault(RUNS_UPLOADS, [])
    st.session_state.setdefault(RUNS_UPLOAD_SEEN, {})
    st.session_state.setdefault(RUNS_UPLOAD_HASHES, {})
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
    st.session_state.setdefault(STRAT_SOURCE, None)
    st.session_state.setdefault(STRAT_RESULT, None)
    st.session_state.setdefault(BENCH_RESULT, None)
    st.session_state.setdefault(FORK_RESULT, None)
    st.session_state.setdefault(BENCH_RAN, None)
    st.session_state.setdefault(BENCH_OPENED, None)
    st.session_state.setdefault(BENCH_DECIDED, None)
    st.session_state.setdefault(LESSON_RUN, None)
    st.session_state.setdefault(LESSON_OF, None)
    st.session_state.setdefault(LESSON_STAGE, 0)
    st.session_state.setdefault(LESSON_AT, False)
    st.session_state.setdefault(LESSON_PACE, DEFAULT_PACE_S)
    st.session_state.setdefault(LINK_NOTE, None)
    st.session_state.setdefault(LIB_STORED, {})
    st.session_state.setdefault(LIB_OPENED, {})
    st.session_state.setdefault(LIB_NOT_STORED, {})
    st.session_state.setdefault(LIB_MESSAGE, None)
    st.session_state.setdefault(LIB_NOTICES, False)
    for slot in LIVE_SLOTS:
        st.session_state.setdefault(slot.job, None)


def play_picker_key(count: int) -> str:
    """The "Show run" picker's key for a tab holding `count` runs: a new run makes a new picker, on it."""
    return f"{PLAY_PICKER}_{count}"


def shown_play_index(runs) -> "int | None":
    """Which of the tab's runs is on show (None: no run yet), the one rule every part of the Playground and its
    link read: the "Show run" picker's value, which Streamlit knows before the page draws (so the run view drawn
    above the picker and the picker never disagree); before that picker exists, the run last added or opened
    (PLAY_SHOWN); else the newest."""
    if not runs:
        return None
    picked = st.session_state.get(play_picker_key(len(runs)))
    if isinstance(picked, int) and 0 <= picked < len(runs):
        return picked
    shown = st.session_state.get(PLAY_SHOWN)
    return shown if isinstance(shown, int) and 0 <= shown < len(runs) else len(runs) - 1


def page_secrets() -> dict:
    """The app's st.secrets as a dict (an endpoint's key, the store's URL); {} without a secrets.toml, the usual case.
    One copy for every page (the endpoints, the store, the benchmark)."""
    try:
        return dict(st.secrets)
    except Exception:  # no secrets.toml: that is the usual case, not an error
        return {}
