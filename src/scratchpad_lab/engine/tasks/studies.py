"""Tasks that study one trajectory under the compression systems: Strategies (several side by side),
Recommend (every strategy over its grid, and the Pareto front) and opening one recommended point as a run.

Streamlit-free. Each task takes one request, checks the job's work limit once (engine/limits.py) before any
work starts, and returns a `Job` that writes its own progress text; a page starts it in its slot, the CLI
runs it in place. The strategies' packages are imported by the job's work, never by the door.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, List, Mapping, Optional, Tuple, Union

from scratchpad_lab.engine.jobs import Job

if TYPE_CHECKING:  # the types only: the rooms are imported when a task runs
    from scratchpad_lab.engine.cells.executor import ExecutorChoice
    from scratchpad_lab.engine.strategies.result import StrategyResult
    from scratchpad_lab.engine.strategies.spec import StrategySpec
    from scratchpad_lab.engine.studies.benchmark import BenchmarkRequest
    from scratchpad_lab.engine.studies.decide import DecideRequest
    from scratchpad_lab.model.records import RunRecord
    from scratchpad_lab.model.summarizer import SummarizerChoice
    from scratchpad_lab.model.trace import Trace


@dataclass
class StrategiesOutcome:
    """What a Strategies job returns: its results, and what they were run on (the page shows both). It stays in
    the process that ran the job (the page's session): the runs What if... forks are built from it here."""

    signature: tuple
    results: List[StrategyResult]          # one per spec
    title: str
    trajectory: Optional[Trace] = None     # the Trace every strategy replayed (the file's own object, no copy)
    summarizer: Optional[SummarizerChoice] = None  # the one that wrote every summary (its key: this job's only)

    def run_of(self, result: StrategyResult) -> Optional[RunRecord]:
        """The run a strategy's replay made, as the RunRecord What if... forks (engine/tasks/fork_tasks.py): the
        autourgos middleware's (the one result that keeps its run), given back its trajectory; None for any
        other strategy (the registry's fork_note says why). The same run at every call: its `created` and
        events are the kept run's, so a fork made from it is found beside it again on the next rerun."""
        from dataclasses import replace

        run = getattr(result, "run", None)
        if run is None or self.trajectory is None:
            return None
        return replace(run, trace=self.trajectory)

    def fork_summarizer(self, result: StrategyResult) -> Optional[SummarizerChoice]:
        """Who writes a fork's summaries: the summarizer this strategy's run was made with (its config's choice,
        with the key this job was given), so up to the fork point the fork is that run again."""
        if getattr(result, "config", None) is None:
            return None
        return result.config.summarizer.with_key(getattr(self.summarizer, "key", None))


@dataclass(frozen=True)
class StrategiesRequest:
    loaded: Union[RunRecord, Trace]
    specs: Tuple[StrategySpec, ...]        # from make_spec / parse_spec
    summarizer: SummarizerChoice           # the one summarizer every strategy uses
    signature: tuple = ()
    title: str = ""
    lifted: bool = False                   # the CLI's --no-work-limit
    pins: Tuple[str, ...] = ()             # text every strategy's compressions are checked against (model/pins.py)
    pins_to_summarizer: bool = False       # ... and asked for in the prompt of each package that takes one


def strategies(request: StrategiesRequest) -> Job:
    """The strategies in turn, as a job returning a StrategiesOutcome. Pins over a limit are refused here, in
    one sentence naming it (model/pins.check_pins, as a run refuses them), before any work starts."""
    from scratchpad_lab.engine.limits import check_work

    pinned = _pinned(request.pins, request.pins_to_summarizer)
    specs, summarizer = list(request.specs), request.summarizer
    check_work(request.loaded, strategies=specs, endpoint_summarizer=summarizer.kind == "endpoint",
               builtin_summarizer=summarizer.kind == "builtin", lifted=request.lifted)

    def work(report, stop) -> StrategiesOutcome:
        from scratchpad_lab.engine.run.replay import recorded_trajectory
        from scratchpad_lab.engine.strategies.engine import run_strategies
        from scratchpad_lab.engine.summarize.summarizers import build_summarizer

        now = {"done": 0, "text": ""}

        def progress(index: int, total: int, label: str) -> None:
            now.update(done=index, text=f"Ran {index} of {total} strategies" + (f"; now {label}" if index < total else ""))
            report(index, total, now["text"])

        built = build_summarizer(summarizer, stop=stop)  # Stop ends a call in flight too
        # the built-in model's queue place or loading, beside the strategy running (its calls go through `built`)
        built.on_status = lambda text: report(now["done"], None, f"{now['text']} ({text})" if text else now["text"])
        results = run_strategies(request.loaded, specs, built, progress=progress, stop=stop, pinned=pinned)
        return StrategiesOutcome(request.signature, results, request.title, recorded_trajectory(request.loaded),
                                 summarizer)

    return Job(work, name="scratchpad-lab-strategies", total=len(specs), text=f"Starting {len(specs)} strategies…")


@dataclass(frozen=True)
class RecommendRequest:
    loaded: Union[RunRecord, Trace]
    strategies: Optional[Tuple[str, ...]] = None   # None: every registered strategy
    grids: Mapping[str, Mapping[str, tuple]] = field(default_factory=dict)
    summarizer: Optional[SummarizerChoice] = None   # None: the offline one
    price_model: Optional[str] = None
    workers: int = 2
    key: object = None                     # the page's name for the trajectory, returned with the search
    title: str = ""
    lifted: bool = False
    executor: Optional[ExecutorChoice] = None   # None: this machine's processes
    pins: Tuple[str, ...] = ()             # every point is checked against them, as a Strategies job's strategies
    pins_to_summarizer: bool = False       # ... and asks for them in the prompt of each package that takes one


def _pinned(pins: Tuple[str, ...], to_summarizer: bool) -> Any:
    """A study's Pinned; pins over a limit are one StrategyError naming it (model/pins.check_pins, as a run's)."""
    from scratchpad_lab.engine.strategies.registry import StrategyError
    from scratchpad_lab.model.pins import Pinned

    try:
        return Pinned(tuple(pins), bool(to_summarizer))
    except ValueError as exc:
        raise StrategyError(str(exc)) from None


def recommend(request: RecommendRequest) -> Job:
    """The search (engine/recommend.search), as a job returning (key, Search, title). Planned here, so a grid
    with no point that can run, or too many points, is refused before it starts, and so is a search over the
    work limit (all its points as one Strategies job, run on `workers` at once), and pins over a limit."""
    from scratchpad_lab.engine.limits import check_work
    from scratchpad_lab.engine.studies.recommender import plan, search
    from scratchpad_lab.engine.run.replay import recorded_trajectory
    from scratchpad_lab.engine.strategies.registry import StrategyError
    from scratchpad_lab.model.summarizer import SummarizerChoice

    pinned = _pinned(request.pins, request.pins_to_summarizer)
    summarizer = request.summarizer or SummarizerChoice()
    grids = {name: dict(grid) for name, grid in request.grids.items()}
    chosen = list(request.strategies) if request.strategies else None
    points, skipped = plan(recorded_trajectory(request.loaded), chosen, grids)
    if not points:
        raise StrategyError("no point of this grid can run: " + "; ".join(w for _, _, w in skipped[:3]))
    # the built-in model is this process's one: its points run here, taking turns on it (a worker process
    # would summarize with the extractive one)
    workers = 1 if summarizer.kind == "builtin" else max(1, min(int(request.workers), len(points)))
    check_work(request.loaded, strategies=[p.spec for p in points], search_workers=workers,
               endpoint_summarizer=summarizer.kind == "endpoint", builtin_summarizer=summarizer.kind == "builtin",
               lifted=request.lifted)
    total = len(points)

    def work(report, stop):
        def progress(done: int, count: int, text: str) -> None:
            # `text` names the point just run (a strategy and its settings, maybe a person's grid values): the
            # live view shows it as plain text
            report(done, count, f"Ran point {done} of {count}: {text}" if done else f"Starting {count} points…")

        found = search(request.loaded, chosen, grids, summarizer, request.price_model, workers=workers,
                       progress=progress, stop=stop, executor=request.executor, pinned=pinned)
        return request.key, found, request.title

    return Job(work, name="scratchpad-lab-recommend", total=total, text=f"Starting a search of {total} points…")


@dataclass(frozen=True)
class OpenPointRequest:
    """One point of a search, replayed once more as a run (the same run the search made: deterministic)."""

    loaded: Union[RunRecord, Trace]
    spec: StrategySpec                     # the point's
    label: str                             # its --strategy argument (maybe a person's grid values)
    summarizer: SummarizerChoice
    tag: object = None                        # what the page calls the point; returned with its run
    pins: Tuple[str, ...] = ()             # the search's pins, so the opened run is the point's run
    pins_to_summarizer: bool = False


def open_point(request: OpenPointRequest) -> Job:
    """The point's replay, as a job returning (tag, StrategyResult); the job's tag says which point it opens."""
    from scratchpad_lab.engine.limits import check_work

    pinned = _pinned(request.pins, request.pins_to_summarizer)
    summarizer, label = request.summarizer, request.label
    check_work(request.loaded, strategies=[request.spec], endpoint_summarizer=summarizer.kind == "endpoint",
               builtin_summarizer=summarizer.kind == "builtin")

    def work(report, stop):
        from scratchpad_lab.engine.run.replay import recorded_trajectory
        from scratchpad_lab.engine.strategies.engine import run_strategies
        from scratchpad_lab.engine.summarize.summarizers import build_summarizer

        steps = len(recorded_trajectory(request.loaded).steps)

        def progress(done: int, total: int, _title: str) -> None:
            report(done, total, f"Replaying {steps:,} steps under {label}…" if done < total else f"Opened {label}")

        built = build_summarizer(summarizer, stop=stop)
        return request.tag, run_strategies(request.loaded, [request.spec], built, progress=progress, stop=stop,
                                           pinned=pinned)[0]

    return Job(work, name="scratchpad-lab-open-point", total=1, text=f"Opening {label} as a run…", tag=request.tag)


def benchmark(request: BenchmarkRequest) -> Job:
    """A benchmark (engine/studies/benchmark.py's BenchmarkRequest) as a job returning its Benchmark. Its work limit is
    checked by the job's work itself, once the dataset has been read (its cost depends on every run's size),
    before any point is run; a refusal ends the job with WorkLimitExceeded as its error, and nothing ran."""
    from scratchpad_lab.engine.studies.benchmark import benchmark_job

    return benchmark_job(request)


def decide_next(request: DecideRequest) -> Job:
    """The next call re-decided (engine/studies/decide.py's DecideRequest) as a job returning its DecideResult. Like the
    benchmark, its work limit is checked by the work once the dataset is read, before any model call."""
    from scratchpad_lab.engine.studies.decide import decide_benchmark

    return Job(lambda report, stop: decide_benchmark(request, report, stop), name="scratchpad-lab-decide",
               text="Re-deciding the next calls…")
