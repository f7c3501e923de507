"""Where a study's cells run: one executor seam, local worker processes or Ray.

Its modules: executor (the choice, a cell, a run's share, the work: the one cell API), dispatch (the one executor
every study runs its cells through),
local_pool (worker processes of this machine beside the calling thread), ray_cluster (Ray tasks, the shared run in
the object store, an actor for an endpoint summarizer).

Streamlit-free. Nothing is imported here until it is asked for: each public name below (what modules outside the wing
use) comes from its module on first use, so the first page does without the heavy ones; static tools
read the same names from the imports under TYPE_CHECKING.
"""
from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scratchpad_lab.engine.cells.dispatch import opened
    from scratchpad_lab.engine.cells.executor import (EXECUTORS, ExecutorChoice, Outcome, Placement, RunShare,
        StudyCell, Work, choice_from_args, choice_from_settings, new_key, plain)
    from scratchpad_lab.engine.cells.local_pool import short

# each public name and the module of this wing it lives in
_HOMES = {"EXECUTORS": "executor", "ExecutorChoice": "executor", "Outcome": "executor", "Placement": "executor",
          "RunShare": "executor", "StudyCell": "executor", "Work": "executor", "choice_from_args": "executor",
          "choice_from_settings": "executor", "new_key": "executor", "opened": "dispatch", "plain": "executor",
          "short": "local_pool"}
__all__ = ["EXECUTORS", "ExecutorChoice", "Outcome", "Placement", "RunShare", "StudyCell", "Work",
           "choice_from_args", "choice_from_settings", "new_key", "opened", "plain", "short"]


def __getattr__(name: str) -> Any:
    """A public name of the wing, from its module on first use (the module's import is then Python's own)."""
    if name in _HOMES:
        return getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
