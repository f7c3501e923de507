"""Run records and trace files: a real run survives the round trip; an untrusted file is only ever
refused with a RecordError whose message says what is wrong."""
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchpad_lab import cli
from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.model.records import RUN_SCHEMA, RunRecord, load_any, load_path, load_record
from scratchpad_lab.engine.run.runner import Run, Source
from synthetic import synthetic_trace
from scratchpad_lab.model.trace import MAX_FILE_BYTES, TRACE_SCHEMA, RecordError, Trace


def _real_run(**settings_):
    trace = synthetic_trace(steps=14, seed=21, max_observation_chars=7000)
    config = RunConfig.build(scenario=None, **settings_)
    return Run(config, Source.for_trace(trace), name="round trip").run()


def _minimal_record(**changes):
    raw = {"schema": RUN_SCHEMA, "config": {}, "outcome": {"outcome": "answered", "final_answer": "ok"},
           "events": [{"kind": "finish", "t": 0.5, "iteration": 3, "data": {"outcome": "answered"}}]}
    raw.update(changes)
    return raw


def _refusal(data):
    with pytest.raises(RecordError) as caught:
        load_any(data, where="upload.json")
    message = str(caught.value)
    assert message.strip()
    return message


# ── round trips ────────────────────────────────────────────────────────────

def test_a_real_run_survives_the_json_round_trip_with_every_event():
    record = _real_run(summarize_every=3, max_scratchpad_chars=4000, agent_trim_chars=5000)
    kinds = {e.kind for e in record.events}
    assert {"run_start", "iteration", "trigger", "compression", "trim", "llm_call", "tool_call",
            "final_answer", "finish"} <= kinds
    loaded = load_any(record.to_json().encode("utf-8"))
    assert isinstance(loaded, RunRecord)
    assert loaded.to_dict() == json.loads(record.to_json())
    assert [e.to_dict() for e in loaded.events] == [e.to_dict() for e in record.events]
    assert (loaded.outcome, loaded.final_answer, loaded.mode) == ("answered", record.final_answer, "trace")
    assert loaded.config == record.config and isinstance(loaded.config, RunConfig)
    assert loaded.trace.to_dict() == record.trace.to_dict()


def test_a_saved_run_loads_back_from_its_file(tmp_path):
    record = _real_run(summarize_every=None)
    path = record.save(tmp_path / "sub" / "run.json")
    loaded = load_record(path)
    assert len(loaded.events) == len(record.events)
    assert loaded.final_answer == record.final_answer == "Finished after 14 steps."


def test_a_trace_file_loads_as_a_trace(tmp_path):
    trace = synthetic_trace(steps=12, seed=4)
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(trace.to_dict()), encoding="utf-8")
    loaded = load_path(path)
    assert isinstance(loaded, Trace)
    assert loaded.to_dict() == trace.to_dict()


def test_a_trace_is_refused_where_a_run_record_is_needed(tmp_path):
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(synthetic_trace(steps=3).to_dict()), encoding="utf-8")
    with pytest.raises(RecordError, match="is a trace, not a run record"):
        load_record(path)


def test_a_missing_file_is_refused(tmp_path):
    with pytest.raises(RecordError, match="does not exist"):
        load_path(tmp_path / "nope.json")

# ── the config, stored once ────────────────────────────────────────────────

SAMPLES = sorted((Path(__file__).resolve().parents[1] / "sample_runs").glob("*.json"))


def as_run1(raw: dict) -> dict:
    """A run@3 record as a run@1 file wrote it: the summarizer as four loose fields, the config also repeated in
    its run_start event."""
    chosen = raw["config"]["summarizer"]
    config = {k: v for k, v in raw["config"].items() if k != "summarizer"}
    config.update(summarizer=chosen["kind"], extractive_budget_chars=chosen["budget_chars"],
                  summarizer_endpoint=chosen["endpoint"], summarizer_prompt=chosen["prompt"])
    events = [dict(e, data={**e["data"], "config": config}) if e["kind"] == "run_start" else e for e in raw["events"]]
    return {**raw, "schema": "scratchpad-lab/run@1", "config": config, "events": events}


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_a_run1_file_loads_and_saves_its_config_once_with_one_summarizer(path, tmp_path):
    raw = as_run1(json.loads(path.read_text(encoding="utf-8")))  # the files the lab wrote before run@2 still load
    (tmp_path / "old.json").write_text(json.dumps(raw), encoding="utf-8")
    record = load_record(tmp_path / "old.json")
    start = next(e for e in record.events if e.kind == "run_start")
    assert start.payload.config == record.config.model_dump() == RunConfig.build(**raw["config"]).model_dump()
    saved = json.loads(record.save(tmp_path / "again.json").read_text(encoding="utf-8"))
    assert saved["schema"] == RUN_SCHEMA == "scratchpad-lab/run@3"
    assert saved["config"]["summarizer"] == {"kind": raw["config"]["summarizer"], "endpoint": None, "prompt": None,
                                             "budget_chars": raw["config"]["extractive_budget_chars"]}
    assert not {"summarizer_prompt", "summarizer_endpoint", "extractive_budget_chars"} & set(saved["config"])
    assert saved["config"] == record.config.model_dump(mode="json")
    assert all("config" not in e["data"] for e in saved["events"]), "the config is kept once, at the top"
    again = load_record(tmp_path / "again.json")
    assert again.config == record.config
    assert [e.to_dict() for e in again.events] == [e.to_dict() for e in record.events]
    assert saved == json.loads(path.read_text(encoding="utf-8"))  # the shipped sample is that file, as run@3


def test_the_top_level_config_is_the_one_the_events_read_in_an_old_file_that_disagrees(tmp_path):
    from scratchpad_lab.analysis.quality import annotate

    raw = as_run1(json.loads(SAMPLES[0].read_text(encoding="utf-8")))
    start = next(e for e in raw["events"] if e["kind"] == "run_start")
    start["data"]["config"] = {**start["data"]["config"], "max_scratchpad_chars": 123}  # a stale second copy, as run@1 could hold
    raw["config"]["max_scratchpad_chars"] = 4321
    record = load_any(json.dumps(raw).encode("utf-8"))
    assert record.config.max_scratchpad_chars == 4321
    assert next(e for e in record.events if e.kind == "run_start").payload.config["max_scratchpad_chars"] == 4321
    assert {c["max_scratchpad_chars"] for c in annotate(record.events)} <= {4321}



# ── refusals, each with a message ──────────────────────────────────────────

def test_a_file_over_ten_megabytes_is_refused_before_parsing():
    message = _refusal(b" " * (MAX_FILE_BYTES + 1))
    assert "limit is 10 MB" in message


def test_an_oversized_file_on_disk_is_refused(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(b"[" + b"0," * (MAX_FILE_BYTES // 2) + b"0]")
    with pytest.raises(RecordError, match="the limit is 10 MB"):
        load_path(path)


def test_text_that_is_not_json_is_refused():
    assert "not valid JSON" in _refusal(b"schema: run\nevents: []")


def test_bytes_that_are_not_utf8_are_refused():
    assert "not UTF-8" in _refusal(b"\xff\xfe{\x00\"\x00")


def test_a_json_array_is_refused():
    assert "expected a run record" in _refusal(b"[1, 2, 3]")


def test_an_unknown_schema_is_refused_naming_both_known_ones():
    message = _refusal(json.dumps({"schema": "someone-else/run@7", "events": []}))
    assert "someone-else/run@7" in message and RUN_SCHEMA in message and TRACE_SCHEMA in message


@pytest.mark.parametrize("event, where", [
    ({"kind": "teleport", "t": 0}, "events[0]"),
    ({"kind": "finish", "t": "soon"}, "events[0].t"),
    ({"kind": "finish", "t": True}, "events[0].t"),
    ({"kind": "finish", "t": 1, "iteration": "3"}, "events[0].iteration"),
    ({"kind": "finish", "t": 1, "iteration": -1}, "events[0].iteration"),
    ({"kind": "finish", "t": 1, "data": [1]}, "events[0].data"),
    ("finish", "events[0]"),
])
def test_an_event_with_bad_types_is_refused_naming_it(event, where):
    assert where in _refusal(json.dumps(_minimal_record(events=[event])))


@pytest.mark.parametrize("changes, says", [
    ({"events": {"a": 1}}, "events must be a list"),
    ({"outcome": {"outcome": "won"}}, "outcome.outcome"),
    ({"outcome": {"outcome": "answered", "final_answer": 42}}, "outcome.final_answer"),
    ({"config": []}, "config must be an object"),
    ({"versions": ["1.0"]}, "versions must be an object"),
    ({"label": 7}, "label must be text"),
    ({"trace": {"schema": TRACE_SCHEMA, "task": "t", "steps": []}}, "steps: list should have at least 1 item"),
])
def test_a_record_with_a_malformed_part_is_refused_naming_the_part(changes, says):
    assert says in _refusal(json.dumps(_minimal_record(**changes)))


def test_a_record_whose_config_is_out_of_range_is_refused_naming_the_setting():
    message = _refusal(json.dumps(_minimal_record(config={"max_iterations": 10_000})))
    assert "max_iterations" in message and "1 to 500" in message


def test_a_record_with_an_unknown_setting_is_refused():
    assert "api_key is not a setting" in _refusal(json.dumps(_minimal_record(config={"api_key": "sk-x"})))


def test_a_trace_with_a_non_text_observation_is_refused():
    raw = synthetic_trace(steps=3).to_dict()
    raw["steps"][0]["observations"] = [{"html": "<b>"}]
    assert "steps[0].observations" in _refusal(json.dumps(raw))


def test_deeply_nested_json_is_refused():
    assert "nested too deeply" in _refusal("[" * 100_000)
    assert "nested too deeply" in _refusal(b'{"a":' * 100_000)


def test_a_minimal_valid_record_loads():
    loaded = load_any(json.dumps(_minimal_record()))
    assert isinstance(loaded, RunRecord)
    assert loaded.events[0].iteration == 3 and loaded.config == RunConfig.build()


def test_an_event_time_too_large_for_a_number_is_refused():
    text = json.dumps(_minimal_record()).replace('"t": 0.5', '"t": 1' + "0" * 400)
    _refusal(text)


def test_a_number_with_thousands_of_digits_is_refused():
    _refusal(b"1" * 5000)


def test_text_with_a_lone_surrogate_is_refused():
    _refusal('{"schema": "\ud800"}')


@pytest.mark.parametrize("kind", [[], {"a": 1}])
def test_an_event_whose_kind_is_a_list_or_object_is_refused(kind):
    assert "events[0]" in _refusal(json.dumps(_minimal_record(events=[{"kind": kind, "t": 0}])))


# ── fuzz: nothing but RecordError, ever ────────────────────────────────────

# Integers are bounded here: numbers too large for a float are the subject of the xfail tests above.
_json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**63, 2**63), st.floats(), st.text(max_size=20))
_json_values = st.recursive(
    _json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=10), inner, max_size=5)),
    max_leaves=30,
)
_record_keys = st.sampled_from(["schema", "config", "outcome", "events", "trace", "versions", "mode", "scenario",
                                "name", "label", "created"])


def _only_record_errors(data):
    try:
        loaded = load_any(data)
    except RecordError as exc:
        assert str(exc).strip()
        return
    assert isinstance(loaded, (RunRecord, Trace))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=_json_values)
def test_any_json_value_is_loaded_or_refused_with_a_record_error(value):
    _only_record_errors(json.dumps(value))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=_record_keys, value=_json_values, event_key=st.sampled_from(["kind", "t", "iteration", "data"]),
       event_value=_json_values)
def test_a_record_with_any_one_part_replaced_is_loaded_or_refused_with_a_record_error(key, value, event_key,
                                                                                      event_value):
    raw = _minimal_record(trace=synthetic_trace(steps=2).to_dict())
    raw[key] = value
    _only_record_errors(json.dumps(raw))
    if event_key == "kind" and isinstance(event_value, (list, dict)):
        event_value = str(event_value)  # a list or object as kind is the subject of an xfail test above
    raw = _minimal_record()
    raw["events"][0][event_key] = event_value
    _only_record_errors(json.dumps(raw))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(["schema", "task", "tools", "steps"]), value=_json_values)
def test_a_trace_with_any_one_part_replaced_is_loaded_or_refused_with_a_record_error(key, value):
    raw = synthetic_trace(steps=2).to_dict()
    raw[key] = value
    _only_record_errors(json.dumps(raw).encode("utf-8"))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=300))
def test_any_bytes_are_loaded_or_refused_with_a_record_error(data):
    _only_record_errors(data)


@pytest.mark.parametrize("parameters, says", [
    ({"properties": "query"}, "parameters.properties must be an object"),
    ({"properties": {"q": "string"}}, "parameters.properties.q must be an object"),
    ({"properties": {"q": {"type": "string"}}, "required": "q"}, "parameters.required must be a list"),
])
def test_tool_parameters_of_the_wrong_shape_are_a_bad_file_with_a_sentence(tmp_path, capsys, parameters, says):
    raw = synthetic_trace(steps=3).to_dict()
    raw["tools"][0]["parameters"] = parameters
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(raw))
    assert cli.main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert "tools[0].parameters" in err and says in err and "Traceback" not in err


def test_the_huge_number_message_says_what_is_wrong_with_the_file_not_how_to_tune_python():
    message = _refusal(json.dumps(_minimal_record()).replace('"t": 0.5', '"t": ' + "7" * 5000))
    assert "more than 4,300 digits" in message and "set_int_max_str_digits" not in message


def test_a_run2_file_with_the_summarizer_as_four_loose_fields_loads_into_one_choice_and_saves_as_run3(tmp_path):
    """run@1 and run@2 wrote the summarizer as four loose fields; they fold into config.summarizer as they load, a
    bad one is named with its range, and a file that carries a key is refused (a key never reaches a file)."""
    from scratchpad_lab.model.records import RecordError

    raw = as_run1(json.loads(SAMPLES[0].read_text(encoding="utf-8")))
    raw["schema"] = "scratchpad-lab/run@2"
    raw["config"].update(summarizer="endpoint", extractive_budget_chars=900, summarizer_prompt="Short: {scratchpad}",
                         summarizer_endpoint={"provider": "custom", "base_url": "https://models.example/v1",
                                              "model": "m"})
    for e in raw["events"]:
        e.get("data", {}).pop("config", None)
    record = load_any(json.dumps(raw).encode("utf-8"))
    chosen = record.config.summarizer
    assert (chosen.kind, chosen.budget_chars, chosen.endpoint.model, chosen.prompt) == \
        ("endpoint", 900, "m", "Short: {scratchpad}")
    saved = json.loads(record.save(tmp_path / "run3.json").read_text(encoding="utf-8"))
    assert saved["schema"] == "scratchpad-lab/run@3" and saved["config"]["summarizer"]["budget_chars"] == 900
    assert load_record(tmp_path / "run3.json").config == record.config

    raw["config"]["extractive_budget_chars"] = 5
    with pytest.raises(RecordError, match="extractive_budget_chars is out of range .200 to 50,000"):
        load_any(json.dumps(raw).encode("utf-8"))
    run3 = dict(saved, config={**saved["config"], "summarizer": {**saved["config"]["summarizer"], "key": "sk-x"}})
    with pytest.raises(RecordError, match="never hold a key"):
        load_any(json.dumps(run3).encode("utf-8"))
