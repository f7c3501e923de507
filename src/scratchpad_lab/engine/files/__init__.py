"""Run files: reading a run record, a trace or another tool's run, and datasets of many runs.

Its modules: loader (the one loader, over importers/), dataset (a file or folder of runs, their outcomes and gold actions), trace_check (what in a trace will not replay as it reads).

Streamlit-free. Nothing is imported here until it is asked for: each public name below (what modules outside the wing
use) comes from its module on first use, so the first page does without the heavy ones; static tools
read the same names from the imports under TYPE_CHECKING.
"""
from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scratchpad_lab.engine.files.dataset import Dataset, DatasetRun, read_dataset, read_dataset_bytes
    from scratchpad_lab.engine.files.loader import FORMATS, Loaded, load_bytes, load_file, trace_json

# each public name and the module of this wing it lives in
_HOMES = {"Dataset": "dataset", "DatasetRun": "dataset", "FORMATS": "loader", "Loaded": "loader",
          "load_bytes": "loader", "load_file": "loader", "read_dataset": "dataset", "read_dataset_bytes": "dataset",
          "trace_json": "loader"}
__all__ = ["Dataset", "DatasetRun", "FORMATS", "Loaded", "load_bytes", "load_file", "read_dataset",
           "read_dataset_bytes", "trace_json"]


def __getattr__(name: str) -> Any:
    """A public name of the wing, from its module on first use (the module's import is then Python's own)."""
    if name in _HOMES:
        return getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
