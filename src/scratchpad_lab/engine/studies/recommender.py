"""Recommend a compression: every strategy over a grid of its main settings on one trajectory, and the Pareto
front of what each point keeps against what it costs.

Streamlit-free. Each point is one strategy run (engine/strategies), exactly what `scratchpad-lab strategies`
runs for the same strategy and settings, and its figures are that run's row (`StrategyResult.row()`), so a
point reads the same here, in `strategies --json` and on the Strategies page.

- the grid: each strategy's default grid is declared with its registry entry (`Strategy.grid`); a value
  "30%" is that share of the trajectory's no-compression peak in the setting's unit (chars; or tokens, the
  packages' own count of about chars / 4). `parse_grid` reads the CLI's `NAME:key=v1|v2,...`, which
  replaces the listed keys' values. Points whose settings a strategy refuses are skipped, with why.
- what a point keeps (maximized): facts at the answer (analysis/kept.py: its no-compression run's facts still in
  the last call's context); where the source is a scenario, the answer facts kept and the probes
  answerable. What it costs (minimized): peak and mean context tokens, summarizer tokens (in + out) and,
  when a price is known, their price at the chosen model's price (analysis/pricing.py).
- the front: a point is on it when no other point is at least as good on every objective and better on one.
  Each front point gets one sentence saying why it is there. A point that cut nothing (its settings never
  fired on this trajectory) reads exactly as doing nothing in its own form: it is left off the front, says
  so, and does not push other points off it.
- shared work: the baseline, the trajectory's messages and facts are worked out once per process; identical
  summarizer requests are answered once per search (`SummaryStore`: an endpoint's replies, usage included;
  the offline summarizer also remembers its own summaries).
- both cores: `workers` > 1 runs points in worker processes (the strategies are pure Python and hold the
  GIL: threads would take turns) beside the calling thread, which takes points too while the workers
  start (each imports the packages, seconds); an endpoint summarizer waits on the network, so its points
  run on threads that share one SummaryStore.
- progress and stop: `progress(done, total, text)` after each point; `stop` (a threading.Event such as
  engine/jobs.py's StopFlag) is looked at between points, and a stopped search raises (StopFlag.check's
  exception, else SearchStopped) with nothing half-made returned. A StopFlag also reaches the points this
  process runs (the strategies look at it between their steps, engine/strategies/engine.py), so Stop ends a
  long point within a step; a worker process's point in flight is ended by killing the worker.
- where (engine/cells/executor.py): `executor` ray runs every point as a Ray task over one share of the trajectory
  (engine/cells/ray_cluster.py), the same `run_point`, so the points read the same; `Search.placement` says where.
- pins: a search given pins (model/pins.Pinned) runs every point with them, as a Strategies job runs every
  strategy (engine/strategies/engine.run_one's `pinned`), wherever the point runs: in this process, in a worker
  process (sent with the trajectory) or as a Ray task (in its RunShare); each point's row then has the pin fields.
- what is kept: `Search.rows()` is the search as the store keeps it (a result of kind "recommendation",
  model/results.py): one row per point, with its facts kept by kind, compressions with a problem and (with pins)
  pins kept in the words the Strategies table gives the same row (`Point.texts`).
"""
from __future__ import annotations

import itertools
import math
import os
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from scratchpad_lab.analysis.figures import kinds_kept_text, percent
from scratchpad_lab.analysis.health import counts_text
from scratchpad_lab.analysis.pin_checks import pins_text
from scratchpad_lab.model.config import is_off_word
from scratchpad_lab.model.errors import LabError
from scratchpad_lab.engine.cells.dispatch import opened
from scratchpad_lab.engine.cells.executor import Placement, RunShare, StudyCell, Work, new_key, plain
from scratchpad_lab.engine.cells.local_pool import short
from scratchpad_lab.engine.jobs import Stopped
from scratchpad_lab.model.pins import NO_PINS, Pinned
from scratchpad_lab.model.records import RunRecord
from scratchpad_lab.model.trace import Trace
from scratchpad_lab.engine.studies import front
from scratchpad_lab.engine.studies.front import Chosen, choose_budgets
from scratchpad_lab.engine.run.replay import recorded_trajectory
from scratchpad_lab.engine.strategies.registry import Knob, StrategyError, default_names, strategy
from scratchpad_lab.engine.strategies.spec import StrategySpec, knobs, make_spec
from scratchpad_lab.engine.strategies.chat_summarizer import BuiltSummarizer, SummaryStore
from scratchpad_lab.engine.summarize.summarizers import build_summarizer
from scratchpad_lab.model.summarizer import SummarizerChoice

Grid = Dict[str, Tuple[Any, ...]]
MAX_POINTS = 200          # a search larger than this is refused: say which grid to narrow
MAX_VALUES = 12           # values for one setting
# (figure, direction): what a point keeps is maximized, what it costs is minimized.
OBJECTIVES: Tuple[Tuple[str, str], ...] = (
    ("facts_at_answer", "max"), ("answer_facts_kept", "max"), ("probes_answerable", "max"),
    ("peak_context_tokens", "min"), ("mean_context_tokens", "min"), ("summarizer_tokens", "min"),
    ("summarizer_cost_usd", "min"))


# A point's figures in Search.rows(): what it keeps and what it costs, and its peak and mean as shares.
ROW_FIGURES = ("facts_at_answer", "answer_facts_kept", "probes_answerable", "peak_context_tokens", "peak_share",
               "mean_context_tokens", "mean_share", "summarizer_tokens", "summarizer_cost_usd")
# ... and its words, as the Strategies table words the same row (Point.texts): facts kept by kind, compressions with
# a problem, and, when the search was given pins, the pins kept.
ROW_TEXTS = ("kept_by_kind", "health")
PIN_TEXT = "pins_kept"


class SearchStopped(LabError, RuntimeError):
    """The search was asked to stop (when the stop flag has no check of its own)."""


# ── the grid ───────────────────────────────────────────────────────────────────────────────────────

def default_grid(name: str) -> Grid:
    return {key: tuple(values) for key, values in strategy(name).grid}


def parse_grid(text: str) -> Tuple[str, Grid]:
    """`NAME:key=v1|v2,key2=v3` (values: numbers, `none`, or `N%` of the trajectory's no-compression peak)."""
    name, sep, rest = text.strip().partition(":")
    name = name.strip()
    table = {k.key: k for k in knobs(name)}  # names an unknown strategy
    if not sep or not rest.strip():
        raise StrategyError(f"--grid {name}: give the values to try, e.g. {name}:{next(iter(table), 'key')}=a|b.")
    grid: Grid = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, values = part.partition("=")
        key = key.strip()
        if not eq or not key:
            raise StrategyError(f"--grid {name}: {part!r} is not key=v1|v2.")
        if key not in table:
            raise StrategyError(f"--grid {name}: unknown key {key!r}; its keys are {', '.join(table)}.")
        items = [v.strip() for v in values.split("|") if v.strip()]
        if not items or len(items) > MAX_VALUES:
            raise StrategyError(f"--grid {name}: {key} takes 1 to {MAX_VALUES} values joined by |.")
        grid[key] = tuple(None if is_off_word(v) else v for v in items)
    return name, grid


def resolve(value: Any, knob: Knob, peaks: Any, name: str) -> Any:
    """A grid value as a setting: "30%" becomes that share of the peak in the knob's unit. `peaks`: {"chars": ...,
    "tokens": ...}, the run's peak by the package's own count (units.peaks_for); a bare number is a peak in
    characters (tokens then about chars / 4)."""
    if not (isinstance(value, str) and value.endswith("%")):
        return value
    try:
        share = float(value[:-1]) / 100
    except ValueError:
        raise StrategyError(f"--grid {name}: {knob.key}={value!r} is not a share like 30%.") from None
    if not 0 < share <= 10:
        raise StrategyError(f"--grid {name}: {knob.key}={value} must be above 0% and at most 1000%.")
    if knob.unit not in ("chars", "tokens"):
        raise StrategyError(f"--grid {name}: {knob.key} is not a size, so {value} of the peak means nothing; "
                            "give a number.")
    if isinstance(peaks, int):
        size = peaks if knob.unit == "chars" else math.ceil(peaks / 4)
    else:
        size = peaks[knob.unit]
    return int(min(max(round(share * size), knob.low), knob.high))


def expand(name: str, grid: Grid, peaks: Any) -> Tuple[List[Dict[str, Any]], List[Tuple[Dict[str, Any], str]]]:
    """(every distinct combination the strategy accepts, the ones it refused with why); `peaks` as resolve's."""
    table = {k.key: k for k in knobs(name)}
    keys = list(grid)
    points: List[Dict[str, Any]] = []
    skipped: List[Tuple[Dict[str, Any], str]] = []
    seen = set()
    for combo in itertools.product(*(grid[k] for k in keys)):
        given = {k: resolve(v, table[k], peaks, name) for k, v in zip(keys, combo)}
        try:
            spec = make_spec(name, given)
        except StrategyError as exc:
            skipped.append((given, str(exc)))
            continue
        signature = tuple(sorted((k, repr(v)) for k, v in spec.settings.items()))
        if signature not in seen:
            seen.add(signature)
            points.append(dict(spec.settings))
    return points, skipped


# ── points and the front ───────────────────────────────────────────────────────────────────────────

@dataclass
class Point:
    strategy: str
    settings: Dict[str, Any]                 # what to give `--strategy NAME:key=value,...` to run it again
    figures: Dict[str, Any] = field(default_factory=dict)   # the strategies row (StrategyResult.row())
    error: Optional[str] = None
    on_front: bool = False
    why: str = ""
    same_as: Optional[str] = None            # an earlier point with exactly its objectives (front.same_as)

    @property
    def spec(self) -> StrategySpec:
        return make_spec(self.strategy, self.settings)

    def cli_arg(self) -> str:
        """The `--strategy` argument that runs this point."""
        def text(v: Any) -> str:
            return "none" if v is None else ("+".join(v) if isinstance(v, (list, tuple)) else str(v))
        return self.strategy + (":" + ",".join(f"{k}={text(v)}" for k, v in self.settings.items())
                                if self.settings else "")

    def texts(self) -> Dict[str, Optional[str]]:
        """Its row's words, by the same rules as the Strategies table's cells for the same row (figures.kinds_kept_text,
        health.counts_text, pins.pins_text): facts kept by kind, compressions with a problem and, when the point ran
        with pins, the pins it kept. None for a point that failed before it had figures."""
        f = self.figures
        if not f or "health" not in f:
            return {key: None for key in ROW_TEXTS}
        out: Dict[str, Optional[str]] = {"kept_by_kind": kinds_kept_text(
            f["kept_by_kind"], f["compressions"] > 0, recoverable=f.get("recoverable_by_kind"),
            cut=not f.get("cut_nothing", True), compresses_by=strategy(self.strategy).compresses_by),
                                         "health": counts_text(f["health"])}
        if "pins" in f:
            out[PIN_TEXT] = pins_text(f["pins"], f["pins_met"], f["pins_kept"])
        return out

    def objective(self, key: str) -> Optional[float]:
        if key == "summarizer_tokens":
            return self.figures["summarizer_tokens_in"] + self.figures["summarizer_tokens_out"]
        return self.figures.get(key)

    def to_dict(self) -> Dict[str, Any]:
        return {"strategy": self.strategy, "settings": plain(self.settings), "figures": plain(self.figures),
                "on_front": self.on_front, "why": self.why, "error": self.error, "cli": self.cli_arg()}


def objectives_for(points: Sequence[Point]) -> List[Tuple[str, str]]:
    """The objectives every finished point has a value for (a scenario's, a price's only when known)."""
    done = [p for p in points if p.error is None]
    return [(k, d) for k, d in OBJECTIVES if done and all(p.objective(k) is not None for p in done)]


def dominates(a: Point, b: Point, objectives: Sequence[Tuple[str, str]]) -> bool:
    """front.dominates over the points' objectives (Point.objective)."""
    return front.dominates(a, b, objectives, Point.objective)


def cut_nothing(point: Point) -> bool:
    """A point whose run did nothing (StrategyResult.cut_nothing): it reads as its form's no-compression run."""
    return bool(point.figures.get("cut_nothing"))


CUT_NOTHING = ("cut nothing with these settings (it never compressed, trimmed or cut on this trajectory): it reads "
               "exactly as doing nothing in its own form, so it is not a saving and is left off the front.")


def mark_front(points: Sequence[Point], objectives: Sequence[Tuple[str, str]]) -> None:
    """The front among the points that cut something: a point that did nothing is neither on it nor counted
    against the others (it is no compression, and its form's "nothing" is not another's)."""
    done = [p for p in points if p.error is None and not cut_nothing(p)]
    for p, twin in zip(done, front.same_as(done, objectives, Point.objective, Point.cli_arg)):
        p.same_as = twin
    single = [p for p in done if p.same_as is None]
    kept = {id(p) for p, on in zip(single, front.on_front(single, objectives, Point.objective)) if on}
    for p in points:
        p.on_front = id(p) in kept
        if p.error is None and cut_nothing(p):
            p.why = CUT_NOTHING
        elif p.same_as:
            p.why = f"exactly the figures of {p.same_as}: one point, marked once."


def why(point: Point, front: Sequence[Point], objectives: Sequence[Tuple[str, str]]) -> str:
    """One sentence: what the point keeps, at what share of the no-compression peak, for what summarizer cost,
    and what it is best at among the front."""
    f = point.figures
    parts = []
    if f.get("facts_at_answer") is not None:
        parts.append(f"keeps {percent(f['facts_at_answer'])} of its no-compression run's facts for the last call")
    if f.get("answer_facts_kept") is not None:
        parts.append(f"{percent(f['answer_facts_kept'])} of the answer's facts")
    if f.get("probes_answerable") is not None:
        parts.append(f"{percent(f['probes_answerable'])} of the probes answerable")
    kept = ", ".join(parts) or "keeps what it keeps"
    sizes = (f"at {percent(f['peak_share'])} of the no-compression peak ({percent(f['mean_share'])} of its mean)"
             if f.get("peak_share") is not None else f"at a peak of {f['peak_context_tokens']:,} tokens")
    tokens = f["summarizer_tokens_in"] + f["summarizer_tokens_out"]
    if tokens == 0:
        cost = "no summarizer tokens"
    else:
        cost = f"costs {tokens:,} summarizer tokens"
        if f.get("summarizer_cost_usd"):
            cost += f" (${f['summarizer_cost_usd']:.4f} at {f['price_model']} prices)"
    best = []
    labels = {"facts_at_answer": "the most facts kept", "answer_facts_kept": "the most answer facts",
              "probes_answerable": "the most probes answerable", "peak_context_tokens": "the lowest peak",
              "mean_context_tokens": "the lowest mean", "summarizer_tokens": "the fewest summarizer tokens",
              "summarizer_cost_usd": "the lowest summarizer price"}
    for key, direction in objectives:
        values = [q.objective(key) for q in front]
        target = max(values) if direction == "max" else min(values)
        if point.objective(key) == target and values.count(target) == 1:  # the only one this good
            best.append(labels[key])
    sentence = f"{kept} {sizes}; {cost}"
    if best:
        sentence += f"; {', '.join(best[:2])} on the front"
    return sentence + "."


def choose_points(points: Sequence[Point]) -> List[Chosen]:
    """The recommender's picks on one trajectory: over the points that ran and cut something, by the facts kept
    for the last call (its keep measure), the peak's share of doing nothing and the summarizer tokens."""
    live = [p for p in points if p.error is None and not cut_nothing(p) and p.figures.get("facts_at_answer") is not None
            and p.figures.get("peak_share") is not None and p.same_as is None]
    return choose_budgets(
        live, keep=lambda p: p.figures["facts_at_answer"], peak=lambda p: p.figures["peak_share"],
        tokens=lambda p: p.objective("summarizer_tokens"), label=lambda p: p.cli_arg(),
        describe=lambda p: f"{p.cli_arg()} {p.why or why(p, [p], [])}", kept_what="the facts for the last call",
        best_what="share of those facts kept", nothing="no point of this search qualifies.")


@dataclass
class Search:
    points: List[Point]
    skipped: List[Tuple[str, Dict[str, Any], str]]
    objectives: List[Tuple[str, str]]
    baseline_peak_tokens: Dict[str, int]     # each form's no-compression peak ("scratchpad", "messages")
    peak_chars: int
    price_model: Optional[str]
    workers: int
    summaries_reused: int = 0
    points_in_workers: int = 0   # points a worker process (or a Ray task) ran; the rest ran in the calling thread
    placement: Any = None        # where they ran (engine/executor.Placement), for the Ray executor
    chosen: List[Chosen] = field(default_factory=list)   # one pick per budget (choose_points)
    pins: Tuple[str, ...] = ()   # every point was checked against these (the search's Pinned)
    pins_to_summarizer: bool = False
    measured_with: str = ""      # which summarizer wrote the summaries (SummarizerChoice.measured_with)

    @property
    def front(self) -> List[Point]:
        return [p for p in self.points if p.on_front]

    def rows(self) -> List[Dict[str, Any]]:
        """Every point as the store keeps a recommendation (model/results.py): its strategy, its settings as
        the `--strategy` argument that runs it again, whether it is on the front and why, the figures it was
        judged by (shares as fractions, as in `strategies --json`), its facts kept by kind and compressions with a
        problem in the Strategies table's words (and its pins kept, when the search had pins), and the error of a
        point that failed."""
        out = []
        for p in self.points:
            judged = {key: (p.objective(key) if p.figures else None) for key in ROW_FIGURES}
            texts = p.texts()
            words = {key: texts.get(key) for key in ROW_TEXTS + ((PIN_TEXT,) if self.pins else ())}
            out.append({"strategy": p.strategy, "settings": p.cli_arg(), "on_front": p.on_front, **judged, **words,
                        "why": p.why, "error": p.error})
        return out

    def to_dict(self) -> Dict[str, Any]:
        return {"points": [p.to_dict() for p in self.points],
                "objectives": [{"figure": k, "direction": d} for k, d in self.objectives],
                "skipped": [{"strategy": n, "settings": plain(s), "why": w} for n, s, w in self.skipped],
                "baseline_peak_tokens": self.baseline_peak_tokens, "price_model": self.price_model,
                "workers": self.workers, "summaries_reused": self.summaries_reused,
                "points_in_workers": self.points_in_workers,
                "placement": self.placement.to_dict() if self.placement is not None else None,
                "chosen": [{"budget": c.budget, "setting": c.setting, "sentence": c.sentence} for c in self.chosen],
                "pins": list(self.pins), "pins_to_summarizer": self.pins_to_summarizer,
                "measured_with": self.measured_with}


# ── running the points ─────────────────────────────────────────────────────────────────────────────

def point_context(trace: Trace, summarizer: BuiltSummarizer, scenario: Optional[str],
             measure: Optional[Callable[[Any], Dict[str, Any]]] = None, counter: Any = None,
             pinned: Pinned = NO_PINS) -> Dict[str, Any]:
    """What the points of one search share within a process: the trajectory, the summarizer with its store of
    replies, the baseline and facts (worked out at the first point), the token counter and the search's pins
    (each point runs with them, as a Strategies job's strategies do). `measure`: figures a benchmark adds to each
    point's row from its StrategyResult (engine/studies/run_calls.py's argument recall)."""
    from scratchpad_lab.engine.run.tokens import TokenCounter

    summarizer.store = SummaryStore()
    return {"trace": trace, "summarizer": summarizer, "scenario": scenario, "baselines": {}, "measure": measure,
            "counter": counter or TokenCounter(summarizer.model_id if summarizer.kind == "endpoint" else None),
            "pinned": pinned}


def share_context(share: RunShare, summarizer: BuiltSummarizer, counter: Any = None) -> Dict[str, Any]:
    """A run's context from its share (engine/cells/executor.RunShare), wherever its points run: its argument
    measure when the share asks for one (a benchmark's), its pins."""
    from scratchpad_lab.engine.studies.run_calls import measure_for, run_calls

    if share.trace is None:
        raise ValueError("a strategy point needs the run's trajectory.")
    measure = measure_for(run_calls(share.trace, share.gold)) if share.arguments else None
    return point_context(share.trace, summarizer, share.scenario, measure, counter,
                         Pinned(tuple(share.pins), share.pins_to_summarizer))


def run_point(name: str, settings: Dict[str, Any], price_model: Optional[str],
               context: Dict[str, Any]) -> Tuple[Dict[str, Any], Optional[str], int]:
    """(the strategies row as JSON data, the run's error, summaries it reused) for one point."""
    from scratchpad_lab.engine.strategies.engine import run_one

    store = context["summarizer"].store
    hits = store.hits
    result = run_one(context["trace"], make_spec(name, settings), context["summarizer"], context["baselines"],
                     context["counter"], context["scenario"], stop=context.get("stop"),
                     pinned=context.get("pinned") or NO_PINS)
    row = result.row(price_model)
    if context.get("measure") is not None:
        row.update(context["measure"](result))
    return plain(row), result.error, store.hits - hits


POINTS = Work(share_context, run_point)   # a strategy point: what the recommender and the benchmark run in a cell


def chosen_strategies(strategies: Optional[Sequence[str]], grids: Optional[Dict[str, Grid]], verb: str,
                      has_compaction: bool = False) -> List[str]:
    """The strategies a study runs (all registered when none is named: the recording's own compaction only where a
    run carries one, registry.default_names), each checked; a grid for one that is not run is a StrategyError
    ("--grid NAME: that strategy is not <verb>")."""
    chosen = list(strategies or default_names(has_compaction))
    if has_compaction and "recorded-compaction" not in chosen:  # the recording's own compaction: the row to beat
        chosen.insert(0, "recorded-compaction")
    for name in chosen:
        strategy(name)
    for name in (grids or {}):
        if name not in chosen:
            raise StrategyError(f"--grid {name}: that strategy is not {verb}; add --strategy {name}.")
    return chosen


def plan(trace: Trace, strategies: Optional[Sequence[str]] = None, grids: Optional[Dict[str, Grid]] = None,
         peak_chars: Optional[int] = None) -> Tuple[List[Point], List[Tuple[str, Dict[str, Any], str]]]:
    """The points a search would run (nothing run yet), and the combinations refused."""
    from scratchpad_lab.engine.strategies.engine import trajectory_text

    from scratchpad_lab.engine.strategies.units import peaks_for

    peak_chars = len(trajectory_text(trace)) if peak_chars is None else peak_chars
    chosen = chosen_strategies(strategies, grids, "searched", bool(trace.compactions))
    points: List[Point] = []
    skipped: List[Tuple[str, Dict[str, Any], str]] = []
    for name in chosen:
        grid = {**default_grid(name), **(grids or {}).get(name, {})}
        found, refused = expand(name, grid, peaks_for(trace, name))
        points.extend(Point(name, s) for s in found)
        skipped.extend((name, s, w) for s, w in refused)
    if len(points) > MAX_POINTS:
        raise StrategyError(f"this search has {len(points):,} points; narrow a --grid to at most {MAX_POINTS}.")
    return points, skipped


def search(loaded: Union[RunRecord, Trace], strategies: Optional[Sequence[str]] = None,
           grids: Optional[Dict[str, Grid]] = None, summarizer: Optional[SummarizerChoice] = None,
           price_model: Optional[str] = None, workers: int = 2,
           progress: Optional[Callable[[int, int, str], None]] = None, stop: Any = None,
           executor: Any = None, pinned: Pinned = NO_PINS) -> Search:
    """Run the search (see the module's docstring). The work limit is the task's to check before the search
    starts (engine/tasks: `recommend`, as one Strategies job of all its points). `executor`
    (engine/executor.ExecutorChoice): local, the default, or ray (every point a Ray task over one share).
    `pinned`: the search's pins, passed to every point wherever it runs (this thread, a worker process, a Ray task)
    as a Strategies job passes them to every strategy, so each point's row carries its pin fields."""
    from scratchpad_lab.engine.strategies.engine import scenario_of, trajectory_text

    trace = recorded_trajectory(loaded)
    scenario = scenario_of(loaded)
    summarizer = summarizer or SummarizerChoice()
    peak_chars = len(trajectory_text(trace))
    points, skipped = plan(trace, strategies, grids, peak_chars)
    if not points:
        raise StrategyError("no point of this grid can run: " + "; ".join(w for _, _, w in skipped[:3]))
    workers = max(1, min(int(workers), len(points)))
    total = len(points)
    if progress:
        progress(0, total, f"{total} points")
    threads = summarizer.kind == "endpoint"  # waiting on the network: threads, one shared store
    shared = build_summarizer(summarizer, stop=stop if isinstance(stop, threading.Event) else None)
    here = point_context(trace, shared, scenario, pinned=pinned)  # this search's, in this process (other tabs run their own)
    here["stop"] = stop if hasattr(stop, "check") else None  # a StopFlag: the points here look at it between steps
    counts = {"done": 0, "reused": 0, "in_workers": 0}

    def collect(point: Point, outcome: Tuple[Dict[str, Any], Optional[str], int]) -> None:
        point.figures, point.error, hits = outcome
        counts["done"] += 1
        counts["reused"] += hits
        if progress:
            progress(counts["done"], total, f"{point.strategy} {short(point.settings)}")

    cells = [StudyCell(0, str(k), p.strategy, p.settings) for k, p in enumerate(points)]
    share = RunShare(new_key(), trace, scenario, None, False, summarizer.budget_chars, pinned.pins,
                     pinned.to_summarizer)
    placement = Placement()
    local_workers = workers if threads or not shared.calls_a_model else 1  # the built-in model: this process only
    try:
        with opened(executor, local_workers) as cells_here:
            workers = cells_here.workers
            cells_here.run([share], cells, POINTS, summarizer, price_model,
                           lambda cell, outcome: collect(points[int(cell.label)], outcome), stop, placement,
                           here=lambda _share: here, threads=threads)
    except Stopped:
        if stop is not None and not hasattr(stop, "check"):
            raise SearchStopped("the search was stopped") from None
        raise
    counts["in_workers"] = sum(n for (node, pid), n in placement.counts.items()
                               if placement.executor == "ray" or pid != os.getpid())
    objectives = objectives_for(points)
    mark_front(points, objectives)
    front = [p for p in points if p.on_front]
    for p in front:
        p.why = why(p, front, objectives)
    base_peak: Dict[str, int] = {}
    for p in points:
        if p.figures:
            base_peak.setdefault(strategy(p.strategy).context, p.figures["baseline_peak_tokens"])
    return Search(points, skipped, objectives, base_peak, peak_chars,
                  price_model or shared.model_id, workers, summaries_reused=counts["reused"],
                  points_in_workers=counts["in_workers"], placement=placement if placement.executor == "ray" else None,
                  chosen=choose_points(points), pins=pinned.pins, pins_to_summarizer=pinned.to_summarizer,
                  measured_with=summarizer.measured_with)
