"""A fork: a run replayed from one of its compressions with that compression skipped, or with other triggers.

Streamlit-free. The rule (the guide's "What if...", docs/playground.md), with nothing of the package's trigger
rule copied here:

- the fork replays the parent's trajectory by the one replay rule (engine/replay.replay_source) under the
  parent's own settings, so up to the fork's iteration its steps are the parent's;
- and so are its summaries: while the summarizer's input (the iteration, the scratchpad, the prompt) is exactly
  the parent's for its next call, the parent's recorded reply is given back, with the parent's model, tokens and
  time, and no call is made (`ParentSummaries`). A model's summaries (an endpoint's, the built-in model's) are
  not replayed otherwise: a file never chooses a model. From the first call whose input differs, the fork's own
  summarizer (the replay's: the offline extractive one for a model's run) writes them, and `notice` says so;
- skipped: at that iteration the middleware runs as always, but with its own per-agent summarizer lock
  (`AutoSummarizeMiddleware._lock_for(agent)`) held. The package then takes its own "summarization already in
  progress, skipping" path: it does not call the summarizer and changes none of its state (its last-summarized
  length stays the previous summary's), exactly as when a compression is not made. No summarizer call is
  made, so none is counted, and none failed;
- other triggers: as that iteration starts, before the middleware checks them, its `summarize_every` and
  `max_scratchpad_chars` are set to the fork's (its record's config holds them); before it, the parent's;
- from there the package does what it does: a size trigger still armed may fire at the next iteration.

A fork of a fork keeps its parent's fork points before its own. The record says where it forked from
(`RunRecord.forked_from`, schemas.ForkSpec).
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

TRIGGERS = ("summarize_every", "max_scratchpad_chars")


@dataclass(frozen=True)
class ForkPoint:
    iteration: int
    skipped: bool
    before: Dict[str, Optional[int]]     # the middleware's triggers before this iteration
    after: Dict[str, Optional[int]]      # ... from it on


def triggers_of(config: Any) -> Dict[str, Optional[int]]:
    return {name: getattr(config, name) for name in TRIGGERS}


def points_of(record: Any) -> List[ForkPoint]:
    """A record's own fork points, oldest first (none for a run that is no fork)."""
    origin = getattr(record, "forked_from", None)
    if not origin:
        return []
    raw = [*origin.get("earlier", []), origin]
    out = []
    for i, p in enumerate(raw):
        after = raw[i + 1]["parent_settings"] if i + 1 < len(raw) else triggers_of(record.config)
        out.append(ForkPoint(int(p["iteration"]), bool(p["skipped"]), dict(p["parent_settings"]), dict(after)))
    return out


def most_points() -> int:
    """The most fork points a run record holds: its own and the earlier ones its `forked_from` keeps
    (schemas.ForkSpec.earlier's limit, read from there)."""
    from annotated_types import MaxLen
    from scratchpad_lab.model.schemas import ForkSpec
    return 1 + next(m.max_length for m in ForkSpec.model_fields["earlier"].metadata if isinstance(m, MaxLen))


def hold(run: Any, points: Sequence[ForkPoint]) -> None:
    """Make `run` (an engine/runner.Run not yet started) take the fork points: its middleware's hook is wrapped
    (the agent looks it up at every event), its triggers start as the first point's `before`, and the observer
    records the skipped iterations (a trigger event with `skipped`). More points than a record holds (a fork of a
    fork of ... 101 times) are refused before the run starts, in one sentence (model/errors.ForkRefused): its
    record could be neither stored nor read back."""
    points = sorted(points, key=lambda p: p.iteration)
    if not points:
        return
    if len(points) > most_points():
        from scratchpad_lab.model.errors import ForkRefused
        raise ForkRefused(f"This run already holds {len(points) - 1:,} fork points before this one, the most a run "
                          f"file keeps is {most_points()}: a fork of it could not be saved. Fork an earlier run of "
                          "its line instead.")
    mw = run.middleware
    at = {p.iteration: p for p in points}
    for name, value in points[0].before.items():
        setattr(mw, name, value)
    run.observer.skipped_at.update(p.iteration for p in points if p.skipped)
    original = mw.on_iteration_start

    def on_iteration_start(iteration: int, agent: Any = None, **kwargs: Any) -> None:
        point = at.get(iteration)
        if point is None:
            return original(iteration, agent=agent, **kwargs)
        for name, value in point.after.items():
            setattr(mw, name, value)
        if not point.skipped or agent is None:
            return original(iteration, agent=agent, **kwargs)
        lock = mw._lock_for(agent)  # the package's own lock: held, it skips this summarization itself
        lock.acquire()
        try:
            return original(iteration, agent=agent, **kwargs)
        finally:
            lock.release()

    on_iteration_start.__signature__ = inspect.signature(original)  # presigned, as observe.presign_hooks does
    mw.on_iteration_start = on_iteration_start


def compression_iterations(events: Sequence[Any]) -> List[int]:
    """The iterations at which a summary replaced the scratchpad (status ok: figures.py's compressions)."""
    return [int(e.iteration) for e in events if e.kind == "compression" and e.payload.status == "ok"]


def origin(parent: Any, point: ForkPoint, parent_id: Optional[str], parent_name: str) -> Dict[str, Any]:
    """The new fork's `forked_from`: this point, and the parent's own points before it."""
    earlier = [{"iteration": p.iteration, "skipped": p.skipped, "parent_settings": p.before}
               for p in points_of(parent) if p.iteration < point.iteration]
    return {"parent_id": parent_id, "parent_name": parent_name[:500], "iteration": point.iteration,
            "skipped": point.skipped, "parent_settings": point.before, "earlier": earlier}


class ParentSummaries:
    """A parent's summarizer calls, given back in order while the fork is still the parent (the observer's
    `recorded_summaries`): the next call's reply when its input is exactly the parent's for it; from the first
    call that differs, none (the fork's own summarizer answers that one and every later one)."""

    def __init__(self, events: Sequence[Any]) -> None:
        self.calls = [e for e in events if e.kind == "compression" and e.payload.summarizer_called]
        self.reused: List[Any] = []                 # the parent's calls given back, in order
        self.own_from: Optional[int] = None         # the iteration of the fork's first call of its own

    def __call__(self, iteration: int, scratchpad: str, prompt: str) -> Optional[Dict[str, Any]]:
        if self.own_from is None and len(self.reused) < len(self.calls):
            e = self.calls[len(self.reused)]
            call = e.payload
            if int(e.iteration) == iteration and call.before == scratchpad and call.prompt == prompt:
                self.reused.append(e)
                extra = {k: getattr(call, k) for k in ("review", "proposal") if getattr(call, k) is not None}
                return {"response": call.response, "model": call.model, "latency_s": call.latency_s,
                        "tokens_in": call.tokens_in, "tokens_out": call.tokens_out, "error": call.error,
                        "reused": True, **extra}
        if self.own_from is None:
            self.own_from = iteration
        return None

    def notice(self, own_model: str) -> Optional[str]:
        """The sentence under a fork some of whose parent's summaries were written by another summarizer than the
        fork's own (`own_model`, the name its summarizer records): the summaries it gives back, and whether the
        difference from there is also the summarizer's. None when the parent's were all the fork's own
        summarizer's (a run the extractive summarizer summarized)."""
        later = self.calls[len(self.reused):]           # the parent's calls the fork did not give back
        gives_back = any(e.payload.model != own_model for e in self.reused)
        differs = self.own_from is not None and any(e.payload.model != own_model for e in later)
        if not gives_back and not differs:
            return None
        own = _writers([own_model])
        if not gives_back:
            return (f"The parent's summaries from iteration {later[0].iteration} on were written by "
                    f"{_writers(e.payload.model for e in later)}, the fork's by {own}, so the difference is also "
                    "the summarizer's.")
        given = (f"the fork gives back the parent's summaries, written by "
                 f"{_writers(e.payload.model for e in self.reused)}, without a new call")
        if self.own_from is None:
            return given[0].upper() + given[1:] + "; it wrote none of its own."
        return (f"Before iteration {self.own_from} {given}; from there {own} writes them, "
                + ("so the difference is also the summarizer's." if differs else "as it wrote the parent's."))


def _writers(models: Any) -> str:
    """Who wrote summaries, in our words: the extractive summarizer by its name, any other by its recorded name
    (repr: a file's words, with no control character reaching a terminal or a page)."""
    from scratchpad_lab.engine.summarize.extractive import ExtractiveSummarizer
    named = [("the offline extractive summarizer" if m == ExtractiveSummarizer.model_name else f"the model {m!r}")
             for m in dict.fromkeys(models)]
    return " and ".join(named) if len(named) < 3 else ", ".join(named[:-1]) + " and " + named[-1]


def reuse(run: Any, parent: Any) -> ParentSummaries:
    """Make `run` (an engine/runner.Run not yet started) give back `parent`'s summaries while its input is the
    parent's. Returns them: after the run, `.notice(own_model(run))` says whose summaries the fork shows."""
    summaries = ParentSummaries(parent.events)
    run.observer.recorded_summaries = summaries
    return summaries


def own_model(run: Any) -> str:
    """The name the run's summarizer records (the middleware's own llm, else the package's fallback to the agent's
    model, named as the observer names it)."""
    llm = run.middleware.llm
    return llm.model if llm is not None else f"{run.agent_model_name} (same as agent)"
