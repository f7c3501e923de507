"""What a compression lost and how good it was: fact retention, quality flags, savings.

Streamlit-free; computed from events, so every view (playground, runs, compare) and the CLI agree (the
run's facts kept over all its cuts is added up from these in `figures.py`).

Flags (each a plain word, shown as a badge and counted in compare):
  empty              the summarizer replied nothing; the package kept the scratchpad
  error_text         the summarizer raised, or its reply is an error message rather than a summary
  longer_than_input  the summary is longer than the scratchpad it replaced
  unchanged          the reply repeats the scratchpad instead of condensing it
  not_a_summary      the reply continues the agent's conversation (a JSON step, "Final Answer", an
                     "Action:"), or lacks a section the prompt asked for (Key findings, ...)
  wasted_call        a size-trigger call that could not help: the scratchpad is still over the cap
                     afterwards, so the package fires again as soon as it grows (after an empty
                     summary, that is every iteration)
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

from scratchpad_lab.model.events import Event
from scratchpad_lab.model.config import sections_from_template
from scratchpad_lab.analysis.facts import Fact, extract_facts, present_in, retention
from scratchpad_lab.analysis.health import grew
from scratchpad_lab.analysis.metrics import of_kind

FLAGS = ("empty", "error_text", "longer_than_input", "unchanged", "not_a_summary", "wasted_call")
_ERROR_REPLY = re.compile(
    r"^\s*(?:\W{0,3})(?:error\b|exception\b|traceback\b|internal server error|rate limit|i'?m sorry|i am sorry|"
    r"i cannot|i can'?t|as an ai\b|\{\s*\"error\"|request failed|service unavailable|bad gateway)", re.I)
_CONVERSATION = re.compile(r"\"final_answer\"|\"actions\"\s*:|^\s*(?:Final Answer|Action|Action Input)\s*:", re.I | re.M)


def _norm(text: str) -> str:
    return " ".join(text.split())


def flags_for(c: Dict, template: Optional[str] = None) -> List[str]:
    """Quality flags of one compression (a compression event's data plus its iteration)."""
    out: List[str] = []
    status, reply = c.get("status"), c.get("response") or ""
    before, after = c.get("before") or "", c.get("after") or ""
    if status == "empty":
        out.append("empty")
    if status == "error" or (reply.strip() and _ERROR_REPLY.match(reply)):
        out.append("error_text")
    if status == "ok" and grew(before, after):  # health.py's "grew the context": one rule
        out.append("longer_than_input")
    said, had = _norm(reply), _norm(before)
    if status == "ok" and said and (said == had or (len(had) > 200 and had in said)):
        out.append("unchanged")
    if status == "ok" and reply.strip():
        sections = sections_from_template(template)
        lower = reply.lower()
        if _CONVERSATION.search(reply) or not all(s.lower() in lower for s in sections):
            out.append("not_a_summary")
    cap = c.get("max_scratchpad_chars")
    if c.get("reason") == "size" and cap is not None and len(after) > cap:
        out.append("wasted_call")
    return out


def expected_values(events: Sequence[Event]) -> List[str]:
    """The scenario's expected fact values for a run, if it is a scenario run."""
    from scratchpad_lab.model.scenarios import SCENARIOS

    starts = of_kind(events, "run_start")
    name = starts[0].payload.scenario if starts else None
    return [f.value for f in SCENARIOS[name].expected_facts] if name in SCENARIOS else []


def annotate_one(c: Dict, expected: Sequence[str] = (), template: Optional[str] = None) -> Dict:
    """One compression (its event's data, its iteration and the run's max_scratchpad_chars) with its facts
    before, facts lost, retention share and flags, added in place. A compression that replaced nothing
    (status empty or error: the package kept the scratchpad) kept nothing of its own: its share is None."""
    r = retention(c.get("before") or "", c.get("after") or "", expected)
    c["facts_before"] = [f.text for f in r.before]
    c["facts_lost"] = [f.text for f in r.lost]
    c["facts_lost_kinds"] = {f.text: f.kind for f in r.lost}
    c["facts_retained"] = r.share if c.get("status") == "ok" else None
    c["flags"] = flags_for(c, template)
    return c


def annotate(events: Sequence[Event], run: Optional[Sequence[Event]] = None) -> List[Dict]:
    """Every compression with its facts before, facts lost, retention share and flags; its lost facts by kind
    (`lost_by_kind`, `loss_words`: fact_kinds.py), its failed health checks (`health`: health.py) and the run's
    pins it held and lost (`pins_held`, `pins_lost`: pins.py; empty for one that replaced nothing). `run`: the
    whole run's events, when `events` holds only some of its compressions (the cards on show): the user's turns
    and the health checks read the whole run."""
    from scratchpad_lab.analysis import health
    from scratchpad_lab.analysis.fact_kinds import kind_loss, loss_words, user_turns
    from scratchpad_lab.analysis.pin_checks import check as check_pins

    starts = of_kind(events, "run_start")
    config = starts[0].payload.config if starts else {}
    chosen = config.get("summarizer")  # one object since run@3; a run@1 record's event has the loose field
    template = chosen.get("prompt") if isinstance(chosen, dict) else config.get("summarizer_prompt")
    pins = [str(p) for p in config.get("pins") or []]
    expected = expected_values(events)
    comps = of_kind(events, "compression")
    whole = events if run is None else run
    turns = user_turns(whole) if comps else []
    failed_checks = health.check_run(whole) if run is None else health.checks_of(whole, comps)
    out = []
    for e, failed in zip(comps, failed_checks):
        c = annotate_one({"iteration": e.iteration, **e.data, "max_scratchpad_chars": config.get("max_scratchpad_chars")},
                         expected, template)
        if c.get("status") == "ok":
            loss = kind_loss(c["before"] or "", c["after"] or "", expected,
                             [t for i, t in turns if i <= int(e.iteration or 0)])
            c["lost_by_kind"], c["loss_words"] = loss.lost, loss_words(loss)
            c["pins_held"], c["pins_lost"] = check_pins(c["before"] or "", c["after"] or "", pins)
        else:
            c["lost_by_kind"], c["loss_words"] = {}, ""
            c["pins_held"], c["pins_lost"] = [], []
        c["health"] = list(failed)
        out.append(c)
    return out


@dataclass
class StepFacts:
    step: int
    seen: int        # facts first seen in this step's tool results
    known: int       # of those, still in the agent's context at the end


def facts_by_step(events: Sequence[Event]) -> List[StepFacts]:
    """For each step, the facts its tool results brought in, and how many the final context still holds."""
    iterations = of_kind(events, "iteration")
    final_context = iterations[-1].payload.scratchpad if iterations else ""
    expected = expected_values(events)
    seen: set = set()
    per_step: Dict[int, List[Fact]] = {}
    for e in of_kind(events, "tool_call"):
        for fact in extract_facts(str(e.payload.result), expected):
            if fact.text not in seen:
                seen.add(fact.text)
                per_step.setdefault(e.iteration or 0, []).append(fact)
    every = [f for _, facts in sorted(per_step.items()) for f in facts]
    kept = {f.text for f, there in zip(every, present_in(final_context, [f.text for f in every],
                                                         [f.kind == "expected" for f in every])) if there}
    return [StepFacts(step, len(facts), sum(1 for f in facts if f.text in kept))
            for step, facts in sorted(per_step.items())]


@dataclass
class Savings:
    summarizer_tokens: int        # in + out, spent on compression
    context_tokens_saved: int     # against the same path with compression off
    net_tokens_saved: int
    payback_iteration: Optional[int]  # first iteration at which the cumulative net is >= 0 (None: never)


def savings(events: Sequence[Event], baseline: Sequence[Event]) -> Savings:
    """Summarizer tokens spent against context tokens saved, iteration by iteration."""
    spent_at: Dict[int, int] = {}
    for e in of_kind(events, "compression"):
        p = e.payload
        spent_at[e.iteration] = spent_at.get(e.iteration, 0) + int(p.tokens_in or 0) + int(p.tokens_out or 0)
    on = {e.iteration: int(e.payload.tokens) for e in of_kind(events, "iteration")}
    off = {e.iteration: int(e.payload.tokens) for e in of_kind(baseline, "iteration")}
    net, spent, saved, payback = 0, 0, 0, None
    for iteration in sorted(on):
        cost = spent_at.get(iteration, 0)
        gain = off.get(iteration, on[iteration]) - on[iteration]
        spent += cost
        saved += gain
        net += gain - cost
        if payback is None and spent and net >= 0:
            payback = iteration
    return Savings(summarizer_tokens=spent, context_tokens_saved=saved, net_tokens_saved=saved - spent,
                   payback_iteration=payback)
