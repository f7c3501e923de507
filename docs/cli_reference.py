"""The guide's CLI reference, written from the argument parsers themselves so it cannot drift.

    python docs/cli_reference.py          # writes docs/cli.md
    python docs/cli_reference.py --check  # exit 1 if docs/cli.md is not what the parsers give now

`render()` walks `scratchpad_lab.cli.build_parser()` (every subcommand registered) and prints each
command's own `--help`, at a fixed width, in the order the parser lists them; tests/test_docs.py checks
that the committed page equals `render()`.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Iterator, Tuple

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "cli.md"
WIDTH = "100"

HEAD = """# CLI reference

The quick start's `.venv/bin/pip install -r requirements.txt` installs the `scratchpad-lab` command
(`.venv/bin/scratchpad-lab`, or `scratchpad-lab` once `. .venv/bin/activate` has run); it drives the same
engine as the pages, without a browser. This page is each command's own `--help`, written by
`python docs/cli_reference.py` from the argument parsers (a test checks it is current).

**Exit codes.** 0: the agent answered (for `run` and `replay`), or the command did what it was asked;
1: a run ended without an answer (stopped, the wall-clock cap, max iterations, an error: stderr says
which), or no prompt-lab cell could run; 2: a bad argument or a bad file, said in one line on stderr
(`scratchpad-lab: error: ...`), never a traceback; 130: `bench` was stopped with Ctrl-C (what finished
is printed, marked as stopped).

**Output.** Every `--json` prints exactly one JSON document on stdout (an object for one run or one
`recommend` search, an array for a list: `sweep`, `strategies`, `prompt-lab`, `runs list`), never JSON Lines, so
`json.load` or `jq` reads it whole; `--json` prints only JSON on stdout; what an import did, each step's problem in a trace and
a summarizer that failed go to stderr, one line each, so a pipe gets clean JSON.

**Files.** `--out`, `--trace-out` and `--html` make the folders before the file as `mkdir -p` does
(`--out out/my-run.json` needs no `mkdir out`); a path that cannot be written (a file where a folder
should be, a folder you may not write to) is refused in one line naming the flag, before the work starts.
"""


def _subcommands(parser: argparse.ArgumentParser) -> Iterator[Tuple[str, str, argparse.ArgumentParser]]:
    """(the command's words, its one-line help as its parent lists it, its parser), depth first."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield name, helps.get(name, ""), sub
                for inner, about, subsub in _subcommands(sub):
                    yield f"{name} {inner}", about, subsub


def render() -> str:
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH  # argparse wraps help at the terminal's width: fix it
    try:
        from scratchpad_lab.cli import build_parser

        parser = build_parser()
        parts = [HEAD, "## scratchpad-lab\n", "```text\n" + parser.format_help().rstrip() + "\n```\n"]
        for name, about, sub in _subcommands(parser):
            parts.append(f"## scratchpad-lab {name}\n")
            if about:
                parts.append(about[0].upper() + about[1:] + ".\n")
            parts.append("```text\n" + sub.format_help().rstrip() + "\n```\n")
        return "\n".join(parts)
    finally:
        if saved is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = saved


if __name__ == "__main__":
    text = render()
    if sys.argv[1:] == ["--check"]:
        current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
        if current != text:
            raise SystemExit(f"{PAGE.relative_to(REPO)} is out of date: run python docs/cli_reference.py")
    else:
        PAGE.write_text(text, encoding="utf-8")
        print(f"wrote {PAGE.relative_to(REPO)}")
