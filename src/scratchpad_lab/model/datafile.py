"""Content files people add without Python (lessons, presets, prompts): reading one and checking it
against its schema, with one error that names the file, the field and what to change.

Streamlit-free, so the CLI (`scratchpad-lab lessons check`), the pages and the tests read files the same
way. A field is named as a reader of the file finds it: dotted, with the n-th `[[table]]` of an array
counted from 1 (`pauses[2].moment.find` is the `find` of the second `[[pauses]]`).
"""
from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Sequence, Type, TypeVar, Union

from pydantic import BaseModel, ValidationError
from scratchpad_lab.model.errors import LabError

M = TypeVar("M", bound=BaseModel)


class DataFileError(LabError, ValueError):
    """A content file cannot be used; `str()` is one line: the file, the field and what to change."""

    def __init__(self, path: Union[str, Path], field: str, problem: str) -> None:
        self.path, self.field, self.problem = str(path), field, problem
        where = f"{self.path}: {field}" if field else self.path
        super().__init__(" ".join(f"{where}: {problem}".split()))


def field_name(loc: Sequence[Any]) -> str:
    """pydantic's location ("pauses", 1, "moment") as the file's reader names it: `pauses[2].moment`."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part + 1}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _problem(err: dict) -> str:
    kind, got = err.get("type", ""), err.get("input")
    if kind == "missing":
        return "is missing; add it."
    if kind == "extra_forbidden":
        return "is not a field this file knows; check its spelling or remove it."
    if kind in ("value_error", "assertion_error"):
        return str(err.get("ctx", {}).get("error", err.get("msg")))
    msg = str(err.get("msg", "is not valid"))
    return f"{msg[0].lower() + msg[1:]} (it is {got!r}); change it."


def check(model: Type[M], data: Any, path: Union[str, Path]) -> M:
    """`data` validated as `model`, or DataFileError naming the first bad field of `path`."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        # an unknown field first: a misspelt one is also reported missing under its right name
        err = sorted(exc.errors(), key=lambda e: e.get("type") != "extra_forbidden")[0]
        raise DataFileError(path, field_name(err.get("loc", ())), _problem(dict(err))) from None


def read_toml(path: Union[str, Path]) -> dict:
    """The TOML file as a dict, or DataFileError saying why it cannot be read (with the line of a syntax error)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataFileError(path, "", "no such file; check the path.") from None
    except UnicodeDecodeError:
        raise DataFileError(path, "", "is not UTF-8 text; save it as UTF-8.") from None
    except OSError as exc:
        raise DataFileError(path, "", f"cannot be read ({exc.strerror}).") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DataFileError(path, "", f"is not valid TOML ({exc}); fix the syntax there.") from None


# ── run settings in a file ────────────────────────────────────────────────────────────────────────

def run_setting(path: Union[str, Path], field: str, name: str, value: Any) -> Any:
    """One RunConfig setting as a file writes it, checked against RunConfig (the one home of its range).

    `"off"` (or `"none"`, in any case: model.config.is_off_word, the rule of every widget and flag) turns
    a middleware trigger off, as TOML has no null: `summarize_every = "off"` is no periodic trigger, and
    `max_scratchpad_chars = "off"` is the largest cap RunConfig allows, so no size trigger in practice.
    `field` is how the file names the setting in an error (`settings.summarize_every`)."""
    from scratchpad_lab.model.config import ConfigError, RunConfig, field_bounds, field_definition, is_off_word, \
        setting_value
    if is_off_word(value) and name == "summarize_every":
        return None
    if is_off_word(value) and name == "max_scratchpad_chars":
        return field_bounds(name)[1]
    if value == "off":  # on any other setting (a text setting may well be "none")
        raise DataFileError(path, field, f'"off" turns off only summarize_every or max_scratchpad_chars; '
                                         f"give {name} a value.")
    known = field_definition(name)
    numeric = name == "summarize_every" or (known is not None and known.annotation in (int, float))
    if numeric and isinstance(value, (bool, str)):
        off = ' or "off"' if name in ("summarize_every", "max_scratchpad_chars") else ""
        raise DataFileError(path, field, f"{value!r} is not a number; write a number{off}.")
    try:
        return setting_value(RunConfig.build(**{name: value}), name)  # the value as RunConfig holds it
    except ConfigError as exc:  # (RunConfig's words say "none" for off; a file writes "off")
        raise DataFileError(path, field, f"{exc} Change it.".replace("or none to", 'or "off" to')) from None
