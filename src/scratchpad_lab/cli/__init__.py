"""`scratchpad-lab`: the engine from the command line, no browser, no streamlit import.

    scratchpad-lab scenarios
    scratchpad-lab run --scenario support-ticket --summarize-every 2 --max-scratchpad-chars 2000 --json
    scratchpad-lab replay sample_runs/support-ticket.json --summarize-every none --out run.json
    scratchpad-lab fork sample_runs/support-ticket-tight.json --at 2 --skip --json
    scratchpad-lab lessons check my-lesson.toml
    scratchpad-lab import Task_20250101_120000_ab12cd34.json --task "..." --out run.trace.json
    scratchpad-lab run --scenario log-triage --save && scratchpad-lab runs list

Exit codes: 0 the agent answered; 1 the run ended without an answer (stopped, timeout, error);
2 bad arguments or a bad file: any LabError (model/errors.py), one line on stderr, no traceback.
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional


from scratchpad_lab.model.config import (ConfigError, RunConfig, every_text, field_default, parse_every,
                                         validate_prompt_template)
from scratchpad_lab.engine.tasks import cli_keys, endpoint_for
from scratchpad_lab.model.errors import LabError, UsageError
from scratchpad_lab.analysis.metrics import answer_score, final_answer, trims
from scratchpad_lab.cli.import_trace import load
from scratchpad_lab.model.records import RunRecord
from scratchpad_lab.cli.describe import describe_record
from scratchpad_lab.cli.output import prepare, write_text
from scratchpad_lab.cli.flags import add_executor_flags, add_key_flags, add_pin_flags, add_timeout_flag, executor_from_args
from scratchpad_lab.engine.tasks import Replay, replay_source, summarizer_notice
from scratchpad_lab.model.scenarios import list_scenarios

EXIT_OK, EXIT_NO_ANSWER, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one clear line, not usage + message
        raise UsageError(f"{self.prog}: {message} (see --help)")


def _summarize_every(value: str) -> Optional[int]:
    """--summarize-every: model.config.parse_every's rule and words, as argparse's usage error."""
    try:
        return parse_every(value, "--summarize-every")
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _presets():
    from scratchpad_lab.model.presets import presets
    return list(presets().values())


def _preset(value: str):
    """--preset: a preset by its name ("tight", "size only", "Size-only"), or its sidebar label."""
    wanted = " ".join(value.replace("-", " ").split()).casefold()
    for p in _presets():
        if wanted in (p.name.casefold(), p.label.casefold()):
            return p
    raise argparse.ArgumentTypeError(f"no preset {value!r}; the presets are "
                                     + ", ".join(repr(p.name) for p in _presets()))


def _add_settings(p: argparse.ArgumentParser) -> None:
    # Unset settings are absent from the namespace (SUPPRESS), so a replay keeps the file's own settings.
    g = p.add_argument_group("compression settings (unset ones keep the file's settings on replay)")
    g.add_argument("--summarize-every", type=_summarize_every, metavar="N|off",
                   help="middleware: compress every N iterations (off: no periodic trigger; none is read too)")
    g.add_argument("--max-scratchpad-chars", type=int, metavar="N",
                   help="middleware: also compress when the scratchpad is over N chars and has grown")
    g.add_argument("--agent-trim-chars", type=int, metavar="N",
                   help="the agent's own hard trim of its scratchpad (its max_scratchpad_chars)")
    g.add_argument("--max-tool-output-chars", type=int, metavar="N", help="the agent cuts tool results to N chars")
    g.add_argument("--max-iterations", type=int, metavar="N")
    g.add_argument("--summarizer", choices=["extractive", "same-as-agent", "silent", "builtin"],
                   help="builtin: the built-in SmolLM2-135M on this CPU (weak; follows the prompt; requirements-model.txt)")
    g.add_argument("--extractive-budget", type=int, metavar="CHARS", help="length cap of extractive summaries")
    g.add_argument("--prompt-file", metavar="FILE", help="summarizer prompt template ({query} {iteration} {scratchpad})")
    g.add_argument("--wall-clock", type=float, metavar="SECONDS", help="wall-clock cap of the run")
    add_pin_flags(g, note="On replay, pins given replace the file's")
    m = p.add_argument_group("real models (any OpenAI-compatible endpoint; keys only from the environment)")
    m.add_argument("--agent-model", metavar="NAME", help="a real model decides instead of the scripted agent")
    m.add_argument("--agent-base-url", metavar="URL", help="the agent model's endpoint (default: OpenAI)")
    m.add_argument("--summarizer-model", metavar="NAME", help="a real model writes the summaries")
    m.add_argument("--summarizer-base-url", metavar="URL", help="the summarizer model's endpoint (default: OpenAI)")
    add_key_flags(m, both=True)
    add_timeout_flag(m)
    m.add_argument("--task", help="the task for --agent-model (default: the scenario's task)")
    p.add_argument("--out", metavar="FILE", help="save the run record (JSON) here")
    p.add_argument("--save", action="store_true",
                   help="also keep the run in the lab's store (SCRATCHPAD_LAB_DB; see `scratchpad-lab runs`)")
    p.add_argument("--trace-out", metavar="FILE", help="save the run's trajectory as a trace file here")
    p.add_argument("--json", action="store_true", help="print the result as JSON")


def cli_json(events, scenario: Optional[str], error: Optional[str]) -> Dict[str, Any]:
    """The exact shape `run|replay --json` prints. `compressions` lists every compression event (a call that
    replaced nothing included, with its status); `figures` is the one figures row (figures.py), whose
    `compressions`, `summarizer_calls` and `failed_calls` every page and `runs list` show."""
    from scratchpad_lab.analysis.figures import figures  # only --json needs them: imported when asked (start-up)
    from scratchpad_lab.analysis.narrate import why_compressions, why_trims
    from scratchpad_lab.analysis.quality import annotate
    answer = final_answer(events)
    return {
        "iterations": sum(1 for e in events if e.kind == "iteration"),
        "figures": figures(events, scenario).to_dict(),
        "final_answer": answer,
        "error": error,
        "answer_score": answer_score(answer, scenario),
        "compressions": [
            {"iteration": c["iteration"], "reason": c["reason"], "status": c["status"], "before": c["before"],
             "after": c["after"], "before_tokens": c["before_tokens"], "after_tokens": c["after_tokens"],
             "latency_s": c["latency_s"], "facts_before": c["facts_before"], "facts_lost": c["facts_lost"],
             "flags": c["flags"], "lost_by_kind": c["lost_by_kind"], "health": c["health"],
             "pins_held": c["pins_held"], "pins_lost": c["pins_lost"],
             "error": c.get("error"), "why": why}
            for c, why in zip(annotate(events), why_compressions(events))
        ],
        "trims": [{"iteration": t["iteration"], "before_chars": t["before_chars"], "after_chars": t["after_chars"],
                   "why": why} for t, why in zip(trims(events), why_trims(events))],
    }


_LIGHT_COMMANDS = ("scenarios", "run", "replay", "fork", "sweep", "import")


def build_parser(command: Optional[str] = None) -> argparse.ArgumentParser:
    """The whole parser; given the `command` about to run, when that is one of the engine's own, the
    prompt-lab and strategies subcommands are registered by name only (their parsers import their
    engines, which such a command never needs: start-up time)."""
    parser = _Parser(argument_default=argparse.SUPPRESS, prog="scratchpad-lab", description="See what scratchpad compression does to an agent.")
    sub = parser.add_subparsers(dest="command", required=True,
                                parser_class=lambda **kw: _Parser(argument_default=argparse.SUPPRESS, **kw))
    sub.add_parser("scenarios", help="list the built-in scenarios")
    run = sub.add_parser("run", help="run a built-in scenario with the real agent and middleware")
    run.add_argument("--scenario", default="support-ticket")
    run.add_argument("--preset", type=_preset, metavar="NAME",
                     help="start from one of the sidebar's presets (data/presets.toml): "
                          f"{', '.join(repr(p.name) for p in _presets())}; a setting flag given too wins")
    _add_settings(run)
    replay = sub.add_parser("replay", help="replay a run record or trace file under new compression settings")
    replay.add_argument("file")
    _add_settings(replay)
    _add_work_limit(replay)
    from scratchpad_lab.cli.fork import add_parser as add_fork_parser  # cheap: the engine is imported when it runs
    add_fork_parser(sub, _summarize_every, _add_work_limit)
    sweep = sub.add_parser("sweep", help="replay one trajectory over a grid of the two middleware triggers")
    sweep.add_argument("file")
    sweep.add_argument("--summarize-every", type=_list_of(_summarize_every, "whole numbers or off"), default=[field_default("summarize_every")],
                       metavar="N,N|off,...",
                       help="up to 6 values (off: no periodic trigger; none is read too)")
    sweep.add_argument("--max-scratchpad-chars", type=_list_of(int, "whole numbers"), default=[field_default("max_scratchpad_chars")],
                       metavar="N,N,...",
                       help="up to 6 values")
    sweep.add_argument("--summarizer", choices=["extractive", "same-as-agent", "silent"],
                       help="silent: a stand-in that replies nothing, to see what a failing summarizer costs")
    sweep.add_argument("--agent-trim-chars", type=int, metavar="N")
    sweep.add_argument("--json", action="store_true", help="print one JSON row per setting")
    from scratchpad_lab.cli.import_trace import add_parser as add_import_parser  # cheap: no engine run
    add_import_parser(sub)
    _add_work_limit(sweep)
    add_executor_flags(sweep)
    if command in _LIGHT_COMMANDS:
        sub.add_parser("prompt-lab")
        sub.add_parser("strategies")
        sub.add_parser("recommend")
        sub.add_parser("lessons")
        sub.add_parser("runs")
        sub.add_parser("bench")
        return parser
    from scratchpad_lab.cli.prompt_lab import add_cli as add_prompt_lab
    add_prompt_lab(sub)
    from scratchpad_lab.cli.strategies import add_parser as add_strategies_parser  # cheap: no LangChain import
    add_strategies_parser(sub)
    from scratchpad_lab.cli.recommend import add_parser as add_recommend_parser  # cheap: no LangChain import
    add_recommend_parser(sub)
    from scratchpad_lab.cli.bench import add_parser as add_bench_parser  # cheap: no LangChain import
    add_bench_parser(sub)
    from scratchpad_lab.cli.lessons import add_parser as add_lessons_parser
    add_lessons_parser(sub)
    from scratchpad_lab.cli.runs import add_parser as add_runs_parser  # cheap: the store is imported when used
    add_runs_parser(sub)
    return parser


def _add_work_limit(p: argparse.ArgumentParser) -> None:
    from scratchpad_lab.engine.tasks import LIFT_FLAG  # cheap: no engine behind it
    p.add_argument(LIFT_FLAG, dest="no_work_limit", action="store_true",
                   help="run even if the job is over the lab's work limit (time, memory, model calls); "
                        "on your own machine only, never in hosted mode")


def _list_of(convert, what: str):
    def parse(text: str) -> list:
        try:
            values = [convert(v.strip()) for v in text.split(",") if v.strip()]
        except (ValueError, argparse.ArgumentTypeError):
            raise argparse.ArgumentTypeError(f"expected a comma-separated list of {what}, got {text!r}") from None
        if not values:
            raise argparse.ArgumentTypeError(f"expected a comma-separated list of {what}")
        return values
    return parse


def _sweep(args: argparse.Namespace) -> int:
    from scratchpad_lab.engine.tasks import Setting, SweepRequest, grid, sweep  # only sweep needs the sweep engine (start-up)
    from scratchpad_lab.analysis.figures import facts_kept_text, percent_or
    given = vars(args)
    extra = {k: given[k] for k in ("summarizer", "agent_trim_chars") if k in given}
    trim = {k: v for k, v in extra.items() if k == "agent_trim_chars"}
    settings = [Setting(**{**s.changes(), **trim}) for s in grid(args.summarize_every, args.max_scratchpad_chars)]
    for s in settings:  # refuse a bad value before the file is read or any replay starts
        RunConfig.build(**s.changes(), **{k: v for k, v in extra.items() if k == "summarizer"})
    loaded = load(args.file)
    found = replay_source(loaded)
    if "summarizer" in extra:  # the run's own summarizer (its budget, its prompt), of the kind asked for
        chosen = found.config.summarizer.but(kind=extra["summarizer"])
        settings = [Setting(**{**s.changes(), "summarizer": chosen}) for s in settings]
    _say_summarizer(found, extra)
    # the task refuses a job too big before any replay starts
    rows = sweep(SweepRequest(loaded, tuple(settings), lifted="no_work_limit" in given,
                             executor=executor_from_args(args))).run_here()
    if "json" in given:
        print(json.dumps(rows, ensure_ascii=False))
    else:
        for r in rows:
            print(f"every {every_text(r['summarize_every']):>4} / {r['max_scratchpad_chars']:>9,} chars: {r['compressions']:>3} compressions, "
                  f"{r['summarizer_calls']:>3} summarizer calls, saved {r['context_tokens_saved']:>9,} context tokens, "
                  f"summarizer {r['summarizer_tokens_in']:,} in / {r['summarizer_tokens_out']:,} out, "
                  f"facts kept {facts_kept_text(r['facts_retained'], r['compressions'] > 0)}, "
                  f"answer score {percent_or(r['answer_score'], 'none')}")
    return EXIT_OK


_FIELDS = {"summarize_every": "summarize_every", "max_scratchpad_chars": "max_scratchpad_chars",
           "agent_trim_chars": "agent_trim_chars", "max_tool_output_chars": "max_tool_output_chars",
           "max_iterations": "max_iterations", "summarizer": "summarizer",
           "extractive_budget": "extractive_budget_chars", "wall_clock": "wall_clock_s"}


def _overrides(args: argparse.Namespace) -> Dict[str, Any]:
    given = vars(args)
    out: Dict[str, Any] = dict(given["preset"].settings) if "preset" in given else {}
    if "preset" in given and given["preset"].pins:
        out["pins"] = list(given["preset"].pins)
    out.update({field: given[arg] for arg, field in _FIELDS.items() if arg in given})
    if "prompt_file" in given:
        try:
            text = Path(given["prompt_file"]).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read --prompt-file {given['prompt_file']}: {exc}") from None
        out["summarizer_prompt"] = validate_prompt_template(text)
    key_env, timeout = given.get("api_key_env", ""), given.get("timeout")
    if "agent_model" in given:
        out["agent_endpoint"] = endpoint_for(given["agent_model"], given.get("agent_base_url"), key_env, timeout)
    if "summarizer_model" in given:
        out["summarizer_endpoint"] = endpoint_for(given["summarizer_model"], given.get("summarizer_base_url"), key_env,
                                                  timeout)
        out["summarizer"] = "endpoint"
    if "task" in given:
        out["task"] = given["task"]
    if "pin" in given:
        out["pins"] = list(given["pin"])
    if "pins_to_summarizer" in given:
        out["pins_to_summarizer"] = True
    if "timeout" in given and "agent_model" not in given and "summarizer_model" not in given:
        raise UsageError("--timeout is for endpoint calls: it needs --agent-model or --summarizer-model")
    for flag in ("agent_base_url", "summarizer_base_url"):
        if flag in given and flag.replace("base_url", "model") not in given:
            raise UsageError(f"--{flag.replace('_', '-')} needs --{flag.replace('base_url', 'model').replace('_', '-')}")
    return out


def _run_job(args: argparse.Namespace):
    """The run or the replay, as the door's task builds it (a Run: run in place by the caller)."""
    from scratchpad_lab.engine.tasks import ReplayRequest, RunRequest, Source, replay, run

    overrides = _overrides(args)
    if args.command == "run":
        config = RunConfig.build(scenario=args.scenario, **overrides)
        return run(RunRequest(config, key_flags=vars(args),
                              name=f"{args.command} {Source.for_scenario(args.scenario).label}"))
    for flag in ("agent_model", "task"):
        if flag in vars(args):
            raise UsageError(f"replay holds the recorded steps fixed and never calls an agent model, so "
                              f"--{flag.replace('_', '-')} does not apply; use `run --agent-model` for a live run.")
    loaded = load(args.file)
    label = Path(args.file).name
    found = replay_source(loaded, label=label)
    _say_summarizer(found, overrides)
    # the task refuses a replay over the work limit before it starts
    return replay(ReplayRequest(loaded, label, overrides, vars(args), f"{args.command} {found.source.label}",
                                lifted="no_work_limit" in vars(args)))


def _say_summarizer(replay: Replay, chosen: Dict[str, Any]) -> None:
    """On stderr: the file named a summarizer model that this replay will not call."""
    notice = summarizer_notice(replay)
    if notice and "summarizer" not in chosen:
        print(f"scratchpad-lab: {notice}", file=sys.stderr)


def summarizer_failures(record: RunRecord) -> Optional[str]:
    """One stderr line when summarizer calls failed (figures.failed_call, the rule the page's banner reads: it
    replied nothing or raised; a proposal you rejected is not a failure): how many, where, and why."""
    from scratchpad_lab.analysis.figures import compression_counts, failed_call_events
    failed = [e.payload for e in failed_call_events(record.events)]
    if not failed:
        return None
    _, calls, _ = compression_counts(record.events)
    config = record.config
    endpoint = {"endpoint": config.summarizer.endpoint, "same-as-agent": config.agent_endpoint}.get(
        config.summarizer.kind)
    where = f" (summarizer at {endpoint.url})" if endpoint is not None else ""
    last = failed[-1]
    why = last.error if last.status == "error" else "the summarizer replied nothing"
    return (f"scratchpad-lab: warning: {len(failed)} of {calls} summarizer calls failed{where}; the "
            f"scratchpad was left as it was. Last error: {why}")


def main(argv: Optional[List[str]] = None) -> int:
    # The middleware logs each failed or empty summary; the run records them as compression events.
    logging.getLogger("autourgos_summarizer").setLevel(logging.ERROR)
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        args = build_parser(argv[0] if argv else None).parse_args(argv)
        if args.command == "scenarios":
            for sc in list_scenarios():
                print(f"{sc.name:<16} {sc.title}: {sc.description}")
            return EXIT_OK
        if args.command == "sweep":
            return _sweep(args)
        if args.command == "fork":
            from scratchpad_lab.cli.fork import run as fork_command
            return fork_command(args)
        if args.command == "import":
            from scratchpad_lab.cli.import_trace import run as import_command
            return import_command(args)
        if args.command == "prompt-lab":
            from scratchpad_lab.cli.prompt_lab import run_cli as prompt_lab
            return prompt_lab(args)
        if args.command == "strategies":
            from scratchpad_lab.cli.strategies import run as run_strategies_command
            return run_strategies_command(args)
        if args.command == "recommend":
            from scratchpad_lab.cli.recommend import run as run_recommend_command
            return run_recommend_command(args)
        if args.command == "bench":
            from scratchpad_lab.cli.bench import run as bench_command
            return bench_command(args)
        if args.command == "runs":
            from scratchpad_lab.cli.runs import run as runs_command
            return runs_command(args)
        if args.command == "lessons":
            from scratchpad_lab.cli.lessons import run as lessons_command
            return lessons_command(args)
        for name in ("out", "trace_out"):  # their folders made, or refused, before the run starts
            if name in args:
                prepare(getattr(args, name), "--" + name.replace("_", "-"))
        job = _run_job(args)
        config = job.config
        record = job.run_here()
    except LabError as exc:  # the one edge: anything else is a bug and keeps its traceback
        print(f"scratchpad-lab: error: {exc.sentence}", file=sys.stderr)
        return EXIT_USAGE
    try:
        if "out" in args:
            write_text(args.out, record.to_json(), "--out")
        if "trace_out" in args and record.trace is not None:
            write_text(args.trace_out, json.dumps(record.trace.to_dict(), ensure_ascii=False, indent=1), "--trace-out")
    except LabError as exc:
        print(f"scratchpad-lab: error: {exc.sentence}", file=sys.stderr)
        return EXIT_USAGE
    if "save" in args:
        from scratchpad_lab.cli.runs import save
        from scratchpad_lab.engine.tasks import StoreError
        try:
            save(record, keys=cli_keys(config, vars(args)))
        except StoreError as exc:  # the run happened: --out and --trace-out were written above
            print(f"scratchpad-lab: error: the run was not stored: {exc}", file=sys.stderr)
            return EXIT_USAGE
    try:
        if "json" in args:
            print(json.dumps(cli_json(record.events, record.scenario, record.error), ensure_ascii=False))
        else:
            print(describe_record(record))
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into `head`: the reader left, which is not an error of the run
        sys.stdout = None
    if record.outcome != "answered":
        print(f"scratchpad-lab: {record.outcome}: {record.error}", file=sys.stderr)
    failed = summarizer_failures(record)
    if failed:
        print(failed, file=sys.stderr)
    return EXIT_OK if record.outcome == "answered" else EXIT_NO_ANSWER


