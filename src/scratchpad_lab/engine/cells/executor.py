"""The executor seam: where a study's cells run. Every study (the sweep, the recommender, the benchmark) runs its
cells through `dispatch.opened(choice, workers)` (engine/cells/dispatch.py): one choice, made by a flag (`--executor local|ray`, `--ray-address`) or by
the operator's settings (environment or Streamlit secrets), never by a visitor.

Streamlit-free, and Ray-free: Ray is imported only by engine/cells/ray_cluster.py, only when the Ray executor runs.

- local (the default, no extra install): worker processes on this machine beside the calling thread
  (engine/cells/local_pool.py).
- ray: the cells as Ray tasks on a cluster (engine/cells/ray_cluster.py): at an address (`--ray-address`, or
  RAY_ADDRESS), or, with none, a cluster of this machine's cores that the study starts and ends itself.

A cell is (run, strategy, settings) to its outcome (figures, the run's error, summaries reused): the study's `Work`
(two module-level functions: make a run's context, run a cell in it) over a `RunShare`, the per-run data every cell
of that run shares (the trajectory or run record, its scenario and gold actions, the summarizer's budget, whether
the argument measures are wanted, the pins). A share is plain, picklable data, made once per run; each process that
takes a run's cells makes the run's context once. The same Work runs on either executor, so a row reads the same
whichever ran it.

`Placement` is what a study reports of where its cells ran: how many in each process on each node, and how many
a lost worker made Ray run again.
"""
from __future__ import annotations

import os
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Tuple

from scratchpad_lab.model.errors import LabError
from scratchpad_lab.model.trace import Trace

if TYPE_CHECKING:
    from scratchpad_lab.model.records import RunRecord

EXECUTORS = ("local", "ray")
EXECUTOR_ENV = "SCRATCHPAD_LAB_EXECUTOR"        # the operator's choice for the pages: local or ray
ADDRESS_ENV = "SCRATCHPAD_LAB_RAY_ADDRESS"      # the operator's cluster for the pages (else RAY_ADDRESS)
RAY_ADDRESS_ENV = "RAY_ADDRESS"                 # Ray's own variable, read by the CLI too
RAY_REQUIREMENTS = "requirements-ray.txt"


class ExecutorError(LabError, RuntimeError):
    """The executor asked for cannot run here (Ray missing, a cluster unreachable or of another version)."""


@dataclass(frozen=True)
class ExecutorChoice:
    """Where a study's cells run. `address` only for ray: None starts a cluster of this machine's cores."""

    kind: str = "local"
    address: Optional[str] = None

    def __post_init__(self) -> None:
        if self.kind not in EXECUTORS:
            raise ExecutorError(f"--executor {self.kind!r}: choose local or ray.")
        if self.kind == "local" and self.address:
            raise ExecutorError("--ray-address is for --executor ray; add --executor ray, or drop the address.")

    @property
    def where(self) -> str:
        """Where it runs, in words a page may show (never the address: an operator's host stays theirs)."""
        if self.kind == "local":
            return "this machine's worker processes"
        return "a Ray cluster" if self.address else "a Ray cluster of this machine's cores, started for the job"


def choice_from_args(kind: Optional[str], address: Optional[str], env: Mapping[str, str] = os.environ) -> ExecutorChoice:
    """The CLI's choice: `--executor` (default local) and `--ray-address` (default RAY_ADDRESS, for ray only)."""
    kind = kind or "local"
    if kind == "ray" and not address:
        address = env.get(RAY_ADDRESS_ENV) or None
    return ExecutorChoice(kind, address)


def choice_from_settings(env: Mapping[str, str] = os.environ, secrets: Optional[Mapping[str, Any]] = None) -> ExecutorChoice:
    """The operator's choice for the pages: `executor` and `ray_address` under `[scratchpad_lab]` in the app's
    secrets, else SCRATCHPAD_LAB_EXECUTOR and SCRATCHPAD_LAB_RAY_ADDRESS (or RAY_ADDRESS). Local when unset."""
    section = dict((secrets or {}).get("scratchpad_lab", {}) or {})
    kind = str(section.get("executor") or env.get(EXECUTOR_ENV) or "local").strip().lower()
    address = section.get("ray_address") or env.get(ADDRESS_ENV) or (env.get(RAY_ADDRESS_ENV) if kind == "ray" else None)
    if kind not in EXECUTORS:
        raise ExecutorError(f"{EXECUTOR_ENV}={kind!r}: set it to local or ray.")
    return ExecutorChoice(kind, str(address).strip() if address and kind == "ray" else None)


@dataclass(frozen=True)
class RunShare:
    """What every cell of one run shares, made once per run (ray.put once on Ray): plain and picklable."""

    key: str                                   # unique per run of a study: a worker's cache of its baselines
    trace: Optional[Trace]                     # the fixed trajectory (None only for a sweep of a scenario's run)
    scenario: Optional[str] = None
    gold: Optional[List[Dict[str, Any]]] = None
    arguments: bool = False                    # the benchmark's argument measures on each row
    budget_chars: int = 0                      # the offline summarizer's budget
    pins: Tuple[str, ...] = ()                 # a search's pins, every cell checked against them (model/pins.py)
    pins_to_summarizer: bool = False           # ... and asked for in the prompt of each package that takes one
    record: Optional["RunRecord"] = None       # a sweep's run record (its settings, a scenario's policy)


Outcome = Tuple[Dict[str, Any], Optional[str], int]   # a cell's figures, the run's error, summaries reused


@dataclass(frozen=True)
class Work:
    """What a study's cell does, as two module-level functions (a worker process imports them by name, a Ray task
    gets them by reference): `make_context(share, summarizer, counter)`, what a run's cells share in one process,
    and `run(strategy, settings, price_model, context)`, one cell's Outcome."""

    make_context: Callable[..., Any]
    run: Callable[..., Outcome]


def plain(value: Any) -> Any:
    """Tuples as lists, all the way down: a row reads the same from this thread as from a worker's JSON."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    return value


@dataclass(frozen=True)
class StudyCell:
    """One cell: a run (its share's index), a label for the study, the strategy and its resolved settings."""

    run: int
    label: str
    strategy: str
    settings: Dict[str, Any] = field(default_factory=dict, hash=False)


@dataclass
class Placement:
    """Where a study's cells ran: per (node, process id) how many; lost: cells reported as errors because the
    worker running them was lost twice (Ray runs a lost worker's cell once more before that)."""

    executor: str = "local"
    counts: Dict[Tuple[str, int], int] = field(default_factory=dict)
    lost: int = 0
    started_cluster: bool = False

    def add(self, node: str, pid: int) -> None:
        self.counts[(node, pid)] = self.counts.get((node, pid), 0) + 1

    @property
    def processes(self) -> int:
        return len(self.counts)

    @property
    def nodes(self) -> List[str]:
        return sorted({node for node, _ in self.counts})

    def sentence(self) -> str:
        cells = sum(self.counts.values())
        if self.executor == "local":
            return f"{cells:,} cells ran on this machine in {self.processes} process{'es' * (self.processes != 1)}."
        where = "a Ray cluster started for this job" if self.started_cluster else "the Ray cluster"
        text = (f"{cells:,} cells ran on {where}: {self.processes} worker process{'es' * (self.processes != 1)} "
                f"on {len(self.nodes)} node{'s' * (len(self.nodes) != 1)}")
        return text + (f"; {self.lost} lost with their worker twice." if self.lost else ".")

    def to_dict(self) -> Dict[str, Any]:
        return {"executor": self.executor, "processes": self.processes, "nodes": self.nodes,
                "cells": [{"node": n, "pid": p, "cells": c} for (n, p), c in sorted(self.counts.items())],
                "lost": self.lost, "started_cluster": self.started_cluster}


def new_key() -> str:
    """A study's prefix for its runs' share keys: unique, so a worker never mixes two studies' runs."""
    return uuid.uuid4().hex
