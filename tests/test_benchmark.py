"""The benchmark (issue 31): argument recall proved on hand-built runs whose answer is known, datasets with a
broken run, a benchmark row equal to `strategies --json` of that run, seeded intervals, stop keeping what
finished, the work limit, and a small real tau-bench slice through the CLI (read from ../shared, never copied)."""
import json

import pytest

from conftest import shared_file
from scratchpad_lab.analysis.arguments import Learned, ToolCall, leaves, occurs, recall
from scratchpad_lab.cli import main
from scratchpad_lab.engine.studies.run_calls import argument_figures, no_compression_sent, run_calls
from scratchpad_lab.engine.studies.benchmark import BenchmarkRequest, interval, run_benchmark
from scratchpad_lab.engine.files.dataset import read_dataset
from scratchpad_lab.engine.jobs import StopFlag
from scratchpad_lab.engine.limits import WorkLimitExceeded
from scratchpad_lab.engine.files.loader import load_raw
from scratchpad_lab.engine.strategies.engine import run_strategies
from scratchpad_lab.engine.strategies.result import ROW_KEYS
from scratchpad_lab.engine.strategies.spec import make_spec

TAU_BENCH = ("datasets", "tau-bench-airline", "gpt-4o-airline.json")
PADDING = " ".join(f"seat row {n} is open" for n in range(80))


def _call(name, args, call_id):
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}


def chat(reward=1.0):
    """A support chat: the reservation id and the amount come from a tool result, the user id from a user turn,
    the code SYS-123 only from the system prompt; the cancel call needs them all."""
    return {"reward": reward, "info": {"task": {"actions": [
        {"name": "cancel", "kwargs": {"reservation_id": "ZFA04Y", "reason": "change of plan"}}]}},
        "traj": [
            {"role": "system", "content": "You are an airline agent. Quote code SYS-123 on every cancellation."},
            {"role": "user", "content": "Hello, I need help."},
            {"role": "assistant", "content": "Sure. What is your user id?"},
            {"role": "user", "content": "my id is mia_li_3668"},
            _call("get_user", {"user_id": "mia_li_3668"}, "c1"),
            {"role": "tool", "tool_call_id": "c1",
             "content": json.dumps({"reservations": ["ZFA04Y"], "balance": 250, "notes": PADDING})},
            _call("cancel", {"reservation_id": "ZFA04Y", "code": "SYS-123", "amount": 250, "refund": True, "x": "ab"}, "c2"),
            {"role": "tool", "tool_call_id": "c2", "content": "cancelled"},
            {"role": "assistant", "content": "Your reservation is cancelled."}]}


def trace_of(item):
    return load_raw(item, "chat").item


# ── the measure, on runs whose answer is known ─────────────────────────────────────────────────────

def test_leaves_are_strings_of_three_or_more_characters_and_numbers_never_booleans():
    assert leaves({"a": "ab", "b": "abc", "c": [1, 2.5, True, None], "d": {"e": "xyz"}}) == ["abc", 1, 2.5, "xyz"]


def test_a_number_is_not_found_inside_a_longer_number():
    assert occurs(12, "row 12 open") and not occurs(12, "year 2012") and occurs(250.0, "balance 250")


def test_a_value_read_early_and_dropped_from_the_context_counts_as_lost():
    calls = [ToolCall(2, "lookup", {"id": "ZFA04Y"}), ToolCall(3, "cancel", {"id": "ZFA04Y", "n": 250})]
    learned = [Learned(1, '{"id": "ZFA04Y", "n": 250}')]
    sent = {2: 'tool: {"id": "ZFA04Y", "n": 250}', 3: "a summary that kept nothing"}
    found = recall(calls, learned, "the task", sent.get)
    assert [c.lost for c in found.calls] == [[], ["ZFA04Y", 250]]
    assert (found.needed, found.kept, found.share) == (3, 1, 0.3333)


def test_a_value_only_in_the_system_prompt_or_the_task_never_counts():
    calls = [ToolCall(2, "cancel", {"code": "SYS-123", "id": "ZFA04Y"})]
    learned = [Learned(1, "SYS-123 and ZFA04Y")]
    found = recall(calls, learned, "System message: quote SYS-123", lambda i: "")
    assert found.calls[0].needed == ["ZFA04Y"]


def test_a_value_the_run_had_not_learned_yet_never_counts():
    found = recall([ToolCall(1, "search", {"q": "ZFA04Y"})], [Learned(1, "ZFA04Y")], "", lambda i: "")
    assert found.needed == 0 and found.share is None


def test_the_hand_built_chat_needs_what_it_learned_and_doing_nothing_keeps_it_all():
    trace = trace_of(chat())
    calls = run_calls(trace, chat()["info"]["task"]["actions"])
    assert [(c.iteration, c.tool) for c in calls.calls] == [(2, "get_user"), (3, "cancel")]  # the reply to the user is no call
    figures = argument_figures(calls, no_compression_sent(trace))
    # get_user needs the id the user typed; cancel the reservation and the amount (never SYS-123, "ab" or True)
    assert figures["arguments_needed"] == 3 and figures["argument_recall"] == 1.0
    assert figures["gold_arguments_needed"] == 1 and figures["gold_argument_recall"] == 1.0  # the reason was never learned


def test_a_strategy_that_clears_the_tool_result_loses_its_values_at_the_next_call():
    trace = trace_of(chat())
    calls = run_calls(trace, chat()["info"]["task"]["actions"])
    [result] = run_strategies(trace, [make_spec("clear-tool-uses", {"trigger": 100, "keep": 0})])
    figures = argument_figures(calls, result.sent_text)
    lost = {tuple(c["lost"]) for c in figures["arguments_lost"] if c["tool"] == "cancel"}
    assert lost == {("ZFA04Y", 250)}
    assert figures["gold_argument_recall"] == 0.0


# ── datasets and the study ─────────────────────────────────────────────────────────────────────────

@pytest.fixture(scope="module")
def dataset_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("dataset") / "runs.json"
    broken = {"task_id": "<img src=http://example.invalid/x>", "nonsense": 1}  # its name is the dataset's text
    path.write_text(json.dumps([chat(1.0), broken, chat(0.0)]))
    return path


@pytest.fixture(scope="module")
def small(dataset_file):
    return run_benchmark(BenchmarkRequest(dataset_file, ["trim-only"], workers=1))


def test_a_dataset_with_a_broken_run_reports_it_and_finishes_the_rest(dataset_file, small):
    dataset = read_dataset(dataset_file)
    assert [r.ok for r in dataset.runs] == [True, False, True]
    assert "none of the formats" in dataset.broken[0].error
    assert [r.outcome for r in dataset.usable] == [1.0, 0.0] and dataset.usable[0].gold[0]["name"] == "cancel"
    done = small
    assert len(done.runs) == 2 and [n for n, _ in done.broken] == ["task <img src=http://example.invalid/x>"]
    nothing = done.setting("no compression")
    assert nothing.mean("argument_recall") == 1.0 and set(nothing.by_outcome) == {"passed", "failed"}


def test_a_folder_is_a_dataset_of_its_files(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(chat()["traj"]))
    (tmp_path / "b.jsonl").write_text("\n".join(json.dumps(m) for m in chat()["traj"]))
    (tmp_path / "c.json").write_text("{not json")
    dataset = read_dataset(tmp_path)
    assert [r.ok for r in dataset.runs] == [True, True, False]


def test_intervals_are_seeded_and_reproducible():
    values = [0.5, 1.0, 0.75, 0.9, 0.2, 1.0, 0.6]
    assert interval(values, 31, "x") == interval(values, 31, "x")
    assert interval(values, 31, "x") != interval(values, 7, "x")
    m = interval(values, 31, "x")
    assert m["low"] <= m["mean"] <= m["high"] and m["n"] == 7


def test_stop_keeps_the_runs_that_finished(dataset_file):
    flag = StopFlag()

    def progress(done, total, text):
        if done == 3:  # trim-only's three settings of the first run
            flag.request()
    done = run_benchmark(BenchmarkRequest(dataset_file, ["trim-only"], workers=1), progress, flag)
    assert done.stopped and len(done.runs) == 1 and done.points_done == 3


def test_a_benchmark_over_the_work_limit_is_refused_with_how_to_narrow_it(dataset_file, monkeypatch):
    from scratchpad_lab.engine import limits
    monkeypatch.setitem(limits.BUDGETS, "job_wall_s", (1e-6, 1e-6))
    with pytest.raises(WorkLimitExceeded, match="--runs N"):
        run_benchmark(BenchmarkRequest(dataset_file, ["trim-only"], workers=1))


# ── facts kept by kind and runs with each problem (issue 34) ───────────────────────────────────────

def test_a_settings_kind_share_is_the_mean_over_the_runs_it_compressed_with_that_kind_and_problems_count_runs():
    from scratchpad_lab.engine.studies.benchmark import summarize

    def row(compressions, kept, **failed):
        return {"compressions": compressions, "kept_by_kind": kept, "peak_context_tokens": 10,
                "health": {"grew": 0, "fires_again": 0, "dropped_user": 0, "invented": 0, "cost_more": 0, **failed}}
    rows = [row(2, {"id": 1.0}, fires_again=3), row(1, {"id": 0.5, "amount": 0.0}, fires_again=1, grew=1),
            row(0, {}), row(3, {"id": 0.25, "amount": 0.5})]
    s = summarize("x", "clear-tool-uses", [({"name": f"r{i}", "outcome": None}, r) for i, r in enumerate(rows)], 31)
    assert s.runs_compressed == 3
    assert s.kept_by_kind == {"id": {"mean": 0.5833, "runs": 3}, "amount": {"mean": 0.25, "runs": 2}}
    assert s.runs_with_problem == {"grew": 1, "fires_again": 2, "dropped_user": 0, "invented": 0, "cost_more": 0}
    assert s.kinds_text == "of the tool results it cleared: ids 58% (3 runs), amounts 25% (2 runs) (a placeholder stands for each; the rest stays whole)"
    assert s.problems_text == "grew the context 1, fires again at once 2"  # runs, not compressions (4 failed it)


def short_chat():
    """A run too short for clear-tool-uses at 100 tokens to fire on: it never compresses."""
    return {"reward": 1.0, "traj": [{"role": "user", "content": "Look up user ab_12."},
                                    _call("get_user", {"user_id": "ab_12"}, "c1"),
                                    {"role": "tool", "tool_call_id": "c1", "content": "ok"},
                                    {"role": "assistant", "content": "Done."}]}


def test_benchmark_rows_json_and_the_cli_give_each_settings_kinds_kept_and_runs_with_a_problem(tmp_path, capsys):
    """clear-tool-uses at 100 tokens clears the tool result holding the reservation id and the amount (never the user's
    turn: a user turn is a human message, which it does not clear) on the two support chats, and never fires on the
    short run: its kinds are means over those two runs, its problems counted in runs; doing nothing and a setting that never fired read
    "no compression happened" and "no problem found", never a 100 %."""
    from scratchpad_lab.analysis.figures import NO_COMPRESSION
    from scratchpad_lab.analysis.health import NO_PROBLEM
    from scratchpad_lab.engine.studies.benchmark import KINDS_COLUMN, PROBLEMS_COLUMN

    path = tmp_path / "runs.json"
    path.write_text(json.dumps([chat(1.0), short_chat(), chat(0.0)]))
    grids = {"clear-tool-uses": {"trigger": (100, "1000%"), "keep": (0,)}}
    done = run_benchmark(BenchmarkRequest(path, ["clear-tool-uses"], grids, workers=1))
    rows = {r["setting"].lstrip("★ "): r for r in done.rows()}
    cleared = rows["clear-tool-uses:trigger=100,keep=0"]
    assert cleared[KINDS_COLUMN] == "of the tool results it cleared: ids 0% (2 runs), amounts 0% (2 runs) (a placeholder stands for each; the rest stays whole)"
    assert cleared[PROBLEMS_COLUMN] == "fires again at once 2"
    for idle in ("no compression", "clear-tool-uses:trigger=1000%,keep=0"):
        assert (rows[idle][KINDS_COLUMN], rows[idle][PROBLEMS_COLUMN]) == (NO_COMPRESSION, NO_PROBLEM)
    again = run_benchmark(BenchmarkRequest(path, ["clear-tool-uses"], grids, workers=2))  # a worker runs some
    assert again.rows() == done.rows() and [s.to_dict() for s in again.settings] == [s.to_dict() for s in done.settings]
    assert main(["bench", str(path), "--strategy", "clear-tool-uses", "--grid", "clear-tool-uses:trigger=100|1000%,keep=0",
                 "--workers", "1", "--json"]) == 0
    settings = {s["setting"]: s for s in json.loads(capsys.readouterr().out)["settings"]}
    one = settings["clear-tool-uses:trigger=100,keep=0"]
    assert one["runs"] == 3 and one["runs_compressed"] == 2
    assert one["kept_by_kind"] == {"id": {"mean": 0.0, "runs": 2}, "amount": {"mean": 0.0, "runs": 2}}
    assert one["runs_with_problem"] == {"grew": 0, "fires_again": 2, "dropped_user": 0, "invented": 0, "cost_more": 0}
    assert settings["no compression"]["kept_by_kind"] == {} and not any(settings["no compression"]["runs_with_problem"].values())
    assert main(["bench", str(path), "--strategy", "clear-tool-uses", "--grid", "clear-tool-uses:trigger=100|1000%,keep=0",
                 "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert (f"  clear-tool-uses:trigger=100,keep=0: {cleared[KINDS_COLUMN]}; runs with a problem: "
            f"{cleared[PROBLEMS_COLUMN]}\n") in out
    assert f"  no compression: {NO_COMPRESSION}; runs with a problem: {NO_PROBLEM}\n" in out


# ── against the real runs ──────────────────────────────────────────────────────────────────────────

@pytest.fixture(scope="module")
def tau_runs():
    return json.loads(shared_file(*TAU_BENCH).read_text(encoding="utf-8"))


def test_a_benchmark_row_equals_strategies_json_of_that_run(tau_runs, tmp_path, capsys):
    path = tmp_path / "two.json"
    path.write_text(json.dumps(tau_runs[:2]))
    done = run_benchmark(BenchmarkRequest(path, ["trim-only", "clear-tool-uses"],
                                          grids={"trim-only": {"agent_trim_chars": (4000,)},
                                                 "clear-tool-uses": {"trigger": ("30%",), "keep": (1,)}}, workers=2))
    assert len(done.runs) == 2
    for k, run in enumerate(done.runs):  # one run went to the worker process, one ran here
        single = tmp_path / f"run{k}.json"
        single.write_text(json.dumps(tau_runs[k]))
        for label, row in run["cells"].items():
            if label == "no compression":
                continue
            arg = row["strategy"] + ":" + ",".join(f"{key}={v}" for key, v in row["settings"].items()
                                                   if key in ("agent_trim_chars", "trigger", "keep"))
            assert main(["strategies", str(single), "--strategy", arg, "--json"]) == 0
            [direct] = json.loads(capsys.readouterr().out)
            direct.pop("take_away")  # the row's setting to take to an agent: not a figure
            assert {key: row[key] for key in ROW_KEYS} == direct


def test_a_small_tau_bench_slice_runs_end_to_end_in_the_cli(tau_runs, capsys):
    path = shared_file(*TAU_BENCH)
    assert main(["bench", str(path), "--runs", "3", "--strategy", "trim-only", "--strategy", "langmem", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # LangMem refuses max_tokens at or below its max_summary_tokens (256): 15 % and 30 % of the short run's own count
    # (its messages, about 780 tokens) are, so those two cells are skipped, each with LangMem's reason
    assert len(out["runs"]) == 3 and out["points_done"] == out["points"] == 16
    assert [(s["run"], s["setting"]) for s in out["skipped"]] == [("task 1, trial 0", "langmem:max_tokens=15%"),
                                                                   ("task 1, trial 0", "langmem:max_tokens=30%")]
    assert all("max_summary_tokens must be smaller than max_tokens" in s["why"] for s in out["skipped"])
    refused = {s["setting"]: s["refused_on"] for s in out["settings"]}
    assert refused["langmem:max_tokens=15%"] == refused["langmem:max_tokens=30%"] == 1
    assert refused["langmem:max_tokens=60%"] == 0
    said = [c["sentence"] for c in out["chosen"] if "langmem:max_tokens=15%" in c["sentence"]
            or "langmem:max_tokens=30%" in c["sentence"]]
    assert all("measured on 2 runs only: its package refused the setting on 1 other run" in t for t in said)
    # how each form saw the runs: LangMem as a LangChain agent with the policy as its system prompt
    seen = {s["strategies"]: s["seen_as"] for s in out["seen_as"]}
    assert seen["LangMem"].startswith("as a LangChain agent: a system prompt on 3 of 3 runs, ")
    assert seen["trim only"].startswith("as an autourgos agent's scratchpad: one task and ")
    labels = [s["setting"] for s in out["settings"]]
    assert labels[0] == "no compression" and "langmem:max_tokens=30%" in labels
    assert out["settings"][0]["means"]["argument_recall"]["mean"] == 1.0
    assert len(out["chosen"]) == 4 and all(c["sentence"] for c in out["chosen"])


def test_the_html_report_is_one_file_that_requests_nothing_and_escapes_run_names(small, tmp_path):
    from scratchpad_lab.engine.studies.benchmark_report import write_report
    path = tmp_path / "report.html"
    write_report(small, path)
    text = path.read_text(encoding="utf-8")
    assert "<svg" in text and "<circle" in text and "no compression" in text
    assert "<th>facts kept by kind</th><th>runs with a problem</th>" in text and "<td>no problem found</td>" in text
    assert "task &lt;img src=http://example.invalid/x&gt;" in text
    markup = text.replace("&lt;img src=", "")  # the run's name, shown as text
    for request in ("<script", "src=", "href=", "@import", "url(", "<link", "<img"):
        assert request not in markup.replace("default-src", ""), request


def test_ctrl_c_stops_between_points_ends_the_worker_and_keeps_what_finished(dataset_file):
    from conftest import threads_end
    seen = []

    def progress(done, total, text):
        seen.append(done)
        if done == 4:
            raise KeyboardInterrupt
    done = run_benchmark(BenchmarkRequest(dataset_file, ["trim-only"], workers=2), progress)
    assert done.stopped == "interrupted (Ctrl-C)" and done.points_done == 4 and len(done.runs) >= 1
    assert threads_end("scratchpad-lab-benchmark")


def test_doing_nothing_keeps_every_needed_argument_of_every_tau_bench_run(tau_runs):
    for k, item in enumerate(tau_runs):
        trace = trace_of(item)
        figures = argument_figures(run_calls(trace, item["info"]["task"]["actions"]), no_compression_sent(trace))
        assert figures["argument_recall"] in (1.0, None) and figures["gold_argument_recall"] in (1.0, None), k


def test_the_labs_own_run_records_are_a_dataset_whose_outcome_is_the_answer_score():
    from conftest import ROOT
    dataset = read_dataset(ROOT / "sample_runs")
    assert dataset.usable and all(r.outcome is not None and 0 <= r.outcome <= 1 for r in dataset.usable)


def test_bench_save_keeps_the_pages_table_in_the_store_and_a_store_that_fails_exits_2(dataset_file, small, lab_db,
                                                                                    capsys, monkeypatch):
    from scratchpad_lab.engine.store import Store
    assert main(["bench", str(dataset_file), "--strategy", "trim-only", "--workers", "1", "--save"]) == 0
    err = capsys.readouterr().err
    [listed] = Store().list_results()
    assert listed.kind == "benchmark" and f"stored as result {listed.id}" in err
    stored = Store().load_result(listed.id)
    assert stored.rows == small.rows() and stored.labels[0] == "no compression"
    assert stored.rows[0]["setting"] == "no compression" and stored.rows[0]["argument recall %"] == 100.0
    monkeypatch.setenv("SCRATCHPAD_LAB_DB", "postgresql+psycopg://nobody:x@127.0.0.1:9/none")
    assert main(["bench", str(dataset_file), "--strategy", "trim-only", "--workers", "1", "--save"]) == 2
    captured = capsys.readouterr()
    assert "the benchmark was not stored" in captured.err and "no compression" in captured.out


def test_a_benchmark_says_whether_argument_recall_separates_passed_from_failed_runs():
    """The difference of the passed and failed runs' mean argument recall, with its bootstrap interval, per setting;
    one sentence for the dataset: it separates them only where the interval is above 0, else it says it measures
    what the context holds, not success; without outcomes, nothing is said."""
    from scratchpad_lab.engine.studies.benchmark import SettingSummary, difference, separation_sentence

    apart = difference([0.9, 0.95, 1.0, 0.92], [0.5, 0.6, 0.55, 0.4], 31, "a")
    assert apart["difference"] == pytest.approx(0.4300, abs=1e-4) and apart["low"] > 0
    mixed = difference([0.9, 0.5, 0.7], [0.8, 0.6, 0.7], 31, "b")
    assert mixed["low"] < 0 < mixed["high"]
    assert difference([0.9], [], 31, "c")["difference"] is None
    one = SettingSummary("trim-only:x", "trim-only", runs=8, never_compressed=0.0, separation=apart)  # a trim cuts too
    other = SettingSummary("langmem:y", "langmem", runs=6, runs_compressed=6, never_compressed=0.0, separation=mixed)
    said = separation_sentence([one, other], True)
    assert said.startswith("Argument recall separates the passed runs from the failed ones under 1 of 2 settings")
    assert "under trim-only:x the passed runs keep +43.0 points" in said
    assert separation_sentence([other], True).endswith("it is what the context still holds, not a predictor of "
                                                       "success.")
    assert separation_sentence([one], False) == ""
    # among many settings, one interval above 0 is what chance gives: said so, not called a separation
    many = separation_sentence([one] + [other] * 25, True)
    assert many.startswith("Argument recall does not clearly separate") and "only under 1 of 26 settings" in many
    assert separation_sentence([one] * 13 + [other] * 13, True).startswith(
        "Argument recall separates the passed runs from the failed ones under 13 of 26 settings")
