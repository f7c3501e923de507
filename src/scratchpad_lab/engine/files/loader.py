"""The one way a file becomes something the lab can show or replay: every page and command loads here.

Streamlit-free. A file is read once, under the same caps as always (10 MB, UTF-8, JSON; a file that is
not one JSON document is tried as JSON Lines), then:
- the lab's own run record or trace (`"schema": "scratchpad-lab/..."`) loads as it is (model/records.py);
- anything else goes to the importers (engine/importers/), the first that takes it converting it to a
  trace with an import report; a file none takes gets one message naming every format tried and why.
A trace (loaded or imported) is then checked (engine/files/trace_check.py): responses that would take the agent's
parser over its parse-work limit are refused before any is parsed; what will not replay as it reads comes
back as `warnings`, one sentence per problem naming its step.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, List, Optional, Union

from scratchpad_lab.engine import importers
from scratchpad_lab.engine.importers import ImportReport, JsonLines
from scratchpad_lab.engine.files.trace_check import check_parse_work, check_trace
from scratchpad_lab.model.records import RunRecord, load_decoded
from scratchpad_lab.model.schemas import FILE_LIMIT, MAX_FILE_BYTES, RUN_SCHEMA, TRACE_SCHEMA
from scratchpad_lab.model.trace import RecordError, Trace, parse_json_bytes, read_file_bytes

FORMATS = ("auto", "scratchpad-lab")  # then each importer's name (importers.names())


@dataclass
class Loaded:
    """What a file held, as the lab uses it, and what a person should be told about it."""

    item: Union[RunRecord, Trace]
    report: Optional[ImportReport] = None          # None for the lab's own files
    warnings: List[str] = field(default_factory=list)

    @property
    def trace(self) -> Optional[Trace]:
        return self.item if isinstance(self.item, Trace) else None


def decode(data: Union[bytes, str], where: str) -> Any:
    """The decoded JSON of a file, or of each line of a JSON Lines file (as a `JsonLines` list)."""
    try:
        return parse_json_bytes(data, where)
    except RecordError as not_json:
        text = _text(data)
        lines = [line for line in text.splitlines() if line.strip()] if text is not None else []
        if len(lines) < 2 or not all(line.lstrip()[:1] in ("{", "[") for line in lines):
            raise not_json
        out = JsonLines()
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                out.append(parse_json_bytes(line, f"{where}, line {number},"))
        return out


def _text(data: Union[bytes, str]) -> Optional[str]:
    if isinstance(data, str):
        return data
    if len(data) > MAX_FILE_BYTES:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def load_bytes(data: Union[bytes, str], where: str = "file", *, format: str = "auto", task: Optional[str] = None,
               conversation: int = 1) -> Loaded:
    """A run record, a trace, or an imported trace from untrusted bytes; RecordError (an importer's
    TraceImportError is one) on anything wrong, with a message that says what to change."""
    if format not in FORMATS and format not in importers.names():
        raise RecordError(f"unknown format {format!r}; the formats are: {', '.join(FORMATS + tuple(importers.names()))}.")
    return load_raw(decode(data, where), where, format=format, task=task, conversation=conversation)


def load_raw(raw: Any, where: str = "file", *, format: str = "auto", task: Optional[str] = None,
             conversation: int = 1) -> Loaded:
    """`load_bytes` after decoding: one run of a dataset (engine/files/dataset.py) is decoded JSON already."""
    schema = raw.get("schema") if isinstance(raw, dict) else None
    own = isinstance(schema, str) and schema.startswith("scratchpad-lab/")
    if format == "scratchpad-lab" or (format == "auto" and own):
        item = load_decoded(raw, where)
        if isinstance(item, RunRecord) and item.trace is not None:
            check_parse_work(item.trace, where)  # a run record's trajectory is replayed as a trace's is
        return Loaded(item, None, check_trace(item, where) if isinstance(item, Trace) else [])
    tried = []
    if format == "auto":
        said = f"its \"schema\" is {schema!r}" if isinstance(raw, dict) and "schema" in raw else "no \"schema\""
        tried = [f"not a scratchpad-lab run record or trace ({said}; expected {RUN_SCHEMA!r} or {TRACE_SCHEMA!r})"]
    imported = importers.import_raw(raw, format=format, task=task, where=where, conversation=conversation,
                                    tried=tried)
    return Loaded(imported.trace, imported.report, check_trace(imported.trace, where))


def load_file(path: Union[str, Path], *, format: str = "auto", task: Optional[str] = None,
              conversation: int = 1) -> Loaded:
    return load_bytes(read_file_bytes(path), str(path), format=format, task=task, conversation=conversation)


def trace_json(trace: Trace) -> str:
    """A trace as the file the lab writes (`scratchpad-lab import --out`, the Runs page's download): indented, or
    compact where indenting would take it over the file limit (a recorded conversation is held twice, as steps and
    as messages, so its trace is about twice its recording). RecordError when even the compact file could not be
    opened again."""
    raw = trace.to_dict()
    text = json.dumps(raw, ensure_ascii=False, indent=1)
    if len(text.encode("utf-8", "surrogatepass")) <= MAX_FILE_BYTES:
        return text
    text = json.dumps(raw, ensure_ascii=False, separators=(",", ":"))
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_FILE_BYTES:
        raise RecordError(f"this run's trace would be {size:,} bytes, over the {FILE_LIMIT} a trace file may be (it "
                          "holds the conversation twice: as the autourgos steps and as its messages), so it could not "
                          "be opened again: open the recording's own file in the lab instead (every page and command "
                          "imports it as it reads it).")
    return text
