"""`scratchpad-lab runs list|show|export|delete`: the lab's store from a terminal (the same store the app uses:
SCRATCHPAD_LAB_DB, else ~/.local/share/scratchpad-lab/lab.db).

Streamlit-free. cli/__init__.py registers the subparser (`add_parser`) and calls `run(args)`; `save(record)` is
what `run --save`, `replay --save` and `import --save` call. A store that cannot be used is one line on stderr (exit 2).
"""
from __future__ import annotations

import json
import sys

EXIT_OK, EXIT_USAGE = 0, 2


def add_parser(sub) -> None:
    p = sub.add_parser("runs", help="list, show, export or delete the runs in the lab's store (SCRATCHPAD_LAB_DB)")
    what = p.add_subparsers(dest="runs_command", required=True)
    listing = what.add_parser("list", help="stored runs, newest first")
    listing.add_argument("--search", default="", metavar="WORDS", help="words in the name, scenario, strategy or prompt")
    listing.add_argument("--all", action="store_true", help="every visitor's runs too (a hosted store)")
    listing.add_argument("--limit", type=int, default=100, metavar="N")
    listing.add_argument("--json", action="store_true", help="one JSON array, with an object per run")
    show = what.add_parser("show", help="one stored run: what it is and what compression did")
    show.add_argument("id")
    export = what.add_parser("export", help="a stored run as its JSON file (loadable by `replay` and the Runs page)")
    export.add_argument("id")
    export.add_argument("--out", metavar="FILE", help="write it here instead of standard output")
    remove = what.add_parser("delete", help="delete stored runs")
    remove.add_argument("id", nargs="+")


def save(loaded, keys=(), name: str = "") -> str:
    """Store a finished run or an imported trace (the CLI is the store's one local user); one stderr line
    says where. StoreError propagates to the caller, which says it and exits 2."""
    from scratchpad_lab.engine.tasks import Store, secret_values
    store = Store()
    saved = store.save_run(loaded, name=name,
                           keys=secret_values([getattr(loaded, "config", None)], dict(keys or {})))
    print(f"scratchpad-lab: stored as {saved.id} in {store.where} (scratchpad-lab runs show {saved.id})",
          file=sys.stderr)
    notice = saved.notice()
    if notice:
        print(f"scratchpad-lab: {notice}", file=sys.stderr)
    return saved.id


def run(args) -> int:
    from scratchpad_lab.engine.tasks import Store, StoreError
    try:
        store = Store()
        command = args.runs_command
        if command == "list":
            rows = store.list_runs(None if args.all else "", args.search, max(1, args.limit))
            if args.json:  # one JSON document, as every --json prints (docs/cli.md)
                print(json.dumps([{"id": r.id, "stored": r.stored_at, "kind": r.kind, "name": r.name,
                                   "scenario": r.scenario, "strategy": r.strategy, "prompt": r.prompt,
                                   "outcome": r.outcome, "iterations": r.iterations,
                                   "compressions": r.compressions, "summarizer_calls": r.summarizer_calls,
                                   "failed_calls": r.failed_calls, "bytes": r.size_bytes} for r in rows],
                                 ensure_ascii=False))
            elif not rows:
                print(f"No stored runs{' match' if args.search.strip() else ''} in {store.where}.", file=sys.stderr)
            for r in rows if not args.json else []:
                print(f"{r.id}  {r.stored_at}  {r.kind:<5}  {r.outcome or '-':<9} {r.iterations:>4} it "
                      f"{r.compressions:>3} comp {r.failed_calls:>3} failed  {r.scenario or '-':<16} {r.prompt:<16} "
                      f"{r.name}")
            return EXIT_OK
        if command == "show":
            return _show(store, args.id)
        if command == "export":
            text = store.export(args.id)
            if getattr(args, "out", None):
                from scratchpad_lab.cli.output import write_text
                write_text(args.out, text, "--out")  # a UsageError: one line at cli.main's edge
                print(f"scratchpad-lab: wrote run {args.id} to {args.out} ({len(text.encode('utf-8')):,} bytes; "
                      f"scratchpad-lab replay {args.out} replays it)", file=sys.stderr)
            else:
                print(text)
            return EXIT_OK
        count = store.delete(args.id, owner=None)
        print(f"scratchpad-lab: deleted {count} run{'s' if count != 1 else ''}.", file=sys.stderr)
        return EXIT_OK
    except StoreError as exc:
        print(f"scratchpad-lab: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _show(store, run_id: str) -> int:
    from scratchpad_lab.model.records import RunRecord
    summary = store.summary(run_id)
    loaded = store.load(run_id)
    print(f"id: {summary.id}\nstored: {summary.stored_at}\nkind: {summary.kind}\nname: {summary.name}\n"
          f"scenario: {summary.scenario or '-'}\nstrategy: {summary.strategy}\nprompt: {summary.prompt or '-'}\n"
          f"size: {summary.size_bytes:,} bytes")
    if isinstance(loaded, RunRecord):
        from scratchpad_lab.cli.describe import describe_record  # the same lines `run` and `replay` print
        print(describe_record(loaded))
    else:
        print(f"a trace of {len(loaded.steps)} steps with {len(loaded.tools)} tools; task: {loaded.task}")
    return EXIT_OK
