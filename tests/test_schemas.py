"""The file formats have one definition (schemas.py): every loader goes through it, every sample loads,
the JSON Schema it generates is the one the guide publishes (docs/schemas/), and it agrees with the loader."""
import json
from pathlib import Path

import jsonschema
import pytest

from scratchpad_lab.model.events import EVENT_KINDS, Event, RunLog
from scratchpad_lab.model.records import RunRecord, load_any, load_path
from scratchpad_lab.model.schemas import json_schema
from scratchpad_lab.model.payloads import PAYLOADS
from synthetic import synthetic_trace
from scratchpad_lab.model.trace import RecordError

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "sample_runs").glob("*.json"))


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_every_shipped_sample_run_loads_and_survives_the_round_trip(path):
    record = load_path(path)
    assert isinstance(record, RunRecord) and record.events and record.trace is not None
    again = load_any(record.to_json())
    assert again.to_dict() == record.to_dict()
    assert jsonschema.validate(json.loads(path.read_text()), json_schema("run")) is None


@pytest.mark.parametrize("kind", ["trace", "run"])
def test_the_guide_publishes_the_schemas_the_loader_uses(kind):
    published = ROOT / "docs" / "schemas" / f"{kind}.schema.json"
    assert json.loads(published.read_text(encoding="utf-8")) == json_schema(kind), \
        f"regenerate: python -m scratchpad_lab.model.schemas {kind} > {published.relative_to(ROOT)}"
    assert f"schemas/{kind}.schema.json" in (ROOT / "docs" / "traces.md").read_text(encoding="utf-8")


def test_the_published_schema_and_the_loader_agree_on_good_and_bad_traces():
    schema = json_schema("trace")
    good = synthetic_trace(steps=6, seed=3).to_dict()
    jsonschema.validate(good, schema)
    load_any(json.dumps(good))
    bad_ones = [{**good, "steps": []}, {**good, "task": 7}, {**good, "tools": [{"description": "no name"}]},
                {**good, "steps": [{"response": "x", "observations": [1]}]}, {**good, "extra": 1},
                {**good, "tools": [{"name": "t", "parameters": {"properties": {"q": "string"}}}]}]
    for bad in bad_ones:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
        with pytest.raises(RecordError):
            load_any(json.dumps(bad))


def test_the_published_schema_refuses_an_oversized_step_response_as_the_loader_does():
    from scratchpad_lab.model.schemas import MAX_STEP_RESPONSE_CHARS
    schema = json_schema("trace")
    good = synthetic_trace(steps=3, seed=1).to_dict()
    long_ascii = {**good, "steps": [{"response": "x" * 20_052}] + good["steps"][1:]}  # the 20,052-byte step
    at_cap = {**good, "steps": [{"response": "é" * MAX_STEP_RESPONSE_CHARS}] + good["steps"][1:]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(long_ascii, schema)
    with pytest.raises(RecordError, match="20,052 characters"):
        load_any(json.dumps(long_ascii))
    jsonschema.validate(at_cap, schema)  # 24,000 bytes of UTF-8 but 12,000 characters: both accept it
    load_any(json.dumps(at_cap))


def test_every_event_kind_has_a_payload_model_and_an_unknown_kind_is_refused_at_once():
    assert set(PAYLOADS) == set(EVENT_KINDS)
    with pytest.raises(ValueError, match="teleport"):
        RunLog().emit("teleport")
    with pytest.raises(ValueError):
        Event(kind="teleport", t=0.0)


@pytest.mark.parametrize("kind, data, says", [
    ("compression", {"reason": "whim", "status": "ok", "before": "a", "after": "b"}, "events[1].data.reason"),
    ("compression", {"reason": "size", "status": "ok", "before": 3, "after": "b"}, "events[1].data.before must be text"),
    ("compression", {"reason": "size", "status": "ok", "after": "b"}, "events[1].data.before is missing"),
    ("iteration", {"chars": "12"}, "events[1].data.chars must be a whole number"),
    ("llm_call", {"latency_s": "fast"}, "events[1].data.latency_s must be a number"),
    ("tool_call", {"result": ["not", "text"]}, "events[1].data.result must be text"),
    ("run_start", {"tools": [{"description": "no name"}]}, "events[1].data.tools[0].name is missing"),
    ("trim", {"before_chars": -5}, "events[1].data.before_chars"),
])
def test_an_event_payload_of_the_wrong_type_is_refused_naming_the_field(kind, data, says):
    raw = json.loads((SAMPLES[0]).read_text())
    raw["events"].insert(1, {"kind": kind, "t": 0.1, "iteration": 1, "data": data})
    with pytest.raises(RecordError) as caught:
        load_any(json.dumps(raw), where="upload.json")
    assert says in str(caught.value)


def test_a_payload_field_a_newer_writer_added_is_kept():
    raw = json.loads(SAMPLES[0].read_text())
    raw["events"][1]["data"]["added_later"] = {"x": 1}
    loaded = load_any(json.dumps(raw))
    assert loaded.events[1].data["added_later"] == {"x": 1}


@pytest.mark.parametrize("field, value, says", [
    ("summarize_every", "2", "summarize_every = '2' must be a whole number"),
    ("max_iterations", True, "max_iterations = True must be a whole number"),
    ("wall_clock_s", "300", "wall_clock_s = '300' must be a number"),
    ("prompt_name", 7, "prompt_name = 7 must be text"),
])
def test_a_run_records_config_has_strict_types_as_the_published_schema_says(field, value, says):
    raw = json.loads(SAMPLES[0].read_text())
    raw["config"][field] = value
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(raw, json_schema("run"))
    with pytest.raises(RecordError) as caught:
        load_any(json.dumps(raw), where="upload.json")
    assert str(caught.value).startswith("upload.json: its config is not valid here: " + says)
