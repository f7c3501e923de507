"""Every file a command writes where a person named it (`run`/`replay --out` and `--trace-out`, `fork --out`,
`import --out`, `runs export --out`, `bench --html`) lands in a folder that does not exist yet, made as `mkdir -p`
makes it; a path that cannot be written is one line on stderr naming the flag and what to change (exit 2, no
traceback), said before the work starts. Before this, `bench --html missing/r.html` ended a finished benchmark
in a traceback and the others said "No such file or directory" (cli/output.py is the one home of the rule)."""
from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from scratchpad_lab.cli import main
from scratchpad_lab.model.records import RunRecord, load_path
from scratchpad_lab.model.trace import Trace

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = str(ROOT / "sample_runs" / "support-ticket-tight.json")
IMPORTED = str(ROOT / "sample_runs" / "imported" / "autourgos-history-support-ticket.json")
pytestmark = pytest.mark.usefixtures("no_network")  # every CLI call here is offline (conftest)

# (the command before its output flag, the flag, the file's name, what the file is)
WRITERS = {
    "run --out": (["run", "--scenario", "support-ticket"], "--out", "run.json", RunRecord),
    "run --trace-out": (["run", "--scenario", "support-ticket"], "--trace-out", "run.trace.json", Trace),
    "replay --out": (["replay", SAMPLE, "--summarize-every", "3"], "--out", "replayed.json", RunRecord),
    "fork --out": (["fork", SAMPLE, "--at", "4"], "--out", "fork.json", RunRecord),
    "import --out": (["import", IMPORTED, "--task", "Resolve T-5521"], "--out", "t.json", Trace),
    "runs export --out": (["runs", "export", "{stored}"], "--out", "exported.json", RunRecord),
    "bench --html": (["bench", str(ROOT / "sample_runs"), "--runs", "1", "--strategy", "trim-only"], "--html",
                     "report.html", "html"),
}


@pytest.fixture
def stored(lab_db, capsys) -> str:
    """The id of a run in this test's store (for `runs export`)."""
    assert main(["replay", SAMPLE, "--save"]) == 0
    err = capsys.readouterr().err
    return err.split("stored as ", 1)[1].split()[0]


def _argv(name: str, path: Path, request) -> list:
    head, flag, _, _ = WRITERS[name]
    if "{stored}" in head:
        head = [request.getfixturevalue("stored") if word == "{stored}" else word for word in head]
    return head + [flag, str(path)]


def _one_line(capsys, code: int) -> str:
    out, err = capsys.readouterr()
    assert code == 2, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("scratchpad-lab: error: ")
    return err.strip()


@pytest.mark.parametrize("name", list(WRITERS))
def test_a_file_named_in_folders_that_do_not_exist_is_written_there(name, tmp_path, capsys, request):
    _, _, file_name, kind = WRITERS[name]
    path = tmp_path / "out" / "not-yet" / file_name
    code = main(_argv(name, path, request))
    err = capsys.readouterr().err
    assert code in (0, 1), err  # 1: a run without an answer still writes its file
    assert "Traceback" not in err
    if kind == "html":
        assert path.read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html")
    else:
        assert isinstance(load_path(path), kind)


@pytest.mark.parametrize("name", list(WRITERS))
def test_a_folder_in_the_way_of_a_file_is_one_line_before_any_work(name, tmp_path, capsys, request):
    blocker = tmp_path / "notes.txt"
    blocker.write_text("a file, not a folder", encoding="utf-8")
    argv = _argv(name, blocker / "sub" / WRITERS[name][2], request)
    capsys.readouterr()  # the stored run's lines, if any
    err = _one_line(capsys, main(argv))
    assert f"{WRITERS[name][1]} {blocker}/sub/" in err and f"{blocker} is a file, not a folder" in err, err
    assert "give a path in a folder you can write to" in err
    assert blocker.read_text(encoding="utf-8") == "a file, not a folder"


@pytest.mark.parametrize("name", ["run --out", "bench --html", "import --out"])
def test_a_folder_that_cannot_be_made_says_why_and_what_to_change(name, tmp_path, capsys, monkeypatch, request):
    def refused(self, *args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", refused)
    path = tmp_path / "locked" / WRITERS[name][2]
    err = _one_line(capsys, main(_argv(name, path, request)))
    assert f"cannot make the folder {tmp_path / 'locked'} (Permission denied)" in err, err
    assert err.endswith("give a path in a folder you can write to.")
    assert "bench:" not in err  # refused before the benchmark ran, not after


@pytest.mark.parametrize("name", ["run --out", "import --out"])
def test_a_path_that_is_a_folder_asks_for_a_files_name(name, tmp_path, capsys, request):
    err = _one_line(capsys, main(_argv(name, tmp_path, request)))
    assert f"--out {tmp_path} is a folder: give a file's name in it (e.g. {tmp_path / 'run.json'})." in err, err


@pytest.mark.parametrize("name", ["run --out", "runs export --out"])
def test_a_write_that_fails_after_its_folder_is_made_is_one_line(name, tmp_path, capsys, monkeypatch, request):
    argv = _argv(name, tmp_path / "full-disk" / "f.json", request)
    capsys.readouterr()

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(self))

    monkeypatch.setattr(Path, "write_text", full)
    err = _one_line(capsys, main(argv))
    assert "cannot write it (No space left on device); give a path in a folder you can write to" in err, err


def test_a_report_that_cannot_be_written_still_prints_the_benchmark_and_exits_2(tmp_path, capsys, monkeypatch):
    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(self))

    monkeypatch.setattr("scratchpad_lab.engine.studies.benchmark_report.Path.write_text", full)
    code = main(["bench", str(ROOT / "sample_runs"), "--runs", "1", "--strategy", "trim-only", "--json",
                 "--html", str(tmp_path / "r.html")])
    out, err = capsys.readouterr()
    assert code == 2
    assert "Traceback" not in err
    assert f"scratchpad-lab: error: --html {tmp_path / 'r.html'}: cannot write it (No space left on device)" in err
    assert json.loads(out)["runs"]  # what the benchmark found is not lost with its report
