"""What a run's events add up to: compressions, trims, sizes, tokens, answer score.

Streamlit-free; every number the UI, the CLI and the comparison table show comes from here, computed
from the events alone, so a live run, a finished run and a loaded file give the same figures.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

from scratchpad_lab.model.events import Event
from scratchpad_lab.analysis.facts import expected_in
from scratchpad_lab.analysis.pricing import cost_usd
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


@dataclass
class RunSummary:
    """A run's figures. Sizes are "as sent": the scratchpad the agent's LLM received at an iteration
    (after the middleware's compression); peak_* is the largest of those, the one meaning of "peak"
    everywhere (runs table, CLI, compare and sweep rows)."""

    iterations: int
    compressions: int
    compressions_ok: int
    trims: int
    peak_chars: int              # the largest scratchpad sent, in chars
    peak_tokens: int             # ... and in tokens (the Compare rows' peak_context_tokens)
    mean_tokens: float
    context_tokens: int          # sum over iterations of the scratchpad tokens sent to the agent's LLM
    summarizer_calls: int
    summarizer_tokens_in: int
    summarizer_tokens_out: int
    summarizer_latency_s: float
    answer_score: Optional[float]
    outcome: Optional[str]
    agent_calls: int = 0
    agent_tokens_in: int = 0
    agent_tokens_out: int = 0
    agent_cost_usd: Optional[float] = None       # None: no price known for the model
    summarizer_cost_usd: Optional[float] = None


def model_ids(events: Sequence[Event]) -> tuple:
    """(agent model id, summarizer model id) as the run recorded them."""
    starts = of_kind(events, "run_start")
    start = (starts[0] if starts else Event("run_start", 0.0)).payload  # none: the payload's defaults
    return start.agent_model_id, start.summarizer_model_id


def summarize_run(events: Sequence[Event], scenario: Optional[str] = None,
                  prices: Optional[dict] = None) -> RunSummary:
    iterations = of_kind(events, "iteration")
    calls = of_kind(events, "llm_call")
    agent_model, summarizer_model = model_ids(events)
    agent_in = sum(int(e.payload.tokens_in or 0) for e in calls)
    agent_out = sum(int(e.payload.tokens_out or 0) for e in calls)
    comps = of_kind(events, "compression")
    tokens = [e.payload.tokens for e in iterations]
    finish = of_kind(events, "finish")
    if scenario is None:
        starts = of_kind(events, "run_start")
        scenario = starts[0].payload.scenario if starts else None
    summarizer_in = sum(int(e.payload.tokens_in or 0) for e in comps)
    summarizer_out = sum(int(e.payload.tokens_out or 0) for e in comps)
    return RunSummary(
        agent_calls=len(calls), agent_tokens_in=agent_in, agent_tokens_out=agent_out,
        agent_cost_usd=cost_usd(agent_model, agent_in, agent_out, prices),
        summarizer_cost_usd=cost_usd(summarizer_model, summarizer_in, summarizer_out, prices),
        iterations=len(iterations),
        compressions=len(comps),
        compressions_ok=sum(1 for e in comps if e.payload.status == "ok"),
        trims=len(of_kind(events, "trim")),
        peak_chars=max([e.payload.chars for e in iterations] + [0]),
        peak_tokens=max(tokens + [0]),
        mean_tokens=round(sum(tokens) / len(tokens), 2) if tokens else 0.0,
        context_tokens=sum(tokens),
        summarizer_calls=len(comps),
        summarizer_tokens_in=summarizer_in,
        summarizer_tokens_out=summarizer_out,
        summarizer_latency_s=round(sum(float(e.payload.latency_s or 0) for e in comps), 4),
        answer_score=answer_score(final_answer(events), scenario),
        outcome=finish[-1].payload.outcome if finish else None,
    )
