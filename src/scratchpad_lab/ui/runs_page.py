"""The Runs page: every run this tab can see (shipped samples, this tab's runs, uploads), opened in the
playground's view with a step slider, and downloadable.

Uploads are untrusted from the first byte: `read_upload` turns (name, bytes) into a run record or a trace,
or into one message, and nothing reaches the page state unless it loaded cleanly. A trace is replayed
once with the package defaults to be shown: that replay is a job, drawn under the uploader by the one
live fragment (ui/live.py) with its progress and a Stop button; the upload is added when it ends.
What a file carries (its name, a run's name and label, every event's text) is shown only in
st.code/st.text or dataframe cells; the labels of selects and headings are built from our own words and
validated numbers.
The Compare page lists the same runs through `all_entries` and shares the upload handling.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple, Union

import streamlit as st

from scratchpad_lab.model.config import ConfigError
from scratchpad_lab.model.records import RunRecord, load_any
from scratchpad_lab.engine.replay import replay_source, replay_with_defaults, summarizer_notice
from scratchpad_lab.model.trace import RecordError, Trace
from scratchpad_lab.engine.jobs import Job
from scratchpad_lab.ui import live
from scratchpad_lab.ui.library import download_button, open_sample, runs_frame, sample_files
from scratchpad_lab.ui.state import (PLAY_PRICES_BY_MODEL, PLAY_RUNS, RUNS_OPEN, RUNS_STEP_OF, RUNS_UPLOAD_SEEN, RUNS_UPLOADS,
                    init_session, upload_added, upload_slot)
from scratchpad_lab.ui.view import render_run

UPLOAD_WHERE = "The uploaded file"
UPLOAD_FAILED = "That file could not be opened as a run record or a trace. Nothing else on this page changed."
TRACE_NOTE = ("This is a trace: a recorded trajectory without events. To show it, the page replayed it once "
              "through the real agent and middleware with the package defaults (summarize_every 5, "
              "max_scratchpad_chars 15,000, the agent's own trim at 15,000 chars) and the offline extractive "
              "summarizer. Use the Compare page to replay it under other settings.")
TRACE_REPLAY_NAME = "trace replayed with the package defaults"
REPLAY_STOPPED = ("The replay of the uploaded trace was stopped, so it was not added. To replay it, remove the file "
                  "from the uploader and upload it again.")
REPLAY_ERRORS = (RecordError, ConfigError, KeyError, ValueError)

@dataclass
class Entry:
    """One run the pages can open: what was loaded, and the record that shows it."""

    key: str                            # "sample:<file>", "tab:<i>", "upload:<i>": stable across reruns
    source: str                         # "sample" | "this tab" | "upload"
    title: str                          # our own words and validated numbers only: safe as a select option
    loaded: Union[RunRecord, Trace]     # what Compare replays
    record: RunRecord                   # what the Runs page shows (a trace: its replay with the defaults)
    file_name: str = ""                 # untrusted (an upload's name): dataframe cells only

    @property
    def is_trace(self) -> bool:
        return isinstance(self.loaded, Trace)


# ── loading (no page state touched) ────────────────────────────────────────

def _every(value) -> str:
    return "off" if value is None else str(value)


def read_upload(name: str, data: bytes) -> Tuple[Optional[Union[RunRecord, Trace]], Optional[str]]:
    """(loaded, None) for a good run record or trace, else (None, what is wrong). Never raises.

    `name` is the uploader's file name: untrusted, so it is kept out of the message (which says
    "The uploaded file ...")."""
    del name  # the message must not quote it; the caller keeps it for a dataframe cell
    if not data.strip():
        return None, (f"{UPLOAD_WHERE} is empty ({len(data)} bytes): choose a run record or a trace "
                      "(a .json file downloaded from this lab, or a scratchpad-lab/trace@1 file).")
    try:
        return load_any(data, UPLOAD_WHERE), None  # checked against schemas.py: types, sizes, kinds
    except RecordError as exc:
        return None, str(exc)
    except Exception as exc:  # the edge: a file must never break the page
        return None, f"{UPLOAD_WHERE} could not be read ({type(exc).__name__})."


def _numbers_title(record: RunRecord) -> str:
    c = record.config
    return f"every {_every(c.summarize_every)} / {c.max_scratchpad_chars:,} chars"


def _upload_entry(index: int, file_name: str, loaded: Union[RunRecord, Trace],
                  replayed: Optional[RunRecord] = None) -> Entry:
    """The entry of an upload; a trace's entry shows `replayed`, its replay with the package defaults."""
    if isinstance(loaded, Trace):
        title = f"upload #{index + 1} · trace of {len(loaded.steps)} steps (replayed with the package defaults)"
        return Entry(f"upload:{index}", "upload", title, loaded, replayed, file_name)
    title = f"upload #{index + 1} · run record · {_numbers_title(loaded)}"
    return Entry(f"upload:{index}", "upload", title, loaded, loaded, file_name)


def all_entries() -> Tuple[List[Entry], List[str]]:
    """Samples, this tab's runs and uploads; and a message for each sample file that would not open."""
    entries: List[Entry] = []
    problems: List[str] = []
    for path in sample_files():
        try:
            record = open_sample(path)
        except RecordError as exc:
            problems.append(str(exc))
            continue
        entries.append(Entry(f"sample:{path.name}", "sample", f"sample · {path.name}", record, record, path.name))
    for i, record in enumerate(st.session_state[PLAY_RUNS]):
        entries.append(Entry(f"tab:{i}", "this tab", f"this tab #{i + 1} · {_numbers_title(record)}",
                             record, record))
    entries.extend(st.session_state[RUNS_UPLOADS])
    return entries, problems


# ── widgets shared with the Compare page ───────────────────────────────────

def upload_widget(key: str) -> Optional[Entry]:
    """A .json uploader; returns the new Entry the first time a good file arrives, else None.

    Each uploaded file is read once (by its uploader id): reruns neither add it again nor repeat work.
    A bad file shows one error while it stays in the uploader, and changes nothing else. A trace is
    replayed with the package defaults as a job, under the uploader; its Entry comes when that ends."""
    upload = st.file_uploader("Upload a run record or a trace (.json, up to 10 MB)", type=["json"], key=key,
                              help="A run downloaded from this lab, or a trace of any agent in the "
                                   "scratchpad-lab/trace@1 format.")
    entry = _take_upload(key, upload)
    live.show(upload_slot(key), on_end=lambda job: _add_replayed(key, job), errors=REPLAY_ERRORS, say_end=False)
    return entry or st.session_state.pop(upload_added(key), None)


def _take_upload(key: str, upload) -> Optional[Entry]:
    """A new file: a run record becomes an Entry at once; a trace's replay starts (one at a time)."""
    if upload is None:
        return None
    seen: Dict[str, Optional[str]] = st.session_state[RUNS_UPLOAD_SEEN]
    if upload.file_id in seen:
        problem = seen[upload.file_id]
        if problem == REPLAY_STOPPED:
            st.text(problem)
        elif problem:
            show_problem(UPLOAD_FAILED, problem)
        return None
    if live.busy(upload_slot(key)):
        return None  # read when the replay going on has ended
    loaded, problem = read_upload(upload.name, upload.getvalue())
    if loaded is None:
        seen[upload.file_id] = problem
        show_problem(UPLOAD_FAILED, problem)
        return None
    uploads: List[Entry] = st.session_state[RUNS_UPLOADS]
    seen[upload.file_id] = None
    if not isinstance(loaded, Trace):
        entry = _upload_entry(len(uploads), upload.name, loaded)
        uploads.append(entry)
        return entry
    live.start(upload_slot(key), Job(
        lambda report, stop: replay_with_defaults(loaded, TRACE_REPLAY_NAME, "uploaded trace", stop=stop, report=report),
        name="scratchpad-lab-upload", tag=(upload.file_id, upload.name, loaded),
        text="Replaying the trace with the package defaults…"))
    return None


def _add_replayed(key: str, job: Job) -> None:
    """A trace's replay ended: add its Entry (to be opened), or say why not while the file stays."""
    file_id, file_name, trace = job.tag
    seen: Dict[str, Optional[str]] = st.session_state[RUNS_UPLOAD_SEEN]
    if job.error is not None:
        seen[file_id] = str(job.error)
    elif job.stopped:
        seen[file_id] = REPLAY_STOPPED
    elif job.result is not None:
        uploads: List[Entry] = st.session_state[RUNS_UPLOADS]
        entry = _upload_entry(len(uploads), file_name, trace, job.result)
        uploads.append(entry)
        st.session_state[upload_added(key)] = entry


def entries_with_upload(upload_key: str, empty: str, upload_in: Optional[str] = None) -> Tuple[List[Entry], Optional[Entry]]:
    """The uploader (in an expander titled `upload_in`, if given), then every entry; stops the page with
    `empty` when there is none. Returns (entries, the entry just uploaded or None)."""
    if upload_in:
        with st.expander(upload_in):
            added = upload_widget(upload_key)
    else:
        added = upload_widget(upload_key)
    entries, problems = all_entries()
    show_sample_problems(problems)
    if not entries:
        st.info(empty)
        st.stop()
    return entries, added


def show_problem(heading: str, detail: str) -> None:
    """Our sentence as the error; the detail (which may quote a file) as plain text under it."""
    st.error(heading)
    st.text(detail)


def show_sample_problems(problems: List[str]) -> None:
    if problems:
        show_problem("A sample run in sample_runs/ could not be opened and is left out.", "\n".join(problems))


def pick_entry(entries: List[Entry], label: str, key: str, state_key: str, open_key: Optional[str] = None) -> Entry:
    """A select of the entries by their safe titles. The widget's own state goes when the page is left, so
    the choice is also kept in `state_key` and restored from it; `open_key` opens that entry now."""
    keys = [e.key for e in entries]
    if open_key in keys:
        st.session_state[key] = open_key
    elif st.session_state.get(key) not in keys:
        wanted = st.session_state.get(state_key)
        st.session_state[key] = wanted if wanted in keys else keys[0]
    titles = {e.key: e.title for e in entries}
    chosen = st.selectbox(label, keys, key=key, format_func=titles.get)
    st.session_state[state_key] = chosen
    return entries[keys.index(chosen)]


def entries_frame(entries: List[Entry], prices: Optional[dict] = None) -> pd.DataFrame:
    frame = runs_frame([e.record for e in entries], prices)
    frame.insert(1, "source", [e.source for e in entries])
    frame.insert(2, "kind", ["trace (replayed with the defaults)" if e.is_trace else "run record" for e in entries])
    frame.insert(3, "file", [e.file_name for e in entries])
    return frame


def kind_note(entry: Entry) -> str:
    if entry.is_trace:
        return TRACE_NOTE
    try:
        notice = summarizer_notice(replay_source(entry.record))
    except (RecordError, KeyError, ConfigError):
        notice = None
    notice = f" Replayed on the Compare page: {notice}" if notice else ""
    if entry.record.mode == "scenario":
        return ("A scenario run: the scripted agent's fixed plan of tool calls, with the real middleware and the "
                "agent's own trim. The scripted agent answers only from what is still in its scratchpad." + notice)
    return "A recorded run: the steps and the final answer are what was recorded." + notice


# ── the page ───────────────────────────────────────────────────────────────

def _step_slider(entry: Entry) -> Optional[int]:
    iterations = sorted({e.iteration for e in entry.record.events if e.kind == "iteration"})
    if len(iterations) < 2:
        st.text("This run has fewer than two iterations: there are no steps to move through.")
        return None
    first, last = iterations[0], iterations[-1]
    value = st.session_state.get("runs_step")
    if st.session_state[RUNS_STEP_OF] != entry.key or not isinstance(value, int) or not first <= value <= last:
        st.session_state["runs_step"] = last  # a newly opened run starts at its end
    st.session_state[RUNS_STEP_OF] = entry.key
    step = st.slider("Step: show the run as it was at iteration", first, last, key="runs_step",
                     help="The scratchpad, the trigger state, the timeline, the size chart and the compressions "
                          "as they were when this iteration had passed the middleware.")
    st.text(f"Showing iteration {step} of {last}." if step < last else f"Showing the whole run ({last} iterations).")
    return step


def page() -> None:
    init_session()
    prices = st.session_state.get(PLAY_PRICES_BY_MODEL)
    st.title("Scratchpad Lab · Runs")
    st.caption("Recorded sample runs, the runs made in this tab, and files you upload. Open one to step through "
               "it; download any of them as JSON.")
    entries, added = entries_with_upload(
        "runs_upload", "No runs yet: run one in the Playground, or upload a run record or trace.")
    st.subheader("Runs")
    st.dataframe(entries_frame(entries, prices), hide_index=True, key="runs_table")
    entry = pick_entry(entries, "Open run", "runs_open", RUNS_OPEN, open_key=added.key if added else None)
    st.text(kind_note(entry))
    index = entries.index(entry)
    download_button(entry.record, key="runs_download", index=index)
    if entry.is_trace:
        st.download_button("Download the uploaded trace (JSON)", key="runs_download_trace", mime="application/json",
                           data=json.dumps(entry.loaded.to_dict(), ensure_ascii=False, indent=1),
                           file_name=f"scratchpad-lab-trace-{index + 1}.json")
    st.divider()
    step = _step_slider(entry)
    record = entry.record
    end = [e for e in record.events if e.kind == "finish"]
    render_run(record.events, record.config, live=False, key="runs_view", upto=step, prices=prices,
               elapsed_s=float(end[-1].payload.elapsed_s or 0) if end else 0.0)
