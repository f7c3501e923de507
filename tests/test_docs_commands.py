"""Every `scratchpad-lab` command the README and the guide show runs, on the shipped samples, and exits as
the page says (0 unless a `# exit N` comment says otherwise).

Commands are read from the pages' ```bash blocks, a line at a time (a trailing backslash joins the next
line), in page order, in a fresh folder per page that holds `sample_runs/` and `src/` (links to the
repository's) and whatever the page's earlier commands wrote there. Of the other lines, the simple file
steps a page shows (mkdir, sed, printf, cp, cat, echo, rm) are run too, through bash, so a worked example
runs as written; anything else (streamlit, pip, bash .ci/run, ollama, ...) starts a server or installs,
and is not run here. A command that needs a real model endpoint or key is marked `# needs a model` in
the page, and skipped; there are few. A `syntax` block (```text) is never run. A ```python block is a whole
example: it is run as written, in its place in the page's order (with the repository's `src` on the path), so
a file it writes is there for the commands after it.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

import pytest

from scratchpad_lab.cli import main

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
FILE_STEPS = {"mkdir", "sed", "printf", "cp", "cat", "echo", "rm"}
NEEDS_A_MODEL = "# needs a model"
ASSIGNMENT = re.compile(r"[A-Z_][A-Z0-9_]*=\S*")
BLOCK = re.compile(r"^```(bash|python)\n(.*?)^```", re.S | re.M)


@dataclass
class Command:
    page: str
    line: int
    text: str
    python: bool = False  # a whole ```python example, run as one program

    @property
    def words(self) -> List[str]:
        return [] if self.python else shlex.split(self.text, comments=True)

    @property
    def env(self) -> dict:
        out = {}
        for word in self.words:
            if not ASSIGNMENT.fullmatch(word):
                break
            name, _, value = word.partition("=")
            out[name] = value
        return out

    @property
    def argv(self) -> List[str]:
        return self.words[len(self.env):]

    @property
    def is_lab(self) -> bool:
        return bool(self.argv) and self.argv[0] == "scratchpad-lab"

    @property
    def needs_a_model(self) -> bool:
        return NEEDS_A_MODEL in self.text

    @property
    def expected_exit(self) -> int:
        found = re.search(r"#.*\bexit (\d)\b", self.text)
        return int(found.group(1)) if found else 0


def commands(page: Path) -> List[Command]:
    text = page.read_text(encoding="utf-8")
    out: List[Command] = []
    for block in BLOCK.finditer(text):
        first_line = text[:block.start(2)].count("\n") + 1
        if block.group(1) == "python":
            out.append(Command(page.name, first_line, block.group(2), python=True))
            continue
        pending: Optional[Command] = None
        for offset, raw in enumerate(block.group(2).splitlines()):
            line = raw.rstrip()
            if pending is None:
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                pending = Command(page.name, first_line + offset, "")
            pending.text += (" " if pending.text else "") + line.rstrip("\\").strip()
            if not line.endswith("\\"):
                out.append(pending)
                pending = None
    return out


ALL = {page.name: commands(page) for page in PAGES}


def test_the_pages_show_enough_commands_and_few_need_a_model():
    lab = [c for cs in ALL.values() for c in cs if c.is_lab]
    assert len(lab) >= 30, [c.text for c in lab]
    marked = [c for c in lab if c.needs_a_model]
    assert 1 <= len(marked) <= 6, [f"{c.page}:{c.line}" for c in marked]
    assert {"README.md", "playground.md", "runs.md", "compare.md", "prompt-lab.md", "strategies.md",
            "lessons.md", "traces.md"} <= {c.page for c in lab}


@pytest.mark.parametrize("page", [p for p, cs in ALL.items() if any((c.is_lab and not c.needs_a_model) or c.python
                                                                    for c in cs)])
def test_every_command_a_page_shows_exits_as_it_says(page, tmp_path, monkeypatch, capsys):
    (tmp_path / "sample_runs").symlink_to(ROOT / "sample_runs", target_is_directory=True)
    (tmp_path / "src").symlink_to(ROOT / "src", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    ran = 0
    for command in ALL[page]:
        where = f"{command.page}:{command.line}: {command.text}"
        if command.is_lab and not command.needs_a_model:
            with monkeypatch.context() as scoped:
                for name, value in command.env.items():
                    scoped.setenv(name, value.replace("$PWD", str(tmp_path)))
                code = main(command.argv[1:])
            out, err = capsys.readouterr()
            assert code == command.expected_exit, f"{where}\nexit {code}\n{err[-2000:]}"
            ran += 1
        elif command.python:
            done = subprocess.run([sys.executable, "-c", command.text], cwd=tmp_path, capture_output=True, text=True,
                                  timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
            assert done.returncode == 0, f"{command.page}:{command.line}: the python example fails\n{done.stderr[-2000:]}"
            ran += 1
        elif command.argv and command.argv[0] in FILE_STEPS and not command.env:
            done = subprocess.run(["bash", "-c", command.text], cwd=tmp_path, capture_output=True, text=True,
                                  timeout=60)
            assert done.returncode == 0, f"{where}\n{done.stderr}"
    assert ran > 0
