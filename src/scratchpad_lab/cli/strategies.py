"""`scratchpad-lab strategies FILE --strategy NAME[:key=value,...] ... --json`.

Streamlit-free. cli.py registers the subparser (`add_parser`) and calls `run(args)`; the row shape
is `StrategyResult.row()` and `take_away` (the setting to take to an agent, `take_away_json`: the text's "Take a
setting to your agent" lines, which `recommend` and `bench` print under each chosen point too). An unknown strategy, key or value is a usage error (exit 2, one line); so is a pin
over a limit (model/pins.py, the same sentence as `run --pin`). With --pin every row gains the pin fields.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Dict, List, Optional, Tuple

from scratchpad_lab.engine.strategies.registry import StrategyError, default_names, names, strategy
from scratchpad_lab.engine.tasks import MAX_STRATEGIES, parse_spec
from scratchpad_lab.model.config import field_bounds, field_default
from scratchpad_lab.cli.flags import add_key_flags, add_pin_flags, add_timeout_flag, strategy_argument

EXIT_OK, EXIT_USAGE = 0, 2


def add_parser(sub) -> None:
    p = sub.add_parser("strategies", help="replay one trajectory under several compression systems "
                                          f"({', '.join(names())})")
    p.add_argument("file", help="a trace or a run record")
    p.add_argument("--strategy", type=strategy_argument(parse_spec), action="append", metavar="NAME[:key=value,...]",
                   help=f"a strategy ({', '.join(names())}) and its settings; repeat for up to {MAX_STRATEGIES} "
                        "(none given: every registered strategy, each with its own defaults)")
    add_summarizer_flags(p)
    add_pin_flags(p, note="Every strategy is checked against the same pins; --pins-to-summarizer reaches only the "
                          "strategies whose package takes a prompt (not trim-only, clear-tool-uses or autourgos-builtin). "
                          "A run record's own pins are not read: give them here")
    p.add_argument("--json", action="store_true", help="print one JSON row per strategy")
    p.add_argument("--details", action="store_true",
                   help="with --json: add each compression, trim, offload and model call's context tokens")


def add_summarizer_flags(p) -> None:
    """The summarizer flags `strategies` and `recommend` share."""
    p.add_argument("--summarizer", choices=["extractive", "endpoint", "builtin"], default="extractive",
                   help="the one summarizer every strategy uses (endpoint: --summarizer-model; builtin: the built-in "
                        "SmolLM2-135M on this CPU, weak, one call at a time)")
    p.add_argument("--extractive-budget", type=int, default=field_default("extractive_budget_chars"), metavar="CHARS",
                   help="length cap of extractive summaries")
    p.add_argument("--summarizer-model", metavar="NAME", help="an OpenAI-compatible model writes the summaries")
    p.add_argument("--summarizer-base-url", metavar="URL", help="its endpoint (default: OpenAI)")
    add_key_flags(p)
    add_timeout_flag(p)
    p.add_argument("--price-model", metavar="NAME",
                   help="price the summarizer's tokens as this model's (analysis/pricing.py; default: the "
                        "summarizer's own model, and the offline one is free)")
    from scratchpad_lab.engine.tasks import LIFT_FLAG
    p.add_argument(LIFT_FLAG, dest="no_work_limit", action="store_true",
                   help="run even if the job is over the lab's work limit (on your own machine only)")


def run(args: argparse.Namespace) -> int:
    from scratchpad_lab.analysis.figures import figures
    from scratchpad_lab.cli.import_trace import load
    from scratchpad_lab.engine.tasks import StrategiesRequest, strategies

    summarizer = summarizer_from_args(args)
    loaded = load(args.file)
    trace = getattr(loaded, "trace", loaded)  # a run record's trajectory, or the trace itself
    specs = list(getattr(args, "strategy", None) or []) or default_specs(bool(getattr(trace, "compactions", None)))
    # The task refuses a job over the work limit, with what it would cost, before anything runs.
    results = strategies(StrategiesRequest(loaded, tuple(specs), summarizer,
                                           lifted=getattr(args, "no_work_limit", False),
                                           pins=tuple(getattr(args, "pin", None) or ()),
                                           pins_to_summarizer=bool(getattr(args, "pins_to_summarizer", False))
                                           )).run_here().results
    price = getattr(args, "price_model", None)
    rows: List[dict] = [r.row(price) for r in results]
    if getattr(args, "details", False):
        for row, result in zip(rows, results):
            row["details"] = result.details()
    from scratchpad_lab.engine.tasks import recorded_trajectory, take_away_for_trace

    takes = [lambda r=result: take_away_for_trace(r.name, r.settings, recorded_trajectory(loaded)) for result in results]
    for result in results:  # on stderr whatever the output form: a strategy that stopped early says why
        if result.error:
            print(f"scratchpad-lab: warning: {result.name}: {result.error}", file=sys.stderr)
    if getattr(args, "json", False):
        for row, result, make in zip(rows, results, takes):
            row["take_away"] = take_away_json(make, result.name)
        print(json.dumps(rows, ensure_ascii=False))
    else:
        for r, result in zip(rows, results):
            f = figures(result.events)  # the row's own figures, worded as on every page
            print(f"{r['strategy']:<22} compressions {r['compressions']:>3}  summarizer calls "
                  f"{r['summarizer_calls']:>3}  peak {r['peak_context_tokens']:>7,}  mean "
                  f"{r['mean_context_tokens']:>9,.1f}  saved {r['context_tokens_saved']:>9,}  facts kept "
                  f"{f.facts_kept_text}  through trims {f.trim_facts_kept_text}  files {r['offloaded_files']}"
                  + (f"  pins {f.pins_kept_text}" if f.pins else "")
                  + (f" (not asked: {r['pins_to_summarizer']})" if getattr(args, "pins_to_summarizer", False)
                     and isinstance(r.get("pins_to_summarizer"), str) else "")
                  + ("  (cut nothing: it reads as doing nothing in its own form)" if r["cut_nothing"] else ""))
            if result.seen_as:
                print(f"    seen {result.seen_as}")
            if f.pins_lost:  # the pins are the person's own text: a terminal shows it as it is
                print(f"    lost pins: {'; '.join(f.pins_lost)}")
            for q in result.quirks[:3]:
                print(f"    step {q.iteration}: {q.text}")
        print("\nTake a setting to your agent (each strategy as it ran here):")
        for result, make in zip(results, takes):
            print(f"  {result.name}:")
            print_take_away(make)
    return EXIT_OK


def _take(make) -> Tuple[Any, str]:
    """(the TakeAway, "") or (None, why there is none): a setting the package refuses on every run."""
    from scratchpad_lab.model.errors import LabError

    try:
        return make(), ""
    except LabError as exc:
        return None, f"No snippet: {exc.sentence}"


def print_take_away(make, seen: Optional[set] = None, key: str = "") -> None:
    """A chosen setting taken to a person's agent (engine/strategies/snippets.py): its figures in absolute units and the
    package's code, indented under the line that chose it; one already printed (`key` in `seen`) says so; a setting
    the package refuses on every run says why in one line."""
    if seen is not None and key in seen:
        print("    Take it to your agent: as above.")
        return
    take, why = _take(make)
    if take is None:
        print(f"    {why}")
        return
    if seen is not None:
        seen.add(key)
    print(take.text("    "))


def take_away_json(make, name: str) -> Dict[str, Any]:
    """What print_take_away prints, as `--json` carries it (every command that prints a snippet): `strategy`,
    `settings` (the one value of each to configure), `figures` (each number in its unit: its value on each run, each
    run's peak, the share of the peak it was given as, the value to configure), `sentences` (the figures and when it
    compresses, as printed), `code` (the package's code, ready to paste; null when there is none) and `why_none`
    (null, or why there is no code); `runs` and `refused` count the runs whose peaks the figures read."""
    take, why = _take(make)
    if take is None:
        return {"strategy": name, "settings": None, "figures": [], "sentences": [], "code": None, "why_none": why,
                "runs": 0, "refused": 0}
    return {"strategy": take.strategy, "settings": dict(take.settings),
            "figures": [{"key": f.key, "unit": f.unit, "share": f.share, "values": list(f.values),
                         "peaks": list(f.peaks), "value": f.value} for f in take.figures],
            "sentences": take.lines(), "code": take.code or None, "why_none": take.why_none or None,
            "runs": take.runs, "refused": take.refused}


def default_specs(has_compaction: bool = False) -> list:
    """No --strategy given: every registered strategy with its own defaults (the help says so), the recording's own
    compaction first where the run carries one."""
    chosen = default_names(has_compaction)
    chosen.sort(key=lambda n: not strategy(n).recorded)
    return [parse_spec(name) for name in chosen][:MAX_STRATEGIES]


def summarizer_from_args(args: argparse.Namespace):
    """The one summarizer (a SummarizerChoice) from the shared flags; StrategyError names a bad one."""
    from scratchpad_lab.engine.tasks import cli_key, endpoint_for
    from scratchpad_lab.model.summarizer import SummarizerChoice

    low, high = field_bounds("extractive_budget_chars")
    if not low <= args.extractive_budget <= high:
        raise StrategyError(f"--extractive-budget is out of range ({low:,} to {high:,}).")
    model = getattr(args, "summarizer_model", None)
    if args.summarizer == "builtin" and not model:
        return SummarizerChoice("builtin", args.extractive_budget)
    if args.summarizer == "endpoint" or model:
        if not model:
            raise StrategyError("--summarizer endpoint needs --summarizer-model NAME.")
        endpoint = endpoint_for(model, getattr(args, "summarizer_base_url", None), getattr(args, "api_key_env", "") or "",
                                getattr(args, "timeout", None))
        # The CLI key rule (engine/net/keys.py), as every other command follows it.
        return SummarizerChoice("endpoint", args.extractive_budget, endpoint,
                                key=cli_key(endpoint, vars(args), "summarizer"))
    return SummarizerChoice("extractive", args.extractive_budget)
