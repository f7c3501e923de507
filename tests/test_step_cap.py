"""One agent step's response is capped (issue 9 item 4): in files at load, from models at the reply.

The cap (trace.MAX_STEP_RESPONSE_CHARS) is where the agent's quadratic JSON parser stays well under a
second; bench/parse_cap.py measures it. Larger steps are refused with a message, before any replay.
"""
import json

import pytest

from fake_openai import FakeOpenAI
from scratchpad_lab import cli
from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.model.endpoint import Endpoint
from scratchpad_lab.model.records import load_any
from scratchpad_lab.engine.run.runner import Run, Source
from scratchpad_lab.model.trace import MAX_STEP_RESPONSE_CHARS, RecordError

END = json.dumps({"thought": "done", "actions": [], "final_answer": "ok"})


def _trace(response: str) -> dict:
    return {"schema": "scratchpad-lab/trace@1", "task": "t", "tools": [{"name": "search"}],
            "steps": [{"response": response, "observations": []}, {"response": END}]}


def _garbage(size: int) -> str:
    return ('{"a":' + "[" * 50 + '"' + "}" * size)[:size]  # the parser's slowest shape (bench/parse_cap.py)


def test_a_200_kb_garbage_step_in_a_trace_is_refused_before_any_replay(tmp_path, capsys):
    path = tmp_path / "garbage.json"
    path.write_text(json.dumps(_trace(_garbage(200_000))))
    assert cli.main(["replay", str(path), "--json"]) == 2
    err = capsys.readouterr().err
    assert "steps[0].response is 200,000 characters" in err and f"at most {MAX_STEP_RESPONSE_CHARS:,} characters" in err


def test_the_cap_counts_characters_as_the_published_schema_does_and_a_step_at_the_cap_loads_and_replays():
    at_cap = _garbage(MAX_STEP_RESPONSE_CHARS)
    trace = load_any(json.dumps(_trace(at_cap)))
    record = Run(RunConfig.build(scenario=None), Source.for_trace(trace)).run()
    assert record.outcome == "answered" and record.final_answer == "ok"
    load_any(json.dumps(_trace("é" * MAX_STEP_RESPONSE_CHARS)))  # 24,000 bytes of UTF-8, 12,000 characters
    with pytest.raises(RecordError, match="one agent step may be at most"):
        load_any(json.dumps(_trace("é" * (MAX_STEP_RESPONSE_CHARS + 1))))


def test_a_run_record_whose_embedded_trace_has_an_oversized_step_is_refused():
    record = Run(RunConfig.build(scenario="support-ticket", max_iterations=3)).run()
    raw = record.to_dict()
    raw["trace"]["steps"][0]["response"] = _garbage(MAX_STEP_RESPONSE_CHARS + 1)
    with pytest.raises(RecordError, match=r"trace\.steps\[0\]\.response is"):
        load_any(json.dumps(raw))


def test_a_model_step_reply_over_the_cap_ends_the_run_with_a_sentence():
    with FakeOpenAI() as server:
        server.default = ("ok", _garbage(MAX_STEP_RESPONSE_CHARS + 500))
        config = RunConfig.build(scenario="support-ticket", max_iterations=3, agent_endpoint=Endpoint(
            provider="custom", base_url=server.url, model="m", retries=1))
        record = Run(config, Source.for_scenario("support-ticket")).run()
    assert record.outcome == "error"
    assert f"over the {MAX_STEP_RESPONSE_CHARS:,}-byte cap" in record.error
