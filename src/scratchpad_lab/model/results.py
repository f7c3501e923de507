"""A Compare, sweep, strategies or recommendation result as the store keeps it: the table of figures a
person read, and what it was computed from.

Streamlit-free. The runs behind a result are not kept with it (a comparison of six settings would hold six
runs); what it keeps is its rows, one per setting, as plain values, checked by `ResultFile` on the way
into the store and on the way out.
"""
from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Any, Dict, List, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from scratchpad_lab.model.payloads import NAME_CHARS, Name
from scratchpad_lab.model.trace import validated

RESULT_SCHEMA = "scratchpad-lab/result@1"
RESULT_KINDS = ("compare", "sweep", "strategies", "recommendation", "benchmark")
MAX_RESULT_ROWS = 500
Cell = Union[None, bool, int, float, Name]


class ResultFile(BaseModel):
    model_config = ConfigDict(strict=True, allow_inf_nan=False, extra="forbid", title="scratchpad-lab result")
    schema_: Literal["scratchpad-lab/result@1"] = Field(alias="schema")
    kind: Literal["compare", "sweep", "strategies", "recommendation", "benchmark"]
    name: Name = ""
    source: Name = Field("", description="the run or trace the result was computed from, as the page named it")
    created: Name = ""
    measured_with: Name = Field("", description="which summarizer wrote the summaries behind the figures, in a sentence")
    labels: List[Name] = Field(default_factory=list, max_length=MAX_RESULT_ROWS)
    rows: List[Dict[Name, Cell]] = Field(default_factory=list, max_length=MAX_RESULT_ROWS)


@dataclass
class Result:
    kind: str
    rows: List[Dict[str, Any]]
    labels: List[str] = field(default_factory=list)
    name: str = ""
    source: str = ""
    created: str = field(default_factory=lambda: _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
    measured_with: str = ""   # model/summarizer.SummarizerChoice.measured_with; "" in a result stored before it

    def to_dict(self) -> Dict[str, Any]:
        return {"schema": RESULT_SCHEMA, "kind": self.kind, "name": _cut(self.name), "source": _cut(self.source),
                "created": self.created, "labels": [_cut(str(label)) for label in self.labels],
                "rows": [_plain(r) for r in self.rows],
                **({"measured_with": _cut(self.measured_with)} if self.measured_with else {})}

    @classmethod
    def from_dict(cls, raw: Any, where: str = "result") -> "Result":
        spec = validated(ResultFile, raw, where)
        return cls(kind=spec.kind, rows=[dict(r) for r in spec.rows], labels=list(spec.labels), name=spec.name,
                   source=spec.source, created=spec.created, measured_with=spec.measured_with)


# A benchmark's column for the share of needed values recoverable from a file the context names: every benchmark made
# since runs kept their own shape (system prompt, user turns) has it, none made before did.
RECOVERABLE_COLUMN = "recoverable %"
OLD_IMPORT_NOTE = ("Measured with the lab's old import of conversations (before 2026-12-04): the system prompt was "
                   "part of the first human message and user turns were tool results, so the message strategies "
                   "could clear or summarize them. Its figures describe that import, not the packages; run the "
                   "benchmark again for today's.")


def old_import_note(result: "Result") -> str:
    """The note a stored benchmark made with the old import carries on the Runs page ("" for any other result)."""
    if result.kind == "benchmark" and result.rows and RECOVERABLE_COLUMN not in result.rows[0]:
        return OLD_IMPORT_NOTE
    return ""


def _plain(row: Dict[str, Any]) -> Dict[str, Any]:
    """A row's values as JSON scalars: numpy numbers become Python ones, NaN becomes None, lists become text,
    text longer than a cell holds is cut."""
    out: Dict[str, Any] = {}
    for key, value in row.items():
        if hasattr(value, "item") and not isinstance(value, (str, bytes)):
            value = value.item()  # numpy / pandas scalars
        if isinstance(value, float) and value != value:
            value = None
        elif isinstance(value, float) and value in (float("inf"), float("-inf")):
            value = None
        elif value is not None and not isinstance(value, (bool, int, float, str)):
            value = str(value)
        out[str(key)] = _cut(value) if isinstance(value, str) else value
    return out


def _cut(text: str) -> str:
    """Text as a Name holds it: a longer one (a point's error, a label) is cut, not refused."""
    return text if len(text) <= NAME_CHARS else text[:NAME_CHARS - 1] + "…"

