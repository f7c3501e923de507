"""Events and the run log: one plain-data event type for everything a run does.

Streamlit-free: the worker thread appends, the page (or the CLI, or a test) reads. The same
events feed the live view, the run record on disk and every metric, so a live run, a finished run
and a loaded file are all shown by the same code.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

# Every kind an event can have, with the data fields it carries (documentation and a check).
EVENT_KINDS = {
    "run_start": "task, config, mode, scenario, tools",
    "iteration": "iteration, before_chars, before_tokens, chars, tokens, scratchpad (text sent to the LLM)",
    "trigger": "iteration, chars, summarize_every, max_scratchpad_chars, periodic_due, over_cap, "
               "size_armed, last_summarized_chars, predicted, predicted_reason, fired, reason",
    "compression": "iteration, reason, status, before, after, prompt, response, model, latency_s, "
                   "tokens_in, tokens_out, before_chars, after_chars, before_tokens, after_tokens, error",
    "trim": "iteration, before_chars, after_chars",
    "llm_call": "iteration, response, latency_s, tokens_in, tokens_out, model",
    "tool_call": "iteration, position, tool, input, result, result_chars",
    "thought": "iteration, text",
    "pause": "iteration, reason",
    "resume": "iteration, paused_s",
    "final_answer": "iteration, text",
    "error": "iteration, error_type, message",
    "finish": "outcome, iterations, elapsed_s",
}


@dataclass
class Event:
    kind: str
    t: float                      # seconds since the run started
    iteration: Optional[int] = None
    data: Dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> Dict[str, Any]:
        return {"kind": self.kind, "t": round(self.t, 4), "iteration": self.iteration, "data": self.data}

    @classmethod
    def from_dict(cls, raw: Dict[str, Any]) -> "Event":
        return cls(kind=str(raw["kind"]), t=float(raw.get("t", 0.0)),
                   iteration=raw.get("iteration"), data=dict(raw.get("data") or {}))


class RunLog:
    """Thread-safe, append-only list of events, plus the reader heartbeat.

    `last_read` lets the runner stop a run nobody watches any more (the tab was closed).
    """

    def __init__(self) -> None:
        self._events: List[Event] = []
        self._lock = threading.Lock()
        self._t0 = time.monotonic()
        self.last_read = time.monotonic()

    def emit(self, kind: str, iteration: Optional[int] = None, **data: Any) -> Event:
        event = Event(kind=kind, t=time.monotonic() - self._t0, iteration=iteration, data=data)
        with self._lock:
            self._events.append(event)
        return event

    def extend(self, events: List[Event]) -> None:
        with self._lock:
            self._events.extend(events)

    def snapshot(self) -> List[Event]:
        """A copy of the events so far; marks the log as read."""
        with self._lock:
            self.last_read = time.monotonic()
            return list(self._events)

    def __len__(self) -> int:
        with self._lock:
            return len(self._events)

    def of_kind(self, kind: str) -> List[Event]:
        return [e for e in self.snapshot() if e.kind == kind]
