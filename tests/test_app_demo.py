"""The playground as a demo needs it, driven through the real app with AppTest: settings that never
lie, a failing summarizer said once, and a live refresh that backs off when renders are slow.

AppTest never fires `st.fragment(run_every=...)` by itself: a running Run is followed with `at.run()`
in a bounded polling loop; no test sleeps for a fixed time."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from conftest import active_run, APP, rerun_until
from fake_openai import FakeOpenAI
from scratchpad_lab.ui.markup import escape

SAMPLE = Path(__file__).resolve().parents[1] / "sample_runs" / "support-ticket-tight.json"


def _open(monkeypatch) -> AppTest:
    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture
def app(monkeypatch) -> AppTest:
    return _open(monkeypatch)


# ── settings that never lie ─────────────────────────────────────────────────

@pytest.mark.parametrize("key, value, label, bound", [
    ("play_max_scratchpad_chars", 50, "Compress when over (chars)", "the minimum is 100"),
    ("play_agent_trim_chars", 2_000_000, "Agent's own limit (chars)", "the maximum is 1,000,000"),
    ("play_max_iterations", 0, "Max iterations", "the minimum is 1"),
], ids=["cap-50", "trim-2M", "iterations-0"])
def test_an_out_of_range_number_names_the_setting_and_its_range_and_disables_run(app, key, value, label, bound):
    from scratchpad_lab.model.config import field_bounds
    from scratchpad_lab.ui.sidebar_settings import FIELDS

    from scratchpad_lab.ui.state import K_ADVANCED

    app.session_state[K_ADVANCED] = True  # Max iterations is an Advanced setting: drawn while it is open
    app.run()
    app.number_input(key=key).set_value(value).run()
    lo, hi = field_bounds(FIELDS[key])
    beside = [e.value for e in app.sidebar.error if e.value.startswith(label)]
    assert len(beside) == 1, [e.value for e in app.sidebar.error]
    assert bound in beside[0] and f"allowed: {lo:,} to {hi:,}" in beside[0]
    assert app.button(key="play_run").disabled
    # in the main area as inert markdown (ui/markup.escape): that sentence may quote what was typed
    main = [e.value for e in app.main.error if e.value.startswith(escape("Fix this setting to run: "))]
    assert len(main) == 1 and escape(label) in main[0]
    # the widget shows what was typed, and that is what the settings hold: no silent replacement
    assert app.number_input(key=key).value == value

    app.number_input(key=key).set_value(lo).run()
    assert not app.error and not app.button(key="play_run").disabled


def test_a_click_on_run_with_an_out_of_range_value_starts_nothing(app):
    """A browser can send the typed value and the Run click in one rerun: the run must not start with
    any other value than the one on screen (AppTest sends both together)."""
    app.number_input(key="play_max_scratchpad_chars").set_value(50)
    app.button(key="play_run").click().run()
    assert app.session_state["play_active_run"] is None
    assert app.session_state["play_runs"] == []


def test_a_value_in_range_typed_with_the_click_is_the_one_the_run_uses(app):
    app.select_slider(key="play_pacing").set_value("instant")
    app.number_input(key="play_max_scratchpad_chars").set_value(3_100)
    app.button(key="play_run").click().run()
    rerun_until(app, lambda a: active_run(a) is None, what="the run", wait_on=active_run)
    assert app.session_state["play_runs"][-1].config.max_scratchpad_chars == 3_100


# ── a failing summarizer, said once ─────────────────────────────────────────

def test_a_failing_summarizer_gets_one_banner_saying_how_many_failed_and_no_100_percent(app):
    with FakeOpenAI() as server:
        server.default = ("status", 401)
        app.select_slider(key="play_pacing").set_value("instant")
        app.sidebar.selectbox(key="play_summarizer").set_value("endpoint").run()
        app.sidebar.selectbox(key="play_sum_ep_provider").set_value("custom").run()
        app.sidebar.text_input(key="play_sum_ep_base_url_custom").set_value(server.url)
        app.sidebar.text_input(key="play_sum_ep_model_custom").set_value("tiny-sum")
        app.sidebar.text_input(key="play_sum_ep_key").set_value("sk-test-not-a-real-key")
        app.sidebar.selectbox(key="play_summarize_every").set_value(3).run()
        assert not app.button(key="play_run").disabled, [e.value for e in app.error]
        app.button(key="play_run").click().run()
        rerun_until(app, lambda a: active_run(a) is None, what="the run", wait_on=active_run)

    record = app.session_state["play_runs"][-1]
    comps = [e for e in record.events if e.kind == "compression"]
    assert comps and all(e.data["status"] == "error" for e in comps)
    banners = [e.value for e in app.error if "summarizer calls failed" in e.value]
    assert len(banners) == 1, "said once, not once per card"
    assert banners[0].startswith(f"**{len(comps)} of {len(comps)} summarizer calls failed**")
    assert "401" in banners[0], banners[0]
    table = next(d.value for d in app.dataframe if "facts kept" in d.value.columns)
    assert table.iloc[-1]["facts kept"] == "no compression happened"
    numbers = [m.value for m in app.markdown if "facts kept: **" in m.value]
    assert numbers and all("facts kept: **no compression happened**" in n for n in numbers)
    assert not [m.value for m in app.markdown if "100%" in m.value]
    kept = [m.value for m in app.metric if m.label == "facts kept across compressions"]
    assert kept == ["no compression happened"]


# ── the live refresh backs off ──────────────────────────────────────────────

def test_refresh_interval_backs_off_when_a_render_is_slower_than_its_interval_and_recovers():
    from scratchpad_lab.ui.live import LIVE_REFRESH_S, MAX_REFRESH_S, refresh_interval

    assert refresh_interval(0.05, LIVE_REFRESH_S) == LIVE_REFRESH_S
    slower = refresh_interval(0.9, LIVE_REFRESH_S)
    assert slower == pytest.approx(1.8), "at least twice the render time"
    assert refresh_interval(0.5, slower) == slower, "a render within the interval keeps it"
    assert refresh_interval(30.0, slower) == MAX_REFRESH_S
    assert refresh_interval(0.01, slower) == pytest.approx(0.9), "quick renders halve it back"
    assert refresh_interval(0.01, 0.5) == LIVE_REFRESH_S, "never below the base"


class _SlowClock:
    """time.monotonic for the live view (ui/live.py): every reading is a second after the last, so every
    render 'takes' one second."""
    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 1.0
        return self.now


def test_a_slow_live_render_lengthens_the_refresh_interval(app, monkeypatch):
    import scratchpad_lab.ui.live as live

    app.select_slider(key="play_pacing").set_value("slow (1 s/step)").run()
    app.button(key="play_run").click().run()
    run = app.session_state["play_active_run"]
    try:
        # (on a busy machine a real render may already have lengthened it a little: no check here)
        assert run is not None and not run.finished
        monkeypatch.setattr(live, "time", _SlowClock())
        app.run()
        assert app.session_state["play_refresh_s"] >= 2.0, "a 1 s render gets at least a 2 s interval"
    finally:
        run.stop()
        monkeypatch.undo()
        rerun_until(app, lambda a: active_run(a) is None, what="the stopped run", wait_on=active_run)


# ── small things a demo trips on ────────────────────────────────────────────

@pytest.mark.parametrize("data", [b"", b"  \n"], ids=["0-bytes", "blank"])
def test_an_empty_upload_says_the_file_is_empty(data):
    from scratchpad_lab.ui.runs_page import read_upload

    loaded, problem = read_upload("empty.json", data)
    assert loaded is None
    assert problem.startswith("The uploaded file is empty"), problem


def test_stop_and_pause_sit_together_in_the_status_row(app):
    app.select_slider(key="play_pacing").set_value("slow (1 s/step)").run()
    app.button(key="play_run").click().run()
    run = app.session_state["play_active_run"]
    try:
        keys = [b.key for b in app.button]
        assert keys.index("play_pause") == keys.index("play_stop") + 1, keys  # drawn next to each other
        assert not app.button(key="play_stop").disabled and not app.button(key="play_pause").disabled
    finally:
        run.stop()
        rerun_until(app, lambda a: active_run(a) is None, what="the stopped run", wait_on=active_run)


def _status_row(sample: str, empty_reply: bool) -> None:
    """The status row of a sample run with pins and its controls; with `empty_reply`, its first summarizer call
    replied nothing, so "summarizer calls" is said beside "compressions"."""
    import dataclasses

    import streamlit as st
    from scratchpad_lab.model.records import load_record
    from scratchpad_lab.ui.view import status_line
    record = load_record(sample)
    events = list(record.events)
    if empty_reply:
        first = next(i for i, e in enumerate(events) if e.kind == "compression")
        events[first] = dataclasses.replace(events[first], data={**events[first].data, "status": "empty"})
    config = record.config.model_copy(update={"pins": ["ticket"]})
    status_line(events, config, 3.0, True, controls=lambda: (st.button("Stop"), st.button("Pause")))


def test_summarizer_calls_appearing_mid_run_moves_nothing_after_it_in_the_status_row():
    # The browser redraws a row one element at a time, by place: had "summarizer calls" pushed the pins badge,
    # Stop and Pause one place along, each would vanish for a moment under load while its place was redrawn.
    rows = []
    for empty_reply in (False, True):
        at = AppTest.from_function(_status_row, args=(str(SAMPLE), empty_reply), default_timeout=60)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        row = at.main.children[0]
        rows.append([(c.type, getattr(c, "label", None) or getattr(c, "value", None))
                     for c in row.children.values()])
    before, after = rows
    assert ("metric", "summarizer calls") in after and ("metric", "summarizer calls") not in before
    assert len(before) == len(after), (before, after)
    changed = [i for i, (b, a) in enumerate(zip(before, after)) if b != a]
    assert changed == [after.index(("metric", "summarizer calls"))], (before, after)  # only its own place
    assert before[changed[0]][0] == "empty"  # held from the first paint, drawn as nothing
