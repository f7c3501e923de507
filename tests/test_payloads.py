"""Typed event reads: `Event.payload` is the kind's model from schemas.py, and reads the same values as
the stored `data` (the model's default where a key is absent); every attribute the code reads off a payload
is a field some payload model lists."""
import ast
from pathlib import Path

import pytest
from pydantic import BaseModel

from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.model.events import EVENT_KINDS, Event, RunLog
from scratchpad_lab.engine.run.runner import Run
from scratchpad_lab.model.records import load_path
from scratchpad_lab.model.payloads import PAYLOADS, payload_of
from scratchpad_lab.engine.strategies import make_spec, names, run_strategies
from synthetic import synthetic_trace

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "sample_runs").glob("*.json"))
SRC = ROOT / "src" / "scratchpad_lab"
TIGHT = {"autourgos-middleware": {"summarize_every": 4, "max_scratchpad_chars": 3000, "agent_trim_chars": 8000},
         "autourgos-builtin": {"summarize_every": 4, "max_scratchpad_chars": 3000},
         "deepagents": {"trigger_tokens": 3000, "keep_messages": 6},
         "langmem": {"max_tokens": 1500, "max_summary_tokens": 300}}


def _reviewed_run():
    """A scenario run in review mode (every compression edited): its events carry review and proposal."""
    run = Run(RunConfig.build(scenario="support-ticket", summarize_every=2, max_scratchpad_chars=1_000_000))
    run.observer.reviewer = lambda call, agent, iteration: ("edited", f"my summary at {iteration}")
    return run.run().events


def _strategy_runs():
    trace = synthetic_trace(steps=20, seed=3, max_observation_chars=3000)
    results = run_strategies(trace, [make_spec(n, TIGHT.get(n, {})) for n in names()])
    return [e for r in results for e in r.events]


def _assert_payload_is_the_data(events):
    for e in events:
        p = e.payload
        assert isinstance(p, PAYLOADS[e.kind]), e.kind
        for key, value in e.data.items():  # listed fields and extras alike
            assert getattr(p, key) == value, (e.kind, key)
        for name, field in type(p).model_fields.items():
            if name not in e.data and not field.is_required():
                assert getattr(p, name) == field.get_default(call_default_factory=True), (e.kind, name)
        built = PAYLOADS[e.kind].model_construct(**e.data)  # what payload_of stands in for, field by field
        assert p == built and p.model_fields_set == built.model_fields_set


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_every_sample_runs_payloads_read_what_its_file_holds(path):
    _assert_payload_is_the_data(load_path(path).events)


def test_a_reviewed_runs_payloads_read_its_review_and_proposal():
    events = _reviewed_run()
    comps = [e for e in events if e.kind == "compression"]
    assert comps and all(e.payload.review == "edited" and e.payload.proposal for e in comps)
    _assert_payload_is_the_data(events)


def test_every_strategys_payloads_read_what_it_emitted():
    events = _strategy_runs()
    assert any(e.kind == "trim" and e.payload.before is not None for e in events), "a trim that carries its text"
    assert any("summarizer_called" in e.data for e in events if e.kind == "compression")
    _assert_payload_is_the_data(events)


def test_every_event_every_strategy_emits_is_one_a_run_record_may_hold():
    """What the lab writes must load back: each strategy's events pass the run record's own event schema
    (a deepagents or LangMem compression is a size trigger; the package's own rule is in `trigger`)."""
    from pydantic import TypeAdapter

    from scratchpad_lab.model.schemas import EventFile

    adapter = TypeAdapter(EventFile)
    events = _strategy_runs()
    for e in events:
        adapter.validate_python(e.to_dict())
    triggers = {e.payload.trigger for e in events if e.kind == "compression"}
    assert {"deepagents: context over its token trigger", "langmem: over max_tokens_before_summary"} <= triggers


def test_an_absent_field_reads_as_the_models_default_and_extras_as_attributes():
    e = Event("iteration", 0.0, 3, {"chars": 12, "messages": 4})
    assert (e.payload.chars, e.payload.tokens, e.payload.scratchpad, e.payload.messages) == (12, 0, "", 4)
    start = Event("run_start", 0.0).payload
    assert (start.agent_model_id, start.summarizer_model_id, start.config) == ("scripted", "extractive", {})
    with pytest.raises(AttributeError):
        e.payload.tokns  # a misspelt field is an error, not a silent default


def test_the_payload_is_kept_follows_amend_and_is_not_part_of_the_event():
    e = Event("iteration", 1.0, 2, {"chars": 5, "tokens": 2})
    first = e.payload
    assert e.payload is first, "built once per event"
    assert e == Event("iteration", 1.0, 2, {"chars": 5, "tokens": 2}) and "_payload" not in e.to_dict()
    e.amend(tokens=9)
    assert e.payload.tokens == 9 and e.data["tokens"] == 9


def test_payload_of_matches_model_construct_with_unlisted_keys():
    data = {"reason": "size", "status": "ok", "before": "a", "after": "b", "dropped": ["m1"]}
    fast, slow = payload_of("compression", data), PAYLOADS["compression"].model_construct(**data)
    assert fast == slow and fast.__pydantic_extra__ == {"dropped": ["m1"]} and fast.dropped == ["m1"]
    assert fast.model_fields_set == slow.model_fields_set == set(data) - {"dropped"}
    assert data == {"reason": "size", "status": "ok", "before": "a", "after": "b", "dropped": ["m1"]}


def test_a_kind_without_a_payload_model_cannot_be_emitted():
    assert set(PAYLOADS) == set(EVENT_KINDS)
    log = RunLog()
    with pytest.raises(ValueError, match="teleport"):
        log.emit("teleport", 1, where="elsewhere")
    assert len(log) == 0


def _payload_reads(tree):
    """(line, name) of every attribute read off a payload: `x.payload.name`, and `v.name` where `v` was
    assigned from an expression that is (or whose branches are) `....payload` in the same function."""
    def is_payload(node):
        if isinstance(node, ast.IfExp):
            return is_payload(node.body) or is_payload(node.orelse)
        return isinstance(node, ast.Attribute) and node.attr == "payload"

    reads = set()
    for scope in [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.Lambda, ast.Module))]:
        bound = {t.id for n in ast.walk(scope) if isinstance(n, ast.Assign) and is_payload(n.value)
                 for t in n.targets if isinstance(t, ast.Name)}
        for n in ast.walk(scope):
            if isinstance(n, ast.Attribute) and (is_payload(n.value) or
                                                 (isinstance(n.value, ast.Name) and n.value.id in bound)):
                reads.add((n.lineno, n.col_offset, n.attr))
    return sorted(reads)


def test_the_scan_finds_direct_and_bound_payload_reads():
    code = "def f(e, t):\n    p = e.payload\n    q = t.payload if t else None\n    return e.payload.tokns + p.chars + q.fired"
    assert sorted(name for _, _, name in _payload_reads(ast.parse(code))) == ["chars", "fired", "tokns"]


def test_every_attribute_the_code_reads_off_a_payload_is_a_listed_field():
    fields = {name for model in PAYLOADS.values() for name in model.model_fields}
    pydantic_api = {name for name in dir(BaseModel) if name.startswith("model_")}
    found, unknown = 0, []
    for path in sorted(SRC.rglob("*.py")):
        for line, _, name in _payload_reads(ast.parse(path.read_text(encoding="utf-8"))):
            found += 1
            if name not in fields | pydantic_api:
                unknown.append(f"{path.relative_to(SRC)}:{line} .{name}")
    assert found > 100, "the scan finds the code's payload reads"
    assert not unknown, "read off a payload but listed by no model in schemas.py: " + ", ".join(unknown)


def test_no_reader_in_src_reads_the_stored_dict_by_key():
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get" \
                    and isinstance(n.func.value, ast.Attribute) and n.func.value.attr == "data":
                offenders.append(f"{path.relative_to(SRC)}:{n.lineno} .data.get")
            if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute) and n.value.attr == "data" \
                    and isinstance(n.ctx, ast.Load):
                offenders.append(f"{path.relative_to(SRC)}:{n.lineno} .data[...]")
    assert not offenders, "read through Event.payload instead: " + ", ".join(offenders)
