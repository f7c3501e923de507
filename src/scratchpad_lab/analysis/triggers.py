"""The trigger rule, and the state of both compression triggers at a point in a run.

Streamlit-free. The one home of the lab's statement of AutoSummarizeMiddleware's trigger rule
(`periodic_due`, `size_armed`, `predict`): the observer's per-iteration prediction, the live gauge's
"armed" and the step slider all call these, and a test checks them against the package itself.
Nothing here decides whether the middleware fires (the package does that).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.model.events import Event


@dataclass
class TriggerState:
    iteration: int                   # the last iteration that started (0 before the first)
    chars: int                       # scratchpad chars sent at that iteration
    tokens: int
    summarize_every: Optional[int]
    max_scratchpad_chars: int
    agent_trim_chars: int
    next_periodic: Optional[int]     # the next iteration the periodic trigger fires at (None: off)
    size_armed: bool                 # would the size trigger fire once over the cap?
    last_summarized_chars: Optional[int]
    last_fired_iteration: Optional[int]
    last_fired_reason: Optional[str]
    last_fired_status: Optional[str]
    last_fired_review: Optional[str] = None  # review mode: what the person decided ("rejected", ...)

    @property
    def share_of_cap(self) -> float:
        return self.chars / self.max_scratchpad_chars if self.max_scratchpad_chars else 0.0

    @property
    def share_of_trim(self) -> float:
        return self.chars / self.agent_trim_chars if self.agent_trim_chars else 0.0


def periodic_due(iteration: int, summarize_every: Optional[int]) -> bool:
    """The periodic trigger: the package fires at every iteration divisible by summarize_every."""
    return summarize_every is not None and iteration % summarize_every == 0


def size_armed(chars: int, last_summarized_chars: Optional[int]) -> bool:
    """The size trigger fires over the cap only if the scratchpad grew since the last summary."""
    return last_summarized_chars is None or chars > last_summarized_chars


def predict(iteration: int, chars: int, summarize_every: Optional[int], max_scratchpad_chars: int,
            last_summarized_chars: Optional[int]) -> Tuple[bool, Optional[str]]:
    """(fires, "periodic" | "size" | None) for a non-empty scratchpad of `chars` at `iteration`."""
    if periodic_due(iteration, summarize_every):
        return True, "periodic"
    if chars > max_scratchpad_chars and size_armed(chars, last_summarized_chars):
        return True, "size"
    return False, None


def next_periodic(after_iteration: int, summarize_every: Optional[int]) -> Optional[int]:
    if not summarize_every:
        return None
    return (after_iteration // summarize_every + 1) * summarize_every


def trigger_state(events: Sequence[Event], config: RunConfig, upto: Optional[int] = None) -> TriggerState:
    """Trigger state after iteration `upto` (default: the latest) has passed the middleware."""
    every = config.summarize_every
    cap = config.max_scratchpad_chars
    trim_cap = config.agent_trim_chars
    iteration, chars, tokens = 0, 0, 0
    last_len: Optional[int] = None
    fired_it = fired_reason = fired_status = fired_review = None
    for e in events:
        if upto is not None and e.iteration is not None and e.iteration > upto:
            break
        if e.kind == "trigger":
            last_len = e.payload.last_summarized_chars
        elif e.kind == "compression":
            p = e.payload
            fired_it, fired_reason, fired_status, fired_review = e.iteration, p.reason, p.status, p.review
            if p.status == "ok":  # a file may leave after_chars out: then, as before any summary, unknown
                last_len = p.after_chars if "after_chars" in p.model_fields_set else None
        elif e.kind == "iteration":
            p = e.payload
            iteration, chars, tokens = e.iteration or 0, p.chars, p.tokens
    armed = size_armed(chars, last_len)
    return TriggerState(iteration=iteration, chars=chars, tokens=tokens, summarize_every=every,
                        max_scratchpad_chars=cap, agent_trim_chars=trim_cap,
                        next_periodic=next_periodic(iteration, every), size_armed=armed,
                        last_summarized_chars=last_len, last_fired_iteration=fired_it,
                        last_fired_reason=fired_reason, last_fired_status=fired_status,
                        last_fired_review=fired_review)
