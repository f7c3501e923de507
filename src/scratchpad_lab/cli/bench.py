"""`scratchpad-lab bench DATASET [--strategy NAME ...] [--grid NAME:key=v1|v2,...] [--runs N] [summarizer flags]
[--executor local|ray] [--ray-address ADDRESS] [--json] [--html REPORT.html] [--save]`: the benchmark (engine/studies/benchmark.py) of a dataset of runs.

Streamlit-free. cli/__init__.py registers the subparser (`add_parser`) and calls `run(args)`. Each chosen point is
followed by its setting to take to an agent (figures and the package's code; in `--json`, its `take_away`). A progress line
goes to stderr (run k of n, points done, time left); Ctrl-C stops between points and what finished is
printed, marked as stopped (exit 130). Runs that could not be imported are named on stderr.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Callable, List, Optional, Tuple

from scratchpad_lab.cli.flags import add_executor_flags, executor_from_args, strategy_argument
from scratchpad_lab.cli.output import cannot_write, prepare
from scratchpad_lab.engine.strategies.registry import StrategyError, names

EXIT_OK, EXIT_USAGE, EXIT_STOPPED = 0, 2, 130


def _name(text: str) -> str:
    from scratchpad_lab.engine.strategies.registry import strategy
    strategy(text.strip())
    return text.strip()


def _grid(text: str):
    from scratchpad_lab.engine.tasks import parse_grid
    return parse_grid(text)


def add_parser(sub) -> None:
    from scratchpad_lab.cli.strategies import add_summarizer_flags

    p = sub.add_parser("bench", help="benchmark every strategy over a grid of settings on a dataset of runs, by the "
                                     "arguments each later tool call needed")
    p.add_argument("dataset", help="a file of many runs (tau-bench records, JSON or JSON Lines of chats, LangChain "
                                   "message lists, the lab's traces, autourgos histories) or a folder of run files")
    p.add_argument("--strategy", type=strategy_argument(_name), action="append", metavar="NAME",
                   help=f"benchmark only these strategies (default: all of {', '.join(names())})")
    p.add_argument("--grid", type=strategy_argument(_grid), action="append", metavar="NAME:key=v1|v2,...",
                   help="the values to try for a strategy's settings (replacing its default grid for those keys); "
                        "a value N%% is that share of each run's own no-compression peak")
    p.add_argument("--runs", type=int, metavar="N", help="only the first N runs of the dataset")
    p.add_argument("--workers", type=int, default=2, metavar="N", help="processes to run with (default 2)")
    p.add_argument("--seed", type=int, metavar="N", help="the bootstrap's seed (default 31: reruns are identical)")
    add_executor_flags(p)
    add_summarizer_flags(p)
    p.add_argument("--decide-with", choices=["builtin", "endpoint"],
                   help="then re-decide the next call at each recorded tool call with a model, given what each "
                        "setting sent, and print the agreement with the recorded calls (builtin: the built-in model, "
                        "a pipeline check; endpoint: --decide-model)")
    p.add_argument("--decide-model", metavar="NAME", help="with --decide-with endpoint: the model that decides")
    p.add_argument("--decide-base-url", metavar="URL", help="its endpoint (default: OpenAI)")
    p.add_argument("--decide-calls", type=int, default=5, metavar="N", help="recorded calls a run re-decided (default 5)")
    p.add_argument("--decide-tokens", type=int, default=64, metavar="N", help="each decision's reply cap (default 64)")
    p.add_argument("--json", action="store_true", help="print the whole benchmark as JSON")
    p.add_argument("--html", metavar="REPORT.html", help="also write a self-contained HTML report here")
    p.add_argument("--save", action="store_true", help="also keep the table of settings in the lab's store "
                                                      "(SCRATCHPAD_LAB_DB), listed on the Runs page's results")


class _Progress:
    """One line on stderr, rewritten in place on a terminal; elsewhere a line per finished run."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.last = ""

    def __call__(self, done: int, total: int, text: str) -> None:
        head = text.split(",")[0]
        if self.tty:
            sys.stderr.write(f"\rscratchpad-lab: bench: {text}\033[K")
            sys.stderr.flush()
        elif head != self.last or done == total:
            print(f"scratchpad-lab: bench: {text}", file=sys.stderr)
        self.last = head

    def end(self) -> None:
        if self.tty:
            sys.stderr.write("\n")


def _pct(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.1%}"


def _span(m: dict) -> str:
    if m.get("mean") is None:
        return "-"
    return f"{m['mean']:.1%} [{m['low']:.1%}-{m['high']:.1%}]"


def table(result: Any) -> str:
    lines = [f"{'setting':<58} {'runs':>4}  {'argument recall [95%]':<24} {'gold recall [95%]':<24} "
             f"{'peak':>6} {'mean':>6} {'summ.tok':>8} {'never':>6}  passed / failed arg. recall"]
    for s in result.settings:
        passed = (s.by_outcome.get("passed") or {}).get("argument_recall")
        failed = (s.by_outcome.get("failed") or {}).get("argument_recall")
        tokens = s.mean("summarizer_tokens")
        lines.append(f"{('* ' if s.on_front else '  ') + s.label:<58} {s.runs:>4}  {_span(s.means['argument_recall']):<24} "
                     f"{_span(s.means['gold_argument_recall']):<24} {_pct(s.mean('peak_share')):>6} "
                     f"{_pct(s.mean('mean_share')):>6} {('-' if tokens is None else f'{tokens:,.0f}'):>8} "
                     f"{_pct(s.never_compressed):>6}  {_pct(passed)} / {_pct(failed)}")
    return "\n".join(lines)


def words(result: Any) -> str:
    """Each setting's facts kept by kind and runs with each problem, in the page table's words (one line each:
    the table above is already as wide as a terminal)."""
    from scratchpad_lab.engine.tasks import KINDS_COLUMN, PROBLEMS_COLUMN

    lines = [f"{KINDS_COLUMN.capitalize()} (each share a mean over the runs in brackets: those where the setting "
             f"compressed and the kind had facts) and {PROBLEMS_COLUMN} (a compression of the run failed the check):"]
    lines += [f"  {s.label}: {s.kinds_text}; {PROBLEMS_COLUMN}: {s.problems_text}" for s in result.settings]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from scratchpad_lab.cli.strategies import summarizer_from_args
    from scratchpad_lab.engine.tasks import SEED, BenchmarkRequest, read_dataset, run_benchmark

    if not 1 <= args.workers <= 8:
        raise StrategyError("--workers is out of range (1 to 8).")
    runs = getattr(args, "runs", None)
    if runs is not None and runs < 1:
        raise StrategyError("--runs takes a whole number of at least 1.")
    grids = {}
    for name, grid in getattr(args, "grid", None) or []:
        grids.setdefault(name, {}).update(grid)
    seed = getattr(args, "seed", None)
    html = getattr(args, "html", None)
    if html:  # its folder made, or refused, before the benchmark runs: not a long run lost to a wrong path
        prepare(html, "--html")
    # read here, not in the study: its runs' traces give each chosen setting's figures on their own peaks
    dataset = read_dataset(args.dataset, runs)
    request = BenchmarkRequest(dataset, getattr(args, "strategy", None) or None, grids,
                               summarizer_from_args(args), getattr(args, "price_model", None), runs, args.workers,
                               getattr(args, "no_work_limit", False), SEED if seed is None else seed,
                               executor_from_args(args))
    progress = _Progress()
    try:
        result = run_benchmark(request, progress)
    finally:
        progress.end()
    for name, why in result.broken:
        print(f"scratchpad-lab: warning: {name} could not be imported: {why}", file=sys.stderr)
    if result.stopped:
        print(f"scratchpad-lab: bench {result.stopped}: {result.points_done:,} of {result.points:,} points done; the "
              f"figures cover the {len(result.runs)} runs that finished", file=sys.stderr)
    unsaved = False  # the report not written or the result not stored: exit 2 after the figures
    if html:
        from scratchpad_lab.engine.tasks import write_report
        try:
            write_report(result, html)
        except OSError as exc:  # the benchmark happened: what it found is printed below
            print(f"scratchpad-lab: error: {cannot_write(html, '--html', exc).sentence}", file=sys.stderr)
            unsaved = True
        else:
            print(f"scratchpad-lab: wrote {html}", file=sys.stderr)
    decided = _decide(args, request) if getattr(args, "decide_with", None) else None
    if getattr(args, "save", False):
        from scratchpad_lab.engine.tasks import Store, StoreError
        try:
            store = Store()
            stored = store.save_result(result.result())
        except StoreError as exc:  # the benchmark happened: what it found is printed below
            print(f"scratchpad-lab: error: the benchmark was not stored: {exc}", file=sys.stderr)
            unsaved = True
        else:
            print(f"scratchpad-lab: stored as result {stored} in {store.where} (the Runs page lists it)",
                  file=sys.stderr)
    if getattr(args, "json", False):
        from scratchpad_lab.cli.strategies import take_away_json

        out = result.to_dict()
        out["chosen"] = [{**said, "take_away": None if make is None else take_away_json(make, chosen.setting)}
                         for said, (chosen, make) in zip(out["chosen"], _take_aways(result, dataset))]
        print(json.dumps({**out, **({"decisions": decided.to_dict()} if decided else {})}, ensure_ascii=False))
    else:
        print(f"Benchmark of {result.source}: {len(result.runs)} runs ({len(result.broken)} could not be imported), "
              f"{result.points_done:,} points in {result.elapsed_s:,.1f} s on {result.workers} "
              f"core{'s' * (result.workers != 1)}; means over runs, 95 % bootstrap intervals (seed {result.seed}).")
        print(result.placement.sentence())
        for who, how in result.seen:
            print(f"{who} saw each run {how}.")
        print(table(result))
        print()
        print(words(result))
        print("\n* on the front over the dataset means (argument recall against peak, mean and summarizer tokens).")
        for twin in result.twins:
            print(twin)
        print(f"Chosen points. {result.measured_with}")
        _chosen(result, dataset)
        if result.separation:
            print(f"\n{result.separation}")
        if decided:
            from scratchpad_lab.engine.tasks import decisions_table
            how = ", constrained by the tools' JSON schema" if decided.constrained else ""
            print(f"\nThe next call re-decided by {decided.model} ({decided.asked} model calls{how}): agreement "
                  "with the recorded tool and its arguments; vs none: against no compression of the same form; "
                  "same: the decision no compression made (100 % by construction where the context was the same).")
            print(decisions_table(decided))
    return (EXIT_STOPPED if result.stopped or (decided and decided.stopped)
            else EXIT_USAGE if unsaved else EXIT_OK)


def _take_aways(result: Any, dataset: Any) -> List[Tuple[Any, Optional[Callable[[], Any]]]]:
    """Each chosen point, with how to make its setting to take to an agent (None: no setting qualified): its figures
    on the peaks of the runs it was measured on (a share's tokens on each run, their median and range: the one number
    to configure) and the package's code."""
    from scratchpad_lab.engine.tasks import take_away_for_label

    by_name = {run.name: run.trace for run in dataset.usable}
    out: List[Tuple[Any, Optional[Callable[[], Any]]]] = []
    for chosen in result.chosen:
        if not chosen.setting:
            out.append((chosen, None))
            continue
        traces = [by_name[r["name"]] for r in result.runs if chosen.setting in r["cells"] and r["name"] in by_name]
        out.append((chosen, lambda label=chosen.setting, t=traces: take_away_for_label(label, t)))
    return out


def _chosen(result: Any, dataset: Any) -> None:
    """Each chosen point's sentence, then its setting to take to an agent (once: a second sentence naming the same
    setting says "as above")."""
    from scratchpad_lab.cli.strategies import print_take_away

    seen: set = set()
    for chosen, make in _take_aways(result, dataset):
        print(f"  {chosen.sentence}")
        if make is not None:
            print_take_away(make, seen, chosen.setting)


def _decide(args: argparse.Namespace, benchmark: Any) -> Any:
    """`--decide-with`: the benchmark's runs and settings re-decided by a model (the door's decide_next)."""
    from scratchpad_lab.engine.tasks import DecideRequest, cli_key, decide_next, endpoint_for

    endpoint = key = None
    if args.decide_with == "endpoint":
        if not getattr(args, "decide_model", None):
            raise StrategyError("--decide-with endpoint needs --decide-model NAME.")
        endpoint = endpoint_for(args.decide_model, getattr(args, "decide_base_url", None),
                                getattr(args, "api_key_env", "") or "", getattr(args, "timeout", None))
        key = cli_key(endpoint, vars(args), "decider")
    if not 1 <= args.decide_tokens <= 1_024:
        raise StrategyError("--decide-tokens is out of range (1 to 1,024).")
    request = DecideRequest(benchmark, args.decide_with, endpoint, key, args.decide_calls, args.decide_tokens,
                            lifted=getattr(args, "no_work_limit", False))
    progress, job = _Progress(), decide_next(request)
    report = job.report

    def told(done: int, total: Optional[int] = None, text: Optional[str] = None) -> None:
        report(done, total, text)
        progress(done, total or 0, f"deciding: {text}")

    job.report = told  # the job's progress, also as the bench's line on stderr
    try:
        return job.run_here()
    finally:
        progress.end()
