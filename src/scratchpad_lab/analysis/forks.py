"""A fork beside its original: where the two first differ, and each one's figures from the fork point on.

Streamlit-free, pure over recorded events. The figures from there on are the one figures row (figures.py) over
the events of the fork's iteration and after (with the run's own start and end), so "facts kept" and "pins
kept" read exactly as they read for a whole run, and a page and the CLI give the same numbers.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

from scratchpad_lab.analysis.figures import Figures, figures
from scratchpad_lab.analysis.metrics import of_kind
from scratchpad_lab.model.events import Event


def from_iteration(events: Sequence[Event], at: int) -> List[Event]:
    """The events of iteration `at` and after, with those that belong to no iteration (the start, the end)."""
    return [e for e in events if e.iteration is None or e.iteration >= at]


def first_difference(original: Sequence[Event], fork: Sequence[Event]) -> Optional[int]:
    """The first iteration whose scratchpad as sent differs between the two (or that only one of them has);
    None when every iteration sent the same text."""
    a = {int(e.iteration): e.payload.scratchpad for e in of_kind(original, "iteration")}
    b = {int(e.iteration): e.payload.scratchpad for e in of_kind(fork, "iteration")}
    for iteration in sorted(set(a) | set(b)):
        if a.get(iteration) != b.get(iteration):
            return iteration
    return None


@dataclass(frozen=True)
class ForkComparison:
    at: int                              # the fork's iteration
    first_difference: Optional[int]
    original: Figures                    # the original's figures from `at` on
    fork: Figures                        # ... and the fork's

    def to_dict(self) -> Dict[str, Any]:
        return {"at": self.at, "first_difference": self.first_difference,
                "original": self.original.to_dict(), "fork": self.fork.to_dict()}


def compare(original: Sequence[Event], fork: Sequence[Event], at: int,
            prices: Optional[dict] = None) -> ForkComparison:
    return ForkComparison(at, first_difference(original, fork), figures(from_iteration(original, at), prices=prices),
                          figures(from_iteration(fork, at), prices=prices))


def difference_text(comparison: ForkComparison) -> str:
    """Where the two first differ, in a sentence of our own words and numbers."""
    at, first = comparison.at, comparison.first_difference
    if first is None:
        return (f"The fork sent the agent the same scratchpad as the original at every iteration: what changed at "
                f"iteration {at} made no difference to what the agent saw.")
    if first < at:
        return (f"The two first differ at iteration {first}, before the fork point ({at}): replayed, the original's "
                "steps did not come back the same there, so not all of the difference is the fork's.")
    return f"The two first differ at iteration {first}" + (" (the fork point)." if first == at else
                                                            f", {first - at} after the fork point ({at}).")
