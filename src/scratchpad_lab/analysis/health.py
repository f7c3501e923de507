"""Compaction health: five checks on each compression, read from the run's recorded events.

Streamlit-free, pure functions. Only a compression that replaced something (status ok) is checked: a call
that replaced nothing is already a failed call (figures.failed_call) or the person's decision. The checks:

  grew          it grew the context: what it wrote is longer than what it replaced
  fires_again   it left the scratchpad over the size cap that fired it, so the package fires again as soon as
                the scratchpad grows; or a size trigger fired again within REFIRE_STEPS iterations (a periodic
                trigger firing on its schedule is not counted)
  dropped_user  it dropped the user's newest message (their last instruction): the newest user turn the text
                held (fact_kinds.user_turns) is wholly gone from what it wrote
  invented      it wrote facts that were in neither its input nor its prompt: new ids, numbers, dates or names
                (a model's invention), the summary's own "[Summarized up to step N]" header aside
  cost_more     (judged once the run has ended) it cost more summarizer tokens (in + out) than it saved over the rest of the run: the tokens it
                removed from the context, times the model calls from it to the run's end. That is the most it
                can have saved (a later cut or trim may have removed the same text), so a compression that trips
                it surely did not pay for itself
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Dict, List, Optional, Sequence

from scratchpad_lab.analysis.facts import extract_facts, present_in
from scratchpad_lab.analysis.fact_kinds import last_instruction_lost, user_turns
from scratchpad_lab.analysis.metrics import of_kind

CHECKS = ("grew", "fires_again", "dropped_user", "invented", "cost_more")
REFIRE_STEPS = 2
# Our words, by key: the chip on a card, and the sentence the narration adds.
CHIPS = {"grew": "grew the context", "fires_again": "fires again at once", "dropped_user": "dropped the user's newest message",
         "invented": "wrote facts not in its input", "cost_more": "cost more than it saved"}
SENTENCES = {
    "grew": "It grew the context: the summary is longer than what it replaced.",
    "fires_again": "It left the scratchpad over the {cap:,}-char cap that fired it, so compression fires again as soon as it grows.",
    "dropped_user": "It dropped the user's newest message, their last instruction.",
    "invented": "It wrote facts that were not in its input ({facts}): the summarizer made them up.",
    "cost_more": "It cost more summarizer tokens ({spent:,}) than it saved in context tokens over the rest of the run (at most {saved:,}).",
}
# fires_again's other cause, said in its own words: the size trigger fired again soon after this compression
REFIRED = ("It left the scratchpad near its size cap: the size trigger fired again {steps} iteration{s} later, at "
           "iteration {at}.")
_INVENTED_KINDS = ("identifier", "number", "datetime", "name", "email")
_HEADER = re.compile(r"^\[Summarized up to step \d+\]\s*$", re.M)


def grew(before: str, after: str) -> bool:
    """The one rule of a summary that grew the context (also quality.py's longer_than_input flag)."""
    return len(after) > len(before)


def invented_facts(before: str, after: str, prompt: str = "") -> List[str]:
    """The facts (ids, numbers, dates, names) of `after` that neither `before` nor `prompt` holds."""
    return list(_invented(before, after, prompt))


@lru_cache(maxsize=4096)  # a sweep's cells share most of their compressions; a view asks again for those it shows
def _invented(before: str, after: str, prompt: str) -> tuple:
    values = [f.text for f in extract_facts(_HEADER.sub("", after)) if f.kind in _INVENTED_KINDS]
    new = [v for v, there in zip(values, present_in(before, values)) if not there]
    return tuple(v for v, there in zip(new, present_in(prompt, new)) if not there)


def _caps(events: Sequence) -> tuple:
    """({iteration: the size cap its trigger check read}, the run's configured cap or None)."""
    at = {int(e.iteration): int(e.payload.max_scratchpad_chars) for e in of_kind(events, "trigger")
          if e.iteration is not None and e.payload.max_scratchpad_chars}
    starts = of_kind(events, "run_start")
    configured = (starts[0].payload.config or {}).get("max_scratchpad_chars") if starts else None
    return at, int(configured) if configured else None


def check_run(events: Sequence, only: Optional[Sequence] = None) -> List[List[str]]:
    """The failed checks of each compression event, in order (an empty list: healthy, or replaced nothing);
    with `only` (some of the run's compression events: the cards on show), of those alone, in their order."""
    comps = of_kind(events, "compression")
    if not comps:
        return []
    tokens = {int(e.iteration or 0): int(e.payload.tokens or 0) for e in of_kind(events, "iteration")}
    turns = user_turns(events)
    caps, configured = _caps(events)
    finished = bool(of_kind(events, "finish"))
    wanted = None if only is None else {id(e) for e in only}
    out: List[List[str]] = []
    for n, e in enumerate(comps):
        if wanted is not None and id(e) not in wanted:
            continue
        c, at = e.payload, int(e.iteration or 0)
        failed: List[str] = []
        if c.status != "ok":
            out.append(failed)
            continue
        before, after = c.before or "", c.after or ""
        if grew(before, after):
            failed.append("grew")
        if _fires_again(comps, n, caps, configured):
            failed.append("fires_again")
        if last_instruction_lost(before, after, [t for i, t in turns if i <= at]):
            failed.append("dropped_user")
        if c.summarizer_called and invented_facts(before, after, c.prompt or ""):
            failed.append("invented")
        spent, saved = _spent_saved(c, at, tokens)
        if finished and spent > saved:  # judged at the end: while a run goes, the calls still to come save more
            failed.append("cost_more")
        out.append(failed)
    return out


def _fires_again(comps: Sequence, n: int, caps: Dict[int, int], configured: Optional[int]) -> Optional[Dict[str, int]]:
    """Why the n-th compression fires again at once, or None: {"cap": the size cap its summary is still over}, or
    {"at": the iteration, "steps": how many later} of a size trigger firing within REFIRE_STEPS iterations."""
    e = comps[n]
    c, at = e.payload, int(e.iteration or 0)
    cap = caps.get(at, configured) if c.reason == "size" and c.trigger is None else None
    if cap is not None and len(c.after or "") > cap:
        return {"cap": cap}
    after_it = next((x for x in comps[n + 1:n + 2] if x.iteration is not None), None)
    if after_it is not None and after_it.payload.reason == "size" and 0 < int(after_it.iteration) - at <= REFIRE_STEPS:
        return {"at": int(after_it.iteration), "steps": int(after_it.iteration) - at}
    return None


def checks_of(events: Sequence, some: Sequence) -> List[List[str]]:
    """The failed checks of `some` of the run's compression events (the cards on show), in their order; a
    compression that is not one of the run's own is not checked (an empty list)."""
    wanted = [e for e in of_kind(events, "compression") if id(e) in {id(x) for x in some}]
    found = {id(e): failed for e, failed in zip(wanted, check_run(events, only=some))}
    return [found.get(id(e), []) for e in some]


def _spent_saved(c, at: int, tokens: Dict[int, int]) -> tuple:
    """(summarizer tokens spent, context tokens saved at most) by one compression: what it removed, times the
    model calls from it to the run's end."""
    spent = int(c.tokens_in or 0) + int(c.tokens_out or 0) if c.summarizer_called else 0
    calls = sum(1 for i in tokens if i >= at)
    return spent, max(0, int(c.before_tokens or 0) - int(c.after_tokens or 0)) * calls


def spent_saved(events: Sequence, index: int) -> tuple:
    """(spent, saved) of the `index`-th compression event, as cost_more reads it (for the narration's numbers)."""
    comps = of_kind(events, "compression")
    tokens = {int(e.iteration or 0): int(e.payload.tokens or 0) for e in of_kind(events, "iteration")}
    e = comps[index]
    return _spent_saved(e.payload, int(e.iteration or 0), tokens)


def counts(events: Sequence) -> Dict[str, int]:
    """{check: compressions that failed it} for the figures row, every check named (0 when none failed)."""
    out = {name: 0 for name in CHECKS}
    for failed in check_run(events):
        for name in failed:
            out[name] += 1
    return out


def sentences(events: Sequence, index: int, failed: Sequence[str]) -> str:
    """The narration's sentences for one compression's failed checks, in CHECKS order."""
    parts = []
    for name in CHECKS:
        if name not in failed:
            continue
        if name == "invented":
            c = of_kind(events, "compression")[index].payload
            found = invented_facts(c.before or "", c.after or "", c.prompt or "")
            parts.append(SENTENCES[name].format(facts=", ".join(found[:3]) + (", ..." if len(found) > 3 else "")))
        elif name == "fires_again":
            caps, configured = _caps(events)
            why = _fires_again(of_kind(events, "compression"), index, caps, configured) or {}
            if "cap" in why:
                parts.append(SENTENCES[name].format(cap=why["cap"]))
            elif "at" in why:
                parts.append(REFIRED.format(steps=why["steps"], s="" if why["steps"] == 1 else "s", at=why["at"]))
        elif name == "cost_more":
            spent, saved = spent_saved(events, index)
            parts.append(SENTENCES[name].format(spent=spent, saved=saved))
        else:
            parts.append(SENTENCES[name])
    return " ".join(parts)


NO_PROBLEM = "no problem found"


def counts_text(found: Dict[str, int]) -> str:
    """A figures row's health counts as every page and the CLI print them: "fires again at once 2"."""
    said = [f"{CHIPS[name]} {found[name]}" for name in CHECKS if found.get(name)]
    return ", ".join(said) if said else NO_PROBLEM
