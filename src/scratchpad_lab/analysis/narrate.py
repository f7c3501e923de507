"""Narration: one plain-language sentence per iteration saying why compression did or did not happen.

Streamlit-free, so the CLI (`--json`'s `why` fields), the view and the lessons share it and tests can
check it without a browser. Every sentence is read from what the run recorded: the middleware's trigger
check as the observer saw it (`periodic_due`, `over_cap`, `size_armed`, `last_summarized_chars`,
`fired`), the compression's status, the agent's trim sizes and the scratchpad text around a trim. Nothing
here decides whether a trigger should fire: that rule lives in the package, and the observer records its
inputs and what the package then did. (The next periodic iteration comes from triggers.next_periodic.)
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from scratchpad_lab.model.config import largest
from scratchpad_lab.model.events import Event
from scratchpad_lab.analysis import health
from scratchpad_lab.analysis.figures import failed_call, your_decision
from scratchpad_lab.analysis.triggers import next_periodic

if TYPE_CHECKING:
    from scratchpad_lab.model.payloads import TriggerData

SUMMARY_HEADER = "[Summarized up to step {iteration}]"  # what the package writes at the top of a summary
_ERROR_SHOWN = 160


def _n(value) -> str:
    return f"{int(value):,}"


def _run_config(events: Sequence[Event]) -> dict:
    for e in events:
        if e.kind == "run_start":
            return dict(e.payload.config or {})
    return {}


def _by_iteration(events: Sequence[Event], kind: str) -> Dict[int, Event]:
    out: Dict[int, Event] = {}
    for e in events:
        if e.kind == kind and e.iteration is not None:
            out.setdefault(int(e.iteration), e)
    return out


# ── the trigger check ──────────────────────────────────────────────────────

def _fired_clause(t: Optional[TriggerData], reason: Optional[str], iteration: int) -> str:
    if t is None:  # a record without its trigger check: only what the compression says
        return (f"At iteration {iteration} the {reason or 'unknown'} trigger fired (this record has no trigger "
                "check to say more)")
    if reason == "periodic":
        return (f"Iteration {iteration} is a multiple of {t.summarize_every} (compress every "
                f"{t.summarize_every} iterations), so the periodic trigger fired")
    last = t.last_summarized_chars
    grown = ("no summary has been written yet" if last is None
             else f"has grown since the last summary ({_n(last)} chars)")
    return (f"The scratchpad ({_n(t.chars)} chars) is over the {_n(t.max_scratchpad_chars or 0)} "
            f"cap and {grown}, so the size trigger fired")


# Review mode: the package sees an empty reply (rejected) or a failed call (the run stopped while a proposal
# waited), but it was the person's doing, not the summarizer's: said in the person's words, everywhere.
REVIEW_WORDS = {"rejected": "you rejected it; the package keeps the scratchpad and tries again",
                "abandoned": "stopped while it waited for your review; nothing was compressed"}


# What ends a model call's wait: its own event (the agent's llm_call, the summarizer's compression), or the run's.
_CALL_ENDS = ("llm_call", "compression", "error", "finish")


def waiting_for(events: Sequence[Event]) -> Optional[Tuple[str, float]]:
    """(what the run waits for, when the call began in run seconds) while a network model call is in
    flight, else None: the last call_start with no event of its end after it."""
    for e in reversed(events):
        if e.kind == "call_start":
            return str(e.payload.waiting_for or "the model"), float(e.t)
        if e.kind in _CALL_ENDS:
            return None
    return None


def review_outcome(review: Optional[str]) -> Optional[str]:
    """How a reviewed compression that replaced nothing reads ("you rejected it; ..."), else None: the words
    only; whether it was your decision is figures.your_decision's to say."""
    return REVIEW_WORDS.get(review or "")


def _retry(t: Optional[TriggerData], iteration: int) -> str:
    """When the package tries again after a reply that replaced nothing (it keeps no memory of it)."""
    if t is None:
        return "will try again when a trigger next fires"
    if t.over_cap:
        return "will try again next iteration, since the scratchpad is still over the cap"
    upcoming = next_periodic(iteration, t.summarize_every)
    return f"will try again at iteration {upcoming}" if upcoming else "will not try again by itself"


def compression_sentence(trigger: Optional[Event], compression: Event) -> str:
    """Why a compression happened and what came of it, from its trigger check, its status and (review mode)
    what the person decided."""
    c = compression.payload
    iteration = int(compression.iteration or 0)
    t = trigger.payload if trigger is not None else None
    clause = _fired_clause(t, c.reason, iteration)
    if c.status == "ok":
        return (f"{clause}: the summarizer replaced {_n(c.before_chars)} chars with a "
                f"{_n(c.after_chars)}-char summary.")
    if your_decision(c) and c.review == "rejected":   # figures.py's one rule: yours, not a failure
        return (f"{clause}, and you rejected the proposed summary: the package keeps the scratchpad "
                f"({_n(c.before_chars)} chars) and {_retry(t, iteration)}.")
    if your_decision(c):
        return (f"{clause}; the run was stopped while the proposed summary waited for your review, so the "
                f"scratchpad ({_n(c.before_chars)} chars) was not compressed.")
    if failed_call(c) and c.status == "empty":
        return (f"{clause}, but the summarizer replied nothing; the package kept the scratchpad "
                f"({_n(c.before_chars)} chars) and {_retry(t, iteration)} (a wasted call).")
    error = " ".join(str(c.error or "an error").split())
    if len(error) > _ERROR_SHOWN:
        error = error[:_ERROR_SHOWN] + "…"
    return (f"{clause}, but the summarizer failed ({error}); the package kept the scratchpad "
            f"({_n(c.before_chars)} chars) unchanged.")


def quiet_sentence(trigger: Event) -> str:
    """Why the middleware did nothing at an iteration, from its recorded trigger check."""
    t = trigger.payload
    iteration = int(trigger.iteration or 0)
    chars, cap, every = int(t.chars or 0), int(t.max_scratchpad_chars or 0), t.summarize_every
    if chars == 0:
        return f"At iteration {iteration} the scratchpad is empty: there is nothing to compress."
    if getattr(t, "skipped", False):  # a fork's point (engine/run/forking.py): the package's own skip, not its rule
        return (f"This fork skipped the compression at iteration {iteration}: the middleware found its summarizer "
                f"busy and did not call it, so the scratchpad ({_n(chars)} chars) goes to the agent as it is.")
    if every is None and cap >= largest("max_scratchpad_chars") and not t.over_cap:  # that cap, no period: off
        return (f"Compression is off (no periodic trigger, and the cap is the largest allowed): the scratchpad "
                f"({_n(chars)} chars) goes to the agent as it is.")
    if t.over_cap and not t.size_armed:
        return (f"The scratchpad ({_n(chars)} chars) is over the {_n(cap)} cap, but has not grown since the last "
                f"summary ({_n(t.last_summarized_chars or 0)} chars): the size trigger waits for it to grow.")
    periodic = ("the periodic trigger is off" if every is None else
                f"iteration {iteration} is not a multiple of {every} (compress every {every} iterations; "
                f"next at {next_periodic(iteration, every)})")
    if t.over_cap:  # over the cap and armed, yet the package did not fire (e.g. native mode)
        return f"The scratchpad ({_n(chars)} chars) is over the {_n(cap)} cap, but the middleware did not compress."
    return f"The scratchpad ({_n(chars)} chars) is under the {_n(cap)} cap and {periodic}: nothing is due."


# ── the agent's trim ───────────────────────────────────────────────────────

class _Index:
    """The events of a run by iteration, read once (a long run is narrated at every live refresh)."""

    def __init__(self, events: Sequence[Event]) -> None:
        self.config = _run_config(events)
        self.triggers = _by_iteration(events, "trigger")
        self.compressions = _by_iteration(events, "compression")
        self.trims = _by_iteration(events, "trim")
        self.sent = {i: e.payload.scratchpad for i, e in _by_iteration(events, "iteration").items()}
        self.events = events
        self._health: Optional[Dict[int, str]] = None

    def health(self, iteration: int) -> str:
        """The sentences of the failed health checks (health.py) of the compression at `iteration`, or ""."""
        if self._health is None:
            self._health = {}
            comps = [e for e in self.events if e.kind == "compression"]
            for n, (e, failed) in enumerate(zip(comps, health.check_run(self.events))):
                if failed and e.iteration is not None:
                    self._health.setdefault(int(e.iteration), health.sentences(self.events, n, failed))
        return self._health.get(iteration, "")

    def at_start(self, iteration: int) -> Optional[str]:
        """The scratchpad as iteration `iteration` started, before the middleware touched it."""
        if iteration in self.compressions:
            return self.compressions[iteration].payload.before
        return self.sent.get(iteration)

    def summary_cut(self, iteration: int) -> Optional[int]:
        before = self.sent.get(iteration)        # as this step was sent (a summary at its top)
        after = self.at_start(iteration + 1)     # what the trim left, as the next step began
        if before is None or after is None:
            return None
        for written in re.findall(r"^\[Summarized up to step (\d+)\]", before, flags=re.M):
            if SUMMARY_HEADER.format(iteration=written) not in after:
                return int(written)
        return None

    def summary_tail_kept(self, written: int, text: str) -> bool:
        """Is the last line of the summary written at `written` still in `text`?"""
        e = self.compressions.get(written)
        if e is None or e.payload.status != "ok":
            return False
        lines = [ln for ln in str(e.payload.after or "").splitlines() if ln.strip()]
        return len(lines) > 1 and lines[-1] in text

    def summary_kept(self, iteration: int) -> Optional[int]:
        found = re.findall(r"^\[Summarized up to step (\d+)\]", self.at_start(iteration + 1) or "", flags=re.M)
        return int(found[0]) if found else None


def scratchpad_at_start(events: Sequence[Event], iteration: int) -> Optional[str]:
    """The scratchpad as iteration `iteration` started (after a trim in the step before, before the middleware)."""
    return _Index(events).at_start(iteration)


def summary_cut_by_trim(events: Sequence[Event], iteration: int) -> Optional[int]:
    """The iteration whose summary the trim at `iteration` cut away (its header line is gone from the
    scratchpad the next iteration started with), or None; found from the recorded text."""
    return _Index(events).summary_cut(iteration)


def _trim_sentence(idx: _Index, trim: Event) -> str:
    d = trim.payload
    iteration = int(trim.iteration or 0)
    keep = idx.config.get("agent_trim_chars")
    kept = f"the last {_n(keep)} chars" if keep else f"{_n(d.after_chars)} chars"
    head = (f"The agent cut its scratchpad from {_n(d.before_chars)} chars to {kept} "
            "(its own limit, not the summarizer)")
    after = idx.at_start(iteration + 1)
    cut = idx.summary_cut(iteration)
    if cut is not None:
        if idx.summary_tail_kept(cut, after or ""):
            return (f"{head}; the start of the summary written at iteration {cut} (its header and first lines) "
                    "was in the part that was cut, the rest is still there.")
        return f"{head}; the summary written at iteration {cut} was in the part that was cut."
    survivor = idx.summary_kept(iteration)
    if survivor is not None:
        return f"{head}; the summary written at iteration {survivor} is still in what was kept."
    if after is None:
        return f"{head}; the oldest steps are gone."
    return f"{head}; no summary was in the part that was cut: the oldest steps are simply gone."


def trim_sentence(events: Sequence[Event], trim: Event) -> str:
    return _trim_sentence(_Index(events), trim)


# ── per iteration ──────────────────────────────────────────────────────────

def _sentence(idx: _Index, iteration: int) -> Optional[str]:
    parts = []
    if iteration in idx.compressions:
        parts.append(compression_sentence(idx.triggers.get(iteration), idx.compressions[iteration]))
        if idx.health(iteration):
            parts.append(idx.health(iteration))
    elif iteration in idx.triggers:
        parts.append(quiet_sentence(idx.triggers[iteration]))
    if iteration in idx.trims:
        parts.append(_trim_sentence(idx, idx.trims[iteration]))
    return " ".join(parts) if parts else None


def sentence_for(events: Sequence[Event], iteration: int) -> Optional[str]:
    """The narration of one iteration: the trigger decision, then the agent's trim if it cut."""
    return _sentence(_Index(events), iteration)


def narrate(events: Sequence[Event]) -> Dict[int, str]:
    """{iteration: sentence} for every iteration the run recorded."""
    idx = _Index(events)
    out = {}
    for i in sorted(set(idx.triggers) | set(idx.trims) | set(idx.compressions)):
        sentence = _sentence(idx, i)
        if sentence:
            out[i] = sentence
    return out


def why_compressions(events: Sequence[Event]) -> List[str]:
    """One sentence per compression event, in order (the CLI's `why`), then its failed health checks' sentences."""
    triggers = _by_iteration(events, "trigger")
    comps = [e for e in events if e.kind == "compression"]
    out = []
    for n, (e, failed) in enumerate(zip(comps, health.check_run(events))):
        said = compression_sentence(triggers.get(int(e.iteration or 0)), e)
        out.append(said + " " + health.sentences(events, n, failed) if failed else said)
    return out


def why_trims(events: Sequence[Event]) -> List[str]:
    idx = _Index(events)
    return [_trim_sentence(idx, e) for e in events if e.kind == "trim"]
