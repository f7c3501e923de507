"""Reading a run's events: events of a kind, compressions, trims, the final answer and its score.

Streamlit-free, computed from the events alone. The run's figures (the row every page and command
shows) are added up from these in `figures.py`.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from scratchpad_lab.model.events import Event
from scratchpad_lab.analysis.facts import expected_in
from scratchpad_lab.model.scenarios import SCENARIOS


def of_kind(events: Sequence[Event], kind: str) -> List[Event]:
    return [e for e in events if e.kind == kind]


def compressions(events: Sequence[Event]) -> List[Dict[str, Any]]:
    return [{"iteration": e.iteration, **e.data} for e in of_kind(events, "compression")]


def trims(events: Sequence[Event]) -> List[Dict[str, Any]]:
    return [{"iteration": e.iteration, **e.data} for e in of_kind(events, "trim")]


def final_answer(events: Sequence[Event]) -> Optional[str]:
    found = of_kind(events, "final_answer")
    return found[-1].payload.text if found else None


def answer_score(answer: Optional[str], scenario: Optional[str]) -> Optional[float]:
    """Share of the scenario's expected facts that appear in the final answer; None outside scenarios."""
    if not scenario or scenario not in SCENARIOS:
        return None
    facts = SCENARIOS[scenario].expected_facts
    if not facts:
        return None
    if not answer:
        return 0.0
    return round(sum(1 for f in facts if expected_in(answer, f.value)) / len(facts), 4)


def model_ids(events: Sequence[Event]) -> tuple:
    """(agent model id, summarizer model id) as the run recorded them."""
    starts = of_kind(events, "run_start")
    start = (starts[0] if starts else Event("run_start", 0.0)).payload  # none: the payload's defaults
    return start.agent_model_id, start.summarizer_model_id
