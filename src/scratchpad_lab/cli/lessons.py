"""`scratchpad-lab lessons list` and `scratchpad-lab lessons check FILE [--run]`.

Streamlit-free. cli/__init__.py registers the subparser (`add_parser`) and calls `run(args)`. `list` shows
every lesson the Lessons page offers (the shipped ones, then those of the folder SCRATCHPAD_LAB_LESSONS_DIR
names) with where each comes from; an extra file that cannot be read is named on stderr. `check` reads one
lesson file with the page's own schema: one line `OK: ...` and exit 0, or one line naming the file, the
field and what to change, and exit 2. With `--run` it also runs the lesson offline (the scripted agent,
no pacing) and checks that every moment happens, in order, each on its own iteration.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXIT_OK = 0


def add_parser(sub) -> None:
    p = sub.add_parser("lessons", help="list the Lessons page's lessons, or check a lesson file")
    lessons = p.add_subparsers(dest="lessons_command", required=True, metavar="{list,check}")
    lessons.add_parser("list", help="every lesson: number, id, title and where it comes from")
    check = lessons.add_parser("check", help="check a lesson file (TOML) as the Lessons page reads it")
    check.add_argument("file", help="a lesson file, e.g. a copy of a shipped one")
    check.add_argument("--run", action="store_true",
                       help="also run it offline and check that each moment happens, in order")


def _list() -> int:
    from scratchpad_lab.engine.tasks import LESSONS_DIR_ENV, catalogue
    found = catalogue()
    for item in found.lessons:
        where = "shipped" if item.origin == "shipped" else f"{LESSONS_DIR_ENV}: {item.source}"
        print(f"{item.number:>2}  {item.slug:<16} {item.title:<40} {where}")
    for problem in found.problems:
        print(f"scratchpad-lab: skipped: {problem}", file=sys.stderr)
    return EXIT_OK


def _check(path: str, run: bool) -> int:
    from scratchpad_lab.engine.tasks import read_lesson
    item = read_lesson(path)
    line = f"OK: {path}: lesson \"{item.title}\" ({item.scenario}, {len(item.pauses)} " \
           f"pause{'s' if len(item.pauses) != 1 else ''})"
    if run:
        line += _run(Path(path), item)
    print(line)
    return EXIT_OK


def _run(path: Path, item) -> str:
    from scratchpad_lab.engine.tasks import RunRequest, find_moment, run
    from scratchpad_lab.model.datafile import DataFileError
    record = run(RunRequest(item.config(step_delay_s=0.0))).run_here()
    iterations = []
    for index, point in enumerate(item.pauses):
        moment = find_moment(item, index, record.events)
        field = f"pauses[{index + 1}].moment"
        if moment is None:
            raise DataFileError(path, field, f"the run never reaches {point.name!r}; change the settings or "
                                             "the moment.")
        if iterations and moment.iteration <= iterations[-1]:
            raise DataFileError(path, field, f"{point.name!r} is at iteration {moment.iteration}, not after the "
                                             f"pause before it (iteration {iterations[-1]}); a lesson pauses in "
                                             "order and once per iteration: remove one or pick another moment.")
        iterations.append(moment.iteration)
    total = sum(1 for e in record.events if e.kind == "iteration")
    return f"; run offline: pauses at iteration{'s' if len(iterations) != 1 else ''} " \
           f"{', '.join(map(str, iterations))} of {total}"


def run(args: argparse.Namespace) -> int:
    if args.lessons_command == "list":
        return _list()
    return _check(args.file, getattr(args, "run", False))
