"""The Pareto rule and the chosen points: one home for what "on the front" and "the pick for a budget" mean, for a
single trajectory's search (recommend.py) and a dataset's benchmark (benchmark.py) alike.

Streamlit-free, no package imports. A point is anything the caller can read objectives from: `value(point, key)`
gives a number or None (a missing objective is not compared); each objective is (key, "min" | "max").
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Sequence, Tuple

Objectives = Sequence[Tuple[str, str]]
KEEP_AT_LEAST, HALF_PEAK = 0.95, 0.5   # the budgets' two lines, the same for a trajectory and a dataset


def dominates(a: Any, b: Any, objectives: Objectives, value: Callable[[Any, str], Optional[float]]) -> bool:
    """`a` is at least as good as `b` on every objective both have and better on one."""
    better = False
    for key, direction in objectives:
        x, y = value(a, key), value(b, key)
        if x is None or y is None:
            continue
        if direction == "min":
            x, y = -x, -y
        if x < y:
            return False
        better = better or x > y
    return better


def on_front(judged: Sequence[Any], objectives: Objectives, value: Callable[[Any, str], Optional[float]]) -> List[bool]:
    """For each of `judged` (the points that may be on it), whether no other of them dominates it."""
    return [not any(dominates(q, p, objectives, value) for q in judged if q is not p) for p in judged]


def same_as(judged: Sequence[Any], objectives: Objectives, value: Callable[[Any, str], Optional[float]],
            label: Callable[[Any], str]) -> List[Optional[str]]:
    """For each of `judged`, the label of an earlier one with exactly its value on every objective (the same point
    twice: two settings that did the same thing), else None. Such a twin is one point: the first stands for both."""
    seen: dict = {}
    out: List[Optional[str]] = []
    for point in judged:
        key = tuple(value(point, k) for k, _ in objectives)
        out.append(seen.get(key))
        seen.setdefault(key, label(point))
    return out


@dataclass
class Chosen:
    """One recommended point: the budget it answers, the setting picked (None: nothing qualifies), a sentence."""
    budget: str
    setting: Optional[str]
    sentence: str


def choose_budgets(items: Sequence[Any], *, keep: Callable[[Any], float], peak: Callable[[Any], float],
                   tokens: Callable[[Any], float], label: Callable[[Any], str], describe: Callable[[Any], str],
                   kept_what: str, best_what: str, nothing: str, before: Sequence[Chosen] = ()) -> List[Chosen]:
    """One point per budget among `items` (each cut something): the lowest peak that keeps at least 95 % of
    `kept_what`; the same at no summarizer cost; the best `best_what` at half the no-compression peak or less. The
    benchmark and the single-trajectory recommender both pick with it, so a pick means the same in both. A point
    already chosen (here or in `before`) is named again in a few words, not described twice."""
    budgets = [
        (f"the lowest peak that keeps at least 95 % of {kept_what}",
         [s for s in items if keep(s) >= KEEP_AT_LEAST], lambda s: (peak(s), -keep(s))),
        (f"the lowest peak at no summarizer cost that keeps at least 95 % of {kept_what}",
         [s for s in items if not tokens(s) and keep(s) >= KEEP_AT_LEAST], lambda s: (peak(s), -keep(s))),
        (f"the best {best_what} at half the no-compression peak or less",
         [s for s in items if peak(s) <= HALF_PEAK], lambda s: (-keep(s), peak(s))),
    ]
    out: List[Chosen] = []
    for budget, candidates, key in budgets:
        if not candidates:
            out.append(Chosen(budget, None, f"For {budget}: {nothing}"))
            continue
        best = min(candidates, key=key)
        if any(c.setting == label(best) for c in [*before, *out]):  # one point answering two budgets is described once
            out.append(Chosen(budget, label(best), f"For {budget}: the same point, {label(best)}, as above."))
            continue
        out.append(Chosen(budget, label(best), f"For {budget}: {describe(best)}"))
    return out
