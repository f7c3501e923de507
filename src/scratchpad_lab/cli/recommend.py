"""`scratchpad-lab recommend FILE [--strategy NAME ...] [--grid NAME:key=v1|v2,...] [summarizer flags] --json`.

Streamlit-free. cli/__init__.py registers the subparser (`add_parser`) and calls `run(args)`; the search is
engine/studies/recommender.py's, through the door (engine/tasks: `recommend`). With --json every point is printed (strategy, settings, figures, on_front, why, and
the `--strategy` argument that runs it again with `scratchpad-lab strategies`), and each chosen point's setting to take
to an agent (`take_away`: its figures and the package's code, as the text prints them); without, two lines per point (its
figures; then its facts kept by kind, compressions with a problem and, with --pin, its pins kept, worded as the
Strategies table words them) and the front's sentences. An unknown strategy, key or value is a usage error (exit 2,
one line); so is a pin over a limit (model/pins.py, the same sentence as `strategies --pin`).
"""
from __future__ import annotations

import argparse
import json
from typing import Any, Callable, Optional

from scratchpad_lab.cli.flags import add_executor_flags, add_pin_flags, executor_from_args, strategy_argument
from scratchpad_lab.engine.strategies.registry import StrategyError, names

EXIT_OK = 0


def _name(text: str) -> str:
    from scratchpad_lab.engine.strategies.registry import strategy
    strategy(text.strip())  # an unknown name raises its StrategyError
    return text.strip()


def _grid(text: str):
    from scratchpad_lab.engine.tasks import parse_grid  # lazy: only when --grid is given
    return parse_grid(text)


def add_parser(sub) -> None:
    from scratchpad_lab.cli.strategies import add_summarizer_flags

    p = sub.add_parser("recommend", help="search every strategy over a grid of its main settings on one trajectory "
                                         "and print the Pareto front of what is kept against what it costs")
    p.add_argument("file", help="a trace or a run record")
    p.add_argument("--strategy", type=strategy_argument(_name), action="append", metavar="NAME",
                   help=f"search only these strategies (default: all of {', '.join(names())})")
    p.add_argument("--grid", type=strategy_argument(_grid), action="append", metavar="NAME:key=v1|v2,...",
                   help="the values to try for a strategy's settings (replacing its default grid for those keys); "
                        "a value N%% is that share of the trajectory's no-compression peak")
    p.add_argument("--workers", type=int, default=2, metavar="N", help="processes to search with (default 2)")
    add_executor_flags(p)
    add_summarizer_flags(p)
    add_pin_flags(p, note="Every point is checked against the same pins, as `strategies` checks every strategy, and "
                          "says how many it kept; --pins-to-summarizer reaches only the strategies whose package takes "
                          "a prompt. A run record's own pins are not read: give them here")
    p.add_argument("--json", action="store_true", help="print every point as JSON")


def _take_away(chosen: Any, found: Any, loaded: Any) -> Optional[Callable[[], Any]]:
    """How to make a chosen point's setting to take to an agent (None: no point qualified for its budget). Its
    settings are this trajectory's numbers; the figures set them against its peak."""
    from scratchpad_lab.engine.tasks import recorded_trajectory, take_away_for_trace

    point = next((p for p in found.points if chosen.setting and p.cli_arg() == chosen.setting), None)
    if point is None:
        return None
    return lambda: take_away_for_trace(point.strategy, point.settings, recorded_trajectory(loaded))


def run(args: argparse.Namespace) -> int:
    from scratchpad_lab.analysis.figures import LABELS
    from scratchpad_lab.cli.import_trace import load
    from scratchpad_lab.cli.strategies import print_take_away, summarizer_from_args, take_away_json
    from scratchpad_lab.engine.tasks import RecommendRequest, recommend

    if not 1 <= args.workers <= 8:
        raise StrategyError("--workers is out of range (1 to 8).")
    grids = {}
    for name, grid in getattr(args, "grid", None) or []:
        grids.setdefault(name, {}).update(grid)
    summarizer = summarizer_from_args(args)
    chosen = getattr(args, "strategy", None) or None
    if chosen and any(name not in chosen for name in grids):
        missing = next(name for name in grids if name not in chosen)
        raise StrategyError(f"--grid {missing}: that strategy is not searched; add --strategy {missing}.")
    loaded = load(args.file)
    _, found, _ = recommend(RecommendRequest(loaded, tuple(chosen) if chosen else None, grids, summarizer,
                                             getattr(args, "price_model", None), workers=args.workers,
                                             lifted=getattr(args, "no_work_limit", False),
                                             executor=executor_from_args(args),
                                             pins=tuple(getattr(args, "pin", None) or ()),
                                             pins_to_summarizer=bool(getattr(args, "pins_to_summarizer", False))
                                             )).run_here()
    takes = [_take_away(chosen, found, loaded) for chosen in found.chosen]
    if getattr(args, "json", False):
        out = found.to_dict()
        out["chosen"] = [{**said, "take_away": None if make is None else take_away_json(make, chosen.setting)}
                         for said, chosen, make in zip(out["chosen"], found.chosen, takes)]
        print(json.dumps(out, ensure_ascii=False))
        return EXIT_OK
    for p in found.points:
        f = p.figures
        mark = "*" if p.on_front else " "
        facts = "-" if f.get("facts_at_answer") is None else f"{f['facts_at_answer']:.0%}"
        share = "-" if f.get("peak_share") is None else f"{f['peak_share']:.0%}"
        print(f"{mark} {p.cli_arg():<72} facts {facts:>4}  peak {f['peak_context_tokens']:>8,} ({share:>4})  "
              f"summarizer tokens {f['summarizer_tokens_in'] + f['summarizer_tokens_out']:>9,}"
              + (f"  error: {p.error}" if p.error else ""))
        texts = p.texts()
        if texts["kept_by_kind"] is not None:  # the Strategies table's words for the same row
            print(f"    {LABELS['kept_by_kind']}: {texts['kept_by_kind']}; {LABELS['health']}: {texts['health']}"
                  + (f"; pins: {texts['pins_kept']}" if "pins_kept" in texts else ""))
        if f.get("pins_lost"):  # the pins are the person's own text: a terminal shows it as it is
            print(f"    lost pins: {'; '.join(f['pins_lost'])}")
    print(f"\n{len(found.front)} of {len(found.points)} points on the front (*):")
    for p in found.front:
        print(f"  {p.cli_arg()}: {p.why}")
    print(f"\nChosen points. {found.measured_with}")
    seen: set = set()
    for chosen, make in zip(found.chosen, takes):
        print(f"  {chosen.sentence}")
        if make is not None:
            print_take_away(make, seen, chosen.setting)
    for name, settings, reason in found.skipped[:10]:
        print(f"  skipped {name} {settings}: {reason}")
    return EXIT_OK
