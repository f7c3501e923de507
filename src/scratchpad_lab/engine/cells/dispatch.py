"""The one executor every study runs its cells through: `opened(choice, workers)` gives the study its `Cells`, whose
`run` sends each cell to the local pool (engine/cells/local_pool.py) or to Ray (engine/cells/ray_cluster.py) by the
choice (engine/cells/executor.py). The sweep, the recommender and the benchmark call nothing else to run cells.

Streamlit-free, and Ray-free until a study asks for Ray.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator, Optional, Sequence

from scratchpad_lab.engine.cells.executor import ExecutorChoice, Outcome, Placement, RunShare, StudyCell, Work


class Cells:
    """An executor opened for one study: `workers` is how many cells run at once (a Ray cluster's CPUs)."""

    def __init__(self, choice: ExecutorChoice, workers: int, started: bool = False) -> None:
        self.choice, self.workers, self.started = choice, workers, started

    def run(self, shares: Sequence[RunShare], cells: Sequence[StudyCell], work: Work, summarizer: Any,
            price_model: Optional[str], collect: Callable[[StudyCell, Outcome], None], stop: Any,
            placement: Placement, here: Optional[Callable[[RunShare], Any]] = None, threads: bool = False,
            deadline_s: Optional[float] = None) -> None:
        """Run every cell, calling `collect(cell, outcome)` in this thread as each ends; Stop (`stop.is_set()`) or
        Ctrl-C ends what is left and goes on up as its exception. `summarizer` (model/summarizer.SummarizerChoice):
        the study's; a worker process or Ray task makes its own from it (an endpoint's calls go through one host,
        engine/cells/ray_cluster.py). `here(share)`: the context this process runs a run's cells in (default: the
        work's context with the offline summarizer). `threads`: the summarizer waits on the network, so local cells
        share `workers` threads of this process. `deadline_s`: the job's wall clock, on a cluster."""
        placement.executor = self.choice.kind
        placement.started_cluster = self.started
        if self.choice.kind == "ray":
            from scratchpad_lab.engine.cells import ray_cluster
            from scratchpad_lab.engine.limits import budget

            ray_cluster.run_cells(shares, cells, summarizer, price_model, collect, stop,
                                  budget("job_wall_s") if deadline_s is None else deadline_s, placement, work)
            return
        from scratchpad_lab.engine.cells import local_pool

        local_pool.run_cells(shares, cells, work, price_model, collect, stop, placement, self.workers,
                             here or (lambda share: offline_context(share, work)), threads)


def offline_context(share: RunShare, work: Work) -> Any:
    """A run's context with the offline summarizer, as a worker process makes it."""
    from scratchpad_lab.engine.run.tokens import TokenCounter
    from scratchpad_lab.engine.summarize.summarizers import build_summarizer
    from scratchpad_lab.model.summarizer import SummarizerChoice

    return work.make_context(share, build_summarizer(SummarizerChoice("extractive", share.budget_chars)),
                             TokenCounter(None))


@contextmanager
def opened(choice: Optional[ExecutorChoice], workers: int) -> Iterator[Cells]:
    """The executor for one study: local with `workers` at once, or this process joined to the choice's Ray
    cluster (started for the study and ended after it, when it has no address) with its CPUs as workers."""
    choice = choice or ExecutorChoice()
    if choice.kind == "ray":
        from scratchpad_lab.engine.cells import ray_cluster

        with ray_cluster.connected(choice) as cluster:
            yield Cells(choice, cluster["cpus"], cluster["started"])
        return
    yield Cells(choice, max(1, int(workers)))
