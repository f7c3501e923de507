"""`scratchpad-lab` from the command line: offline runs, the exact --json shape, files out and back in,
and one clear line (exit 2, no traceback) for every bad argument or file."""
import json
import shutil
import subprocess

import pytest

from scratchpad_lab.cli import main
from scratchpad_lab.model.schemas import RUN_SCHEMA
from scratchpad_lab.model.records import RunRecord, load_path, load_record
from scratchpad_lab.model.scenarios import SCENARIOS
from scratchpad_lab.model.trace import Trace

SCENARIO_NAMES = ["support-ticket", "research-digest", "log-triage"]
TOP_KEYS = {"iterations", "figures", "final_answer", "error", "answer_score", "compressions", "trims"}
COMPRESSION_KEYS = {"iteration", "reason", "status", "before", "after", "before_tokens", "after_tokens", "latency_s",
                    "facts_before", "facts_lost", "flags", "error",  # facts and flags: what it lost; error: why it failed
                    "why",  # the narration of the compression (issue 12)
                    "lost_by_kind", "health",  # its lost facts by kind and its failed health checks (issue 34)
                    "pins_held", "pins_lost"}  # the run's pins it held and lost (issue 34, pins)
TRIM_KEYS = {"iteration", "before_chars", "after_chars", "why"}
OFF = ["--summarize-every", "none", "--max-scratchpad-chars", "1000000"]
pytestmark = pytest.mark.usefixtures("no_network")  # every CLI run here is offline (conftest)


def _cli_json(capsys, *args):
    """(exit code, the printed JSON, stderr) of one in-process CLI call with --json."""
    code = main(list(args) + ["--json"])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def _json_run(capsys, *args):
    code, result, err = _cli_json(capsys, *args)
    assert err == ""
    return code, result


def _usage_error(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    assert err.startswith("scratchpad-lab: error: ")
    return err


def test_scenarios_lists_the_three_built_in_scenarios(capsys):
    assert main(["scenarios"]) == 0
    out = capsys.readouterr().out
    names = [line.split()[0] for line in out.splitlines() if line.strip()]
    assert names == SCENARIO_NAMES == list(SCENARIOS)


def test_run_json_prints_exactly_the_documented_keys(capsys):
    code, result = _json_run(capsys, "run", "--scenario", "research-digest", "--summarize-every", "3",
                             "--max-scratchpad-chars", "2000", "--agent-trim-chars", "6000")
    assert code == 0
    assert set(result) == TOP_KEYS
    assert result["compressions"] and result["trims"]
    assert all(set(c) == COMPRESSION_KEYS for c in result["compressions"])
    assert all(set(t) == TRIM_KEYS for t in result["trims"])
    assert result["error"] is None and result["final_answer"]
    assert 0.0 <= result["answer_score"] <= 1.0
    assert result["iterations"] == len(SCENARIOS["research-digest"].plan) + 1


def test_reason_is_periodic_exactly_on_multiples_of_summarize_every(capsys):
    _, result = _json_run(capsys, "run", "--scenario", "research-digest", "--summarize-every", "3",
                          "--max-scratchpad-chars", "2000")
    reasons = {c["iteration"]: c["reason"] for c in result["compressions"]}
    assert "periodic" in reasons.values() and "size" in reasons.values()
    for iteration, reason in reasons.items():
        assert (reason == "periodic") == (iteration % 3 == 0)
    for c in result["compressions"]:
        assert c["status"] == "ok"
        assert c["after"].startswith(f"[Summarized up to step {c['iteration']}]\n")
        assert c["after_tokens"] < c["before_tokens"]


@pytest.mark.parametrize("scenario", SCENARIO_NAMES)
def test_compression_turned_off_never_compresses(capsys, scenario):
    code, result = _json_run(capsys, "run", "--scenario", scenario, *OFF)
    assert code == 0
    assert result["compressions"] == []


@pytest.mark.parametrize("scenario", SCENARIO_NAMES)
def test_every_scenario_answers_offline_with_the_package_defaults(capsys, scenario):
    code, result = _json_run(capsys, "run", "--scenario", scenario)
    assert code == 0
    assert result["error"] is None
    assert result["final_answer"].startswith(SCENARIOS[scenario].answer_intro)


def test_aggressive_compression_costs_at_least_one_scenario_a_correct_answer(capsys):
    lower = []
    for scenario in SCENARIO_NAMES:
        _, tight = _json_run(capsys, "run", "--scenario", scenario, "--summarize-every", "2",
                             "--max-scratchpad-chars", "2000")
        _, off = _json_run(capsys, "run", "--scenario", scenario, *OFF)
        assert tight["compressions"] and not off["compressions"]
        if tight["answer_score"] < off["answer_score"]:
            lower.append(scenario)
    assert lower


def test_a_run_that_ends_without_an_answer_exits_1_and_says_why(capsys):
    code, result, err = _cli_json(capsys, "run", "--scenario", "support-ticket", "--max-iterations", "3")
    assert code == 1
    assert result["final_answer"] is None and result["answer_score"] == 0.0
    assert "max_iterations" in result["error"]
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err and "max_iterations" in err


def test_human_output_gives_the_outcome_and_the_answer(capsys):
    assert main(["run", "--scenario", "support-ticket", "--summarize-every", "4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("outcome: answered  iterations: ")
    assert "answer score: " in out and "final answer:\n" in out
    assert " periodic ok " in out


# ── files out, and back in ──────────────────────────────────────────────────

def test_out_writes_a_loadable_run_record_and_trace_out_a_loadable_trace(capsys, tmp_path):
    record_path, trace_path = tmp_path / "run.json", tmp_path / "trace.json"
    code, result = _json_run(capsys, "run", "--scenario", "log-triage", "--summarize-every", "4",
                             "--out", str(record_path), "--trace-out", str(trace_path))
    assert code == 0
    record = load_record(record_path)
    assert isinstance(record, RunRecord)
    assert record.scenario == "log-triage" and record.final_answer == result["final_answer"]
    assert record.config.summarize_every == 4
    assert [e.iteration for e in record.events if e.kind == "compression"] == \
        [c["iteration"] for c in result["compressions"]]
    trace = load_path(trace_path)
    assert isinstance(trace, Trace)
    assert len(trace.steps) == result["iterations"]
    assert trace.to_dict() == record.trace.to_dict()


def test_replay_of_a_trace_under_other_settings_follows_the_same_path(capsys, tmp_path):
    trace_path = tmp_path / "trace.json"
    _, original = _json_run(capsys, "run", "--scenario", "support-ticket", *OFF, "--trace-out", str(trace_path))
    code, replayed = _json_run(capsys, "replay", str(trace_path), "--summarize-every", "2",
                               "--max-scratchpad-chars", "1000000")
    assert code == 0
    assert replayed["iterations"] == original["iterations"]
    assert replayed["final_answer"] == original["final_answer"]  # the recorded answer, replayed
    assert [c["iteration"] for c in replayed["compressions"]] == list(range(2, original["iterations"] + 1, 2))
    assert replayed["answer_score"] is None  # a bare trace has no scenario to score against


def test_replay_of_a_record_keeps_the_records_settings_unless_flags_are_given(capsys, tmp_path):
    record_path = tmp_path / "run.json"
    _, original = _json_run(capsys, "run", "--scenario", "support-ticket", "--summarize-every", "3",
                            "--max-scratchpad-chars", "2500", "--out", str(record_path))
    _, same = _json_run(capsys, "replay", str(record_path))
    assert [(c["iteration"], c["reason"], c["after"]) for c in same["compressions"]] == \
        [(c["iteration"], c["reason"], c["after"]) for c in original["compressions"]]
    assert same["answer_score"] == original["answer_score"]
    _, changed = _json_run(capsys, "replay", str(record_path), "--summarize-every", "none")
    assert all(c["reason"] == "size" for c in changed["compressions"])
    assert [c["iteration"] for c in changed["compressions"]] != [c["iteration"] for c in original["compressions"]]
    _, off = _json_run(capsys, "replay", str(record_path), *OFF)
    assert off["compressions"] == []


def test_replay_of_a_trace_only_record_uses_its_embedded_trajectory(capsys, tmp_path):
    record_path, trace_path = tmp_path / "replayed.json", tmp_path / "trace.json"
    _json_run(capsys, "run", "--scenario", "research-digest", "--trace-out", str(trace_path))
    _json_run(capsys, "replay", str(trace_path), "--summarize-every", "4", "--out", str(record_path))
    code, again = _json_run(capsys, "replay", str(record_path))
    assert code == 0
    assert [c["iteration"] for c in again["compressions"]][:3] == [4, 8, 12]
    assert load_record(record_path).config.summarize_every == 4


def test_a_custom_prompt_file_is_used_for_the_summaries(capsys, tmp_path):
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Keep every number.\n{scratchpad}\nNumbers: ...\nLeft to do: ...\n", encoding="utf-8")
    record_path = tmp_path / "run.json"
    _json_run(capsys, "run", "--scenario", "support-ticket", "--summarize-every", "4",
              "--prompt-file", str(prompt), "--out", str(record_path))
    comps = [e.data for e in load_record(record_path).events if e.kind == "compression"]
    assert comps
    assert all(c["prompt"].startswith("Keep every number.\n") and "\nNumbers:\n" in c["after"] for c in comps)


# ── bad arguments and bad files ─────────────────────────────────────────────

@pytest.mark.parametrize("args, says", [
    (["run", "--summarize-every", "abc"], "--summarize-every must be off or a whole number of iterations"),
    (["run", "--scenario", "nope"], "Unknown scenario 'nope'"),
    (["run", "--max-scratchpad-chars", "5"], "max_scratchpad_chars"),
    (["run", "--max-iterations", "10000"], "max_iterations"),
    (["run", "--wall-clock", "0"], "wall_clock_s"),
    (["run", "--bogus"], "unrecognized arguments"),
    (["run", "--summarizer", "gpt-9"], "invalid choice"),
    ([], "command"),
    (["replay"], "file"),
])
def test_a_bad_argument_exits_2_with_one_line_naming_it(capsys, args, says):
    assert says in _usage_error(capsys, *args)


def test_summarize_every_zero_is_refused_like_everywhere_else(capsys):
    assert "summarize_every" in _usage_error(capsys, "run", "--summarize-every", "0")


def test_a_missing_file_exits_2(capsys, tmp_path):
    assert "does not exist" in _usage_error(capsys, "replay", str(tmp_path / "gone.json"))


def test_a_malformed_json_file_exits_2(capsys, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"schema": "scratchpad-lab/run@1", ', encoding="utf-8")
    assert "not valid JSON" in _usage_error(capsys, "replay", str(path))


def test_a_file_of_another_kind_exits_2(capsys, tmp_path):
    path = tmp_path / "other.json"
    path.write_text('{"hello": "world"}', encoding="utf-8")
    message = _usage_error(capsys, "replay", str(path))
    assert "is none of the formats the lab reads" in message and f"expected {RUN_SCHEMA!r}" in message


def test_a_record_with_settings_out_of_range_exits_2(capsys, tmp_path):
    path = tmp_path / "run.json"
    _json_run(capsys, "run", "--scenario", "support-ticket", "--out", str(path))
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["config"]["summarize_every"] = 0
    path.write_text(json.dumps(raw), encoding="utf-8")
    assert "summarize_every" in _usage_error(capsys, "replay", str(path))


def test_a_prompt_file_with_an_unknown_placeholder_exits_2(capsys, tmp_path):
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Summarize {scratchpad} for {audience}.", encoding="utf-8")
    assert "{audience}" in _usage_error(capsys, "run", "--prompt-file", str(prompt))


def test_a_missing_prompt_file_exits_2(capsys, tmp_path):
    assert "cannot read --prompt-file" in _usage_error(capsys, "run", "--prompt-file", str(tmp_path / "p.txt"))


def test_an_output_path_that_cannot_be_written_exits_2(capsys, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    err = _usage_error(capsys, "run", "--scenario", "support-ticket", "--out", str(blocker / "run.json"))
    assert f"{blocker} is a file, not a folder" in err  # more cases: tests/test_cli_output.py


def test_a_file_with_an_absurdly_long_number_exits_2(capsys, tmp_path):
    path = tmp_path / "huge.json"
    path.write_text("1" * 5000, encoding="utf-8")
    _usage_error(capsys, "replay", str(path))


# ── the installed console script ────────────────────────────────────────────

def test_the_console_script_runs_a_scenario_and_reports_bad_arguments_in_one_line():
    exe = shutil.which("scratchpad-lab")
    assert exe, "the scratchpad-lab console script is not installed"
    ok = subprocess.run([exe, "run", "--scenario", "support-ticket", "--json"], capture_output=True, text=True,
                        timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert set(json.loads(ok.stdout)) == TOP_KEYS
    bad = subprocess.run([exe, "run", "--summarize-every", "abc"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stdout == ""
    assert len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr


@pytest.mark.parametrize("args", [["runs", "list", "--search"], ["runs", "show"], ["runs", "export"],
                                  ["runs", "delete"]], ids=["list-search", "show", "export", "delete"])
def test_runs_given_a_byte_that_is_not_utf8_say_so_in_one_line(args, lab_db):
    """Issue 29: `runs list --search $'\\xff'` printed the driver's UnicodeEncodeError as a traceback. The
    byte arrives as a lone surrogate (Python's surrogateescape); the store refuses it as its own error."""
    import sys
    done = subprocess.run([sys.executable, "-m", "scratchpad_lab.cli", *args, b"\xff"], capture_output=True,
                          text=True, errors="replace", timeout=120)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "UnicodeEncodeError" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("scratchpad-lab: error: ") and "not UTF-8" in line
