"""Where the built-in model is offered and not here: the one line that says how to get it, everywhere alike.

Every page that offers the built-in model as a summarizer (the Playground's sidebar, the Prompt lab's columns,
Strategies and Recommend, Compare and its sweep, the Benchmark, a lesson that picks it) calls `builtin_ready`,
so the sentence (engine/builtin_model.missing, with the exact command) has one home and one look. It is shown as
escaped text: the sentence names a path from the environment.
"""
from __future__ import annotations

from typing import Any, Optional

import streamlit as st

from scratchpad_lab.engine.tasks import builtin_missing
from scratchpad_lab.ui.markup import escape


def builtin_ready(where: Any = None) -> bool:
    """True when the built-in model can run here; else the one-line install shown in `where` (st by default)."""
    gap: Optional[str] = builtin_missing()
    if gap is None:
        return True
    (where or st).warning(escape(gap), icon=":material/download:")
    return False
