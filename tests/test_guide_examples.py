"""The README's and the guide's examples write their files where a user expects: run as written from the
repository's root, page after page, they leave no file in the root and none inside the repository's own folders;
what they write goes into a folder they make (`out/`, `my-lessons/`). Before this was checked, the README's and
the guide's examples left ten files in the root (my-run.json, my-trace.json, report.html, t.json, ...).

The commands are the ones tests/test_docs_commands.py reads from every page (its parser: the ```bash lines and the
```python examples; the same file steps, mkdir, printf, sed, ..., through bash), so a new example is covered by
itself; that file checks how each exits, this one where its files land. They run in one temporary working copy of
the repository (sample_runs/ and src/ copied, not linked, so a file written into them shows), in page order as a
reader follows the guide, and every file that appears is traced to the command that wrote it. No page is let off:
the last three that wrote into the root (runs.md's my-run.json and my-trace.json, benchmark.md's report.html) write
into out/ now, which `--out` and `--html` make when it is not there (tests/test_cli_output.py).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Set, Tuple

import test_docs_commands as guide
from scratchpad_lab.cli import main

ROOT = Path(__file__).resolve().parents[1]
COPIED = ("sample_runs", "src")  # what the examples read; copied, so a write into them is seen
# Left out: the study commands that only print (no --out, --html or redirect), 3-13 s each here: the slowest
# examples, and test_docs_commands runs every one of them. A study command that writes a file is run.
PRINT_ONLY_STUDIES = ("sweep", "strategies", "recommend", "bench")
WRITES = ("--out", "--trace-out", "--html", ">")


def _left_out(command: "guide.Command") -> bool:
    if command.needs_a_model:  # no endpoint here (test_docs_commands leaves them out for the same reason)
        return True
    argv = command.argv
    return (command.is_lab and len(argv) > 1 and argv[1] in PRINT_ONLY_STUDIES
            and not any(word.startswith(WRITES) for word in command.words))


def _runs(command: "guide.Command") -> bool:
    steps = bool(command.argv) and command.argv[0] in guide.FILE_STEPS and not command.env
    return (command.is_lab or command.python or steps) and not _left_out(command)


def _files(root: Path) -> Set[Path]:
    return {p.relative_to(root) for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def _run(command: "guide.Command", checkout: Path, monkeypatch, capsys) -> None:
    where = f"{command.page}:{command.line}: {command.text}"
    if command.is_lab:
        with monkeypatch.context() as scoped:
            for name, value in command.env.items():
                scoped.setenv(name, value.replace("$PWD", str(checkout)))
            code = main(command.argv[1:])
        err = capsys.readouterr().err
        assert code == command.expected_exit, f"{where}\nexit {code}\n{err[-2000:]}"
        return
    if command.python:
        done = subprocess.run([sys.executable, "-c", command.text], cwd=checkout, capture_output=True, text=True,
                              timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    else:
        done = subprocess.run(["bash", "-c", command.text], cwd=checkout, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"{where}\n{done.stderr[-2000:]}"


def test_the_pages_examples_write_no_file_into_the_repository_root_or_its_folders(tmp_path, monkeypatch, capsys):
    checkout = tmp_path / "scratchpad-lab"
    for name in COPIED:
        shutil.copytree(ROOT / name, checkout / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    monkeypatch.chdir(checkout)
    seen = _files(checkout)
    shipped = {path: (checkout / path).read_bytes() for path in seen}
    misplaced: List[Tuple[str, str]] = []
    ran = 0
    for page in guide.PAGES:
        for command in guide.ALL[page.name]:
            if not _runs(command):
                continue
            _run(command, checkout, monkeypatch, capsys)
            ran += 1
            new = _files(checkout) - seen
            seen |= new
            misplaced += [(f"{command.page}:{command.line}: {command.text}", str(path)) for path in sorted(new)
                          if len(path.parts) == 1 or path.parts[0] in COPIED]
    assert ran >= 30, ran
    assert not misplaced, "these examples write into the repository's root or its own folders:\n" + "\n".join(
        f"{where}\n    wrote {path}" for where, path in misplaced)
    changed = [str(path) for path, data in shipped.items() if (checkout / path).read_bytes() != data]
    assert not changed, f"the examples changed the repository's own files: {changed}"
    # and the examples did write files: into folders of their own
    assert {p.parts[0] for p in seen if len(p.parts) > 1 and p.parts[0] not in COPIED} >= {"out"}


def test_only_print_only_studies_are_left_out():
    """What is left out writes no file: no option that names one, no redirect."""
    left = [c for cs in guide.ALL.values() for c in cs if c.is_lab and _left_out(c) and not c.needs_a_model]
    assert left, "nothing is left out: drop PRINT_ONLY_STUDIES"
    assert all(not any(w.startswith(WRITES) for w in c.words) for c in left), [c.text for c in left]
