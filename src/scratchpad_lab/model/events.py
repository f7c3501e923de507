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

from scratchpad_lab.model.payloads import EVENT_KINDS, EventKind, payload_of


@dataclass
class Event:
    """`data` is the stored form (what `to_dict` writes); code reads it through `payload`, the kind's
    model from schemas.py (`e.payload.tokens`, with the model's default when a field is absent)."""

    kind: EventKind
    t: float                      # seconds since the run started
    iteration: Optional[int] = None
    data: Dict[str, Any] = field(default_factory=dict)
    # The payload, built on the first read and kept: not part of the event's value (equality, repr, file).
    _payload: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in EVENT_KINDS:  # a new kind needs its payload model in schemas.py first
            raise ValueError(f"unknown event kind {self.kind!r}")

    @property
    def payload(self) -> Any:
        """`data` as the kind's payload model (schemas.PAYLOADS), built without validation: the lab's own
        events are its own, and a file's were validated when it was loaded. Fields the model does not list
        are kept too (`extra="allow"`) and read the same way."""
        payload = self._payload
        if payload is None:
            payload = self._payload = payload_of(self.kind, self.data)
        return payload

    def amend(self, **data: Any) -> None:
        """Add to or change an event's data after it was emitted (a strategy that learns more later)."""
        self.data.update(data)
        self._payload = None

    def to_dict(self) -> Dict[str, Any]:
        return {"kind": self.kind, "t": round(self.t, 4), "iteration": self.iteration, "data": self.data}


class RunLog:
    """Thread-safe, append-only list of events, plus the reader heartbeat.

    `last_read` lets the runner stop a run nobody watches any more (the tab was closed).
    """

    def __init__(self) -> None:
        self._events: List[Event] = []
        self._lock = threading.Lock()
        self._t0 = time.monotonic()
        self.last_read = time.monotonic()

    def emit(self, kind: EventKind, iteration: Optional[int] = None, **data: Any) -> Event:
        event = Event(kind=kind, t=time.monotonic() - self._t0, iteration=iteration, data=data)
        with self._lock:
            self._events.append(event)
        return event

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
