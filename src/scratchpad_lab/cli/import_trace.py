"""`scratchpad-lab import FILE [--format auto|...] [--task TEXT] [--conversation N] [--out TRACE.json] [--save]`, and
how every command that takes a file loads it (`load`): through the engine's one loader, with what was
imported and each step's problem said on stderr, so `--json` output stays clean.

Streamlit-free. cli/__init__.py registers the subparser (`add_parser`) and calls `run(args)`.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional, Union

from scratchpad_lab.cli.output import prepare, write_text
from scratchpad_lab.engine.tasks import FORMATS, ImportRequest, Loaded, import_file, importer_names, trace_json
from scratchpad_lab.model.records import RunRecord
from scratchpad_lab.model.trace import RecordError, Trace

EXIT_OK, EXIT_USAGE = 0, 2


def say(loaded: Loaded, report: bool = True) -> None:
    """The import report (unless `report` is False) and each step's problem, one line each on stderr."""
    if report and loaded.report is not None:
        print(f"scratchpad-lab: imported: {loaded.report.text()}", file=sys.stderr)
    for warning in loaded.warnings:
        print(f"scratchpad-lab: warning: {warning}", file=sys.stderr)


def load(path: Union[str, Path]) -> Union[RunRecord, Trace]:
    """A file as `replay`, `sweep`, `strategies` and `prompt-lab` take it: any format the lab reads."""
    loaded = import_file(ImportRequest(str(path))).run_here()
    say(loaded)
    return loaded.item


def add_parser(sub) -> None:
    formats = FORMATS[:1] + tuple(importer_names()) + FORMATS[1:]
    p = sub.add_parser("import", help="make the lab's trace from another tool's run file "
                                      f"({', '.join(importer_names())})")
    p.add_argument("file", help="an autourgos-agent history JSON, OpenAI chat messages (JSON or JSON Lines), "
                                "LangChain messages, or a scratchpad-lab trace or run record")
    p.add_argument("--format", choices=formats, default="auto", help="the file's format (default: detect it)")
    p.add_argument("--task", metavar="TEXT", help="the task, for a file that does not record it (an autourgos "
                                                   "history writes its query as [REDACTED: length=N])")
    p.add_argument("--conversation", type=int, default=1, metavar="N",
                   help="which conversation of a file that holds several (default: the first)")
    p.add_argument("--out", metavar="TRACE.json", help="write the trace here")
    p.add_argument("--save", action="store_true",
                   help="keep the trace in the lab's store, listed on the Runs page (SCRATCHPAD_LAB_DB; see "
                        "`scratchpad-lab runs`); --out, --save or both")


def _ask_task(path: str) -> Optional[str]:
    """On a terminal, ask for the task a history file did not record; elsewhere, None (the report says so)."""
    if not sys.stdin.isatty():
        return None
    try:
        answer = input(f"{path} does not record its task. Type it (or press Enter to keep the placeholder): ")
    except EOFError:
        return None
    return answer.strip() or None


def run(args: argparse.Namespace) -> int:
    out, keep = getattr(args, "out", None), getattr(args, "save", False)  # the parser leaves unset flags out
    if not out and not keep:
        print("scratchpad-lab: error: say where the trace goes: --out TRACE.json (a file), --save (the lab's "
              "store), or both", file=sys.stderr)
        return EXIT_USAGE
    if out:  # its folder made, or refused, before the file is read
        prepare(out, "--out")
    task = getattr(args, "task", None)
    loaded = import_file(ImportRequest(args.file, format=args.format, task=task,
                                       conversation=args.conversation)).run_here()
    if task is None and loaded.report is not None and loaded.report.task_missing:
        asked = _ask_task(args.file)
        if asked:
            loaded = import_file(ImportRequest(args.file, format=args.format, task=asked,
                                               conversation=args.conversation)).run_here()
    say(loaded, report=False)  # the report is this command's output
    item = loaded.item
    if isinstance(item, RunRecord):
        if item.trace is None:
            raise RecordError(f"{args.file} is a run record with no recorded trajectory (no embedded trace).")
        trace = item.trace
        print(f"scratchpad-lab: {args.file} is a run record: its embedded trace is written", file=sys.stderr)
    else:
        trace = item
    if out:
        write_text(out, trace_json(trace), "--out")  # a UsageError: one line at cli.main's edge
        print(f"wrote {out}: {len(trace.steps)} steps, {len(trace.tools)} tools")
    code = EXIT_OK
    if keep:
        from scratchpad_lab.cli.runs import save
        from scratchpad_lab.engine.tasks import StoreError
        try:
            stored = save(trace, name=Path(args.file).name)
            print(f"stored {stored}: {len(trace.steps)} steps, {len(trace.tools)} tools")
        except StoreError as exc:  # a written --out stays written
            print(f"scratchpad-lab: error: the trace was not stored: {exc}", file=sys.stderr)
            code = EXIT_USAGE
    if loaded.report is not None:
        print(f"imported: {loaded.report.text()}")
    return code
