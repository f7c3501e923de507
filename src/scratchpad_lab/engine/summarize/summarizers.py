"""The one builder of a job's summarizer from a person's SummarizerChoice (model/summarizer.py).

Two faces, one home: `summarizer_llm` gives a run's `.invoke(prompt)` summarizer for every kind (the
Playground, a replay, a lesson, `scratchpad-lab run`: engine/run/runner.py, which then hands it the run's stop
flag and clock), and `build_summarizer` what the strategies' packages are summarized with, below.

Streamlit-free. Every task that runs strategies (Strategies, Recommend and its worker processes, opening a
point) builds its summarizer here; what belongs to the job only is passed in, not kept in the choice: its
stop flag (Stop: no new call, a call in flight ends), its time left, a search's shared replies. What is built
is engine/strategies' BuiltSummarizer: the offline extractive summarizer, the job's one endpoint client or the
built-in model (the process's one, engine/summarize/builtin_model.py),
as an `.invoke(prompt)` model (`plain()`) or a LangChain chat model (`chat_model()`).
"""
from __future__ import annotations

import threading
from typing import Any, Callable, Optional

from scratchpad_lab.model.summarizer import SummarizerChoice


def build_summarizer(choice: Optional[SummarizerChoice] = None, *, stop: Optional[threading.Event] = None,
                     time_left: Optional[Callable[[], float]] = None, store: Any = None):
    """A job's summarizer for `choice` (None: the offline extractive one, at its default budget)."""
    from scratchpad_lab.engine.strategies.chat_summarizer import BuiltSummarizer

    choice = choice or SummarizerChoice()
    if choice.kind not in ("extractive", "endpoint", "builtin"):
        from scratchpad_lab.engine.strategies.registry import StrategyError
        raise StrategyError(f"the strategies are summarized by the offline extractive summarizer, an endpoint "
                            f"model or the built-in model, not {choice.kind!r}.")
    if choice.kind == "builtin":  # missing: the one-line install, before any strategy starts
        from scratchpad_lab.engine.summarize.builtin_model import BuiltinModelMissing, missing
        gap = missing()
        if gap:
            raise BuiltinModelMissing(gap)
    endpoint = choice.endpoint if choice.kind == "endpoint" else None
    built = BuiltSummarizer(choice.kind, int(choice.budget_chars), endpoint, choice.key if endpoint else None,
                           stop_event=stop if isinstance(stop, threading.Event) else None, time_left=time_left)
    if store is not None:
        built.store = store
    return built


def summarizer_llm(choice: SummarizerChoice, extractive: Any = None) -> Any:
    """A run's summarizer for the middleware, `.invoke(prompt)`, for any kind: the offline extractive one
    (`extractive`, the run's own, if given), the endpoint model's client (its key: the choice's, else the
    environment's), the built-in model, the silent stand-in; None for "same-as-agent" (the package falls back
    to the agent's own model)."""
    if choice.kind == "extractive":
        from scratchpad_lab.engine.summarize.extractive import ExtractiveSummarizer
        return extractive if extractive is not None else ExtractiveSummarizer(int(choice.budget_chars))
    if choice.kind == "endpoint":
        from scratchpad_lab.engine.net.providers import EndpointLLM, resolve_key
        return EndpointLLM(choice.endpoint, choice.key or resolve_key(choice.endpoint))
    if choice.kind == "builtin":  # xllamacpp loads only when it is chosen; missing: the one-line install
        from scratchpad_lab.engine.summarize.builtin_model import build
        return build()
    if choice.kind == "silent":  # the named stand-in that replies nothing (lessons, tests)
        from scratchpad_lab.engine.summarize.silent import SilentSummarizer
        return SilentSummarizer()
    return None
