"""The one error the store raises: a sentence that says what happened and what to do.

A RuntimeError (not a ValueError): what goes wrong is the database (unreachable, full, newer than this
code), rarely the caller's input. `kind` lets a page choose its words and a test check the cause
without matching text.
"""
from __future__ import annotations

from typing import Literal

from scratchpad_lab.model.errors import LabError

StoreProblem = Literal["settings", "unreachable", "refused_login", "full", "too_large", "not_found", "not_yours", "newer_schema",
                       "bad_row"]


class StoreError(LabError, RuntimeError):
    """The store could not do what was asked; str(exc) says why and what to change."""

    def __init__(self, message: str, kind: StoreProblem = "unreachable") -> None:
        super().__init__(message)
        self.kind: StoreProblem = kind
