"""The fork task: "What if..." at one compression of a run (the Playground, the Runs page, `scratchpad-lab fork`).

Streamlit-free. The request names the run shown (a run record; a trace is forked from its replay with the
package defaults, the run the Runs page shows), the iteration of one of its compressions, and what the fork
changes there: that compression skipped, and/or the middleware's two triggers from there on. The rule of a
fork is engine/run/forking.py's. The task refuses in one sentence, before any work starts, a fork at an iteration
past the run's end, at one with no compression, and one that changes nothing; it checks the work limit as a
replay does, and returns a Job whose result is a `Forked`: the fork's record (its `forked_from` set), the
two runs compared (analysis/forks.py), and the sentence that says whose summaries the fork shows when the
parent's were written by a model the fork does not call (engine/fork.ParentSummaries). The fork's own
summaries are written by the replay rule's summarizer, or by the one the request names (a person's choice
now, never a file's).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Optional

from scratchpad_lab.engine.jobs import Job
from scratchpad_lab.model.errors import ForkRefused as ForkRefused  # the door names it here (its home: model/errors.py)

if TYPE_CHECKING:  # the types only: the rooms are imported when a task runs
    from scratchpad_lab.analysis.forks import ForkComparison
    from scratchpad_lab.model.records import RunRecord
    from scratchpad_lab.model.summarizer import SummarizerChoice




@dataclass(frozen=True)
class ForkRequest:
    parent: RunRecord                      # the RunRecord forked (a trace: its replay with the package defaults)
    at: int                                # the iteration of one of its compressions
    skip: bool = True                      # that compression skipped
    changes: Mapping[str, Any] = field(default_factory=dict)  # summarize_every / max_scratchpad_chars from `at` on
    parent_id: Optional[str] = None        # the parent's id in the store, when it is stored
    parent_name: str = ""                  # its name as a person knows it (a file's name, a run's name)
    lifted: bool = False                   # the CLI's --no-work-limit
    # Who writes the fork's summaries, when a person chose it for this fork (the Strategies page: the summarizer
    # its strategies ran with, StrategiesOutcome.fork_summarizer; its key this job's only); None: the replay
    # rule's (a model a file names is never called: the offline extractive one writes them).
    summarizer: Optional[SummarizerChoice] = None


@dataclass
class Forked:
    parent: RunRecord                      # the original's RunRecord
    record: RunRecord                      # the fork's RunRecord
    comparison: ForkComparison
    notice: Optional[str] = None           # whose summaries the fork shows, when the parent's were another's


def _iterations(record: RunRecord) -> list:
    return sorted({e.iteration for e in record.events if e.kind == "iteration" and e.iteration is not None})


def check(request: ForkRequest) -> None:
    """Refuse, in one sentence naming what to change, a fork that cannot be made (ForkRefused)."""
    from scratchpad_lab.engine.run.forking import TRIGGERS, compression_iterations

    parent, at = request.parent, request.at
    unknown = sorted(set(request.changes) - set(TRIGGERS))
    if unknown:
        raise ForkRefused(f"A fork changes only the middleware's triggers ({', '.join(TRIGGERS)}), not "
                          f"{', '.join(unknown)}.")
    iterations = _iterations(parent)
    if not iterations or at > iterations[-1] or at < 1:
        raise ForkRefused(f"Iteration {at} is not in this run: it has {len(iterations)} iterations. Fork at one of "
                          "its compressions.")
    compressions = compression_iterations(parent.events)
    if at not in compressions:
        where = (f"its compressions are at iterations {', '.join(map(str, compressions))}" if compressions
                 else "it has no compression at all")
        raise ForkRefused(f"Iteration {at} of this run has no compression to fork at: {where}.")
    same = all(getattr(parent.config, k) == v for k, v in request.changes.items())
    if not request.skip and same:
        raise ForkRefused("This fork changes nothing: skip the compression, or give another summarize_every or "
                          "max_scratchpad_chars than the run's own.")


def fork(request: ForkRequest) -> Job:
    """The fork, as a job returning a Forked. Raises ForkRefused (or the work limit's sentence) at once."""
    from scratchpad_lab.engine.run.forking import ForkPoint, hold, origin, own_model, points_of, reuse, triggers_of
    from scratchpad_lab.engine.limits import check_work
    from scratchpad_lab.engine.run.replay import replay_source
    from scratchpad_lab.engine.run.runner import Run

    check(request)
    parent = request.parent
    found = replay_source(parent, label=request.parent_name or parent.name)
    chosen = request.summarizer
    if chosen is not None and chosen.prompt is None:  # a summarizer picked for the fork keeps the parent's prompt
        chosen = chosen.but(prompt=found.config.summarizer.prompt)
    config = found.config.replace(**dict(request.changes), **({"summarizer": chosen} if chosen else {}))
    keys = {"summarizer": chosen.key} if chosen is not None and chosen.key else None
    check_work(parent, replay=config, lifted=request.lifted)
    point = ForkPoint(request.at, request.skip, triggers_of(found.config), triggers_of(config))
    points = [p for p in points_of(parent) if p.iteration < request.at] + [point]
    what = "skipped" if request.skip else "other settings"
    name = f"fork of {request.parent_name or parent.name or 'a run'} at {request.at} ({what})"

    def work(report, stop):
        from scratchpad_lab.analysis.forks import compare

        run = Run(config, found.source, keys=keys, name=name[:500], stop=stop, report=report)
        hold(run, points)
        summaries = reuse(run, parent)
        record = run.run()
        stop.check()
        record.forked_from = origin(parent, point, request.parent_id, request.parent_name or parent.name)
        return Forked(parent, record, compare(parent.events, record.events, request.at),
                      summaries.notice(own_model(run)))

    return Job(work, name="scratchpad-lab-fork", tag=(parent, request.at),
               text=f"Replaying the run from iteration {request.at} with its compression {what}…")
