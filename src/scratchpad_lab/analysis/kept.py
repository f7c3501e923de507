"""What a compression strategy kept for the model's last call: figures comparable across strategies.

Streamlit-free, pure functions over texts. The figures row's facts kept (figures.py) is read per compression,
so a strategy that compresses often and one that compresses once are not on one scale; these are read once,
on what the last model call of a replay was sent (where the agent writes its answer), against the same pool
for every strategy of one form:

- facts at the answer (`facts_at_answer`): of the facts in what the last call of the no-compression run of
  the same form was sent (engine/strategies/engine.py: the whole conversation in full for the message
  strategies; the agent's scratchpad with nothing cut for the autourgos ones), the share that are also facts
  of the last context sent; so a run that cut nothing reads exactly 1.0. Both sides are read by the one fact extractor (facts.py), so it is linear in the
  texts' length.
- answer facts kept (`answer_facts_kept`, a scenario's source only): of the scenario's expected facts, the
  share the last context still holds (whole-fact match, as the answer score reads an answer): what an agent
  answering from that context could still state. A replay's own final answer is the recorded one for every
  strategy, so it says nothing about the strategy; this does.
- probes answerable (`probes_answerable`, a scenario's source only): the scenario's probe questions whose
  expected answer is in the last context (probes.py's offline rule).
"""
from __future__ import annotations

from typing import FrozenSet, List, Optional, Tuple

from scratchpad_lab.analysis.facts import expected_in, extract_facts
from scratchpad_lab.analysis.probes import ProbeResult, offline_answer, scenario_probes


def fact_values(text: str) -> FrozenSet[str]:
    """The values of every fact in `text`."""
    return frozenset(f.text for f in extract_facts(text))


def facts_at_answer(pool: FrozenSet[str], last_context: str) -> Optional[float]:
    """Share of the facts of `pool` (what the no-compression run of the same form sent last) that are facts of
    the last context; None with no facts."""
    if not pool:
        return None
    return round(len(pool & fact_values(last_context)) / len(pool), 4)


def facts_recoverable(pool: FrozenSet[str], last_context: str, files: str) -> Optional[float]:
    """Share of the facts of `pool` missing from the last context that sit in `files` (the text of the files that
    context names: what the agent could read back); None with no facts, 0.0 with no such file."""
    if not pool:
        return None
    if not files:
        return 0.0
    missing = pool - fact_values(last_context)
    return round(len(missing & fact_values(files)) / len(pool), 4)


def answer_facts_kept(scenario: Optional[str], last_context: str) -> Optional[float]:
    from scratchpad_lab.model.scenarios import SCENARIOS

    found = SCENARIOS.get(scenario or "")
    facts = [f.value for f in found.expected_facts] if found else []
    if not facts:
        return None
    return round(sum(1 for value in facts if expected_in(last_context, value)) / len(facts), 4)


def probes_answerable(scenario: Optional[str], last_context: str) -> Tuple[Optional[float], List[ProbeResult]]:
    """(share answerable, each probe read against the last context); (None, []) outside scenarios."""
    results = []
    for probe in scenario_probes(scenario):
        ok, answer = offline_answer(last_context, probe)
        results.append(ProbeResult(probe.question, probe.answer, True, "", ok, answer, "offline"))
    if not results:
        return None, []
    return round(sum(1 for r in results if r.answerable_after) / len(results), 4), results
