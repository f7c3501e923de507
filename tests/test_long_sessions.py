"""The long coding-agent runs in ../shared/datasets/long-runs/ (real, MIT; read from there, never copied in): every
file imports, the Claude Code session carries its own manual compaction and shows it as a row measured at the
recorded boundary, and strategies and bench run on the long runs."""
import json

import pytest

from conftest import shared_file
from scratchpad_lab.cli import main
from scratchpad_lab.engine.files.loader import load_file

CLAUDE = ("datasets", "long-runs", "claude-code", "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl")


def test_every_long_run_imports_in_its_own_shape():
    root = shared_file("datasets", "long-runs")
    files = sorted(p for p in root.rglob("*") if p.suffix in (".jsonl", ".traj") or p.name.endswith(".traj.json"))
    assert len(files) == 15, [f.name for f in files]
    for path in files:
        trace = load_file(path).item
        assert trace.messages and trace.steps, path.name
        assert sum(1 for m in trace.messages if m.role == "assistant") == len(trace.steps), path.name


def test_the_claude_code_session_shows_its_own_compaction_as_a_row_at_the_recorded_boundary(tmp_path, capsys):
    path = shared_file(*CLAUDE)
    loaded = load_file(path)
    trace = loaded.item
    [compaction] = trace.compactions
    assert (compaction.by, compaction.trigger, compaction.tokens_before) == ("Claude Code", "manual", 142_431)
    assert len(compaction.summary) == 16_162 and len(trace.steps) == 217   # 217 API responses over 408 records
    assert "1 subagent run(s) not included (aac57f5)" in loaded.report.text()
    # the first reply after the boundary is the call its compaction first shapes
    replies = [i for i, m in enumerate(trace.messages) if m.role == "assistant"]
    first_after = next(k for k, i in enumerate(replies, start=1) if i >= compaction.at)
    out = tmp_path / "session.trace.json"
    assert main(["import", str(path), "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["strategies", str(out), "--json", "--details", "--strategy", "recorded-compaction",
                 "--strategy", "clear-tool-uses"]) == 0
    recorded, cleared = json.loads(capsys.readouterr().out)
    assert recorded["details"]["seen_as"].startswith("Claude Code's own compaction, manual at 142,431 tokens")
    [step] = recorded["details"]["compressions"]
    assert step["iteration"] == first_after and step["before_tokens"] > step["after_tokens"]
    assert recorded["peak_share"] < 1 and cleared["compressions"] > 0


@pytest.mark.parametrize("name", ["django__django-14752.traj.json"])
def test_bench_runs_over_the_mini_swe_agent_runs_with_their_resolved_labels(name, capsys):
    folder = shared_file("datasets", "long-runs", "mini-swe-agent")
    assert main(["bench", str(folder), "--runs", "3", "--strategy", "trim-only", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["runs"]) == 3 and not out["broken"]
    labels = json.loads((folder / "labels.json").read_text())
    assert {r["name"]: r["outcome"] for r in out["runs"]} == {r["name"]: float(labels[r["name"]]) for r in out["runs"]}


def test_a_benchmark_over_the_mini_swe_agent_runs_says_whether_argument_recall_separates_resolved_from_unresolved(capsys):
    """Every call of these runs is one whole shell command: argument recall reads the identifiers in it that the run
    learned earlier, so each setting that cut has a figure on both resolved and unresolved runs, and the benchmark's
    last sentence gives the difference with its 95 % interval."""
    folder = shared_file("datasets", "long-runs", "mini-swe-agent")
    assert main(["bench", str(folder), "--strategy", "trim-only", "--grid", "trim-only:agent_trim_chars=8000|15000",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["runs"]) == 10 and {r["outcome"] for r in out["runs"]} == {0.0, 1.0}
    trims = [s for s in out["settings"] if s["strategy"] == "trim-only"]
    assert len(trims) == 2
    for s in trims:
        assert 0 < s["means"]["argument_recall"]["mean"] < 1 and s["means"]["argument_recall"]["n"] == 10
        assert s["separation"]["passed"] == 5 and s["separation"]["failed"] == 5
        assert s["separation"]["low"] <= s["separation"]["difference"] <= s["separation"]["high"]
    said = out["separation"]
    assert said.startswith("Argument recall") and "95 % interval" in said and "5 passed, 5 failed runs" in said
