"""The next call re-decided (engine/studies/decide.py): the measure proved on hand-built cases whose answers are known,
with a scripted model (its answers follow from what it was sent), before the real built-in model runs it."""
import json

import pytest

from scratchpad_lab.analysis.arguments import ToolCall
from scratchpad_lab.engine.summarize.builtin_model import GET_IT, missing
from scratchpad_lab.engine.studies.decide import (NO_COMPRESSION, Decider, Decision, RunDecisions, agreement, decide_calls,
                                          read_decision, reference_label, row_figures, table, tool_schema)
from scratchpad_lab.model.trace import Trace, TraceStep, TraceTool

TRACE = Trace("Refund order A-1001 for Ada.",
              [TraceTool("get_order", "look an order up"), TraceTool("refund", "refund an order")],
              [TraceStep('Action: get_order\nAction Input: {"order_id": "A-1001"}', ["order A-1001: 2 lamps, 84.50"]),
               TraceStep('Action: refund\nAction Input: {"order_id": "A-1001", "amount": 84.5}', ["refunded"]),
               TraceStep("Final Answer: done")])
CALLS = [ToolCall(1, "get_order", {"order_id": "A-1001"}), ToolCall(2, "refund", {"order_id": "A-1001", "amount": 84.5})]


class ScriptedModel:
    """Answers from what it was sent: before any observation get_order; after one, refund with the amount only if
    the context still holds "84.50", else refund with the id alone. `wrong`: it always answers get_order."""

    model_name = "scripted"

    def __init__(self, wrong: bool = False) -> None:
        self.wrong, self.asked, self.formats = wrong, [], []
        self.last_usage = {"input_tokens": 10, "output_tokens": 5}

    def invoke(self, messages, max_tokens=None, response_format=None):
        self.asked.append(messages)
        self.formats.append(response_format)
        sent = messages[-1]["content"]
        if self.wrong or "Observation" not in sent:
            return 'I think {"tool": "get_order", "arguments": {"order_id": "A-1001"}} is next.'
        if "84.50" in sent:
            return json.dumps({"tool": "refund", "arguments": {"order_id": "a-1001 ", "amount": 84.5}})
        return json.dumps({"tool": "refund", "arguments": {"order_id": "A-1001"}})


FULL = {1: "Step 0: the task", 2: "Observation: order A-1001: 2 lamps, 84.50"}
CUT = {1: "Step 0: the task", 2: "Observation: order A-1001 (summarized)"}


def _run(model, rows):
    decider = Decider(model, constrained=True)
    run = RunDecisions("hand-built", CALLS)
    for label, sent, form in rows:
        run.rows[label] = decide_calls(decider, TRACE, CALLS, lambda i, s=sent: s[i], form)
        run.forms[label] = form
    return run, decider


def test_agreement_counts_the_tool_and_each_recorded_argument_leaf_under_its_path():
    assert agreement(CALLS[1], Decision("refund", {"order_id": "A-1001", "amount": 84.5})) == (1.0, 1.0)
    assert agreement(CALLS[1], Decision("refund", {"order_id": "A-1001"})) == (1.0, 0.5)
    assert agreement(CALLS[1], Decision("refund", {"id": "A-1001", "amount": "84.5"})) == (1.0, 0.5)  # path counts
    assert agreement(CALLS[1], Decision("get_order", {"order_id": "A-1001"})) == (0.0, 0.5)
    assert agreement(CALLS[1], Decision(None)) == (0.0, 0.0)
    assert agreement(ToolCall(1, "get_order", {}), Decision("get_order", {"x": 1})) == (1.0, None)  # no leaf


def test_a_reply_is_read_as_the_first_json_call_of_a_known_tool_or_as_no_valid_call():
    assert read_decision('x {"tool": "send"} {"tool": "refund", "arguments": {"a": 1}}', ["refund"]) == \
        Decision("refund", {"a": 1}, 'x {"tool": "send"} {"tool": "refund", "arguments": {"a": 1}}')
    assert read_decision('{"tool": "refund", "argum', ["refund"]).tool is None  # cut short by the token cap
    assert read_decision("I would refund it.", ["refund"]).tool is None


def test_the_schema_names_every_tool_of_the_run_with_its_arguments_object():
    schema = tool_schema(TRACE, CALLS + [ToolCall(3, "escalate", {})])
    assert [o["properties"]["tool"]["const"] for o in schema["anyOf"]] == ["escalate", "get_order", "refund"]
    assert all(o["required"] == ["tool", "arguments"] for o in schema["anyOf"])


def test_the_measure_on_a_scripted_model_whose_answers_are_known():
    model = ScriptedModel()
    run, decider = _run(model, [(NO_COMPRESSION, FULL, "messages"), ("same context", dict(FULL), "messages"),
                                ("cut", CUT, "messages")])
    none, same, cut = (row_figures(run, label) for label in (NO_COMPRESSION, "same context", "cut"))
    assert none == {"tool_agreement": 1.0, "arguments_agreement": 1.0, "same_as_no_compression": 1.0, "valid": 1.0,
                    "failed": 0.0}
    assert same == none                      # what no compression sent: the one decision, asked once
    assert len(model.asked) == 3             # FULL's two calls, and only CUT's second differs
    assert cut["tool_agreement"] == 1.0 and cut["arguments_agreement"] == pytest.approx((1 + 0.5) / 2)
    assert cut["same_as_no_compression"] == 0.5
    assert all(f["type"] == "json_schema" for f in model.formats)  # the built-in model is constrained
    assert decider.asked == 3 and decider.tokens_in == 30


def test_no_compression_is_not_read_as_agreeing_where_the_model_disagrees_with_the_recorded_run():
    run, _ = _run(ScriptedModel(wrong=True), [(NO_COMPRESSION, FULL, "messages"), ("cut", CUT, "messages")])
    none = row_figures(run, NO_COMPRESSION)
    assert none["tool_agreement"] == 0.5      # get_order both times: right once, wrong once
    assert none["same_as_no_compression"] == 1.0  # by construction: the same context is the same decision
    assert row_figures(run, "cut")["same_as_no_compression"] == 1.0  # it decided alike, though it was cut


def test_each_form_is_read_against_its_own_no_compression():
    run, _ = _run(ScriptedModel(), [(NO_COMPRESSION, CUT, "messages"),
                                    (reference_label("scratchpad"), FULL, "scratchpad"),
                                    ("a scratchpad setting", FULL, "scratchpad")])
    assert row_figures(run, "a scratchpad setting")["same_as_no_compression"] == 1.0


class LengthModel:
    """Picks a tool of the schema by the length of what it was sent: the same messages, the same call; other
    messages, most likely another."""

    model_name = "by length"
    last_usage = {}

    def invoke(self, messages, max_tokens=None, response_format=None):
        names = [o["properties"]["tool"]["const"] for o in response_format["json_schema"]["schema"]["anyOf"]]
        sent = messages[-1]["content"]
        return json.dumps({"tool": names[len(sent) % len(names)], "arguments": {}})


def test_the_agreement_table_on_the_lab_sample_runs_reads_no_compression_and_uncut_settings_as_the_same(monkeypatch):
    import scratchpad_lab.engine.studies.decide as decide
    import scratchpad_lab.engine.summarize.builtin_model as builtin_model
    from conftest import ROOT
    from scratchpad_lab.engine.studies.benchmark import BenchmarkRequest

    monkeypatch.setattr(decide, "decider_for", lambda request, stop=None: Decider(LengthModel(), constrained=True))
    # the work limit charges the built-in model at its speed as measured in this process: a real model test run
    # before this one on a loaded worker measured it slow enough that this job was refused (35 minutes against
    # 30). The decisions here are the stand-in's: charge them at the shipped figures, whatever ran before.
    monkeypatch.setattr(builtin_model, "_SPEED", {"prompt_tok_s": builtin_model.MEASURED_PROMPT_TOK_S,
                                                  "generation_tok_s": builtin_model.MEASURED_GENERATION_TOK_S,
                                                  "measured": False})
    grids = {"autourgos-middleware": {"summarize_every": (2, None), "max_scratchpad_chars": (100_000,)},
             "deepagents": {"trigger_tokens": ("99%",), "keep_messages": (6,)}}
    result = decide.decide_benchmark(decide.DecideRequest(
        BenchmarkRequest(ROOT / "sample_runs", ["autourgos-middleware", "deepagents"], grids, runs=2), calls_per_run=3))
    rows = {r["setting"]: r for r in result.rows}
    assert list(rows)[:2] == [NO_COMPRESSION, reference_label("scratchpad")]
    for label in (NO_COMPRESSION, reference_label("scratchpad"),
                  "autourgos-middleware:summarize_every=none,max_scratchpad_chars=100000",  # never fires
                  "deepagents:trigger_tokens=99%,keep_messages=6"):                         # never fires either
        assert rows[label]["same_as_no_compression"] == 1.0, label
        assert rows[label]["tool_agreement_vs_none"] == 0.0, label
    assert rows["autourgos-middleware:summarize_every=2,max_scratchpad_chars=100000"]["same_as_no_compression"] < 1.0
    assert len(result.runs) == 2 and all(len(r.calls) == 3 for r in result.runs)
    assert table(result).splitlines()[0].split()[:3] == ["row", "runs", "tool"]


@pytest.mark.skipif(missing() is not None, reason=f"needs the built-in model: {GET_IT}")
def test_the_built_in_model_answers_within_the_tools_schema():
    from scratchpad_lab.engine.summarize.builtin_model import BuiltinLLM

    decider = Decider(BuiltinLLM(timeout_s=120), constrained=True, max_tokens=24)
    decided = decide_calls(decider, TRACE, CALLS[:1], lambda i: FULL[i], "messages")[0]
    reply = decider.llm.last_request
    assert reply["response_format"]["json_schema"]["schema"] == tool_schema(TRACE, CALLS[:1])
    # the grammar makes the reply start as the schema says, whatever the weak model would write
    assert decided.text.startswith('{') and '"tool"' in decided.text[:12]
    assert decided.tool in (None, "get_order", "refund")
