"""The runs of this browser tab: comparison table, opening a run, downloads, shipped sample runs."""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Callable, List, Optional

import streamlit as st

from scratchpad_lab.model.config import every_text

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




# the columns a person compares first come first, so they are on screen at 1280 px
FIRST_COLUMNS = ["#", "run", "prompt", "answer score", "facts kept", "outcome"]


def runs_frame(records: List[RunRecord], prices: Optional[dict] = None) -> pd.DataFrame:
    import pandas as pd  # lazy: the first page does without it

    from scratchpad_lab.analysis.figures import figures
    from scratchpad_lab.model.records import prompt_label
    rows = []
    for i, r in enumerate(records, start=1):
        s = figures(r.events, r.scenario, prices)
        c = r.config
        rows.append({
            "#": i, "run": r.name or f"run {i}", "prompt": prompt_label(c), "answer score": s.answer_score,
            "facts kept": s.facts_kept_text, "outcome": r.outcome, "compressions": s.compressions,
            "summarizer calls": s.summarizer_calls,
            "summarize_every": every_text(c.summarize_every),
            "max_scratchpad_chars": c.max_scratchpad_chars, "agent_trim_chars": c.agent_trim_chars,
            "summarizer": c.summarizer, "scenario": r.scenario or r.mode, "trims": s.trims,
            "peak chars": s.peak_chars, "peak tokens": s.peak_tokens,
            "summarizer tokens in": s.summarizer_tokens_in, "summarizer tokens out": s.summarizer_tokens_out,
            "agent tokens in": s.agent_tokens_in, "agent tokens out": s.agent_tokens_out,
            "agent $": _usd(s.agent_cost_usd), "summarizer $": _usd(s.summarizer_cost_usd),
        })
        if c.pins:  # analysis/pin_checks.py's count; the columns are there once a run of the tab has pins
            rows[-1]["pins kept"] = s.pins_kept_text
            rows[-1]["pins to summarizer"] = "on" if c.pins_to_summarizer else "off"
    frame = pd.DataFrame(rows)
    if "pins kept" in frame.columns:  # next to facts kept, and said for the runs without pins too
        frame["pins kept"] = frame["pins kept"].fillna("no pins")
        frame["pins to summarizer"] = frame["pins to summarizer"].fillna("off")
        order = list(frame.columns)
        for name in ("pins to summarizer", "pins kept"):
            order.remove(name)
            order.insert(order.index("facts kept") + 1, name)
        frame = frame[order]
    return frame


def runs_table(frame: pd.DataFrame, key: str) -> None:
    """The runs table: the first columns sized to be read at 1280 px, the run's name pinned; the answer
    score as a whole percentage, as the run view's sentence says it."""
    from scratchpad_lab.ui.figure_tables import PERCENT_FORMAT, percent_cells
    st.dataframe(percent_cells(frame, ["answer score"]), hide_index=True, key=key, column_config={
        "#": st.column_config.NumberColumn(width=40, pinned=True),
        "run": st.column_config.TextColumn(width="medium", pinned=True),
        "prompt": st.column_config.TextColumn(width="small"),
        "answer score": st.column_config.NumberColumn(format=PERCENT_FORMAT, width="small"),
        "facts kept": st.column_config.TextColumn(width="small"),
        "outcome": st.column_config.TextColumn(width="small"),
        "compressions": st.column_config.NumberColumn(width="small"),
        "summarizer calls": st.column_config.NumberColumn(width="small"),
    })


def run_label(records: List[RunRecord], index: int) -> str:
    r = records[index]
    c = r.config
    named = f" · prompt “{c.prompt_name}”" if c.prompt_name else ""
    return (f"#{index + 1} {r.name or 'run'} · every {every_text(c.summarize_every)} / "
            f"{c.max_scratchpad_chars:,} chars{named}")


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
