"""The benchmark: every run of a dataset × every strategy × its grid of settings, measured by what the agent
needed next, with the dataset means a paper would print and one recommended point per budget.

Streamlit-free. Each cell (one run under one strategy and setting) is exactly a recommender's point
(engine/studies/recommender.py `run_point`): the run's `strategies --json` row (StrategyResult.row) plus its argument
measures (engine/studies/run_calls.py over analysis/arguments.py): argument recall, the share recoverable from files the
context names (deepagents' offload: neither kept nor lost), gold-argument recall where the dataset carries gold
actions, and which values were lost (or offloaded) at which call.

- the grid: each strategy's registry grid (`Strategy.grid`), a value "30%" being that share of the run's own
  no-compression peak, so the same setting fires on short and long runs alike; `--grid` replaces keys' values.
  A setting is named by its grid values ("deepagents:trigger_tokens=30%,keep_messages=6"), the same across runs.
- shared work: per run, the import (once, in engine/files/dataset.py), the calls and what the run learned, the
  baselines and the token counter are worked out once and shared by that run's cells; a run's cells all run in
  one process, which imports the packages once for every run it takes.
- where (engine/cells/executor.py, the one executor every study runs its cells through): with the local executor
  (the default), `workers` - 1 worker processes (engine/cells/local_pool.py, each taking batches of one run's
  cells) beside the calling thread; a summarizer that calls a model runs every cell in this process (a worker never
  calls a network). With the Ray executor (engine/cells/ray_cluster.py) every cell is a Ray task over its run's
  share, put in the object store once; an endpoint summarizer's calls go to one actor holding the job's client.
  Either runs the recommender's `POINTS` work, so a cell reads the same wherever it ran. The result's `placement`
  says how many cells ran in which process on which node.
- the work limit: the whole benchmark, through limits.check_benchmark, twice: first from the runs' sizes alone
  (`sized_plan`: a share setting read against the run's characters; 5,000 runs in about a second), before
  anything is built, then once the units are built, with each share read against the peak its package counts
  (deepagents builds a whole request to count it: about 30 ms a run, minutes for a large dataset). Either
  refuses in one sentence before any cell runs. Stop is looked at between the runs while the units are built.
- progress and stop: `progress(points done, points, "k of n runs done, d of t points; about T left")` after each point;
  `stop` (a threading.Event, such as jobs.StopFlag) or Ctrl-C (KeyboardInterrupt) ends it between points,
  the workers killed, and what finished is kept: the result says it was stopped, and its figures are over
  the runs whose every cell finished.
- aggregates: per setting, each measure's mean over the runs with a value and a 95 % bootstrap interval
  (seeded: the same seed gives the same interval), the means split by outcome (passed: outcome >= 0.5;
  failed: below), the share of runs on which the setting never compressed, each fact kind's kept share
  (fact_kinds.py) as a plain mean over the runs where the setting compressed and the kind had facts (with that
  count of runs), the runs with each health problem (health.py: at least one compression of the run failed the
  check), and a no-compression row (doing nothing, read against itself: 1.0 argument recall by construction;
  it compresses nothing, so it reads "no compression happened" and "no problem found"). The front is taken over the
  dataset means of settings that compressed at least once; then one chosen point per budget, one sentence each.
"""
from __future__ import annotations

import itertools
import math
import threading
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from scratchpad_lab.analysis.fact_kinds import KINDS
from scratchpad_lab.analysis.figures import LABELS, kinds_kept_text, percent
from scratchpad_lab.analysis.health import CHECKS, counts_text
from scratchpad_lab.engine.studies.run_calls import RunCalls, argument_figures, measure_for, no_compression_sent, run_calls
from scratchpad_lab.engine.files.dataset import Dataset, DatasetRun, read_dataset
from scratchpad_lab.engine.cells.dispatch import opened
from scratchpad_lab.engine.cells.executor import ExecutorChoice, Placement, RunShare, StudyCell, new_key
from scratchpad_lab.engine.jobs import Job, Stopped
from scratchpad_lab.engine.run.tokens import TokenCounter
from scratchpad_lab.engine.studies.front import Chosen, choose_budgets, on_front, same_as
from scratchpad_lab.engine.studies.recommender import POINTS, Grid, chosen_strategies, default_grid, point_context, resolve
from scratchpad_lab.engine.strategies.registry import StrategyError
from scratchpad_lab.engine.strategies.spec import knobs, make_spec
from scratchpad_lab.engine.summarize.summarizers import build_summarizer
from scratchpad_lab.model.results import RECOVERABLE_COLUMN, Result
from scratchpad_lab.model.summarizer import SummarizerChoice

NO_COMPRESSION = "no compression"
BOOTSTRAP = 1_000
SEED = 31
# (measure, direction): the figures every setting is averaged on; the front uses the first four.
MEASURES: Tuple[Tuple[str, str], ...] = (
    ("argument_recall", "max"), ("peak_share", "min"), ("mean_share", "min"), ("summarizer_tokens", "min"),
    ("argument_recoverable", "max"), ("gold_argument_recall", "max"), ("facts_at_answer", "max"), ("saved_share", "max"),
    ("summarizer_cost_usd", "min"), ("compressions", "min"))
FRONT = ("argument_recall", "peak_share", "mean_share", "summarizer_tokens")
WORST_KEPT = 5
# The table's columns of a setting's words: its facts kept by kind (means over runs), and its runs with each problem.
KINDS_COLUMN, PROBLEMS_COLUMN = LABELS["kept_by_kind"], "runs with a problem"


# ── the request and its cells ──────────────────────────────────────────────────────────────────────

@dataclass
class BenchmarkRequest:
    """One benchmark, as the CLI and the page ask for it."""

    dataset: Union[str, Path, Dataset]
    strategies: Optional[Sequence[str]] = None
    grids: Optional[Dict[str, Grid]] = None
    summarizer: Optional[SummarizerChoice] = None   # None: the offline extractive one
    price_model: Optional[str] = None
    runs: Optional[int] = None            # the first N runs of the dataset
    workers: int = 2
    lifted: bool = False                  # the CLI's --no-work-limit
    seed: int = SEED
    executor: ExecutorChoice = ExecutorChoice()   # where the cells run (engine/cells/executor.py)


def setting_label(name: str, values: Dict[str, Any]) -> str:
    def text(v: Any) -> str:
        return "none" if v is None else ("+".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v))
    return name + (":" + ",".join(f"{k}={text(v)}" for k, v in values.items()) if values else "")


def settings_of(name: str, grid: Grid) -> List[Tuple[str, Dict[str, Any]]]:
    """(label, the grid's values as written) for every combination, in grid order."""
    keys = list(grid)
    out = []
    for combo in itertools.product(*(grid[k] for k in keys)):
        values = dict(zip(keys, combo))
        out.append((setting_label(name, values), values))
    return out


def plan_settings(strategies: Optional[Sequence[str]], grids: Optional[Dict[str, Grid]],
                  has_compaction: bool = False) -> List[Tuple[str, str, Dict[str, Any]]]:
    """(label, strategy, values as written) for every setting of the benchmark (with the recording's own compaction
    by default where a run carries one)."""
    chosen = chosen_strategies(strategies, grids, "benchmarked", has_compaction)
    out = []
    for name in chosen:
        grid = {**default_grid(name), **(grids or {}).get(name, {})}
        out.extend((label, name, values) for label, values in settings_of(name, grid))
    return out


@dataclass
class Unit:
    """One run and its cells: what one process takes at a time."""

    index: int
    run: DatasetRun
    calls: RunCalls
    points: List[Tuple[str, str, Dict[str, Any]]]      # (label, strategy, resolved settings)
    skipped: List[Tuple[str, str]] = field(default_factory=list)   # (label, why)


def unit_of(index: int, run: DatasetRun, settings: Sequence[Tuple[str, str, Dict[str, Any]]]) -> Unit:
    from scratchpad_lab.engine.strategies.units import peaks_for

    unit = Unit(index, run, run_calls(run.trace, run.gold), [])
    seen = set()
    for label, name, values in settings:
        table = {k.key: k for k in knobs(name)}
        try:
            spec = make_spec(name, {k: resolve(v, table[k], peaks_for(run.trace, name), name)
                                    for k, v in values.items()})
        except StrategyError as exc:
            unit.skipped.append((label, str(exc)))
            continue
        signature = (label, tuple(sorted((k, repr(v)) for k, v in spec.settings.items())))
        if signature not in seen:
            seen.add(signature)
            unit.points.append((label, name, dict(spec.settings)))
    return unit


def sized_plan(runs: Sequence[DatasetRun], settings: Sequence[Tuple[str, str, Dict[str, Any]]]) -> List[Tuple[Any, List[Any]]]:
    """(trace, its points' StrategySpecs) for every run, as `unit_of` would make them but with each share ("30%")
    read against the run's characters before its last call (tokens about chars / 4, as `resolve` reads a bare peak)
    instead of the peak its package counts, and no calls read: what the work limit needs, from the runs' sizes.
    A spec is made once for each distinct resolved setting, shared by every run that resolves to it."""
    from scratchpad_lab.engine.strategies.units import own_peak

    tables = {name: {k.key: k for k in knobs(name)} for _, name, _ in settings}
    made: Dict[Tuple[str, str], Any] = {}
    out = []
    for run in runs:
        peak = own_peak(run.trace, "chars")
        specs = []
        for _, name, values in settings:
            try:
                given = {k: resolve(v, tables[name][k], peak, name) for k, v in values.items()}
            except StrategyError:
                continue  # refused on this run, as unit_of skips it
            key = (name, repr(sorted(given.items())))
            if key not in made:
                try:
                    made[key] = make_spec(name, given)
                except StrategyError:
                    made[key] = None
            if made[key] is not None:
                specs.append(made[key])
        out.append((run.trace, specs))
    return out


# ── the result ─────────────────────────────────────────────────────────────────────────────────────

@dataclass
class SettingSummary:
    label: str
    strategy: str
    runs: int = 0
    means: Dict[str, Dict[str, Any]] = field(default_factory=dict)     # measure -> {mean, low, high, n}
    by_outcome: Dict[str, Dict[str, Any]] = field(default_factory=dict)  # "passed"/"failed" -> {measure: mean, runs}
    never_compressed: Optional[float] = None
    errors: int = 0
    on_front: bool = False
    worst: List[Dict[str, Any]] = field(default_factory=list)          # the runs with the lowest argument recall
    runs_compressed: int = 0                                            # runs on which it compressed at least once
    kept_by_kind: Dict[str, Dict[str, Any]] = field(default_factory=dict)   # kind -> {mean, runs}, KINDS order
    runs_with_problem: Dict[str, int] = field(default_factory=dict)     # health check -> runs failing it at least once
    refused: int = 0                                                    # runs on which its package refused the setting
    recoverable_by_kind: Dict[str, float] = field(default_factory=dict)  # kind -> mean share in a named file
    separation: Dict[str, Any] = field(default_factory=dict)   # passed minus failed argument recall, with its interval
    same_as: Optional[str] = None   # an earlier setting with exactly these means (front.same_as): one point, not two

    def mean(self, measure: str) -> Optional[float]:
        return (self.means.get(measure) or {}).get("mean")

    @property
    def kinds_text(self) -> str:
        """Facts kept by kind, as the Strategies table words a row (figures.kinds_kept_text), each share the mean
        over the runs said beside it; "no compression happened" for a setting that compressed on no run."""
        from scratchpad_lab.engine.strategies.registry import strategy

        known = self.strategy != NO_COMPRESSION
        return kinds_kept_text({k: m["mean"] for k, m in self.kept_by_kind.items()}, self.runs_compressed > 0,
                               {k: m["runs"] for k, m in self.kept_by_kind.items()},
                               recoverable=self.recoverable_by_kind,
                               cut=known and self.never_compressed is not None and self.never_compressed < 1,
                               compresses_by=strategy(self.strategy).compresses_by if known else "summary")

    @property
    def problems_text(self) -> str:
        """The runs with each problem, worded as the Strategies table words a row's health (health.counts_text)."""
        return counts_text(self.runs_with_problem)

    def to_dict(self) -> Dict[str, Any]:
        return {"setting": self.label, "strategy": self.strategy, "runs": self.runs, "means": self.means,
                "by_outcome": self.by_outcome, "never_compressed": self.never_compressed, "errors": self.errors,
                "on_front": self.on_front, "worst_runs": self.worst, "runs_compressed": self.runs_compressed,
                "kept_by_kind": self.kept_by_kind, "runs_with_problem": self.runs_with_problem,
                "refused_on": self.refused, "recoverable_by_kind": self.recoverable_by_kind,
                "separation": self.separation, "same_as": self.same_as}


@dataclass
class Benchmark:
    source: str
    runs: List[Dict[str, Any]]           # per run: name, outcome, gold, cells {label: row}
    broken: List[Tuple[str, str]]        # (run, why it could not be imported)
    settings: List[SettingSummary]
    chosen: List[Chosen]
    points: int
    points_done: int
    elapsed_s: float
    workers: int
    seed: int
    stopped: Optional[str] = None        # why it ended early; its figures cover the runs that finished
    skipped: List[Tuple[str, str, str]] = field(default_factory=list)   # (run, setting, why)
    placement: Placement = field(default_factory=Placement)             # where the cells ran
    seen: List[Tuple[str, str]] = field(default_factory=list)           # (strategies, how they saw the runs)
    measured_with: str = ""              # which summarizer wrote the summaries (SummarizerChoice.measured_with)

    @property
    def twins(self) -> List[str]:
        """One sentence per setting that did exactly what an earlier one did (the same means on every measure of
        the front): it is one point, marked once."""
        return [f"{s.label} gives exactly the figures of {s.same_as}: one point on the front, marked once."
                for s in self.settings if s.same_as]

    @property
    def separation(self) -> str:
        """Whether argument recall separates passed from failed runs here (separation_sentence); "" without outcomes."""
        return separation_sentence(self.settings, any(r.get("outcome") is not None for r in self.runs))

    def setting(self, label: str) -> SettingSummary:
        return next(s for s in self.settings if s.label == label)

    def rows(self) -> List[Dict[str, Any]]:
        """The table of settings, as the Benchmark page shows it and the store keeps it (percentages rounded to
        0.1; a chosen point's setting starred): one row per setting, the no-compression row first."""
        chosen = {c.setting for c in self.chosen if c.setting}

        def pct(v: Optional[float]) -> Optional[float]:
            return None if v is None else round(100 * v, 1)
        return [{
            "setting": ("★ " if s.label in chosen else "") + s.label, "runs": s.runs,
            "argument recall %": pct(s.mean("argument_recall")), "low": pct(s.means["argument_recall"]["low"]),
            "high": pct(s.means["argument_recall"]["high"]),
            RECOVERABLE_COLUMN: pct(s.mean("argument_recoverable")),
            "gold recall %": pct(s.mean("gold_argument_recall")),
            "peak %": pct(s.mean("peak_share")), "summarizer tokens": s.mean("summarizer_tokens"),
            "never compressed %": pct(s.never_compressed),
            "passed: recall %": pct((s.by_outcome.get("passed") or {}).get("argument_recall")),
            "failed: recall %": pct((s.by_outcome.get("failed") or {}).get("argument_recall")),
            KINDS_COLUMN: s.kinds_text, PROBLEMS_COLUMN: s.problems_text,
            "front": "on the front" if s.on_front else ""} for s in self.settings]

    def result(self, name: str = "") -> Result:
        """The finished benchmark as a stored result (model/results.py): its table, its settings as labels."""
        return Result(kind="benchmark", rows=self.rows(), labels=[s.label for s in self.settings],
                      name=name or f"benchmark of {len(self.runs)} runs", source=self.source,
                      measured_with=self.measured_with)

    def to_dict(self) -> Dict[str, Any]:
        return {"source": self.source, "settings": [s.to_dict() for s in self.settings],
                "chosen": [{"budget": c.budget, "setting": c.setting, "sentence": c.sentence} for c in self.chosen],
                "broken": [{"run": n, "why": w} for n, w in self.broken],
                "skipped": [{"run": r, "setting": s, "why": w} for r, s, w in self.skipped],
                "runs": self.runs, "points": self.points, "points_done": self.points_done,
                "elapsed_s": round(self.elapsed_s, 2), "workers": self.workers, "seed": self.seed,
                "stopped": self.stopped, "placement": self.placement.to_dict(),
                "seen_as": [{"strategies": who, "seen_as": how} for who, how in self.seen],
                "separation": self.separation, "measured_with": self.measured_with, "twins": self.twins}


# ── aggregates ─────────────────────────────────────────────────────────────────────────────────────

def measure_of(row: Dict[str, Any], measure: str) -> Optional[float]:
    if measure == "summarizer_tokens":
        return float(row.get("summarizer_tokens_in", 0) + row.get("summarizer_tokens_out", 0))
    value = row.get(measure)
    return None if value is None or isinstance(value, bool) else float(value)


def interval(values: Sequence[float], seed: int, name: str, draws: int = BOOTSTRAP) -> Dict[str, Any]:
    """The mean and its 95 % percentile bootstrap interval, seeded by (seed, name): reruns are identical."""
    import numpy as np

    data = np.asarray(values, dtype=float)
    if not len(data):
        return {"mean": None, "low": None, "high": None, "n": 0}
    rng = np.random.default_rng([seed, zlib.crc32(name.encode("utf-8"))])
    means = data[rng.integers(0, len(data), size=(draws, len(data)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return {"mean": round(float(data.mean()), 4), "low": round(float(low), 4), "high": round(float(high), 4),
            "n": int(len(data))}


def difference(passed: Sequence[float], failed: Sequence[float], seed: int, name: str,
               draws: int = BOOTSTRAP) -> Dict[str, Any]:
    """The passed runs' mean minus the failed runs' and its 95 % percentile bootstrap interval (each group resampled
    on its own, seeded by (seed, name)); None figures when a group is empty."""
    import numpy as np

    if not passed or not failed:
        return {"difference": None, "low": None, "high": None, "passed": len(passed), "failed": len(failed)}
    a, b = np.asarray(passed, dtype=float), np.asarray(failed, dtype=float)
    rng = np.random.default_rng([seed, zlib.crc32(name.encode("utf-8"))])
    diffs = (a[rng.integers(0, len(a), size=(draws, len(a)))].mean(axis=1)
             - b[rng.integers(0, len(b), size=(draws, len(b)))].mean(axis=1))
    low, high = np.percentile(diffs, [2.5, 97.5])
    return {"difference": round(float(a.mean() - b.mean()), 4), "low": round(float(low), 4),
            "high": round(float(high), 4), "passed": len(a), "failed": len(b)}


CHANCE_SETTINGS = 10   # from this many settings on, an interval or two above 0 is what chance alone gives


def separation_sentence(settings: Sequence[SettingSummary], has_outcomes: bool) -> str:
    """Whether argument recall separates the passed runs from the failed ones on this dataset, in a sentence: under
    how many of the settings that cut something (a summary, a clearing or a trim) the passed runs' recall is higher
    with an interval above 0, and the largest difference; "" for a dataset without outcomes. Each 95 % interval
    misses one time in twenty, so among many settings one or two "apart" by chance is said to be no more than that."""
    if not has_outcomes:
        return ""
    judged = [s for s in settings if s.strategy != NO_COMPRESSION and s.never_compressed is not None
              and s.never_compressed < 1 and (s.separation or {}).get("difference") is not None]
    if not judged:
        return ("The runs carry outcomes, but no setting has argument recall on both passed and failed runs (no "
                "tool call needed a value the run had learned earlier, or one group is empty), so it cannot say "
                "whether argument recall separates them here.")
    best = max(judged, key=lambda s: s.separation["difference"])
    sep = best.separation
    said = (f"under {best.label} the passed runs keep {100 * sep['difference']:+.1f} points of needed arguments "
            f"against the failed (95 % interval {100 * sep['low']:+.1f} to {100 * sep['high']:+.1f}; "
            f"{sep['passed']} passed, {sep['failed']} failed runs)")
    apart = [s for s in judged if s.separation["low"] > 0]
    if apart and len(judged) >= CHANCE_SETTINGS and len(apart) <= math.ceil(0.05 * len(judged)):
        first = apart[0].separation
        return (f"Argument recall does not clearly separate the passed runs from the failed ones on this dataset: "
                f"only under {len(apart)} of {len(judged)} settings that compressed is the passed runs' recall higher "
                f"with an interval above 0 (under {apart[0].label}: {100 * first['difference']:+.1f} points, "
                f"{100 * first['low']:+.1f} to {100 * first['high']:+.1f}), about what chance gives among "
                f"{len(judged)} settings (each 95 % interval misses one time in twenty). It is what the context still "
                "holds, not a predictor of success.")
    if apart:
        return (f"Argument recall separates the passed runs from the failed ones under {len(apart)} of "
                f"{len(judged)} settings that compressed: {said}.")
    return (f"Argument recall does not separate the passed runs from the failed ones on this dataset ({said}): it is "
            "what the context still holds, not a predictor of success.")


def summarize(label: str, name: str, rows: List[Tuple[Dict[str, Any], Dict[str, Any]]], seed: int) -> SettingSummary:
    """A setting's aggregates over (run, its row) pairs."""
    done = [(run, row) for run, row in rows if "error" not in row or row.get("peak_context_tokens") is not None]
    out = SettingSummary(label, name, runs=len(done), errors=sum(1 for _, row in rows if row.get("error")))
    for measure, _ in MEASURES:
        values = [v for v in (measure_of(row, measure) for _, row in done) if v is not None]
        out.means[measure] = interval(values, seed, f"{label}|{measure}")
    for group, test in (("passed", lambda o: o >= 0.5), ("failed", lambda o: o < 0.5)):
        part = [row for run, row in done if run.get("outcome") is not None and test(run["outcome"])]
        if part:
            figures: Dict[str, Any] = {"runs": len(part)}
            for measure in ("argument_recall", "gold_argument_recall", "peak_share"):
                values = [v for v in (measure_of(r, measure) for r in part) if v is not None]
                figures[measure] = round(sum(values) / len(values), 4) if values else None
            out.by_outcome[group] = figures
    groups = {group: [v for v in (measure_of(row, "argument_recall") for run, row in done
                                  if run.get("outcome") is not None and test(run["outcome"])) if v is not None]
              for group, test in (("passed", lambda o: o >= 0.5), ("failed", lambda o: o < 0.5))}
    out.separation = difference(groups["passed"], groups["failed"], seed, f"{label}|separation")
    if done:
        out.never_compressed = round(sum(1 for _, row in done if row.get("cut_nothing")) / len(done), 4)
    compressed = [row for _, row in done if row.get("compressions")]
    out.runs_compressed = len(compressed)
    for kind in KINDS:  # each run's share where it compressed and the kind had facts; a plain mean over those runs
        shares = [row["kept_by_kind"][kind] for row in compressed if kind in (row.get("kept_by_kind") or {})]
        if shares:
            out.kept_by_kind[kind] = {"mean": round(sum(shares) / len(shares), 4), "runs": len(shares)}
            found = [(row.get("recoverable_by_kind") or {}).get(kind, 0.0) for row in compressed
                     if kind in (row.get("kept_by_kind") or {})]  # over the same runs as its kept share
            if any(found):
                out.recoverable_by_kind[kind] = round(sum(found) / len(found), 4)
    out.runs_with_problem = {check: sum(1 for _, row in done if (row.get("health") or {}).get(check))
                             for check in CHECKS}
    ranked = sorted(((row.get("argument_recall"), run["name"], row) for run, row in done
                     if row.get("argument_recall") is not None and row["argument_recall"] < 1), key=lambda t: t[0])
    out.worst = [{"run": n, "argument_recall": r, "recoverable": row.get("argument_recoverable"),
                  "lost": row.get("arguments_lost", [])[:3]}
                 for r, n, row in ranked[:WORST_KEPT]]
    return out


def mark_front(settings: Sequence[SettingSummary]) -> None:
    """The front over dataset means (the one rule: front.py), among settings that compressed on at least one run."""
    judged = [s for s in settings if s.strategy != NO_COMPRESSION and s.never_compressed is not None
              and s.never_compressed < 1 and s.mean("argument_recall") is not None]
    objectives = [(m, d) for m, d in MEASURES if m in FRONT]
    twins = same_as(judged, objectives, SettingSummary.mean, lambda s: s.label)
    for s, twin in zip(judged, twins):
        s.same_as = twin
    single = [s for s in judged if s.same_as is None]
    kept = {id(s) for s, on in zip(single, on_front(single, objectives, SettingSummary.mean)) if on}
    for s in settings:
        s.on_front = id(s) in kept


def _describe(s: SettingSummary) -> str:
    m = s.means["argument_recall"]
    parts = [f"{s.label} keeps {percent(m['mean'])} of the needed arguments (95 % interval "
             f"{percent(m['low'])}-{percent(m['high'])})"]
    gold = s.means.get("gold_argument_recall") or {}
    if gold.get("mean") is not None:
        parts.append(f"{percent(gold['mean'])} of the gold arguments")
    peak, tokens = s.mean("peak_share"), s.mean("summarizer_tokens") or 0
    text = ", ".join(parts) + f" at {percent(peak)} of the no-compression peak, with "
    text += "no summarizer tokens" if not tokens else f"{tokens:,.0f} summarizer tokens a run"
    if s.never_compressed:
        text += f"; it never compressed on {percent(s.never_compressed)} of the runs"
    if s.refused:
        text += (f"; measured on {s.runs:,} runs only: its package refused the setting on {s.refused:,} other "
                 f"run{'s' * (s.refused != 1)}")
    return text + "."


def choose(settings: Sequence[SettingSummary]) -> List[Chosen]:
    """One point per budget (recommend.choose_budgets, as a single trajectory's), each the best of the settings
    that compressed at least once; with gold actions, also the lowest peak keeping 95 % of their arguments."""
    live = [s for s in settings if s.strategy != NO_COMPRESSION and s.never_compressed is not None
            and s.never_compressed < 1 and s.mean("argument_recall") is not None and s.mean("peak_share") is not None
            and s.same_as is None]

    def peak(s: SettingSummary) -> float:
        return s.mean("peak_share")
    common = dict(peak=peak, tokens=lambda s: s.mean("summarizer_tokens"), label=lambda s: s.label,
                  describe=_describe, nothing="no setting of this benchmark qualifies.")
    out = choose_budgets(live, keep=lambda s: s.mean("argument_recall"), kept_what="needed arguments",
                         best_what="argument recall", **common)
    if any(s.mean("gold_argument_recall") is not None for s in live):
        gold = [s for s in live if s.mean("gold_argument_recall") is not None]
        out += choose_budgets(gold, keep=lambda s: s.mean("gold_argument_recall"),
                              kept_what="the gold actions' arguments", best_what="", before=out, **common)[:1]
    return out


def no_compression_row(unit: Unit) -> Dict[str, Any]:
    """Doing nothing, read against itself: every call sent every earlier message in full."""
    row = {"strategy": NO_COMPRESSION, "settings": {}, "compressions": 0, "summarizer_tokens_in": 0,
           "summarizer_tokens_out": 0, "cut_nothing": True, "peak_share": 1.0, "mean_share": 1.0,
           "saved_share": 0.0, "facts_at_answer": 1.0, "summarizer_cost_usd": 0.0, "peak_context_tokens": None}
    row.update(argument_figures(unit.calls, no_compression_sent(unit.run.trace)))
    return row


def aggregate(units: Sequence[Unit], cells: Dict[int, Dict[str, Dict[str, Any]]],
              settings: Sequence[Tuple[str, str, Dict[str, Any]]], seed: int) -> Tuple[List[Dict[str, Any]], List[SettingSummary], List[Chosen]]:
    """Per-run records and per-setting aggregates over the runs whose every cell finished."""
    finished = [u for u in units if u.index in cells and len(cells[u.index]) == len(u.points)]
    runs = []
    for u in finished:
        rows = dict(cells[u.index])
        rows[NO_COMPRESSION] = no_compression_row(u)
        runs.append({"name": u.run.name, "outcome": u.run.outcome, "has_gold": u.run.gold is not None,
                     "report": u.run.report, "cells": rows})
    labels = [(NO_COMPRESSION, NO_COMPRESSION)] + [(label, name) for label, name, _ in settings]
    summaries = []
    for label, name in labels:
        pairs = [(run, run["cells"][label]) for run in runs if label in run["cells"]]
        summaries.append(summarize(label, name, pairs, seed))
        summaries[-1].refused = sum(1 for u in finished for refused, _ in u.skipped if refused == label)
    mark_front(summaries)
    return runs, summaries, choose(summaries)


# ── running the cells ──────────────────────────────────────────────────────────────────────────────

def run_benchmark(request: BenchmarkRequest, progress: Optional[Callable[[int, int, str], None]] = None,
                  stop: Any = None) -> Benchmark:
    """Run the benchmark (see the module's docstring)."""
    from scratchpad_lab.engine.limits import check_benchmark

    started = time.monotonic()
    dataset = request.dataset if isinstance(request.dataset, Dataset) else read_dataset(request.dataset, request.runs)
    dataset = dataset.first(request.runs)
    choice = request.summarizer or SummarizerChoice()
    summarizer = build_summarizer(choice)
    usable = dataset.usable
    settings = plan_settings(request.strategies, request.grids, any(r.trace.compactions for r in usable))
    if not usable:
        raise StrategyError(f"{dataset.source}: no run could be imported: "
                            + "; ".join(f"{r.name}: {r.error}" for r in dataset.broken[:3]))
    endpoint = summarizer.calls_a_model  # an endpoint's or the built-in model's: on this machine, in this process
    builtin = summarizer.kind == "builtin"
    executor = request.executor or ExecutorChoice()
    if builtin and executor.kind == "ray":
        raise StrategyError("The built-in model runs in this process, not on a cluster: benchmark with it on the "
                            "local executor (--executor local), or pick another summarizer for Ray.")
    placement = Placement(executor.kind)
    units: List[Unit] = []
    total = 0
    cells: Dict[int, Dict[str, Dict[str, Any]]] = {}
    state = {"done": 0, "runs_done": 0}

    def check(workers: int, runs: Sequence[Tuple[Any, List[Any]]]) -> None:
        check_benchmark(runs, workers=workers, endpoint_summarizer=endpoint, lifted=request.lifted,
                        builtin_summarizer=builtin)

    def build_units() -> Optional[str]:
        """Each run's unit (its calls read, its shares resolved against its package's peak), in order; Stop between
        runs ends it, with the reason (no cell has run then, so the result is empty and says it was stopped)."""
        for i, run in enumerate(usable):
            if stop is not None and stop.is_set():
                return getattr(stop, "reason", None) or "stopped"
            units.append(unit_of(i, run, settings))
            if progress and (i + 1) % 100 == 0:
                progress(0, 0, f"reading the runs: {i + 1:,} of {len(usable):,}")
        return None

    def collect(unit: Unit, label: str, outcome: Tuple[Dict[str, Any], Optional[str], int]) -> None:
        figures, error, _ = outcome
        if error:
            figures = {**figures, "error": error}
        cells.setdefault(unit.index, {})[label] = figures
        state["done"] += 1
        if len(cells[unit.index]) == len(unit.points):
            state["runs_done"] += 1
        if progress:
            elapsed = time.monotonic() - started
            left = elapsed / state["done"] * (total - state["done"])
            progress(state["done"], total, f"{state['runs_done']} of {len(units)} runs done, {state['done']:,} of "
                                           f"{total:,} points; about {_duration(left)} left")

    key = new_key()
    counter = TokenCounter(summarizer.model_id if summarizer.kind == "endpoint" else None)
    by_key: Dict[str, Unit] = {}

    def here(share: RunShare) -> Dict[str, Any]:
        """A run's context in this process: the benchmark's own summarizer (an endpoint's, the built-in model), and
        the argument measure over the calls its unit already read (not read again)."""
        built = build_summarizer(choice, stop=stop if isinstance(stop, threading.Event) else None)
        context = point_context(share.trace, built, share.scenario, measure_for(by_key[share.key].calls), counter)
        context["stop"] = stop if hasattr(stop, "check") else None
        return context

    with opened(executor, 1 if endpoint else max(1, min(int(request.workers), len(usable)))) as cells_here:
        workers = cells_here.workers
        check(workers, sized_plan(usable, settings))  # before anything is built: a refusal comes at once
        stopped = build_units()
        total = sum(len(u.points) for u in units)
        if stopped is None:
            check(workers, [(u.run.trace, [make_spec(n, s) for _, n, s in u.points]) for u in units])
            if progress:
                progress(0, total, f"{len(units)} runs, {total:,} points")
            shares = [RunShare(f"{key}-{u.index}", u.run.trace, u.run.scenario, u.run.gold, True,
                               summarizer.extractive_budget_chars) for u in units]
            by_key.update((share.key, unit) for share, unit in zip(shares, units))
            plan = [StudyCell(u.index, label, name, values) for u in units for label, name, values in u.points]
            try:
                cells_here.run(shares, plan, POINTS, choice, request.price_model,
                               lambda cell, outcome: collect(units[cell.run], cell.label, outcome), stop, placement,
                               here=here, deadline_s=1e12 if request.lifted else None)
            except Stopped as exc:
                stopped = str(exc) or "stopped"
            except KeyboardInterrupt:
                stopped = "interrupted (Ctrl-C)"
    runs, summaries, chosen = aggregate(units, cells, settings, request.seed)
    skipped = [(u.run.name, label, why) for u in units for label, why in u.skipped]
    return Benchmark(dataset.source, runs, [(r.name, r.error or "") for r in dataset.broken], summaries, chosen,
                     total, state["done"], time.monotonic() - started, workers, request.seed, stopped, skipped,
                     placement, seen_by_form([u.run.trace for u in units], [name for _, name, _ in settings]),
                     choice.measured_with)


def seen_by_form(traces: Sequence[Any], names: Sequence[str]) -> List[Tuple[str, str]]:
    """For each form among the benchmarked strategies: (their titles, how they saw the runs, in a line)."""
    from scratchpad_lab.engine.strategies.messages import seen_over
    from scratchpad_lab.engine.strategies.registry import strategy

    forms: Dict[str, List[str]] = {}
    for name in dict.fromkeys(names):
        forms.setdefault(strategy(name).context, []).append(strategy(name).title)
    return [(", ".join(titles), seen_over(traces, form)) for form, titles in forms.items()]


def _duration(seconds: float) -> str:
    return f"{seconds:,.0f} s" if seconds < 120 else f"{seconds / 60:,.1f} minutes"


# ── the door's job ─────────────────────────────────────────────────────────────────────────────────

def benchmark_job(request: BenchmarkRequest) -> Job:
    """The benchmark as a Job (engine/jobs.py): progress as points done, Stop keeping what finished. The
    work limit is checked when the job starts its work (the job ends with WorkLimitExceeded as its error)."""
    return Job(lambda report, stop: run_benchmark(request, report, stop), name="scratchpad-lab-benchmark")
