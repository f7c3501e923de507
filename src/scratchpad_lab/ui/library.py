"""The runs of this browser tab: comparison table, opening a run, downloads, shipped sample runs."""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Callable, List, Optional

import streamlit as st

from scratchpad_lab.model.config import triggers_text

if TYPE_CHECKING:
    import pandas as pd

    from scratchpad_lab.model.records import RunRecord
# The sample picker is on the first page; the analysis, the file schemas and the cards are imported
# where a run is shown or opened (lazily, below), so the first page does without them.


def samples_dir() -> Path:
    configured = os.environ.get("SCRATCHPAD_LAB_SAMPLES")
    if configured:
        return Path(configured)
    repo = Path(__file__).resolve().parents[3] / "sample_runs"
    return repo if repo.is_dir() else Path.cwd() / "sample_runs"


def sample_files() -> List[Path]:
    folder = samples_dir()
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def imported_sample_files() -> List[Path]:
    """Real runs shipped in other tools' formats (sample_runs/imported/, its README names each source)."""
    folder = samples_dir() / "imported"
    return sorted(p for p in folder.glob("*.json*") if p.suffix in (".json", ".jsonl")) if folder.is_dir() else []


_OPENED: dict = {}  # (path, mtime, size) -> record: a sample opened again is the same object, not a copy
_OPENED_LOCK = threading.Lock()


def open_sample(path: Path) -> RunRecord:
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    with _OPENED_LOCK:
        record = _OPENED.get(key)
    if record is None:
        from scratchpad_lab.engine.tasks import load_file
        from scratchpad_lab.model.records import RunRecord
        from scratchpad_lab.model.trace import RecordError
        record = load_file(path).item  # the one loader every page and command uses
        if not isinstance(record, RunRecord):
            raise RecordError(f"{path} is not a run record; a trace or another tool's run belongs in "
                              "sample_runs/imported/.")
        record.name = f"sample: {path.name}"
        with _OPENED_LOCK:
            if len(_OPENED) >= 16:
                _OPENED.clear()
            record = _OPENED.setdefault(key, record)
    return record


def open_imported_sample(path: Path):
    """(what the loader made of the file, its replay with the package defaults): read and replayed once per
    file version, like open_sample."""
    stat = path.stat()
    key = ("imported", str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    with _OPENED_LOCK:
        opened = _OPENED.get(key)
    if opened is None:
        from scratchpad_lab.engine.tasks import TraceReplayRequest, load_file, replay_trace
        from scratchpad_lab.model.trace import RecordError
        file = load_file(path)
        if file.trace is None:
            raise RecordError(f"{path} is a run record; run records belong in sample_runs/ itself.")
        opened = (file, replay_trace(TraceReplayRequest(file.trace, f"sample: {path.name} (imported)",
                                                        "imported sample")).run_here())
        with _OPENED_LOCK:
            if len(_OPENED) >= 16:
                _OPENED.clear()
            opened = _OPENED.setdefault(key, opened)
    return opened


def _usd(value) -> Optional[float]:
    return None if value is None else round(value, 6)




# The runs table in tabs, each read whole at 1280 px (the sidebar open leaves the page about 820 px): 25 columns
# in one table showed 8, three of them raw setting names. Every column has a heading in words and a width
# (RUN_COLUMNS); a tab shows the columns of its list the frame has (the Runs page adds where each run came from).
RUN_TABS = {
    "Outcome": ("#", "run", "outcome", "answer score", "facts kept", "compressions", "summarizer calls", "trims"),
    "Settings": ("#", "run", "scenario", "settings", "summarizer", "prompt"),
    "Pins": ("#", "run", "pins kept", "pins to summarizer"),  # once a run of the tab has pins
    "Tokens and cost": ("#", "run", "peak chars / tokens", "agent tokens in / out", "summarizer tokens in / out",
                        "agent $", "summarizer $"),
    "Where from": ("#", "run", "source", "kind", "file"),  # the Runs page
}
# heading -> (kind of column, width in px, help); widths hold the heading and the usual value whole, and a tab's
# columns add up to 820 px at most (a test holds every tab to it)
RUN_COLUMNS = {
    "#": ("number", 36, None),
    "run": ("text", 185, "The run's name: a sample's file, a Playground run's number, an upload's own name."),
    "outcome": ("text", 80, "How the run ended: answered, stopped, or an error."),
    "answer score": ("percent", 95, "The share of the scenario's expected facts in the final answer (a scenario "
                                    "run only)."),
    "facts kept": ("text", 150, "Of the facts in what each compression replaced, the share still there after it, "
                               "as the run view says it."),
    "compressions": ("number", 95, "Summaries the middleware made."),
    "summarizer calls": ("number", 110, "Calls to the summarizer, failed ones included."),
    "trims": ("number", 50, "Cuts the agent's own limit made."),
    "scenario": ("text", 105, "The built-in scenario, or the recorded run's mode."),
    "settings": ("text", 225, None),  # its help names the sidebar's settings (_column)
    "summarizer": ("text", 85, "Who wrote the summaries."),
    "prompt": ("text", 105, "The summarizer prompt: the package's, a Prompt lab prompt by name, or custom."),
    "pins kept": ("text", 120, "The sidebar's pins still in the scratchpad after every compression."),
    "pins to summarizer": ("text", 130, "Whether the summarizer was asked to keep the pins."),
    "peak chars / tokens": ("text", 130, "The largest scratchpad the agent sent, in characters and in tokens."),
    "agent tokens in / out": ("text", 130, "Tokens the agent's model was sent and wrote."),
    "summarizer tokens in / out": ("text", 165, "Tokens the summarizer was sent and wrote."),
    "agent $": ("usd", 65, "What the agent's calls cost at the model's price."),
    "summarizer $": ("usd", 95, "What the summarizer's calls cost at the model's price."),
    "source": ("text", 85, "A sample, a run of this tab, an upload, a stored run or a benchmark's worst run."),
    "kind": ("text", 225, "A run record shows what ran; a trace is replayed with the package defaults."),
    "file": ("text", 240, "The file it came from."),
}


def settings_text(config) -> str:
    """A run's compression settings in a few words, as the Show run select says them ("every 5 / 15,000 chars";
    "off / ..." with no periodic trigger), with the agent's own limit where it is not the compression cap."""
    text = f"{triggers_text(config.summarize_every, config.max_scratchpad_chars)} chars"
    trim = config.agent_trim_chars
    return text if trim == config.max_scratchpad_chars else f"{text}, limit {trim:,}"


def _in_out(first, second) -> str:
    return f"{first or 0:,} / {second or 0:,}"


def runs_frame(records: List[RunRecord], prices: Optional[dict] = None) -> pd.DataFrame:
    """Every run of `records` as a row of the runs table, with the headings a person reads (RUN_COLUMNS)."""
    import pandas as pd  # lazy: the first page does without it

    from scratchpad_lab.analysis.figures import figures
    from scratchpad_lab.model.records import prompt_label
    rows = []
    for i, r in enumerate(records, start=1):
        s = figures(r.events, r.scenario, prices)
        c = r.config
        rows.append({
            "#": i, "run": r.name or f"run {i}", "outcome": r.outcome, "answer score": s.answer_score,
            "facts kept": s.facts_kept_text, "compressions": s.compressions, "summarizer calls": s.summarizer_calls,
            "trims": s.trims, "scenario": r.scenario or r.mode, "settings": settings_text(c),
            "summarizer": c.summarizer.kind, "prompt": prompt_label(c),
            "peak chars / tokens": _in_out(s.peak_chars, s.peak_tokens),
            "agent tokens in / out": _in_out(s.agent_tokens_in, s.agent_tokens_out),
            "summarizer tokens in / out": _in_out(s.summarizer_tokens_in, s.summarizer_tokens_out),
            "agent $": _usd(s.agent_cost_usd), "summarizer $": _usd(s.summarizer_cost_usd),
        })
        if c.pins:  # analysis/pin_checks.py's count; the columns are there once a run of the tab has pins
            rows[-1]["pins kept"] = s.pins_kept_text
            rows[-1]["pins to summarizer"] = "on" if c.pins_to_summarizer else "off"
    frame = pd.DataFrame(rows)
    if "pins kept" in frame.columns:  # said for the runs without pins too
        frame["pins kept"] = frame["pins kept"].fillna("no pins")
        frame["pins to summarizer"] = frame["pins to summarizer"].fillna("off")
    return frame


def _column(name: str):
    from scratchpad_lab.ui.figure_tables import PERCENT_FORMAT
    from scratchpad_lab.ui.sidebar_settings import SETTING_LABELS

    kind, width, help_text = RUN_COLUMNS[name]
    if name == "settings":  # the sidebar's own words for the three numbers
        help_text = (f"The sidebar's settings: {SETTING_LABELS['summarize_every']} (off: no periodic trigger) / "
                     f"{SETTING_LABELS['max_scratchpad_chars']}; then, where it differs, "
                     f"{SETTING_LABELS['agent_trim_chars']} after \"limit\".")
    pinned = name in ("#", "run")
    if kind == "text":
        return st.column_config.TextColumn(name, width=width, help=help_text, pinned=pinned)
    number_format = {"percent": PERCENT_FORMAT, "usd": "$%.4f"}.get(kind, "localized")
    return st.column_config.NumberColumn(name, width=width, help=help_text, pinned=pinned, format=number_format)


def runs_table(frame: pd.DataFrame, key: str) -> None:
    """The runs table, a tab each for what happened, the settings, the tokens and cost, and (the Runs page) where each
    run came from; the answer score as a whole percentage, as the run view's sentence says it. The first tab's
    table has `key`, each other `key` and the tab's name."""
    from scratchpad_lab.ui.figure_tables import percent_cells
    frame = percent_cells(frame, ["answer score"])
    tabs = {name: [c for c in columns if c in frame.columns] for name, columns in RUN_TABS.items()}
    tabs = {name: columns for name, columns in tabs.items() if len(columns) > 2}  # "#" and "run" alone: no tab
    for i, (tab, columns) in enumerate(zip(st.tabs(list(tabs)), tabs.values())):
        suffix = "" if i == 0 else "_" + list(tabs)[i].lower().replace(" ", "_")
        tab.dataframe(frame[columns], hide_index=True, key=key + suffix, placeholder="–",  # never "None"
                      column_config={name: _column(name) for name in columns})


def run_label(records: List[RunRecord], index: int) -> str:
    r = records[index]
    c = r.config
    named = f" · prompt “{c.prompt_name}”" if c.prompt_name else ""
    return f"#{index + 1} {r.name or 'run'} · {triggers_text(c.summarize_every, c.max_scratchpad_chars)} chars{named}"


def download_button(record: RunRecord, key: str, index: Optional[int] = None) -> None:
    name = f"scratchpad-lab-run-{index + 1 if index is not None else 'x'}.json"
    # data is the method, not its result: the JSON (tens of MB for a long run) is built when the
    # button is pressed, never kept in the server's memory on every rerun.
    st.download_button("Download this run (JSON)", data=record.to_json, file_name=name,
                       mime="application/json", key=key)


def sample_picker(key: str, on_open: Callable[[RunRecord], None]) -> None:
    """A select box of the shipped sample runs and an Open button. The record is opened in the button's
    callback, before the page is drawn, so the view above the picker shows it in the same render."""
    files = sample_files()
    if not files:
        st.text("No sample runs found in sample_runs/.")
        return
    names = [p.name for p in files]

    def _open() -> None:
        from scratchpad_lab.model.trace import RecordError
        try:
            on_open(open_sample(files[names.index(st.session_state[f"{key}_pick"])]))
        except RecordError as exc:
            st.session_state[f"{key}_error"] = str(exc)

    col_pick, col_open = st.columns([3, 1], vertical_alignment="bottom")
    col_pick.selectbox("Recorded sample run", names, key=f"{key}_pick")
    col_open.button("Open sample", key=f"{key}_open", on_click=_open, width="stretch")
