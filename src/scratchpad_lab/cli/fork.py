"""`scratchpad-lab fork RUN_OR_TRACE --at ITERATION [--skip] [--summarize-every N|off] [--max-scratchpad-chars N]`:
"What if..." from a terminal, by the same task the Playground and the Runs page call (engine/tasks/fork_tasks.py).

Streamlit-free. A trace is forked from its replay with the package defaults (the run the Runs page shows for
it). It prints the fork and the two runs side by side from the fork point on, and, for a parent summarized by a
model, that the fork gives back the parent's summaries up to its first summarizer call of its own (--json: the
fork as `replay --json` prints a run, with `forked_from`, `comparison` and `notice`); --out saves the fork's
record, --save stores it. A refused fork (no compression there, past the end, a file that is no run) is one
line on stderr, exit 2.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

EXIT_OK, EXIT_NO_ANSWER, EXIT_USAGE = 0, 1, 2
TRACE_PARENT = "trace replayed with the package defaults"  # the Runs page's name for it (runs_page.TRACE_REPLAY_NAME)


def add_parser(sub, summarize_every, add_work_limit) -> None:
    p = sub.add_parser("fork", help="what if a compression had not happened: replay a run from one of its "
                                    "compressions with it skipped, or with other triggers from there",
                       epilog="Up to its first summarizer call whose input differs from the run's, the fork gives "
                              "back the run's own recorded summaries (no call is made); from there the summarizer a "
                              "replay uses writes them: the offline extractive one for a run summarized by a model, "
                              "which is then said under the comparison.")
    p.add_argument("file", metavar="RUN_OR_TRACE", help="a run record or a trace (or any file `import` reads)")
    p.add_argument("--at", type=int, required=True, metavar="ITERATION",
                   help="the iteration of the compression to fork at (`replay` and `runs show` list them)")
    p.add_argument("--skip", action="store_true", help="skip that compression (the default when no setting is given)")
    p.add_argument("--summarize-every", type=summarize_every, metavar="N|off",
                   help="the middleware's periodic trigger from that iteration on (off: none)")
    p.add_argument("--max-scratchpad-chars", type=int, metavar="N",
                   help="the middleware's size trigger from that iteration on")
    p.add_argument("--out", metavar="FILE", help="save the fork's run record (JSON) here")
    p.add_argument("--save", action="store_true", help="also keep the fork in the lab's store (see `scratchpad-lab runs`)")
    p.add_argument("--json", action="store_true", help="print the fork, the comparison and the notice as JSON")
    add_work_limit(p)


def fork_json(forked, scenario) -> dict:
    """The exact shape `fork --json` prints: the fork as `replay --json` prints a run, where it forked from,
    and the comparison from the fork point on (analysis/forks.py: the one figures row over both), and the notice
    (None, or whose summaries the fork shows: the parent's, given back, then its own summarizer's)."""
    from scratchpad_lab.cli import cli_json
    record = forked.record
    return {**cli_json(record.events, scenario, record.error), "forked_from": record.forked_from,
            "comparison": forked.comparison.to_dict(), "notice": forked.notice}


def comparison_lines(forked) -> str:
    from scratchpad_lab.analysis.forks import difference_text  # reads facts: imported when asked (start-up)
    c = forked.comparison
    rows = [("compressions", lambda f: f"{f.compressions}"),
            ("summarizer calls", lambda f: f"{f.summarizer_calls}"),
            ("peak context tokens", lambda f: f"{f.peak_tokens:,}"),
            ("context tokens sent", lambda f: f"{f.context_tokens:,}"),
            ("facts kept", lambda f: f.facts_kept_text)]
    if c.fork.pins:
        rows.append(("pins kept", lambda f: f.pins_kept_text))
    lines = [f"from iteration {c.at} on:{'':<12}{'original':>20}{'fork':>20}"]
    lines += [f"  {label:<32}{show(c.original):>20}{show(c.fork):>20}" for label, show in rows]
    lines.append(difference_text(c))
    if forked.notice:  # whose summaries the fork shows, when the parent's were a model's (engine/run/forking.py)
        lines.append(forked.notice)
    return "\n".join(lines)


def run(args) -> int:
    from scratchpad_lab.cli.describe import describe_record
    from scratchpad_lab.cli.import_trace import load
    from scratchpad_lab.cli.output import prepare, write_text
    from scratchpad_lab.engine.tasks import ForkRequest, TraceReplayRequest, fork, replay_trace
    from scratchpad_lab.model.records import RunRecord

    given = vars(args)
    changes = {k: given[k] for k in ("summarize_every", "max_scratchpad_chars") if k in given}
    if "out" in given:  # its folder made, or refused, before the fork runs
        prepare(args.out, "--out")
    loaded = load(args.file)
    label = Path(args.file).name
    parent = loaded if isinstance(loaded, RunRecord) else \
        replay_trace(TraceReplayRequest(loaded, TRACE_PARENT, label)).run_here()
    forked = fork(ForkRequest(parent, args.at, skip="skip" in given or not changes, changes=changes,
                              parent_name=label, lifted="no_work_limit" in given)).run_here()
    record = forked.record
    if "out" in given:
        write_text(args.out, record.to_json(), "--out")  # a UsageError: one line at cli.main's edge
    if "save" in given:
        from scratchpad_lab.cli.runs import save
        from scratchpad_lab.engine.tasks import StoreError
        try:
            save(record, name=record.name)
        except StoreError as exc:
            print(f"scratchpad-lab: error: the fork was not stored: {exc}", file=sys.stderr)
            return EXIT_USAGE
    if "json" in given:
        print(json.dumps(fork_json(forked, record.scenario), ensure_ascii=False))
    else:
        origin = record.forked_from
        said = ", ".join(f"{k} {'off' if v is None else v}" for k, v in changes.items())
        print(f"a fork of {origin['parent_name']} at iteration {origin['iteration']}: "
              + "; ".join(([] if not origin["skipped"] else ["that compression skipped"])
                          + ([said + " from there on"] if said else [])))
        print(describe_record(record))
        print(comparison_lines(forked))
    return EXIT_OK if record.outcome == "answered" else EXIT_NO_ANSWER
