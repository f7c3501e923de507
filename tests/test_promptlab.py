"""Prompt lab engine and `scratchpad-lab prompt-lab`: snapshots, prompt checks, the matrix, the JSON."""
import json
import threading
from pathlib import Path

import pytest

from conftest import threads_end, wait_until
from fake_openai import FakeOpenAI, echo_marker, prompt_of
from scratchpad_lab.cli import main
from scratchpad_lab.model.config import PACKAGE_PROMPT, ConfigError, RunConfig, validate_prompt_template
from scratchpad_lab.analysis.facts import contains
from scratchpad_lab.engine.studies.promptlab import (PROMPT_LIBRARY, Matrix, PromptVariant, SnapshotError,
                                      check_prompt, compress_once, differing, snapshot_at_compression,
                                      snapshot_at_iteration)
from scratchpad_lab.model.endpoint import Endpoint
from scratchpad_lab.model.records import load_record
from scratchpad_lab.model.summarizer import SummarizerChoice
from scratchpad_lab.engine.run.runner import Run

SAMPLE = Path(__file__).resolve().parents[1] / "sample_runs" / "support-ticket-defaults.json"
CELL_KEYS = ["prompt", "summarizer", "status", "summary", "before_chars", "after_chars", "before_tokens",
             "after_tokens", "facts_before", "facts_lost", "flags", "latency_s", "tokens_in", "tokens_out", "error",
             "probes"]


@pytest.fixture
def prompts(tmp_path):
    a = tmp_path / "keep-ids.txt"
    a.write_text("MARKER-alpha. Keep every id.\nTask: {query}\n{scratchpad}\n", encoding="utf-8")
    b = tmp_path / "short.txt"
    b.write_text("MARKER-beta. Be brief about step {iteration}.\n{scratchpad}\n", encoding="utf-8")
    return a, b


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_two_prompts_by_extractive_and_a_model_give_four_cells(prompts, capsys):
    a, b = prompts
    with FakeOpenAI() as fake:
        fake.default = ("ok", echo_marker)
        code, out, err = run_cli(capsys, "prompt-lab", str(SAMPLE), "--compression", "1", "--prompt-file", str(a),
                                 "--prompt-file", str(b), "--summarizer", "extractive",
                                 "--summarizer-model", "fake-model", "--summarizer-base-url", fake.url, "--json")
    assert code == 0, err
    cells = json.loads(out)
    assert [(c["prompt"], c["summarizer"]) for c in cells] == [
        ("keep-ids.txt", "extractive"), ("keep-ids.txt", "fake-model"),
        ("short.txt", "extractive"), ("short.txt", "fake-model")]
    assert all(list(c) == CELL_KEYS for c in cells)
    model = [c for c in cells if c["summarizer"] == "fake-model"]
    assert model[0]["summary"].startswith("Summary by MARKER-alpha")
    assert model[1]["summary"].startswith("Summary by MARKER-beta")
    assert model[0]["summary"] != model[1]["summary"]
    record = load_record(SAMPLE)
    first = [e for e in record.events if e.kind == "compression"][0]
    for c in cells:
        assert c["status"] == "ok"
        assert c["before_chars"] == len(first.data["before"]) and c["after_chars"] < c["before_chars"]
        assert set(c["facts_lost"]) <= set(c["facts_before"]) and c["facts_lost"]
        for fact in set(c["facts_before"]) - set(c["facts_lost"]):
            assert contains(c["summary"], fact, relaxed=True), fact
    # the model was sent the prompt formatted for that scratchpad (iteration 5 of the sample's task)
    sent = [prompt_of(json.loads(r["body"])) for r in fake.requests]
    assert any(p.startswith("MARKER-beta. Be brief about step 5.\n" + first.data["before"]) for p in sent)


def test_a_probe_given_on_the_command_line_is_answered_in_every_cell_in_both_outputs(prompts, capsys):
    record = load_record(SAMPLE)
    before = [e for e in record.events if e.kind == "compression"][0].data["before"]
    assert "A-1001" in before and "Not-In-It-42" not in before
    argv = ["prompt-lab", str(SAMPLE), "--compression", "1", "--prompt-file", str(prompts[0]),
            "--probe", "Which order is it?=A-1001", "--probe", "Which code?=Not-In-It-42"]
    code, out, err = run_cli(capsys, *argv, "--json")
    assert code == 0, err
    mine = [p for p in json.loads(out)[0]["probes"] if p["question"] in ("Which order is it?", "Which code?")]
    assert [(p["expected"], p["answerable_before"]) for p in mine] == [("A-1001", True), ("Not-In-It-42", False)]
    assert mine[1]["answerable_after"] is False
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    assert "probe 'Which order is it?' (expects 'A-1001'): answerable before yes, after " in out
    assert "probe 'Which code?' (expects 'Not-In-It-42'): answerable before no, after no" in out


def test_prompt_is_formatted_as_in_a_real_run():
    """The same custom template, in a real run and in the lab, sends byte-identical prompts."""
    template = "Notes for {query} at {iteration}:\n{scratchpad}\nEND"
    record = Run(RunConfig.build(scenario="support-ticket", summarize_every=3, summarizer_prompt=template)).run()
    comp = [e for e in record.events if e.kind == "compression"][1]
    snapshot = snapshot_at_compression(record, 2)
    from scratchpad_lab.engine.summarize.extractive import ExtractiveSummarizer
    c = compress_once(snapshot, template, ExtractiveSummarizer(1500), "extractive")
    assert c["prompt"] == comp.data["prompt"]
    assert c["after"] == comp.data["after"] and c["response"] == comp.data["response"]


def test_snapshot_at_iteration_is_what_the_middleware_saw():
    record = load_record(SAMPLE)
    comp = [e for e in record.events if e.kind == "compression"][0]
    assert snapshot_at_iteration(record, comp.iteration).scratchpad == comp.data["before"]
    it3 = [e for e in record.events if e.kind == "iteration" and e.iteration == 3][0]
    assert snapshot_at_iteration(record, 3).scratchpad == it3.data["scratchpad"]
    with pytest.raises(SnapshotError, match="compression must be 1 to 2"):
        snapshot_at_compression(record, 3)


def test_a_trace_is_replayed_with_package_defaults_to_find_the_snapshot(tmp_path, prompts, capsys):
    record = load_record(SAMPLE)
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps(record.trace.to_dict()), encoding="utf-8")
    code, out, err = run_cli(capsys, "prompt-lab", str(trace), "--compression", "1", "--prompt-file",
                             str(prompts[0]), "--json")
    assert code == 0, err
    first = [e for e in record.events if e.kind == "compression"][0]
    assert json.loads(out)[0]["before_chars"] == len(first.data["before"])


@pytest.mark.parametrize("argv, message", [
    (["--compression", "9"], "must be 1 to 2"),
    (["--iteration", "999"], "iterations 1 to"),
    (["--compression", "1", "--prompt-file", "/nonexistent.txt"], "cannot read"),
    (["--compression", "1", "--summarizer-base-url", "http://x/v1"], "needs --summarizer-model"),
])
def test_bad_arguments_exit_2_with_a_sentence(prompts, capsys, argv, message):
    code, out, err = run_cli(capsys, "prompt-lab", str(SAMPLE), "--prompt-file", str(prompts[0]), *argv)
    assert code == 2 and message in err and "Traceback" not in err


def test_a_prompt_file_without_scratchpad_exits_2_saying_what_to_add(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("Summarize the notes, please.", encoding="utf-8")
    code, _, err = run_cli(capsys, "prompt-lab", str(SAMPLE), "--compression", "1", "--prompt-file", str(bad))
    assert code == 2 and "{scratchpad}" in err


def test_no_cell_could_run_exits_1(prompts, capsys):
    with FakeOpenAI() as fake:
        fake.default = ("status", 401)
        code, out, err = run_cli(capsys, "prompt-lab", str(SAMPLE), "--compression", "1", "--prompt-file",
                                 str(prompts[0]), "--summarizer-model", "m", "--summarizer-base-url", fake.url,
                                 "--json")
    cells = json.loads(out)
    assert code == 1 and cells[0]["status"] == "error" and "401" in cells[0]["error"]


def test_an_empty_reply_leaves_the_scratchpad_as_the_package_does():
    class Silent:
        def invoke(self, prompt):
            return "   "

    snapshot = snapshot_at_compression(load_record(SAMPLE), 1)
    c = compress_once(snapshot, None, Silent(), "silent")
    assert c["status"] == "empty" and "empty" in c["flags"]
    assert c["after"] == snapshot.scratchpad and c["facts_lost"] == []


def test_check_prompt_offers_the_fix_in_plain_words():
    missing = check_prompt("Summarize the notes.")
    assert not missing.ok and "{scratchpad}" in missing.problems[0] and "escap" not in missing.problems[0]
    assert missing.fix == "Summarize the notes.\n\n{scratchpad}" and check_prompt(missing.fix).ok
    typo = check_prompt("Notes: {scratchpd}")
    assert not typo.ok and typo.fix == "Notes: {scratchpad}"
    # Issue 30 item 13: what the Playground refuses (config.validate_prompt_template), the lab refuses too,
    # with the rule's own sentence and a fix the rule accepts.
    unknown = check_prompt("{scratchpad}\nFor {customer}")
    assert not unknown.ok and "unknown placeholder(s) {customer}" in unknown.problems[0]
    assert "as written" in unknown.notes[0] and unknown.fix == "{scratchpad}\nFor {{customer}}"
    assert check_prompt(unknown.fix).ok
    assert check_prompt(unknown.fix).template.format(scratchpad="S", query="q", iteration=1) == "S\nFor {customer}"
    task = check_prompt("{scratchpad} for {task}")
    assert not task.ok and task.fix == "{scratchpad} for {query}"
    for text in ("{scratchpad}\nFor {customer}", "{scratchpad} for {task}", "{scratchpad!r}", "{scratchpad:>9}"):
        try:
            validate_prompt_template(text)
            playground_accepts = True
        except ConfigError:
            playground_accepts = False
        assert check_prompt(text).ok == playground_accepts, text
    assert check_prompt(PACKAGE_PROMPT).ok and not check_prompt("   ").ok
    assert all(check_prompt(t).ok for t in PROMPT_LIBRARY.values())


def test_the_library_default_is_the_package_prompt():
    from autourgos_summarizer import middleware
    assert PROMPT_LIBRARY["Package default"] is middleware._SUMMARIZE_PROMPT


def test_stop_cancels_cells_not_done():
    record = load_record(SAMPLE)
    snapshot = snapshot_at_compression(record, 1)
    with FakeOpenAI() as fake:
        release = threading.Event()
        fake.default = ("ok", lambda body: release.wait(10) and "late summary")
        endpoint = Endpoint(provider="custom", base_url=fake.url, model="slow")
        matrix = Matrix(snapshot, [PromptVariant(str(i), PACKAGE_PROMPT) for i in range(2)],
                        [SummarizerChoice(), SummarizerChoice("endpoint", endpoint=endpoint, key="k")]).start()
        assert wait_until(matrix, lambda: all(c.done for c in matrix.cells if c.summarizer == "extractive"))
        matrix.stop()
        assert matrix.finished
        assert [c.status for c in matrix.cells] == ["ok", "cancelled", "ok", "cancelled"]
        assert threads_end("prompt-lab"), "the cells' workers leave the calls in flight at once"
        release.set()
        assert threads_end("scratchpad-lab-call"), "the abandoned calls came back"
        assert [c.status for c in matrix.cells] == ["ok", "cancelled", "ok", "cancelled"]  # their replies ignored


def test_differing_hides_cells_with_the_same_summary():
    record = load_record(SAMPLE)
    snapshot = snapshot_at_compression(record, 1)
    matrix = Matrix(snapshot, [PromptVariant("a", PACKAGE_PROMPT), PromptVariant("b", PROMPT_LIBRARY["One paragraph"])],
                    [SummarizerChoice()]).run(timeout=30)
    assert matrix.finished and differing(matrix.cells) == []  # extractive ignores the prompt


# ── issue 45: a winner only among summaries; a slow cell's time left; a prompt too long for the built-in model ──

def _scored(matrix: Matrix, row: int, col: int, status: str, kept: int, flags=()) -> None:
    """A finished cell of a known score: `kept` of 4 facts kept, no probes."""
    cell = matrix.cell(row, col)
    facts = ["A-1001", "T-5521", "84.50", "Pune"]
    cell.status, cell.probes = status, []
    cell.compression = {"facts_before": facts, "facts_lost": facts[kept:], "flags": list(flags)}


def _two_by_two() -> Matrix:
    snapshot = snapshot_at_compression(load_record(SAMPLE), 1)
    model = SummarizerChoice("endpoint", endpoint=Endpoint(model="m", base_url="http://localhost:9/v1"))
    return Matrix(snapshot, [PromptVariant("P1", "{scratchpad}"), PromptVariant("P2", "Short.\n{scratchpad}")],
                  [SummarizerChoice(), model])


@pytest.mark.parametrize("cells, sentence", [
    ([("ok", 3, ()), ("ok", 2, ())], "Winning prompt with m: P1, which kept the most: 3 of 4 facts."),
    ([("ok", 2, ()), ("ok", 2, ())], "Winning prompt with m: none, every prompt kept the same: 2 of 4 facts."),
    # a reply flagged as no summary never wins, however many facts its text still holds
    ([("ok", 4, ("not_a_summary",)), ("ok", 1, ())],
     "Winning prompt with m: P2, the only prompt that got a summary: 1 of 4 facts."),
    # every cell of the would-be winner is no summary, or failed (the scratchpad kept whole): no winner is named
    ([("ok", 4, ("not_a_summary",)), ("error", 4, ("error_text",))],
     "Winning prompt with m: none, no prompt got a summary (each reply failed, was empty or was flagged as no "
     "summary)."),
    ([("empty", 4, ("empty",)), ("error", 4, ("error_text",))],
     "Winning prompt with m: none, no prompt got a summary (each reply failed, was empty or was flagged as no "
     "summary)."),
])
def test_the_winner_is_named_only_among_summaries(cells, sentence):
    matrix = _two_by_two()
    for row, (status, kept, flags) in enumerate(cells):
        _scored(matrix, row, 0, "ok", 4)
        _scored(matrix, row, 1, status, kept, flags)
    assert matrix.winners() == [sentence]  # the extractive column ignores the prompt: no sentence


def test_a_failed_or_empty_cell_is_not_a_summary():
    matrix = _two_by_two()
    _scored(matrix, 0, 1, "error", 4, ("error_text",))
    _scored(matrix, 1, 1, "empty", 4, ("empty",))
    assert not matrix.cell(0, 1).is_summary and not matrix.cell(1, 1).is_summary
    _scored(matrix, 1, 1, "ok", 4)
    assert matrix.cell(1, 1).is_summary


def test_a_running_cell_says_what_it_waits_for_and_its_time_left(monkeypatch):
    from scratchpad_lab.engine.studies.promptlab import matrix as matrix_module
    cell = _two_by_two().cell(0, 1)
    cell.status, cell.started_s, cell.limit_s = "running", 100.0, 180.0
    monkeypatch.setattr(matrix_module.time, "monotonic", lambda: 145.0)
    assert cell.waiting_text() == "waiting for m, 45 s; it gives up in 135 s"
    cell.model_status = "1 call ahead of yours on the built-in model"
    assert cell.waiting_text() == ("waiting for m, 45 s (1 call ahead of yours on the built-in model); it gives up "
                                   "in 135 s")
    cell.limit_s = None  # an endpoint's tries: no single limit to count down
    cell.model_status = ""
    assert cell.waiting_text() == "waiting for m, 45 s"


def test_a_scratchpad_too_long_for_the_built_in_model_is_said_before_the_matrix_runs():
    """The Prompt lab's own default scratchpad (log-triage, compression 1: 8,535 characters of logs) is 4,431 of
    SmolLM2's tokens with the package prompt, over its 4,096: said in words, with how much fits, before any call."""
    record = load_record(SAMPLE.with_name("log-triage-defaults.json"))
    snapshot = snapshot_at_compression(record, 1)
    prompts = [PromptVariant("Package default", PACKAGE_PROMPT)]
    said = snapshot.too_long(prompts, [SummarizerChoice("builtin")])
    assert len(said) == 1 and said[0].startswith("This scratchpad with the prompt “Package default” may be too long "
                                                 "for the built-in model: about ")
    assert "characters of this text fit" in said[0]
    assert snapshot.too_long(prompts, [SummarizerChoice()]) == []  # no built-in column: nothing to say
    short = snapshot_at_compression(load_record(SAMPLE), 1)  # support-ticket: 1,934 tokens, it fits
    assert short.too_long(prompts, [SummarizerChoice("builtin")]) == []
