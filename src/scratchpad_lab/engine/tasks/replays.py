"""Tasks that replay a trajectory under the lab's own settings: Compare (and the Compare page's sweep, whose
cells open as runs), the CLI's sweep (figures only), a file replayed under changed settings, a trace replayed
with the package defaults, and a run replayed with compression off.

Streamlit-free. Each task takes one request, checks the job's work limit once (engine/limits.py) before
any work starts, raising its WorkLimitExceeded sentence, and returns a `Job` (engine/jobs.py) that writes
its own progress text: a page starts it in its slot, the CLI runs it in place (`run_here`). The rooms behind
it are imported when a task is called, so the door costs nothing to import.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Tuple, Union

from scratchpad_lab.engine.jobs import Job, abandonable

if TYPE_CHECKING:  # the types only: the rooms are imported when a task runs
    from scratchpad_lab.engine.cells.executor import ExecutorChoice
    from scratchpad_lab.engine.studies.compare import Setting
    from scratchpad_lab.model.records import RunRecord
    from scratchpad_lab.model.trace import Trace


@dataclass
class ComparisonResult:
    """One finished comparison or sweep of the Compare page: kept in session state, shown on every rerun."""

    signature: tuple                       # (source key, settings): tells when the inputs have changed
    labels: List[str]
    records: List[Any]                     # RunRecord, one per setting
    baselines: Dict[int, Any]              # compression off, by agent trim
    keeps_answer: bool
    rows: List[Dict] = field(default_factory=list)
    choices: Dict = field(default_factory=dict)  # the sweep's widget values, restored after a page switch
    kind: str = "compare"                        # "compare" or "sweep": where the page keeps it
    source: str = ""                             # the trajectory's title, as the store lists it


@dataclass(frozen=True)
class CompareRequest:
    """Replay one trajectory under each setting (compare.Setting), keeping every record (the page shows them)."""

    loaded: Union[RunRecord, Trace]
    settings: Tuple[Setting, ...]
    labels: Tuple[str, ...]
    what: str = "settings"                 # what the progress text counts: "settings", or a sweep's "cells"
    signature: tuple = ()
    kind: str = "compare"                  # "compare" or "sweep"
    choices: Optional[Mapping[str, Any]] = None
    keys: Optional[Mapping[str, str]] = None   # {"summarizer": key} for an endpoint row: this job's only
    title: str = ""
    lifted: bool = False                   # the CLI's --no-work-limit


def compare(request: CompareRequest) -> Job:
    """Compare: the replays and each one's figures row, as a job returning a ComparisonResult."""
    from scratchpad_lab.engine.limits import check_work

    settings, labels, what = list(request.settings), list(request.labels), request.what
    check_work(request.loaded, settings=settings, lifted=request.lifted,
               endpoint_summarizer=any(s.summarizer is not None and s.summarizer.kind in ("endpoint", "same-as-agent")
                                                     for s in settings))
    keys = dict(request.keys) if request.keys is not None else None

    def work(report, stop) -> ComparisonResult:
        from scratchpad_lab.engine.studies import compare as rooms

        def progress(index: int, total: int, label: str) -> None:
            report(index, total, f"Replayed {index} of {total} {what}" + (f"; now {label}" if index < total else ""))

        records, baselines, keeps = rooms.compare(request.loaded, settings, keys=keys, progress=progress, stop=stop)
        rows = []
        for index, (label, record) in enumerate(zip(labels, records)):
            report(index, len(records), f"Working out the figures: {index} of {len(records)} {what} done")
            # a long run's figures take a second or so and cannot look at the flag: waited for with it in view
            rows.append(abandonable(lambda: _figures(label, record, baselines), stop))
        return ComparisonResult(request.signature, labels, records, baselines, keeps, rows,
                                dict(request.choices or {}), request.kind, request.title)

    return Job(work, name="scratchpad-lab-compare", total=len(settings), text=f"Replaying {len(settings)} {what}…")


def _figures(label: str, record: Any, baselines: Dict[int, Any]) -> Dict:
    from scratchpad_lab.analysis.quality import FLAGS, annotate
    from scratchpad_lab.engine.studies import compare as rooms

    flags = Counter(f for c in annotate(record.events) for f in c["flags"])
    return {"setting": label, **rooms.row(record, rooms.baseline_for(record, baselines)),
            **{f"flag {f}": flags.get(f, 0) for f in FLAGS}}


@dataclass(frozen=True)
class SweepRequest:
    """`scratchpad-lab sweep`: every cell's figures row, no records kept (the cells may run in processes)."""

    loaded: Union[RunRecord, Trace]
    settings: Tuple[Setting, ...]
    lifted: bool = False
    executor: Optional[ExecutorChoice] = None   # where the cells run (None: this machine)


def sweep(request: SweepRequest) -> Job:
    """The sweep's rows (compare.sweep_rows), as a job returning them."""
    from scratchpad_lab.engine.limits import check_work

    settings = list(request.settings)
    check_work(request.loaded, settings=settings, keep_records=False, lifted=request.lifted)

    def work(report, stop) -> List[Dict]:
        from scratchpad_lab.engine.studies.compare import sweep_rows
        rows = sweep_rows(request.loaded, settings, executor=request.executor)
        report(len(settings), len(settings), f"Swept {len(settings)} cells")
        return rows

    return Job(work, name="scratchpad-lab-sweep", total=len(settings), text=f"Sweeping {len(settings)} cells…")


@dataclass(frozen=True)
class ReplayRequest:
    """`scratchpad-lab replay FILE`: the file's trajectory under its own settings with `changes` made."""

    loaded: Union[RunRecord, Trace]
    label: str
    changes: Mapping[str, Any] = field(default_factory=dict)
    key_flags: Mapping[str, Any] = field(default_factory=dict)  # the CLI's key flags (engine/net/keys.py's rule)
    name: str = ""
    lifted: bool = False


def replay(request: ReplayRequest):
    """The replay as a Run (a Job): a reviewed run, replayed as it was, keeps the person's verdicts; a fork keeps
    its fork points (engine/run/forking.py) unless the replay changes the triggers they set."""
    from scratchpad_lab.engine.run.forking import TRIGGERS, hold, points_of
    from scratchpad_lab.engine.net.keys import cli_keys
    from scratchpad_lab.engine.limits import check_work
    from scratchpad_lab.engine.run.replay import replay_source
    from scratchpad_lab.engine.run.review import replay_reviews
    from scratchpad_lab.engine.run.runner import Run

    found = replay_source(request.loaded, label=request.label)
    config = found.config.replace(**dict(request.changes))
    check_work(request.loaded, replay=config, lifted=request.lifted)
    run = Run(config, found.source, keys=cli_keys(config, dict(request.key_flags)), name=request.name)
    replay_reviews(run, request.loaded)
    if not set(request.changes) & set(TRIGGERS):  # a fork replayed under its own triggers skips what it skipped
        hold(run, points_of(request.loaded))
    return run


@dataclass(frozen=True)
class TraceReplayRequest:
    """A trace (uploaded, stored or an imported sample) replayed once with the package defaults, to be shown."""

    trace: Trace
    name: str
    label: str = "trace"
    tag: object = None                     # the page's note of which upload it is


def replay_trace(request: TraceReplayRequest) -> Job:
    """The replay as a job returning its RunRecord (replay.replay_with_defaults)."""
    from scratchpad_lab.engine.limits import check_work
    from scratchpad_lab.engine.run.replay import replay_source, replay_with_defaults

    # within the file limits this always fits; checked alike, like every task
    check_work(request.trace, replay=replay_source(request.trace, request.label).config)

    def work(report, stop):
        return replay_with_defaults(request.trace, request.name, request.label, stop=stop, report=report)

    return Job(work, name="scratchpad-lab-upload", tag=request.tag, text="Replaying the trace with the package defaults…")


@dataclass(frozen=True)
class CompressionOffRequest:
    """The run on show, replayed with compression off and the same agent trim (the loss panel's baseline)."""

    record: RunRecord


def compression_off(request: CompressionOffRequest) -> Job:
    """The replay as a job returning its RunRecord; its tag is the record it is the baseline of. No work-limit
    check: it replays a run already made, under the same trim, with nothing to summarize."""
    record = request.record

    def work(report, stop):
        from scratchpad_lab.engine.studies.compare import compression_off as replay_off
        return replay_off(record, stop=stop, report=report)

    return Job(work, name="scratchpad-lab-loss", tag=record, text="Replaying this run with compression off…")
