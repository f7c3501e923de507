"""Summarizers: the one builder, the offline extractive summarizer, the built-in model and its file, and the silent stand-in.

Its modules: summarizers (the one builder), extractive, builtin_model (SmolLM2 through xllamacpp), model_fetch (its file), silent (a summarizer that replies nothing, on purpose).

Streamlit-free. Nothing is imported here until it is asked for: each public name below (what modules outside the wing
use) comes from its module on first use, so the first page does without the heavy ones; static tools
read the same names from the imports under TYPE_CHECKING.
"""
from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scratchpad_lab.engine.summarize.builtin_model import (BuiltinLLM, LABEL, build, call_seconds, fetchable,
        missing, too_long_for_model)
    from scratchpad_lab.engine.summarize.extractive import ExtractiveSummarizer
    from scratchpad_lab.engine.summarize.model_fetch import FetchError, fetch
    from scratchpad_lab.engine.summarize.summarizers import build_summarizer, summarizer_llm

# each public name and the module of this wing it lives in
_HOMES = {"BuiltinLLM": "builtin_model", "ExtractiveSummarizer": "extractive", "FetchError": "model_fetch",
          "LABEL": "builtin_model", "build": "builtin_model", "build_summarizer": "summarizers",
          "call_seconds": "builtin_model", "fetch": "model_fetch", "fetchable": "builtin_model",
          "missing": "builtin_model", "summarizer_llm": "summarizers", "too_long_for_model": "builtin_model"}
__all__ = ["BuiltinLLM", "ExtractiveSummarizer", "FetchError", "LABEL", "build", "build_summarizer", "call_seconds",
           "fetch", "fetchable", "missing", "summarizer_llm", "too_long_for_model"]


def __getattr__(name: str) -> Any:
    """A public name of the wing, from its module on first use (the module's import is then Python's own)."""
    if name in _HOMES:
        return getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
