"""The Runs page: every run this tab can see (shipped samples, this tab's runs, uploads), opened in the
playground's view with a step slider, and downloadable.

Uploads are untrusted from the first byte: `read_upload` turns (name, bytes) into a run record or a trace,
or into one message, and nothing reaches the page state unless it loaded cleanly. A trace is replayed
once with the package defaults to be shown: that replay is a job, drawn under the uploader by the one
live fragment (ui/live.py) with its progress and a Stop button; the upload is added when it ends.
What a file carries (its name, a run's name and label, every event's text) is shown only in
st.code/st.text or dataframe cells; the labels of selects and headings are built from our own words and
validated numbers.
A file of many runs (a dataset file: a benchmark's list of tasks, JSON Lines of conversations, a list of traces) is
read as the Benchmark reads it (the door's `read_dataset_bytes`); a select under the uploader then offers each of its
runs, named by the file (its task and trial, or "FILE #N"), and the run picked is replayed and opened as an upload of
its own, named after the file and the run.
The Compare page lists the same runs through `all_entries` and shares the upload handling.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple, Union

import streamlit as st

from scratchpad_lab.model.errors import LabError
from scratchpad_lab.engine.tasks import (ImportRequest, Loaded, TraceReplayRequest, import_file, read_dataset_bytes,
                                         replay_source, replay_trace, summarizer_notice)
from scratchpad_lab.model.records import RunRecord
from scratchpad_lab.model.config import every_text, field_default
from scratchpad_lab.model.schemas import MAX_FILE_BYTES
from scratchpad_lab.model.trace import RecordError, Trace
from scratchpad_lab.ui.library import (download_button, imported_sample_files, open_imported_sample, open_sample,
                                       runs_frame, runs_table, sample_files)
from scratchpad_lab.ui.problems import show_problem
from scratchpad_lab.ui.state import (LIB_OPENED, PLAY_PRICES_BY_MODEL, PLAY_RUNS, RUNS_OPEN, RUNS_SCROLL,
                                     RUNS_UPLOAD_HASHES,
                                     RUNS_STEP_OF, RUNS_UPLOADS, RUNS_UPLOAD_SEEN, init_session, upload_added,
                                     upload_slot)
from scratchpad_lab.ui.store_view import (library_section, opened_entries, remember, results_section, run_id_for_entry,
                                     show_message, store_upload, stored_id)
from scratchpad_lab.engine.jobs import Job
from scratchpad_lab.ui import live
from scratchpad_lab.ui.view import render_run

if TYPE_CHECKING:  # pandas is imported where a table is built (the first page does without it)
    import pandas as pd

UPLOAD_WHERE = "The uploaded file"
UPLOAD_FAILED = "That file could not be opened as a run record or a trace. Nothing else on this page changed."
TRACE_NOTE = ("This is a trace: a recorded trajectory without events. To show it, the page replayed it once "
              "through the real agent and middleware with the package defaults (summarize_every "
              f"{every_text(field_default('summarize_every'))}, max_scratchpad_chars "
              f"{field_default('max_scratchpad_chars'):,}, the agent's own trim at "
              f"{field_default('agent_trim_chars'):,} chars) and the offline extractive "
              "summarizer. Use the Compare page to replay it under other settings.")
TRACE_REPLAY_NAME = "trace replayed with the package defaults"
REPLAY_STOPPED = ("The replay of the uploaded trace was stopped, so it was not added. To replay it, remove the file "
                  "from the uploader and upload it again.")
REPLAY_ERRORS = (LabError, KeyError, ValueError)  # every error a person can cause is a LabError

@dataclass
class Entry:
    """One run the pages can open: what was loaded, and the record that shows it."""

    key: str                            # "sample:<file>", "tab:<i>", "upload:<i>", "stored:<id>": stable across reruns
    source: str                         # "sample" | "this tab" | "upload" | "stored"
    title: str                          # our own words and validated numbers only: safe as a select option
    loaded: Union[RunRecord, Trace]     # what Compare replays
    record: RunRecord                   # what the Runs page shows (a trace: its replay with the defaults)
    file_name: str = ""                 # untrusted (an upload's name): dataframe cells only
    report: str = ""                    # what an importer made of the file (it quotes the file): st.text only
    warnings: List[str] = field(default_factory=list)  # each step that will not replay as it reads: st.text only

    @property
    def is_trace(self) -> bool:
        return isinstance(self.loaded, Trace)


# ── loading (no page state touched) ────────────────────────────────────────

def read_upload(name: str, data: bytes) -> Tuple[Optional[Loaded], Optional[str]]:
    """(loaded, None) for a good run record or trace, or a file an importer takes (its `report` says what
    was imported, its `warnings` what will not replay as it reads), else (None, what is wrong). Never raises.

    `name` is the uploader's file name: untrusted, so it is kept out of the message (which says
    "The uploaded file ...")."""
    del name  # the message must not quote it; the caller keeps it for a dataframe cell
    if not data.strip():
        return None, (f"{UPLOAD_WHERE} is empty ({len(data)} bytes): choose a run record or a trace "
                      "(a .json file downloaded from this lab, or a scratchpad-lab/trace@1 file), or another "
                      "tool's run (autourgos-agent history, OpenAI chat messages, LangChain messages).")
    try:
        # the one loader (schemas.py's checks, then the importers), through the door's import task
        return import_file(ImportRequest(data=data, where=UPLOAD_WHERE)).run_here(), None
    except RecordError as exc:
        return None, str(exc)
    except Exception as exc:  # the edge: a file must never break the page
        return None, f"{UPLOAD_WHERE} could not be read ({type(exc).__name__})."


def _numbers_title(record: RunRecord) -> str:
    c = record.config
    return f"every {every_text(c.summarize_every)} / {c.max_scratchpad_chars:,} chars"


def _upload_entry(index: int, file_name: str, file: Loaded, replayed: Optional[RunRecord] = None,
                  run_of: Optional["RunOfFile"] = None) -> Entry:
    """The entry of an upload; a trace's entry shows `replayed`, its replay with the package defaults. A run picked
    from a file of many runs (`run_of`) says which of them it is, and is named after the file and the run."""
    loaded = file.item
    if run_of is not None:
        title = (f"upload #{index + 1} · run {run_of.number} of {run_of.count} · trace of {len(loaded.steps)} steps "
                 "(replayed with the package defaults)")
        return Entry(f"upload:{index}", "upload", title, loaded, replayed, run_of.name, run_of.report,
                     list(run_of.warnings))
    if isinstance(loaded, Trace):
        kind = f"{file.report.format}, " if file.report else ""  # our own label of the format, never the file's
        title = f"upload #{index + 1} · {kind}trace of {len(loaded.steps)} steps (replayed with the package defaults)"
        return Entry(f"upload:{index}", "upload", title, loaded, replayed, file_name, *_notes(file))
    title = f"upload #{index + 1} · run record · {_numbers_title(loaded)}"
    return Entry(f"upload:{index}", "upload", title, loaded, loaded, file_name, *_notes(file))


def _notes(file: Loaded) -> Tuple[str, List[str]]:
    return (file.report.text() if file.report else ""), list(file.warnings)


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
    for path in imported_sample_files():  # real runs in other tools' formats, imported as an upload would be
        try:
            file, record = open_imported_sample(path)
        except RecordError as exc:
            problems.append(str(exc))
            continue
        label = file.report.format if file.report else "trace"
        entries.append(Entry(f"sample:imported/{path.name}", "sample", f"sample · {path.name} (imported: {label})",
                             file.item, record, path.name, *_notes(file)))
    for i, record in enumerate(st.session_state[PLAY_RUNS]):
        entries.append(Entry(f"tab:{i}", "this tab", f"this tab #{i + 1} · {_numbers_title(record)}",
                             record, record))
    entries.extend(st.session_state[RUNS_UPLOADS])
    entries.extend(opened_entries())
    return entries, problems


def open_stored(run_id: str) -> str:
    """Open a stored run (by its id) in this tab: the key of its entry, or of the tab's own entry when it is one
    of this tab's runs. Raises StoreError (not found, unreachable)."""
    for i, record in enumerate(st.session_state[PLAY_RUNS]):
        if stored_id(record) == run_id:
            key = f"tab:{i}"
            break
    else:
        key = f"stored:{run_id}"
        opened = st.session_state[LIB_OPENED]
        if key not in opened:
            from scratchpad_lab.ui.store_view import get_store
            loaded = get_store().load(run_id)
            number = len(opened) + 1
            if isinstance(loaded, Trace):
                title = f"stored #{number} · trace of {len(loaded.steps)} steps (replayed with the package defaults)"
                record = replay_trace(TraceReplayRequest(loaded, TRACE_REPLAY_NAME, "stored trace")).run_here()
            else:
                title, record = f"stored #{number} · run record · {_numbers_title(loaded)}", loaded
            opened[key] = Entry(key, "stored", title, loaded, record)
            remember(loaded, run_id)
    st.session_state[RUNS_OPEN] = st.session_state["runs_open"] = key
    return key


# ── widgets shared with the Compare page ───────────────────────────────────

@dataclass
class FileOfRuns:
    """An uploaded file that holds several runs, each imported as the Benchmark imports a dataset's runs: the
    uploader's select offers them one at a time. Its name and its runs' names are the file's text."""

    file_id: str
    file_name: str
    digest: str
    runs: list          # the door's DatasetRun: name, trace (None when it could not be imported), report, error

    def option(self, index: int) -> str:
        """A run as the select names it: its number, and its name in the file (plain text in a select)."""
        run = self.runs[index]
        return (f"run {index + 1} of {len(self.runs):,} · {run.name}" +
                ("" if run.ok else " (could not be imported)"))


@dataclass(frozen=True)
class RunOfFile:
    """Which run of a file of many runs an upload's entry is (carried by its replay job's tag)."""

    number: int
    count: int
    name: str        # the file's name and the run's (untrusted): a dataframe cell, the stored run's name
    report: str      # what the import made of that run (it quotes the file): st.text only
    hash_key: str    # the file's SHA-256 and the run's index: the same run picked again opens its first entry
    warnings: Tuple[str, ...] = ()  # each step of that run that will not replay as it reads: st.text only


MAX_RUNS_OFFERED = 5_000   # the runs of one file the select offers (the Benchmark's cap on a dataset)


def _file_key(key: str) -> str:
    """The session-state key of the uploader's file of many runs (a FileOfRuns), beside its job slot."""
    return f"{key}_file_of_runs"


def _run_key(key: str) -> str:
    """The uploader's select of a run of that file (its widget key)."""
    return f"{key}_run_of_file"


def runs_of_file(name: str, data: bytes) -> Optional[list]:
    """Each run of a file that holds several (the door's dataset reading: a list of runs, JSON Lines of them), or
    None for a file of one run (a conversation's messages, one trace, one run record), or one that cannot be read
    as a dataset: the one loader then says what it is. Never raises."""
    try:
        if len(read_dataset_bytes(data, name, 2).runs) < 2:
            return None
        return read_dataset_bytes(data, name, MAX_RUNS_OFFERED).runs
    except Exception:  # the edge: the one loader reads the file again and says what is wrong with it
        return None


def upload_widget(key: str) -> Optional[Entry]:
    """A .json uploader; returns the new Entry the first time a good file arrives, else None.

    Each uploaded file is read once (by its uploader id): reruns neither add it again nor repeat work.
    A bad file shows one error while it stays in the uploader, and changes nothing else. A trace is
    replayed with the package defaults as a job, under the uploader; its Entry comes when that ends. A file of
    many runs gets a select of its runs under the uploader: its first run opens at once, and each run picked
    is replayed and opened in turn."""
    upload = st.file_uploader(f"Upload a run record, a trace, another tool's run, or a file of many runs (.json, "
                              f".jsonl, up to {MAX_FILE_BYTES // 1_000_000} MB)",
                              type=["json", "jsonl"], key=key,
                              help="A run downloaded from this lab, a trace in the scratchpad-lab/trace@1 format, "
                                   "an autourgos-agent history= file, OpenAI chat messages (JSON or JSON Lines) or "
                                   "LangChain messages: the page says what it imported. A file of many runs (a "
                                   "benchmark's list of tasks, JSON Lines of conversations) offers each of them.")
    entry = _take_upload(key, upload)
    _runs_select(key, upload)
    live.show(upload_slot(key), on_end=lambda job: _add_replayed(key, job), errors=REPLAY_ERRORS, say_end=False)
    return entry or st.session_state.pop(upload_added(key), None)


def _take_upload(key: str, upload) -> Optional[Entry]:
    """A new file: a run record becomes an Entry at once; a trace's replay starts (one at a time); a file of many
    runs is kept for the select, and its first run's replay starts."""
    if upload is None:
        st.session_state.pop(_file_key(key), None)
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
    data = upload.getvalue()
    digest = hashlib.sha256(data).hexdigest()
    hashes: Dict[str, str] = st.session_state[RUNS_UPLOAD_HASHES]
    first = next((e for e in st.session_state[RUNS_UPLOADS] if e.key == hashes.get(digest)), None)
    if first is not None:  # the same bytes again: open the first upload, add and store nothing
        seen[upload.file_id] = None
        st.info(f"This file was uploaded before, as {first.title.split(' · ')[0]}: that one is open below.")
        store_upload(first)  # selects it in the stored-runs picker (stored once: the store finds its content)
        return first
    runs = runs_of_file(upload.name, data)
    if runs is not None:  # a file of many runs: the select under the uploader offers each; the first opens now
        seen[upload.file_id] = None
        st.session_state[_file_key(key)] = FileOfRuns(upload.file_id, upload.name, digest, runs)
        first_usable = next((i for i, run in enumerate(runs) if run.ok), 0)
        st.session_state[_run_key(key)] = first_usable
        return open_run_of_file(key, first_usable)
    loaded, problem = read_upload(upload.name, data)
    if loaded is None:
        seen[upload.file_id] = problem
        show_problem(UPLOAD_FAILED, problem)
        return None
    uploads: List[Entry] = st.session_state[RUNS_UPLOADS]
    seen[upload.file_id] = None
    if loaded.trace is None:  # a run record: an Entry at once
        entry = _upload_entry(len(uploads), upload.name, loaded)
        uploads.append(entry)
        hashes[digest] = entry.key
        show_notes(entry)
        store_upload(entry)
        return entry
    try:
        job = replay_trace(TraceReplayRequest(loaded.trace, TRACE_REPLAY_NAME, "uploaded trace",
                                              tag=(upload.file_id, upload.name, loaded, digest, None)))
    except LabError as exc:  # refused before it starts (the work limit): said as a replay that failed is
        seen[upload.file_id] = str(exc)
        show_problem(UPLOAD_FAILED, str(exc))
        return None
    live.start(upload_slot(key), job)
    return None


def open_run_of_file(key: str, index: int) -> Optional[Entry]:
    """Open run `index` of the uploader's file of many runs: its entry when it was opened before (opened again,
    now or by the caller), else its replay with the package defaults starts, and its entry comes when that ends.
    A run that could not be imported opens nothing: the select says why."""
    file: Optional[FileOfRuns] = st.session_state.get(_file_key(key))
    if file is None or not 0 <= index < len(file.runs) or not file.runs[index].ok:
        return None
    run = file.runs[index]
    st.session_state[RUNS_UPLOAD_SEEN].pop(f"{file.file_id}#{index}", None)  # replayed again: its last word goes
    hash_key = f"{file.digest}#{index}"
    found = st.session_state[RUNS_UPLOAD_HASHES].get(hash_key)
    before = next((e for e in st.session_state[RUNS_UPLOADS] if e.key == found), None)
    if before is not None:
        st.session_state[upload_added(key)] = before
        return None
    name = run.name if run.name.startswith(file.file_name) else f"{file.file_name} · {run.name}"
    run_of = RunOfFile(index + 1, len(file.runs), name, run.report, hash_key, tuple(run.warnings))
    try:
        job = replay_trace(TraceReplayRequest(run.trace, TRACE_REPLAY_NAME, "uploaded trace",
                                              tag=(file.file_id, name, Loaded(run.trace, None, list(run.warnings)),
                                                   hash_key, run_of)))
    except LabError as exc:  # refused before it starts (the work limit)
        st.session_state[RUNS_UPLOAD_SEEN][f"{file.file_id}#{index}"] = str(exc)
        return None
    live.start(upload_slot(key), job)
    return None


def _runs_select(key: str, upload) -> None:
    """Under the uploader, while it holds a file of many runs: the select of its runs (picking one opens it)."""
    file: Optional[FileOfRuns] = st.session_state.get(_file_key(key))
    if file is None or upload is None or upload.file_id != file.file_id:
        return
    count = len(file.runs)
    usable = sum(1 for r in file.runs if r.ok)
    st.text(f"This file holds {count:,} runs ({count - usable:,} could not be imported): pick one to replay and "
            "open it. Each run picked is added to the runs below." + (
                f" The select offers the first {MAX_RUNS_OFFERED:,}." if count >= MAX_RUNS_OFFERED else ""))
    if st.session_state.get(_run_key(key)) not in range(count):
        st.session_state[_run_key(key)] = 0
    # never disabled while a replay goes: a widget whose `disabled` changes is a new widget, back at run 1; a run
    # picked meanwhile gets the button below once that replay has ended
    index = st.selectbox(f"Run of the uploaded file ({count:,} runs)", range(count), key=_run_key(key),
                         format_func=file.option,
                         on_change=lambda: open_run_of_file(key, st.session_state[_run_key(key)]))
    run = file.runs[index]
    if not run.ok:
        show_problem("That run of the file could not be imported; pick another.", run.error or "")
        return
    refused = st.session_state[RUNS_UPLOAD_SEEN].get(f"{file.file_id}#{index}")
    if refused == REPLAY_STOPPED:
        st.text(f"The replay of run {index + 1} was stopped, so it was not added.")
    elif refused:
        show_problem("That run could not be replayed.", refused)
    opened = st.session_state[RUNS_UPLOAD_HASHES].get(f"{file.digest}#{index}")
    if opened is None and not live.busy(upload_slot(key)):  # not opened yet (its replay was stopped or refused)
        st.button(f"Replay and open run {index + 1}", key=f"{key}_run_open",
                  on_click=lambda: open_run_of_file(key, index))


def _add_replayed(key: str, job: Job) -> None:
    """A trace's replay ended: add its Entry (to be opened), or say why not while the file stays."""
    file_id, file_name, file, digest, run_of = job.tag
    seen: Dict[str, Optional[str]] = st.session_state[RUNS_UPLOAD_SEEN]
    problem_key = file_id if run_of is None else f"{file_id}#{run_of.number - 1}"
    if job.error is not None:
        seen[problem_key] = str(job.error)
    elif job.stopped:
        seen[problem_key] = REPLAY_STOPPED
    elif job.result is not None:
        uploads: List[Entry] = st.session_state[RUNS_UPLOADS]
        entry = _upload_entry(len(uploads), file_name, file, job.result, run_of)
        uploads.append(entry)
        st.session_state[RUNS_UPLOAD_HASHES][digest] = entry.key
        st.session_state[upload_added(key)] = entry
        store_upload(entry)


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


def show_notes(entry: Entry) -> None:
    """What was imported, and each step that will not replay as it reads, as plain text (they quote the file)."""
    if entry.report:
        st.text("Imported: " + entry.report)
    if entry.warnings:
        st.warning(f"{len(entry.warnings)} problem(s) in this trace's steps: they replay, but not as they read.")
        st.text("\n".join(entry.warnings))


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
    origin = entry.record.forked_from
    if origin:  # a fork (engine/run/forking.py): where it was forked from, in our words (the name is shown as text)
        how = "that compression skipped" if origin["skipped"] else "other triggers from there"
        return (f"A fork of {origin['parent_name'] or 'a run'} at iteration {origin['iteration']} ({how}): the same "
                "steps replayed, a run of its own.")
    try:
        notice = summarizer_notice(replay_source(entry.record))
    except LabError:
        notice = None
    notice = f" Replayed on the Compare page: {notice}" if notice else ""
    if entry.record.mode == "scenario":
        return ("A scenario run: the scripted agent's fixed plan of tool calls, with the real middleware and the "
                "agent's own trim. The scripted agent answers only from what is still in its scratchpad." + notice)
    return "A recorded run: the steps and the final answer are what was recorded." + notice


# ── the page ───────────────────────────────────────────────────────────────

STEP_BOX = "runs_step_box"  # the keyed container of the step slider: where a link to a step lands
# Our own fixed script (nothing from a run, a file or a link is put into it): once the step's box is on the
# page, scroll it to the top of the view, under Streamlit's fixed header. Waits at most 5 s for the box.
SCROLL_TO_STEP = """<script>
(() => {
  const started = Date.now();
  const land = () => {
    const box = document.querySelector('.st-key-%s');
    if (!box) { if (Date.now() - started < 5000) setTimeout(land, 50); return; }
    box.style.scrollMarginTop = '4.5rem';
    box.scrollIntoView({block: 'start'});
  };
  land();
})();
</script>""" % STEP_BOX


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
    show_message()
    library = st.container(border=True)  # drawn after the uploader has stored a new file, so it lists it
    entries, added = entries_with_upload(
        "runs_upload", "No runs yet: run one in the Playground, or upload a run record or trace.")
    with library:
        library_section(open_stored)
        results_section()
    st.subheader("Runs")
    runs_table(entries_frame(entries, prices), key="runs_table")
    entry = pick_entry(entries, "Open run", "runs_open", RUNS_OPEN, open_key=added.key if added else None)
    st.text(kind_note(entry))
    if added is None or added.key != entry.key or entry.is_trace:  # a run record's notes: shown by the uploader
        show_notes(entry)
    index = entries.index(entry)
    download_button(entry.record, key="runs_download", index=index)
    if entry.is_trace:
        st.download_button("Download the uploaded trace (JSON)", key="runs_download_trace", mime="application/json",
                           data=json.dumps(entry.loaded.to_dict(), ensure_ascii=False, indent=1),
                           file_name=f"scratchpad-lab-trace-{index + 1}.json")
    st.divider()
    with st.container(key=STEP_BOX):
        step = _step_slider(entry)
    record = entry.record
    end = [e for e in record.events if e.kind == "finish"]
    render_run(record.events, record.config, live=False, key="runs_view", upto=step, prices=prices,
               elapsed_s=float(end[-1].payload.elapsed_s or 0) if end else 0.0)
    from scratchpad_lab.ui.what_if import what_if  # lazy: only an opened run draws it
    what_if(record, key="runs_fork", parent_id=run_id_for_entry(entry.key),
            parent_name=entry.file_name or record.name or entry.title)
    if st.session_state.pop(RUNS_SCROLL, False):
        st.html(SCROLL_TO_STEP, unsafe_allow_javascript=True)
