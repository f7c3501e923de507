"""What a study's result says to the person who takes its answer away (issue 45, item 1): which summarizer its
figures were measured with (in the sentences and in the stored result), two settings that did exactly the same
thing as one point, one point answering two budgets described once, rows that do not contradict themselves (a
clearing strategy's kinds are of what it cleared; a trim that cut is not "no compression happened"), and no
verdict from a single strategy."""
import json

from test_benchmark import chat, short_chat

from scratchpad_lab.analysis.figures import NO_COMPRESSION, TRIM_ONLY, kinds_kept_text
from scratchpad_lab.cli import main
from scratchpad_lab.engine.studies.benchmark import BenchmarkRequest, run_benchmark
from scratchpad_lab.engine.studies.front import Chosen, choose_budgets, same_as
from scratchpad_lab.model.results import Result
from scratchpad_lab.model.summarizer import SummarizerChoice


def dataset(tmp_path):
    path = tmp_path / "runs.json"
    path.write_text(json.dumps([chat(1.0), short_chat(), chat(0.0)]))
    return path


def test_a_benchmark_says_which_summarizer_measured_it_in_its_sentences_its_json_and_its_stored_result(tmp_path, capsys):
    path = dataset(tmp_path)
    done = run_benchmark(BenchmarkRequest(path, ["trim-only"], {"trim-only": {"agent_trim_chars": (200, 400)}},
                                          workers=1))
    said = SummarizerChoice().measured_with
    assert done.measured_with == said and said.startswith("Measured with the offline extractive summarizer")
    assert done.to_dict()["measured_with"] == said
    stored = Result.from_dict(json.loads(json.dumps(done.result("runs").to_dict())))
    assert stored.measured_with == said
    old = done.result("runs").to_dict()
    del old["measured_with"]
    assert Result.from_dict(old).measured_with == ""  # a result stored before it still loads
    assert main(["bench", str(path), "--strategy", "trim-only", "--grid", "trim-only:agent_trim_chars=200|400",
                 "--workers", "1"]) == 0
    assert f"Chosen points. {said}" in capsys.readouterr().out


def test_each_summarizer_kind_is_named_for_what_it_is():
    from scratchpad_lab.model.endpoint import Endpoint

    endpoint = SummarizerChoice("endpoint", endpoint=Endpoint(model="gpt-4o-mini", base_url="https://api.openai.com/v1"))
    assert "the model gpt-4o-mini" in endpoint.measured_with
    assert "built-in model" in SummarizerChoice("builtin").measured_with
    assert "ignores prompts" in SummarizerChoice().measured_with


def test_two_settings_that_did_the_same_thing_are_one_point_on_the_front(tmp_path):
    """At 100 and 101 tokens clear-tool-uses fires at the same calls on these runs: the same means on every
    measure. The second is not a second front point and is never chosen; the result says so in one sentence."""
    done = run_benchmark(BenchmarkRequest(dataset(tmp_path), ["clear-tool-uses"],
                                          {"clear-tool-uses": {"trigger": (100, 101), "keep": (0,)}}, workers=1))
    first, second = done.setting("clear-tool-uses:trigger=100,keep=0"), done.setting("clear-tool-uses:trigger=101,keep=0")
    assert first.means == {k: {**v} for k, v in second.means.items()}
    assert first.on_front and not second.on_front and second.same_as == first.label and first.same_as is None
    assert done.twins == [f"{second.label} gives exactly the figures of {first.label}: one point on the front, "
                          "marked once."]
    assert second.label not in {c.setting for c in done.chosen}
    assert done.to_dict()["settings"][2]["same_as"] == first.label


def test_one_point_answering_two_budgets_is_described_once():
    points = [{"label": "a", "keep": 0.99, "peak": 0.4, "tokens": 0}, {"label": "b", "keep": 0.5, "peak": 0.9, "tokens": 9}]
    chosen = choose_budgets(points, keep=lambda p: p["keep"], peak=lambda p: p["peak"], tokens=lambda p: p["tokens"],
                            label=lambda p: p["label"], describe=lambda p: f"{p['label']} is described here.",
                            kept_what="facts", best_what="facts kept", nothing="none.")
    assert [c.setting for c in chosen] == ["a", "a", "a"]
    assert chosen[0].sentence.endswith("a is described here.")
    assert [c.sentence.split(": ", 1)[1] for c in chosen[1:]] == ["the same point, a, as above."] * 2
    later = choose_budgets(points[:1], keep=lambda p: p["keep"], peak=lambda p: p["peak"], tokens=lambda p: 0,
                           label=lambda p: p["label"], describe=lambda p: "again", kept_what="x", best_what="y",
                           nothing="none.", before=[Chosen("b", "a", "s")])
    assert all("as above" in c.sentence for c in later)
    assert same_as([{"v": 1}, {"v": 1}, {"v": 2}], [("v", "max")], lambda p, k: p[k], lambda p: str(p["v"])) == \
        [None, "1", None]


def test_a_clearing_strategys_kinds_are_of_what_it_cleared_and_a_trim_that_cut_says_it_trimmed():
    assert kinds_kept_text({"id": 0.0}, True, compresses_by="clearing") == \
        "of the tool results it cleared: ids 0% (a placeholder stands for each; the rest stays whole)"
    assert kinds_kept_text({}, False, cut=True) == TRIM_ONLY
    assert kinds_kept_text({}, False) == NO_COMPRESSION
    assert kinds_kept_text({"id": 0.5}, True) == "ids 50%"


def test_no_verdict_from_a_single_strategy():
    from scratchpad_lab.engine.strategies import make_spec, run_strategies
    from scratchpad_lab.model.records import load_record
    from scratchpad_lab.ui.strategies_page import verdict, verdict_picks

    from conftest import ROOT

    record = load_record(ROOT / "sample_runs" / "support-ticket-tight.json")
    one = run_strategies(record, [make_spec("clear-tool-uses", {"trigger": 500, "keep": 1})])
    assert verdict(one).startswith("No verdict: only LangChain clear tool uses ran.") and verdict_picks(one) is None
    two = run_strategies(record, [make_spec("clear-tool-uses", {"trigger": 500, "keep": 1}),
                                  make_spec("trim-only", {"agent_trim_chars": 3000})])
    assert verdict(two).startswith("Verdict:") and verdict_picks(two) is not None


def test_a_shell_command_needs_the_identifiers_in_it_that_the_run_learned_earlier():
    """A coding agent's call is one whole command, never seen whole before: its needed values are the paths and
    names inside it that an earlier result showed (plain words never count; the task's own never count)."""
    from scratchpad_lab.analysis.arguments import Learned, ToolCall, identifiers, needed_at, recall

    learned = [Learned(1, "django/db/models/fields.py:1200: class CharField(Field):\nsee tests/test_fields.py"),
               Learned(2, "the error says: please check the value")]
    command = "grep -n CharField django/db/models/fields.py && python -m pytest tests/test_other.py -q"
    assert identifiers(command) == ["CharField", "django/db/models/fields.py", "tests/test_other.py"]
    assert needed_at({"command": command}, 3, learned, given="") == ["CharField", "django/db/models/fields.py"]
    assert needed_at({"command": command}, 3, learned, given="Fix CharField in Django") == \
        ["django/db/models/fields.py"]
    assert needed_at({"command": "please check the value"}, 3, learned, given="") == ["please check the value"]
    assert needed_at({"command": "check the value again"}, 3, learned, given="") == []  # plain words
    share = recall([ToolCall(3, "bash", {"command": command})], learned, "",
                   sent=lambda i: "... class CharField(Field) ...").share
    assert share == 0.5  # the path was cut from the context, the class name kept


def test_the_clis_prompt_matrix_never_says_facts_kept_for_a_cell_that_got_no_summary(monkeypatch, capsys, tmp_path):
    """An endpoint nobody answers: its cell failed, so its facts are not scored (a failed call never reads as kept),
    beside the extractive column's real count."""
    from conftest import ROOT

    monkeypatch.setenv("LAB_TEST_KEY", "sk-test-not-a-key")
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Summarize: {scratchpad}")
    code = main(["prompt-lab", str(ROOT / "sample_runs" / "support-ticket-tight.json"), "--compression", "1",
                 "--prompt-file", str(prompt), "--summarizer", "extractive",
                 "--summarizer-model", "nobody", "--summarizer-base-url", "http://127.0.0.1:9/v1",
                 "--api-key-env", "LAB_TEST_KEY"])
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if "chars," in line]
    failed = [line for line in lines if "nobody" in line]
    assert code == 0 and failed and all("facts not scored (no summary)" in line for line in failed), out
    assert any("facts kept" in line for line in lines if "nobody" not in line), out
