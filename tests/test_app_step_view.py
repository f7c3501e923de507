"""A step of a run is the whole run as it was then (issue 21): the Runs page's step slider drives every
part of the view, the status row included, and a lesson's pause holds its view on the iteration it talks
about. Driven through the real app with AppTest."""
from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from scratchpad_lab.model.records import load_record
from scratchpad_lab.ui.view import as_of
from conftest import APP

SAMPLE = Path(__file__).resolve().parents[1] / "sample_runs" / "support-ticket-tight.json"


def _metric(at, label: str) -> str:
    return next(str(m.value) for m in at.metric if m.label == label)


def _at_step(step: int) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["sample"] = "support-ticket-tight"
    at.query_params["step"] = str(step)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_status_row_reads_the_step_on_screen_not_the_end_of_the_run():
    record = load_record(SAMPLE)
    then = as_of(record.events, 6)
    at = _at_step(6)
    assert _metric(at, "iteration") == f"6 of {record.config.max_iterations}"
    assert _metric(at, "compressions") == str(sum(1 for e in then if e.kind == "compression"))
    assert _metric(at, "status") == "in progress"
    assert _metric(at, "elapsed") == f"{max(e.t for e in then):.1f} s"
    assert not [s for s in at.subheader if s.value == "Final answer"], "the answer comes at the end, not at step 6"

    last = max(e.iteration for e in record.events if e.kind == "iteration")
    at.slider(key="runs_step").set_value(last).run()
    assert _metric(at, "iteration") == f"{last} of {record.config.max_iterations}"
    assert _metric(at, "compressions") == str(sum(1 for e in record.events if e.kind == "compression"))
    assert _metric(at, "status") == "answered"
    assert [s for s in at.subheader if s.value == "Final answer"]


def test_a_link_to_a_step_asks_the_page_to_land_on_it_once():
    at = _at_step(6)
    landing = [h for h in at.get("html") if "scrollIntoView" in str(h.proto)]
    assert len(landing) == 1 and "st-key-runs_step_box" in str(landing[0].proto)
    at.slider(key="runs_step").set_value(7).run()  # moving the slider afterwards does not scroll again
    assert not [h for h in at.get("html") if "scrollIntoView" in str(h.proto)]
