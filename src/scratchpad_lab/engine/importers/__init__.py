"""Importers: other tools' run files made into the lab's trace, each saying what it changed on the way.

Streamlit-free. One module per format; each registers one `Importer` here, so another format is one
more module and one line in `_BUILT_IN`. An importer decides on its own whether a file is its format
(`refuses` gives the reason it is not, or None) and converts it (`convert`), returning the trace and
an `ImportReport`: what came in, what it became, and every way the conversion is lossy or rebuilt.
A file that no importer takes gets one message naming each format tried and why it refused.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, Dict, List, Optional, Protocol

from scratchpad_lab.model.trace import RecordError, Trace


class TraceImportError(RecordError):
    """A file could not be imported as a trace; the message says which format, what is wrong, what to do."""


@dataclass
class ImportReport:
    """What an import did, for a person: "OpenAI chat messages: 31 messages → 14 steps; ..."."""

    format: str                       # the format's label, e.g. "OpenAI chat messages"
    summary: str                      # "31 messages → 14 steps"
    notes: List[str] = field(default_factory=list)   # each change or loss, as a clause
    cut: int = 0                      # how many texts the source (or the lab) shortened
    rebuilt: int = 0                  # how many raw replies were rebuilt rather than read
    task_missing: bool = False        # the file does not hold its task (a placeholder stands in for it)

    def text(self) -> str:
        notes = list(self.notes)
        if not self.cut:
            notes.append("nothing cut")
        return f"{self.format}: {self.summary}" + "".join(f"; {n}" for n in notes)


@dataclass
class Imported:
    trace: Trace
    report: ImportReport


class Importer(Protocol):
    name: str      # the --format value, e.g. "openai-chat"
    label: str     # what a person calls the format, e.g. "OpenAI chat messages"

    def refuses(self, raw: Any) -> Optional[str]:
        """None when `raw` (decoded JSON; a `JsonLines` list for JSON Lines) is this format, else why not."""

    def convert(self, raw: Any, *, task: Optional[str] = None, where: str = "file", conversation: int = 1) -> Imported:
        """The trace and the report; TraceImportError when the file is this format but cannot be used.
        `task` replaces a task the file does not hold; `conversation` picks one of several (1 = the first)."""


class JsonLines(list):
    """The decoded lines of a JSON Lines file (a list, marked so an importer can say where it came from)."""


_BUILT_IN = ("autourgos_history", "mini_swe_agent", "openai_chat", "swe_agent", "langchain_messages", "claude_code")
_REGISTRY: Dict[str, Importer] = {}


def register(importer: Importer) -> Importer:
    """Add an importer (a module's `IMPORTER`); a later one with the same name replaces the earlier."""
    _REGISTRY[importer.name] = importer
    return importer


def importers() -> List[Importer]:
    if not _REGISTRY:
        for module in _BUILT_IN:
            register(import_module(f"{__name__}.{module}").IMPORTER)
    return list(_REGISTRY.values())


def names() -> List[str]:
    return [i.name for i in importers()]


def get(name: str) -> Importer:
    for importer in importers():
        if importer.name == name:
            return importer
    raise TraceImportError(f"unknown format {name!r}; the formats are: auto, {', '.join(names())}.")


def import_raw(raw: Any, *, format: str = "auto", task: Optional[str] = None, where: str = "file",
               conversation: int = 1, tried: Optional[List[str]] = None) -> Imported:
    """`raw` converted by the importer of `format`, or by the first that takes it (`auto`).

    `tried` are reasons already given by the caller (the lab's own formats), put first in the message."""
    if format != "auto":
        importer = get(format)
        why = importer.refuses(raw)
        if why is not None:
            raise TraceImportError(f"{where} is not {importer.label}: {why}.")
        return importer.convert(raw, task=task, where=where, conversation=conversation)
    reasons = list(tried or [])
    for importer in importers():
        why = importer.refuses(raw)
        if why is None:
            return importer.convert(raw, task=task, where=where, conversation=conversation)
        reasons.append(f"not {importer.label} ({why})")
    raise TraceImportError(f"{where} is none of the formats the lab reads: " + "; ".join(reasons) + ".")
