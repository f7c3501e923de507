"""Review before a compression applies: a person accepts, edits or rejects each proposed summary.

Streamlit-free. The run observer (observe.py) hands every summarizer reply to `observer.reviewer`
before the middleware sees it; a `ReviewGate` holds the worker there until the page decides, and
the package then does what it always does with the reply it gets:

- accepted: the proposal, as the summarizer wrote it;
- edited:   the person's text is what the summarizer returns;
- rejected: an empty reply, so the package keeps the scratchpad (and tries again when a trigger
            fires again, as it does after any empty summary).

The compression event records the verdict (`review`) and the original `proposal`. Time spent waiting
for the person is added to the agent's own paused time, which the agent already leaves out of its
wall-clock cap (as for pause()). A stopped run abandons the wait. `RecordedReviews` replays a
reviewed run's decisions, so the replay gets the same compressions.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from scratchpad_lab.model.events import Event
from scratchpad_lab.analysis.facts import retention

VERDICTS = ("accepted", "edited", "rejected")


class ReviewAbandoned(Exception):
    """The run was stopped while a proposal waited for a decision."""


@dataclass
class PendingReview:
    number: int                 # 1-based count of reviews in this run
    iteration: int
    before: str                 # the scratchpad the summary would replace
    proposal: str               # what the summarizer wrote
    facts_before: List[str] = field(default_factory=list)
    facts_lost: List[str] = field(default_factory=list)


class ReviewGate:
    """Set as `observer.reviewer`; the worker waits in __call__, the page calls decide()."""

    def __init__(self, stop_event: threading.Event, expected: Sequence[str] = ()) -> None:
        self.stop_event = stop_event
        self.expected = list(expected)
        self.pending: Optional[PendingReview] = None
        self.count = 0
        self._decision: Optional[Tuple[str, str]] = None
        self._decided = threading.Event()
        self._lock = threading.Lock()

    def __call__(self, call: Dict[str, Any], agent: Any, iteration: int) -> Tuple[str, str]:
        proposal = call["response"]
        after = f"[Summarized up to step {iteration}]\n{proposal.strip()}" if proposal.strip() else call["before"]
        r = retention(call["before"], after, self.expected)
        with self._lock:
            self.count += 1
            self._decision = None
            self._decided.clear()
            self.pending = PendingReview(self.count, iteration, call["before"], proposal,
                                         [f.text for f in r.before], [f.text for f in r.lost])
        started = time.monotonic()
        try:
            while not self._decided.wait(0.2):
                if self.stop_event.is_set():
                    raise ReviewAbandoned("the run was stopped while a summary waited for review")
        finally:
            with self._lock:
                self.pending = None
            if hasattr(agent, "_paused_duration"):  # waiting for a person is not run time (as in pause())
                agent._paused_duration += time.monotonic() - started
        return self._decision

    def decide(self, verdict: str, text: str = "") -> None:
        """From the page: "accepted", "edited" (with the text) or "rejected"."""
        if verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}")
        with self._lock:
            pending = self.pending
            if pending is None:
                return
            reply = {"accepted": pending.proposal, "edited": text, "rejected": ""}[verdict]
            if verdict == "edited" and not text.strip():
                verdict, reply = "rejected", ""  # an emptied edit is a rejection: the package keeps the scratchpad
            self._decision = (verdict, reply)
        self._decided.set()


class RecordedReviews:
    """A reviewed run's decisions, given back in order on replay: the same reply for each compression."""

    def __init__(self, events: Sequence[Event]) -> None:
        self.decisions = [(e.payload.review, e.payload.response)
                          for e in events if e.kind == "compression" and e.payload.review in VERDICTS]
        self.used = 0

    def __call__(self, call: Dict[str, Any], agent: Any, iteration: int) -> Tuple[str, str]:
        if self.used >= len(self.decisions):
            return "accepted", call["response"]
        decision = self.decisions[self.used]
        self.used += 1
        return decision


def reviewed(events: Sequence[Event]) -> bool:
    return any(e.kind == "compression" and e.payload.review for e in events)


_SAME = ("summarize_every", "max_scratchpad_chars", "agent_trim_chars", "max_tool_output_chars", "summarizer")


def replay_reviews(run: Any, loaded: Any) -> bool:
    """Give a replay of a reviewed run record its recorded verdicts, when it replays under the record's
    own compression settings (under other settings the compressions differ, so no verdict applies)."""
    events = getattr(loaded, "events", None)
    config = getattr(loaded, "config", None)
    if not events or config is None or not reviewed(events):
        return False
    if any(getattr(run.config, name) != getattr(config, name) for name in _SAME):
        return False
    run.observer.reviewer = RecordedReviews(events)
    return True
