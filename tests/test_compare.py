"""Compare and sweep (issue 5): one trajectory replayed under several settings, as `compare.compare` and
`scratchpad-lab sweep` give it: one row per setting with the documented keys, compression counts equal
to `replay`'s, savings against the same path with compression off, answers kept or re-composed."""
import contextlib
import io
import json

import pytest

from scratchpad_lab.cli import main
from scratchpad_lab.engine.studies.compare import Setting, baseline_for, compare, grid, row
from scratchpad_lab.model.records import load_path
from synthetic import synthetic_trace

ROW_KEYS = {"summarize_every", "max_scratchpad_chars", "compressions", "summarizer_calls", "summarizer_tokens_in",
            "summarizer_tokens_out", "peak_context_tokens", "mean_context_tokens", "context_tokens_saved",
            "answer_score", "facts_retained", "net_tokens_saved"}
SWEEP = ["--summarize-every", "2,5,none", "--max-scratchpad-chars", "4000,15000", "--summarizer", "extractive"]
pytestmark = pytest.mark.usefixtures("no_network")  # every replay here is offline (conftest)


@pytest.fixture(scope="module")
def trace_file(tmp_path_factory):
    """A trace written here, not a sample run: its scratchpad peaks between 4,000 and 15,000 chars, so
    the size trigger fires at 4,000 and never at 15,000."""
    path = tmp_path_factory.mktemp("traces") / "synthetic.json"
    path.write_text(json.dumps(synthetic_trace(steps=22, seed=31, max_observation_chars=600).to_dict()),
                    encoding="utf-8")
    return path


def _json(capsys, *args):
    code = main([*args, "--json"])
    out, err = capsys.readouterr()
    # the synthetic trace has replies that are not JSON on purpose: the loader names each such step on stderr
    said = [line for line in err.splitlines() if not line.startswith("scratchpad-lab: warning: step ")]
    assert (code, said) == (0, [])
    return json.loads(out)


@pytest.fixture(scope="module")
def sweep_rows(trace_file):
    """The documented sweep, run once for the module (a module fixture cannot use capsys)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["sweep", str(trace_file), *SWEEP, "--json"]) == 0
    return json.loads(out.getvalue())


def test_sweep_prints_one_row_per_setting_with_exactly_the_documented_keys(sweep_rows):
    assert [(r["summarize_every"], r["max_scratchpad_chars"]) for r in sweep_rows] == [
        (2, 4000), (2, 15000), (5, 4000), (5, 15000), (None, 4000), (None, 15000)]
    for r in sweep_rows:
        assert set(r) == ROW_KEYS
        assert r["answer_score"] is None  # a trace has no expected facts
        assert r["summarizer_calls"] == r["compressions"]


@pytest.mark.parametrize("index", range(6))
def test_each_sweep_rows_compressions_equal_replays_count_with_the_same_settings(index, sweep_rows, trace_file,
                                                                               capsys):
    r = sweep_rows[index]
    every = "none" if r["summarize_every"] is None else str(r["summarize_every"])
    replayed = _json(capsys, "replay", str(trace_file), "--summarize-every", every,
                     "--max-scratchpad-chars", str(r["max_scratchpad_chars"]), "--summarizer", "extractive")
    assert r["compressions"] == len(replayed["compressions"])


def test_the_setting_that_never_compresses_saves_nothing_and_the_others_save_tokens(sweep_rows):
    never = [r for r in sweep_rows if r["compressions"] == 0]
    assert [(r["summarize_every"], r["max_scratchpad_chars"]) for r in never] == [(None, 15000)]
    assert never[0]["context_tokens_saved"] == never[0]["net_tokens_saved"] == 0
    assert never[0]["facts_retained"] is None
    for r in sweep_rows:
        if r["compressions"]:
            assert r["context_tokens_saved"] > 0
            assert 0 <= r["facts_retained"] <= 1
            assert r["peak_context_tokens"] < never[0]["peak_context_tokens"]
            assert r["mean_context_tokens"] < never[0]["mean_context_tokens"]


def test_net_tokens_saved_is_context_saved_minus_summarizer_tokens(sweep_rows):
    for r in sweep_rows:
        spent = r["summarizer_tokens_in"] + r["summarizer_tokens_out"]
        assert r["net_tokens_saved"] == r["context_tokens_saved"] - spent


def test_a_scenario_runs_sweep_scores_answers_and_tight_settings_score_lower(tmp_path, capsys):
    record = tmp_path / "support.json"
    assert main(["run", "--scenario", "support-ticket", "--out", str(record)]) == 0
    capsys.readouterr()
    rows = _json(capsys, "sweep", str(record), "--summarize-every", "1,none",
                 "--max-scratchpad-chars", "1000,1000000")
    scores = {(r["summarize_every"], r["max_scratchpad_chars"]): r["answer_score"] for r in rows}
    assert all(score is not None for score in scores.values())
    assert scores[(None, 1_000_000)] == 1.0
    assert scores[(1, 1000)] < scores[(None, 1_000_000)]


def _replayed_record(tmp_path, trace_file):
    """A recorded run of a trace (as the Runs page or `replay --out` saves it)."""
    path = tmp_path / "recorded.json"
    assert main(["replay", str(trace_file), "--summarize-every", "4", "--out", str(path)]) == 0
    return load_path(path)


def test_a_recorded_trace_keeps_its_recorded_answer_under_every_setting(tmp_path, trace_file, capsys):
    loaded = _replayed_record(tmp_path, trace_file)
    capsys.readouterr()
    assert loaded.mode == "trace" and loaded.final_answer
    settings = [Setting(summarize_every=1, max_scratchpad_chars=1000), Setting(summarize_every=None,
                                                                               max_scratchpad_chars=1_000_000)]
    records, baselines, keeps_answer = compare(loaded, settings)
    assert keeps_answer is True
    assert [r.final_answer for r in records] == [loaded.final_answer] * 2
    assert row(records[0], baseline_for(records[0], baselines))["compressions"] > 0
    assert row(records[1], baseline_for(records[1], baselines))["compressions"] == 0


def test_a_scenario_run_is_rerun_by_its_policy_so_its_answer_moves(tmp_path, capsys):
    path = tmp_path / "support.json"
    assert main(["run", "--scenario", "support-ticket", "--out", str(path)]) == 0
    capsys.readouterr()
    settings = [Setting(summarize_every=1, max_scratchpad_chars=1000),
                Setting(summarize_every=None, max_scratchpad_chars=1_000_000)]
    records, _, keeps_answer = compare(load_path(path), settings)
    assert keeps_answer is False
    assert records[0].final_answer != records[1].final_answer
    assert "No longer in my notes" in records[0].final_answer


def test_a_setting_that_only_trims_is_measured_against_a_baseline_with_the_same_trim(trace_file):
    loaded = load_path(trace_file)
    settings = [Setting(summarize_every=None, max_scratchpad_chars=1_000_000, agent_trim_chars=3000),
                Setting(summarize_every=3, max_scratchpad_chars=4000)]
    records, baselines, _ = compare(loaded, settings)
    assert set(baselines) == {3000, 15000}
    only_trim, compressing = (row(r, baseline_for(r, baselines)) for r in records)
    assert only_trim["compressions"] == 0 and only_trim["context_tokens_saved"] == 0
    assert compressing["context_tokens_saved"] > 0


def test_compare_reports_progress_once_per_setting_then_done(trace_file):
    seen = []
    settings = grid([2, None], [4000])
    compare(load_path(trace_file), settings, progress=lambda i, total, label: seen.append((i, total, label)))
    assert seen == [(0, 2, "every 2 / 4,000"), (1, 2, "off / 4,000"), (2, 2, "done")]


def test_grid_refuses_more_than_six_values_of_either_setting():
    with pytest.raises(ValueError):
        grid([1, 2, 3, 4, 5, 6, 7], [4000])
    with pytest.raises(ValueError):
        grid([1], [1000, 2000, 3000, 4000, 5000, 6000, 7000])
    assert len(grid([1, 2, 3, 5, 8, None], [1000, 2000, 4000, 8000, 15000, 30000])) == 36


@pytest.mark.parametrize("args", [
    ["--summarize-every", "1,2,3,4,5,6,7"],
    ["--max-scratchpad-chars", "1000,2000,3000,4000,5000,6000,7000"],
    ["--summarize-every", "0"],
    ["--summarize-every", "often"],
    ["--max-scratchpad-chars", "50"],
    ["--max-scratchpad-chars", "4000,lots"],
    ["--max-scratchpad-chars", ","],
    ["--agent-trim-chars", "5"],
    ["--summarizer", "gpt-9"],
])
def test_sweep_refuses_too_many_or_bad_values_with_one_line_and_exit_2(args, trace_file, capsys):
    code = main(["sweep", str(trace_file), *args, "--json"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("scratchpad-lab: error: ")
    assert "Traceback" not in err


def test_sweep_of_a_file_that_is_not_a_run_or_trace_says_so_in_one_line(tmp_path, capsys):
    bad = tmp_path / "notes.json"
    bad.write_text('{"hello": "world"}', encoding="utf-8")
    code = main(["sweep", str(bad), "--json"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "schema" in err
