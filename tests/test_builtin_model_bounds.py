"""The built-in model's bounds found by bench/probes.py (issue 46): Stop and the deadline end a call while the model
reads a long prompt (Stop took 67-131 s to be seen there: llama.cpp read the prompt in one batch of 2,048 tokens and
said nothing meanwhile), and a reply's JSON schema too deep or too large is refused in one line before llama.cpp
makes it a grammar (180 nested objects raised a TypeError out of xllamacpp; 5,000 optional properties built for
minutes, the one model held). The schema checks need no model; the Stop checks use the real one."""
from __future__ import annotations

import json
import threading
import time

import pytest

from scratchpad_lab.analysis.arguments import ToolCall
from scratchpad_lab.engine.studies.decide import Decider, tool_schema
from scratchpad_lab.engine.summarize import builtin_model
from scratchpad_lab.engine.summarize.builtin_model import (GET_IT, SCHEMA_MAX_DEPTH, SCHEMA_MAX_PROPERTIES, BuiltinLLM,
                                                           SchemaTooLarge, missing, schema_problem)
from scratchpad_lab.model.endpoint import EndpointError
from scratchpad_lab.model.trace import Trace

needs_model = pytest.mark.skipif(missing() is not None, reason=f"needs the built-in model: {GET_IT}")
# about 2,400 of SmolLM2's tokens: half a minute or more to read on this CPU
LONG_PROMPT = "Summarize in one line:\n" + " ".join(f"order A-{1000 + i} shipped to Pune on {i % 28 + 1} May"
                                                    for i in range(150))


def nested(depth: int) -> dict:
    schema: dict = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def run_with_tool(parameters: dict) -> Trace:
    return Trace.from_dict({"schema": "scratchpad-lab/trace@1", "task": "t", "tools": [{"name": "get", "parameters": parameters}],
                            "steps": [{"response": json.dumps({"thought": "d", "actions": [], "final_answer": "ok"})}]})


def test_a_real_runs_tool_schema_and_an_enum_of_1500_values_pass():
    airline = {"type": "object", "properties": {"user_id": {"type": "string"}, "reservation_id": {"type": "string"},
                                                "cabin": {"enum": ["basic_economy", "economy", "business"]},
                                                "passengers": {"type": "array", "items": {"type": "object", "properties": {
                                                    "first_name": {"type": "string"}, "dob": {"type": "string"}}}}},
               "required": ["user_id"]}
    assert schema_problem(tool_schema(run_with_tool(airline), [ToolCall(1, "get", {})])) is None
    assert schema_problem({"type": "object", "properties": {"a": {"enum": [f"v{i}" for i in range(1_500)]}}}) is None


@pytest.mark.parametrize("schema, said", [
    (nested(180), f"nested more than {SCHEMA_MAX_DEPTH} levels deep"),
    (nested(100_000), f"nested more than {SCHEMA_MAX_DEPTH} levels deep"),  # past Python's own recursion limit
    ({"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(5_000)}},
     f"5,000 properties, over the {SCHEMA_MAX_PROPERTIES}"),
    ({"type": "object", "properties": {"a": {"enum": [f"v{i}" for i in range(100_000)]}}}, "988,941 characters of JSON"),
])
def test_a_schema_too_deep_or_too_large_is_refused_in_one_line_naming_its_bound_before_the_model_is_asked(schema, said):
    model = BuiltinLLM(max_tokens=4)
    started = time.perf_counter()
    with pytest.raises(SchemaTooLarge) as refused:
        model.invoke("Your next call:", response_format={"type": "json_schema", "json_schema": {"schema": schema}})
    assert time.perf_counter() - started < 2 and model.calls == 0 and model.last_request == {}
    assert said in str(refused.value) and "\n" not in str(refused.value)


def test_a_decision_under_a_runs_180_deep_tool_schema_is_no_call_with_its_reason_in_a_line():
    found = Decider(BuiltinLLM(max_tokens=4), constrained=True, max_tokens=4, context_chars=200).decide(
        "task", "context", tool_schema(run_with_tool(nested(180)), [ToolCall(1, "get", {})]))
    assert found.tool is None and "nested more than" in (found.error or "") and "\n" not in found.error


@needs_model
def test_stop_while_the_model_reads_a_long_prompt_ends_the_call_within_a_batch():
    model = BuiltinLLM(max_tokens=4)
    model.stop_event = threading.Event()
    threading.Timer(1.0, model.stop_event.set).start()
    started = time.perf_counter()
    with pytest.raises(EndpointError, match="stopped"):
        model.invoke(LONG_PROMPT)
    assert time.perf_counter() - started < 15  # reading it whole takes 30 s or more here
    assert model.last_request["return_progress"] is True and builtin_model._SERVER["n_threads"] == 1


@needs_model
def test_a_deadline_while_the_model_reads_ends_the_call_saying_how_much_it_had_read():
    model = BuiltinLLM(max_tokens=4, timeout_s=2)
    started = time.perf_counter()
    with pytest.raises(EndpointError) as ended:
        model.invoke(LONG_PROMPT)
    assert time.perf_counter() - started < 15
    assert "passed its 2 s limit" in str(ended.value) and "prompt tokens read" in str(ended.value)


def resident_mb() -> float:
    return int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) / 1024


@needs_model
def test_distinct_prompts_do_not_grow_the_process():
    """llama.cpp kept each past prompt's model state in memory (its host cache, up to 8,192 MiB): 5-17 MB a prompt
    here, for a hosted server's lifetime. The lab reads every prompt whole, so it keeps none."""
    def ask(k: int) -> None:
        BuiltinLLM(max_tokens=2).invoke("Summarize:\n" + " ".join(f"order C-{k}{i} to Pune" for i in range(60)))
    ask(0)  # the model loaded and its buffers touched
    before = resident_mb()
    for k in (1, 2):  # about 400 tokens each: 9 MB each when kept
        ask(k)
    assert resident_mb() - before < 8
