"""A record open in a tab is held once (issue 15, item 5): the tab's run list, the run on show, the Runs
page and a finished live run all refer to the same RunRecord object, never to a copy of it (a long run's
record is tens of MB; bench/memory.py measures it). A copy is a distinct RunRecord with the same content."""
from __future__ import annotations

import dataclasses
import json

from streamlit.testing.v1 import AppTest

from conftest import APP, rerun_until
from scratchpad_lab.model.records import RunRecord
from scratchpad_lab.ui.state import PLAY_ACTIVE, PLAY_RUNS


def _records_in(value, found: list, seen: set, depth: int = 0) -> list:
    """Every RunRecord reachable from a session-state value through containers and dataclasses."""
    if id(value) in seen or depth > 8:
        return found
    seen.add(id(value))
    if isinstance(value, RunRecord):
        found.append(value)
        return found
    if isinstance(value, dict):
        children = list(value.values())
    elif isinstance(value, (list, tuple, set, frozenset)):
        children = list(value)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        children = [getattr(value, f.name, None) for f in dataclasses.fields(value)]
    else:
        return found
    for child in children:
        _records_in(child, found, seen, depth + 1)
    return found


def _copies(at: AppTest) -> list:
    """Pairs of distinct record objects with the same content held by the tab's session state."""
    state = at.session_state
    records, distinct = [], {}
    for key in list(state._state._state.filtered_state):  # every key the app set (widgets included)
        _records_in(state[key], records, set())
    for record in records:
        distinct.setdefault(id(record), record)
    by_content: dict = {}
    pairs = []
    for record in distinct.values():
        text = record.to_json()
        if text in by_content:
            pairs.append((by_content[text].name, record.name))
        by_content.setdefault(text, record)
    return pairs


def _open_app(monkeypatch) -> AppTest:
    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_copy_finder_finds_a_copy(monkeypatch):
    # the check below must be able to fail: a record and its round-tripped copy are a copy
    at = _open_app(monkeypatch)
    at.button(key="play_sample_open").click().run()
    record = at.session_state[PLAY_RUNS][0]
    at.session_state[PLAY_RUNS] = [record, RunRecord.from_dict(json.loads(record.to_json()))]
    assert len(_copies(at)) == 1


def test_a_sample_opened_twice_shown_and_opened_on_the_runs_page_is_one_object(monkeypatch):
    at = _open_app(monkeypatch)
    at.button(key="play_sample_open").click().run()
    at.button(key="play_sample_open").click().run()
    assert not at.exception, [e.value for e in at.exception]
    runs = at.session_state[PLAY_RUNS]
    assert len(runs) == 2 and runs[0] is runs[1], "opening the same sample again must not load a second copy"
    at.switch_page("pages/runs.py").run()
    assert not at.exception, [e.value for e in at.exception]
    at.switch_page("pages/playground.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state[PLAY_RUNS][0] is runs[0]
    assert _copies(at) == []


def test_a_finished_live_run_is_held_as_the_runs_own_record(monkeypatch):
    at = _open_app(monkeypatch)
    at.select_slider(key="play_pacing").set_value("fast (0.1 s/step)").run()  # still going after the click
    at.button(key="play_run").click().run()
    run = at.session_state[PLAY_ACTIVE]
    assert run is not None
    # rerun as the fragment's timer would until the run is collected
    rerun_until(at, lambda a: a.session_state[PLAY_ACTIVE] is None, what="the run", wait_on=lambda a: run)
    shown = at.session_state[PLAY_RUNS][-1]
    assert shown is run.record, "the run list must hold the run's record itself, not a copy"
    assert all(a is b for a, b in zip(shown.events, run.log.snapshot())), "the events are the log's own"
    assert _copies(at) == []
