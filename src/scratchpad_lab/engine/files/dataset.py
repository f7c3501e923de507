"""Datasets: a file or a folder of many runs, each in any format `scratchpad-lab import` reads.

Streamlit-free. A dataset is read under the lab's file caps (10 MB a file, UTF-8 JSON or JSON Lines):
- a folder: each `.json` / `.jsonl` file in it (sorted by name, not its subfolders) is read as below;
- a file that is a list (or JSON Lines) of runs: each item is one run: a benchmark's record (tau-bench's
  `task_id`, `trial`, `reward`, `info.task.actions`, `traj`), a chat (a list of OpenAI or LangChain messages,
  or an object with `messages`), the lab's own trace or run record, an autourgos history;
- a file that is one run (a list whose items are messages is one conversation, a JSON object is one run).
Each run goes through the one loader (engine/files/loader.py `load_raw`). A run that cannot be imported is kept
as broken with its reason, and the rest go on. The outcome is read where the run carries one: a number
`reward` (or `score`), or a true/false `passed`, `pass`, `success` or `solved` (1 or 0); a lab run record of a
built-in scenario has its answer's score (analysis/metrics.answer_score). Gold actions are
read from `info.task.actions` (tau-bench) or `gold_actions`: a list of {"name", "kwargs"}.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

from scratchpad_lab.model.errors import LabError
from scratchpad_lab.model.records import RunRecord
from scratchpad_lab.model.trace import RecordError, Trace, parse_json_bytes, read_file_bytes

SUFFIXES = (".json", ".jsonl", ".traj")   # .traj: SWE-agent's runs (JSON)
LABELS_FILE = "labels.json"   # beside a folder's runs: {run id: true (passed) / false, or a number}
MAX_RUNS = 5_000
NAME_CHARS = 200   # a run's name as the file gives it (a task id, an instance id), cut: it is shown and stored
OUTCOME_NUMBERS = ("reward", "score")
OUTCOME_FLAGS = ("passed", "pass", "success", "solved")


class DatasetError(LabError, ValueError):
    """A dataset cannot be read at all (no such path, no run in it); the message says what to change."""


@dataclass
class DatasetRun:
    name: str                                   # "task 3, trial 1", or "FILE #4"
    trace: Optional[Trace] = None
    scenario: Optional[str] = None              # a lab run record's built-in scenario
    outcome: Optional[float] = None             # 1 passed, 0 failed (or a reward between)
    gold: Optional[List[Dict[str, Any]]] = None  # [{"name", "kwargs"}], when the run carries gold actions
    report: str = ""                            # what the import did
    error: Optional[str] = None                 # why it could not be imported
    # each step that will not replay as it reads (the one loader's `warnings`, one sentence naming its step): a run
    # opened from a dataset says them, as a file of one run does
    warnings: List[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None and self.trace is not None


@dataclass
class Dataset:
    source: str
    runs: List[DatasetRun] = field(default_factory=list)

    @property
    def usable(self) -> List[DatasetRun]:
        return [r for r in self.runs if r.ok]

    @property
    def broken(self) -> List[DatasetRun]:
        return [r for r in self.runs if not r.ok]

    def first(self, count: Optional[int]) -> "Dataset":
        """The first `count` runs (all when None), broken ones included: `--runs N`."""
        return Dataset(self.source, self.runs if count is None else self.runs[:count])


def _is_message(item: Any) -> bool:
    from scratchpad_lab.engine.importers.langchain_messages import as_dict_form
    return isinstance(item, dict) and (isinstance(item.get("role"), str) or as_dict_form(item) is not None)


def items_of(raw: Any) -> List[Any]:
    """The runs a decoded file holds: a list of messages is one conversation, and so are a session file's records
    (Claude Code's JSON Lines); any other list, each item."""
    from scratchpad_lab.engine.importers.claude_code import IMPORTER as CLAUDE_CODE

    if isinstance(raw, list) and raw and not all(_is_message(m) for m in raw) and CLAUDE_CODE.refuses(raw) is not None:
        return list(raw)
    return [raw]


def _number(value: Any) -> Optional[float]:
    """A finite number as a float, else None (a JSON integer of 400 digits does not fit a float; 1e999 reads as
    infinity): an outcome is a reward, not whatever a file wrote."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def outcome_of(item: Any) -> Optional[float]:
    if not isinstance(item, dict):
        return None
    for key in OUTCOME_NUMBERS:
        number = _number(item.get(key))
        if number is not None:
            return number
    for key in OUTCOME_FLAGS:
        if isinstance(item.get(key), bool):
            return 1.0 if item[key] else 0.0
    return None


def gold_of(item: Any) -> Optional[List[Dict[str, Any]]]:
    if not isinstance(item, dict):
        return None
    found = item.get("gold_actions")
    if found is None:
        task = (item.get("info") or {}).get("task") if isinstance(item.get("info"), dict) else None
        found = task.get("actions") if isinstance(task, dict) else None
    if not isinstance(found, list):
        return None
    return [{"name": a["name"], "kwargs": a.get("kwargs", a.get("arguments", {}))}
            for a in found if isinstance(a, dict) and isinstance(a.get("name"), str)]


def name_of(item: Any, where: str, index: int, count: int) -> str:
    """The run's name: its task id (and trial), a SWE-bench instance id, else its place in the file; each cut to
    NAME_CHARS (a task id is whatever the file holds: 5 MB of text, or an object)."""
    def cut(value: Any) -> str:
        text = str(value)
        return text if len(text) <= NAME_CHARS else text[:NAME_CHARS - 1] + "…"
    if isinstance(item, dict) and "task_id" in item:
        trial = f", trial {cut(item['trial'])}" if "trial" in item else ""
        return f"task {cut(item['task_id'])}{trial}"
    if isinstance(item, dict) and isinstance(item.get("instance_id"), str) and count == 1:
        return cut(item["instance_id"])  # a SWE-bench run (mini-swe-agent)
    return f"{where} #{index + 1}" if count > 1 else where


def read_labels(folder: Path) -> Dict[str, float]:
    """A folder's `labels.json` ({run id: true/false or a number}, as a SWE-bench harness report gives the runs'
    resolved / unresolved), as outcomes; {} when there is none or it is not such a mapping."""
    path = folder / LABELS_FILE
    if not path.is_file():
        return {}
    try:
        raw = parse_json_bytes(read_file_bytes(path), str(path))
    except RecordError:
        return {}
    if not isinstance(raw, dict):
        return {}
    out = {}
    for key, value in raw.items():
        number = (1.0 if value else 0.0) if isinstance(value, bool) else _number(value)
        if number is not None:
            out[str(key)] = number
    return out


def _label_for(labels: Dict[str, float], run: "DatasetRun", file: Path) -> Optional[float]:
    stem = file.name.split(".")[0]
    for key in (run.name, stem):
        if key in labels:
            return labels[key]
    return None


def read_run(item: Any, name: str) -> DatasetRun:
    from scratchpad_lab.engine.files.loader import load_raw

    run = DatasetRun(name, outcome=outcome_of(item), gold=gold_of(item))
    try:
        loaded = load_raw(item, name)
    except RecordError as exc:
        run.error = exc.sentence
        return run
    found = loaded.item
    if isinstance(found, RunRecord):
        if found.trace is None:
            run.error = f"{name} is a run record with no recorded trajectory (no embedded trace)."
            return run
        run.trace, run.scenario = found.trace, found.scenario
        if run.outcome is None and found.scenario:  # the lab's own run: its answer's score is its outcome
            from scratchpad_lab.analysis.metrics import answer_score, final_answer
            run.outcome = answer_score(final_answer(found.events), found.scenario)
    else:
        run.trace = found
    if not run.trace.steps:
        run.trace, run.error = None, f"{name} has no model call to replay."
    run.report = loaded.report.text() if loaded.report is not None else "a scratchpad-lab file"
    run.warnings = list(loaded.warnings)
    return run


def _files(path: Path, labelled: bool = False) -> List[Path]:
    """A folder's run files (its labels file, when it is one, is not a run), or the one file."""
    if path.is_dir():
        return sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in SUFFIXES
                      and not (labelled and p.name == LABELS_FILE))
    return [path]


def _add_runs(dataset: Dataset, data: bytes, where: str, limit: Optional[int]) -> bool:
    """The runs of one file's bytes added to `dataset`; False once `limit` runs are in."""
    from scratchpad_lab.engine.files.loader import decode

    try:
        raw = decode(data, where)
    except RecordError as exc:
        dataset.runs.append(DatasetRun(where, error=exc.sentence))
        return True
    items = items_of(raw)
    for index, item in enumerate(items):
        if limit is not None and len(dataset.runs) >= limit:
            return False
        if len(dataset.runs) >= MAX_RUNS:
            raise DatasetError(f"{dataset.source} holds more than {MAX_RUNS:,} runs; take fewer with --runs N.")
        dataset.runs.append(read_run(item, name_of(item, where, index, len(items))))
    return True


def read_dataset(path: Union[str, Path], limit: Optional[int] = None) -> Dataset:
    """Every run of the file or folder (the first `limit`), each imported or broken with its reason."""
    path = Path(path)
    if not path.exists():
        raise DatasetError(f"{path} does not exist: give a dataset file or a folder of run files.")
    labels = read_labels(path) if path.is_dir() else {}
    files = _files(path, bool(labels))
    if not files:
        raise DatasetError(f"{path} holds no .json or .jsonl file.")
    dataset = Dataset(str(path))
    for file in files:
        try:
            data = read_file_bytes(file)
        except RecordError as exc:
            dataset.runs.append(DatasetRun(file.name, error=exc.sentence))
            continue
        before = len(dataset.runs)
        more = _add_runs(dataset, data, file.name, limit)
        for run in dataset.runs[before:]:  # the folder's labels give an outcome the run file does not carry
            if run.outcome is None:
                run.outcome = _label_for(labels, run, file)
        if not more:
            break
    if not dataset.runs:
        raise DatasetError(f"{path} holds no run.")
    return dataset


def read_dataset_bytes(data: bytes, name: str, limit: Optional[int] = None) -> Dataset:
    """An uploaded dataset file: its runs, as `read_dataset` reads a file."""
    dataset = Dataset(name)
    _add_runs(dataset, data, name, limit)
    if not dataset.runs:
        raise DatasetError(f"{name} holds no run.")
    return dataset
