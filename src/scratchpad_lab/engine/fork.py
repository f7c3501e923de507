"""A fork: a run replayed from one of its compressions with that compression skipped, or with other triggers.

Streamlit-free. The rule (the guide's "What if...", docs/playground.md), with nothing of the package's trigger
rule copied here:

- the fork replays the parent's trajectory by the one replay rule (engine/replay.replay_source) under the
  parent's own settings, so up to the fork's iteration its steps are the parent's;
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


def hold(run: Any, points: Sequence[ForkPoint]) -> None:
    """Make `run` (an engine/runner.Run not yet started) take the fork points: its middleware's hook is wrapped
    (the agent looks it up at every event), its triggers start as the first point's `before`, and the observer
    records the skipped iterations (a trigger event with `skipped`)."""
    points = sorted(points, key=lambda p: p.iteration)
    if not points:
        return
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
