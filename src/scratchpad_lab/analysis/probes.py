"""Probe questions: is a question still answerable from the context after a compression?

Streamlit-free. Each scenario ships a few probes (a question and its expected answer); users add
their own. Offline, a probe is answerable from a text when the expected answer is in it (the answer
shown is the line that holds it). With a model, the model is asked with the context, as LangMem's
running-summary example does, and the probe counts as answered when the expected answer is in the
model's reply.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Sequence

from scratchpad_lab.analysis.facts import contains
from scratchpad_lab.model.errors import LabError

PROBE_PROMPT = ("Answer in one short sentence using only facts stated in this context. If they are not "
                "stated, say you do not know.\n\nContext:\n{context}\n\nQuestion: {question}")
MAX_PROBES = 20


@dataclass(frozen=True)
class ProbeQuestion:
    question: str
    answer: str


class ProbeError(LabError, ValueError):
    """A probe a person wrote is not QUESTION = ANSWER; the message quotes it and says the form."""


def parse_probe(text: str) -> Optional[ProbeQuestion]:
    """One probe as a person writes it, on the Prompt lab page (a line) or the CLI (`--probe`): QUESTION =
    ANSWER, split at the first "=", both parts non-empty; None for a blank line; ProbeError otherwise."""
    if not text.strip():
        return None
    question, sep, answer = text.partition("=")
    if not sep or not question.strip() or not answer.strip():
        raise ProbeError(f"The probe {text.strip()[:200]!r} should read QUESTION = ANSWER "
                         "(a question, an equals sign, the answer expected).")
    return ProbeQuestion(question.strip(), answer.strip())


@dataclass
class ProbeResult:
    question: str
    expected: str
    answerable_before: bool
    answer_before: str
    answerable_after: bool
    answer_after: str
    method: str                     # "offline" or the model's label


def scenario_probes(scenario_name: Optional[str]) -> List[ProbeQuestion]:
    from scratchpad_lab.model.scenarios import SCENARIOS

    scenario = SCENARIOS.get(scenario_name or "")
    return [ProbeQuestion(p.question, p.answer) for p in scenario.probes] if scenario else []


def offline_answer(context: str, probe: ProbeQuestion) -> tuple:
    """(answerable, the context line that holds the expected answer or 'Not in the context.')."""
    if not probe.answer.strip() or not contains(context, probe.answer):
        return False, "Not in the context."
    for line in context.splitlines():
        if contains(line, probe.answer):
            return True, " ".join(line.split())[:300]
    return True, probe.answer


def model_answer(llm: Any, context: str, probe: ProbeQuestion) -> tuple:
    """(answerable, the model's reply) asking `llm` (anything with .invoke(prompt))."""
    reply = str(llm.invoke(PROBE_PROMPT.format(context=context or "(empty)", question=probe.question)) or "")
    return contains(reply.lower(), probe.answer.lower()), reply.strip()


def run_probes(before: str, after: str, probes: Sequence[ProbeQuestion], llm: Any = None,
               method: str = "offline") -> List[ProbeResult]:
    results = []
    for probe in list(probes)[:MAX_PROBES]:
        if llm is None:
            (ok_b, ans_b), (ok_a, ans_a) = offline_answer(before, probe), offline_answer(after, probe)
        else:
            (ok_b, ans_b), (ok_a, ans_a) = model_answer(llm, before, probe), model_answer(llm, after, probe)
        results.append(ProbeResult(probe.question, probe.answer, ok_b, ans_b, ok_a, ans_a, method))
    return results
