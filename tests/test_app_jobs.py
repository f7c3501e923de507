"""Every long job of the app, through the real pages with AppTest: it starts off the script thread, the page
shows its progress and a Stop button while it runs (the rest of the page still answers), and Stop ends it
with nothing half-made kept. AppTest never fires run_every itself: each test reruns the page through
conftest.rerun_until (bounded, no fixed sleep)."""
from __future__ import annotations

import json
import re
from typing import List

import pytest
from streamlit.testing.v1 import AppTest

from conftest import APP, live_job, rerun_until
from scratchpad_lab.ui.markup import escape
from scratchpad_lab.ui.state import (CMP_JOB, LESSON_JOB, LOSS_JOB, PL_JOB, PLAY_JOB, STRAT_JOB, STRAT_OPEN_POINT,
                                     STRAT_POINT_JOB, STRAT_REC_JOB, STRAT_RECOMMEND, Slot, upload_slot)
from synthetic import synthetic_trace

STOPPED_NOTE = "as you asked: nothing from that job was kept."
SIX_ROWS = [{"summarize_every": e, "max_scratchpad_chars": c} for e, c in
            [("2", 2000), ("3", 4000), ("5", 8000), ("off", 1_000_000), ("4", 3000), ("6", 6000)]]


@pytest.fixture
def app(monkeypatch) -> AppTest:
    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert not at.exception, [e.value for e in at.exception]
    yield at
    # no job outlives its test
    for slot in (PLAY_JOB, LESSON_JOB, PL_JOB, CMP_JOB, STRAT_JOB, STRAT_REC_JOB, STRAT_POINT_JOB, LOSS_JOB):
        job = live_job(at, slot)
        if job is not None and not job.finished:
            job.stop()
            job.join(10)


def _texts(at: AppTest) -> List[str]:
    return [t.value for t in at.text]


def _stop_button(at: AppTest, slot: Slot):
    found = [b for b in at.button if b.key == slot.stop_button]
    return found[0] if found else None


def _shows_progress(slot: Slot, starts: str):
    """The live view is up: a Stop button that can be pressed, and a progress line that `starts` (a regular
    expression) matches at its start. A pattern names a range of counts ("Replayed [1-5] of 6"), not one: on
    a loaded machine a rerun can come after the second point is done as well."""
    def seen(at: AppTest) -> bool:
        button = _stop_button(at, slot)
        return button is not None and not button.disabled and any(re.match(starts, t) for t in _texts(at))
    return seen


def _ended(slot: Slot):
    def seen(at: AppTest) -> bool:
        job = live_job(at, slot)
        ended = at.session_state[slot.ended] if slot.ended in at.session_state else None
        return job is not None and job.finished and ended == job.serial
    return seen


def _stop_and_wait(at: AppTest, slot: Slot) -> AppTest:
    job = live_job(at, slot)
    assert not job.finished, "the job must still be going to be stopped"
    _stop_button(at, slot).click().run()
    return rerun_until(at, _ended(slot), what=f"the stopped {slot.prefix} job")


def _trace_bytes(steps: int, seed: int = 5, observation_chars: int = 1500) -> bytes:
    trace = synthetic_trace(steps=steps, seed=seed, parse_error_rate=0, max_observation_chars=observation_chars)
    return json.dumps(trace.to_dict()).encode("utf-8")


def _upload_trace(at: AppTest, key: str, data: bytes) -> AppTest:
    at.file_uploader(key=key).upload("long-trace.json", data, "application/json")
    return rerun_until(at.run(), lambda a: bool(a.session_state["runs_uploads"]), what="the upload's replay")


# ── the Playground, a lesson, the prompt matrix ───────────────────────────

def test_a_playground_run_shows_its_progress_and_stop_ends_it(app):
    app.select_slider(key="play_pacing").set_value("slow (1 s/step)").run()
    app.button(key="play_run").click().run()
    run = live_job(app, PLAY_JOB)
    rerun_until(app, lambda a: run.progress().done >= 1 and any(m.label == "iteration" for m in a.metric))
    assert not app.button(key="play_stop").disabled  # the Playground's Stop sits in the run's status row
    app.button(key="play_stop").click().run()
    rerun_until(app, lambda a: live_job(a, PLAY_JOB) is None, what="the stopped run")
    assert app.session_state["play_runs"][-1].outcome == "stopped"


def test_a_lesson_shows_its_progress_and_stop_ends_it(app):
    app.switch_page("pages/lessons.py").run()
    app.select_slider(key="lesson_pace").set_value(1.5).run()
    app.button(key="lesson_start").click().run()
    rerun_until(app, _shows_progress(LESSON_JOB, "iteration "))
    _stop_and_wait(app, LESSON_JOB)
    assert live_job(app, LESSON_JOB).record.outcome == "stopped"
    assert _stop_button(app, LESSON_JOB) is None
    assert "Your turn" in [s.value for s in app.subheader], "the lesson still ends on its question"


def test_the_prompt_matrix_shows_its_progress_and_stop_cancels_the_cells_not_done(app):
    import threading

    from fake_openai import FakeOpenAI

    app.switch_page("pages/prompt_lab.py").run()
    app.selectbox(key="pl_entry").set_value("sample:support-ticket-defaults.json").run()
    release = threading.Event()
    with FakeOpenAI() as fake:
        fake.default = ("ok", lambda body: release.wait(30) and "late summary")
        app.number_input(key="pl_n_summarizers").set_value(2).run()
        app.selectbox(key="pl_sum_kind_1").set_value("endpoint").run()
        app.selectbox(key="pl_sum1_ep_provider").set_value("custom").run()
        app.text_input(key="pl_sum1_ep_base_url_custom").set_value(fake.url)
        app.text_input(key="pl_sum1_ep_model_custom").set_value("slow-model").run()
        app.button(key="pl_run").click().run()
        try:
            rerun_until(app, _shows_progress(PL_JOB, "2 of 4 cells done"))  # the extractive column is done
            _stop_and_wait(app, PL_JOB)
        finally:
            release.set()
    matrix = live_job(app, PL_JOB)
    assert [c.status for c in matrix.cells] == ["ok", "cancelled", "ok", "cancelled"]
    assert any(t.startswith("4 cells in ") and t.endswith("(2 stopped)") for t in _texts(app))


# ── replays: Compare, the sweep, Strategies, the loss panel, an uploaded trace ──

def test_a_comparison_of_six_settings_shows_each_replay_and_stop_ends_it(app):
    app.switch_page("pages/compare.py").run()
    _upload_trace(app, "cmp_upload", _trace_bytes(400))
    current = len(app.data_editor(key="cmp_settings").value)
    app.session_state["cmp_settings"] = {"edited_rows": {}, "added_rows": SIX_ROWS, "deleted_rows": list(range(current))}
    app.run()
    app.button(key="cmp_run").click().run()
    rerun_until(app, _shows_progress(CMP_JOB, r"Replayed [1-5] of 6 settings; now every \d+ / [\d,]+"))
    assert app.button(key="cmp_run").disabled and app.button(key="cmp_sweep_run").disabled  # one job at a time
    app.selectbox(key="cmp_source").set_value("upload:0").run()  # the rest of the page still answers
    _stop_and_wait(app, CMP_JOB)
    assert any(t.startswith("Stopped at ") and t.endswith(STOPPED_NOTE) for t in _texts(app))
    assert app.session_state["cmp_result"] is None and not app.button(key="cmp_run").disabled
    assert _stop_button(app, CMP_JOB) is None


def test_a_sweep_shows_each_cell_and_stop_ends_it(app):
    app.switch_page("pages/compare.py").run()
    _upload_trace(app, "cmp_upload", _trace_bytes(400))
    app.multiselect(key="cmp_sweep_every").set_value(["2", "5", "off"])
    app.multiselect(key="cmp_sweep_caps").set_value([2000, 4000, 15_000]).run()
    app.button(key="cmp_sweep_run").click().run()
    rerun_until(app, _shows_progress(CMP_JOB, "Replayed [1-8] of 9 cells"))
    _stop_and_wait(app, CMP_JOB)
    assert any(t.endswith(STOPPED_NOTE) for t in _texts(app))
    assert app.session_state["cmp_sweep_result"] is None


def test_a_run_of_every_strategy_shows_each_strategy_and_stop_ends_it(app):
    from scratchpad_lab.engine.strategies import names

    app.switch_page("pages/strategies.py").run()
    _upload_trace(app, "strat_upload", _trace_bytes(150, seed=8, observation_chars=2000))
    app.selectbox(key="strat_source").set_value("upload:0").run()
    app.multiselect(key="strat_pick").set_value(list(names())).run()
    app.button(key="strat_run").click().run()
    rerun_until(app, _shows_progress(STRAT_JOB, f"Ran [1-{len(names()) - 1}] of {len(names())} strategies; now "))
    assert app.button(key="strat_run").disabled
    _stop_and_wait(app, STRAT_JOB)
    assert any(t.endswith(STOPPED_NOTE) for t in _texts(app))
    assert app.session_state["strat_result"] is None


def test_a_recommend_search_shows_each_point_and_stop_ends_it_with_nothing_kept(app, lab_db):
    from scratchpad_lab.engine.store import Store

    app.switch_page("pages/strategies.py").run()
    # 400 steps: the whole search takes about a minute, so it is still going however slowly the page reruns
    _upload_trace(app, "strat_upload", _trace_bytes(400, seed=8, observation_chars=2000))
    app.selectbox(key="strat_source").set_value("upload:0").run()
    app.toggle(key="strat_rec_on").set_value(True).run()
    app.button(key="strat_rec_run").click().run()  # every strategy over its default grid
    rerun_until(app, _shows_progress(STRAT_REC_JOB, r"Ran point [1-9]\d* of \d+: "))
    total = live_job(app, STRAT_REC_JOB).progress().total
    done = [int(m.group(1)) for m in (re.match(rf"Ran point (\d+) of {total}: ", t) for t in _texts(app)) if m]
    assert total > 20 and done and 1 <= done[0] < total, _texts(app)
    assert app.button(key="strat_rec_run").disabled and not app.button(key="strat_run").disabled
    app.selectbox(key="strat_source").set_value("upload:0").run()  # the rest of the page still answers
    _stop_and_wait(app, STRAT_REC_JOB)
    assert live_job(app, STRAT_REC_JOB).stopped
    assert any(t.startswith("Stopped at ") and t.endswith(STOPPED_NOTE) for t in _texts(app))
    assert "strat_recommend" not in app.session_state and not app.button(key="strat_rec_run").disabled
    assert _stop_button(app, STRAT_REC_JOB) is None
    assert Store(lab_db).list_results(None) == []  # a stopped search is not stored


def _opened_heading(at: AppTest, point: str) -> bool:
    """The opened point's heading (the run view follows it): its strategy's title and its settings in words."""
    from scratchpad_lab.ui.setting_words import label_words

    return escape(label_words(point)) in [s.value for s in at.subheader]


def test_opening_a_recommended_point_is_a_job_that_ends_showing_its_run(app):
    app.switch_page("pages/strategies.py").run()
    app.toggle(key="strat_rec_on").set_value(True).run()
    app.multiselect(key="strat_rec_pick").set_value(["trim-only"]).run()
    rerun_until(app.button(key="strat_rec_run").click().run())  # the search, then its first point opening
    opener = app.selectbox(key="strat_rec_open")
    first = app.session_state[STRAT_RECOMMEND][1].points[opener.value].cli_arg()  # its value is a point's index
    assert _opened_heading(app, first) and app.session_state[STRAT_OPEN_POINT][0][1] == first
    from scratchpad_lab.ui.setting_words import label_words
    labels = {label_words(p.cli_arg()): p.cli_arg() for p in app.session_state[STRAT_RECOMMEND][1].points}
    other = next(i for i in opener.options if labels[i.lstrip("★ ")] != first)  # each option in words
    point = labels[other.lstrip("★ ")]
    opener.select(other).run()
    job = live_job(app, STRAT_POINT_JOB)
    assert job.tag[1] == point  # a job of its own opens the point picked
    assert job.finished or any(t.startswith("Replaying ") and t.endswith(f" steps under {point}…")
                               for t in _texts(app)), "its progress is drawn while it runs"
    rerun_until(app, lambda a: _opened_heading(a, point), what="the opened point")
    assert not _opened_heading(app, first) and app.session_state[STRAT_OPEN_POINT][0][1] == point
    assert any(t.startswith("Periodic trigger") for t in _texts(app)), "the run view's trigger panel is drawn"


def test_opening_a_point_of_a_long_trace_shows_its_progress_and_stop_opens_nothing(app):
    app.switch_page("pages/strategies.py").run()
    # 250 steps: clearing tool uses over them takes about 2 s (it grows with the square of the steps: 400 took
    # 5 s, searched once and opened once), so the opening is still going when Stop is pressed a rerun later
    _upload_trace(app, "strat_upload", _trace_bytes(250, seed=8, observation_chars=2000))
    app.selectbox(key="strat_source").set_value("upload:0").run()
    app.toggle(key="strat_rec_on").set_value(True).run()
    app.multiselect(key="strat_rec_pick").set_value(["clear-tool-uses"]).run()
    app.toggle(key="strat_rec_edit").set_value(True).run()
    app.text_input(key="strat_rec_grid_clear-tool-uses").set_value("trigger=30%,keep=1").run()  # one point
    app.button(key="strat_rec_run").click().run()
    rerun_until(app, _shows_progress(STRAT_POINT_JOB, "Replaying 250 steps under clear-tool-uses:"),
                what="the point opening")
    point = live_job(app, STRAT_POINT_JOB).tag[1]
    found = app.session_state[STRAT_RECOMMEND][1]
    assert [p.cli_arg() for p in found.points] == [point]
    assert STRAT_OPEN_POINT not in app.session_state and not _opened_heading(app, point)
    _stop_and_wait(app, STRAT_POINT_JOB)
    stopped = live_job(app, STRAT_POINT_JOB)
    assert stopped.stopped and any(t.endswith(STOPPED_NOTE) for t in _texts(app))
    rerun_until(app, lambda a: "strat_rec_open_run" in [b.key for b in a.button], what="the page after the stop")
    app.run()  # a stopped opening is not started again by itself
    assert live_job(app, STRAT_POINT_JOB) is stopped and _stop_button(app, STRAT_POINT_JOB) is None
    assert STRAT_OPEN_POINT not in app.session_state and not _opened_heading(app, point)
    app.button(key="strat_rec_open_run").click().run()  # asked again, it opens again
    again = live_job(app, STRAT_POINT_JOB)
    assert again is not stopped and again.tag[1] == point


def test_the_loss_panels_replay_with_compression_off_shows_its_progress_stops_and_can_be_asked_again(app):
    from scratchpad_lab.engine.run.runner import Run, Source
    from scratchpad_lab.model.config import RunConfig

    # 1,500 steps: over the 400 the panel works out by itself (ui/loss.py), so it waits to be asked, and long
    # enough that its replay is still going when Stop is pressed (2,000 took 44 s of a loaded CI worker; 1,000 once
    # finished before the Stop landed, in one CI run of seven)
    trace = synthetic_trace(steps=1500, seed=7, parse_error_rate=0, max_observation_chars=400)
    record = Run(RunConfig.build(scenario=None, summarizer="extractive"), Source.for_trace(trace), name="long").run()
    app.session_state["play_runs"] = [record]
    app.session_state["play_shown_run"] = 0
    app.run()
    app.toggle(key="loss_0_detailed").set_value(True).run()  # a long run replays when asked
    rerun_until(app, _shows_progress(LOSS_JOB, "iteration "))
    assert "context tokens saved" not in [m.label for m in app.metric]
    _stop_and_wait(app, LOSS_JOB)
    assert "context tokens saved" not in [m.label for m in app.metric]
    assert any(t.endswith(STOPPED_NOTE) for t in _texts(app))
    app.button(key="loss_0_baseline_again").click().run()
    rerun_until(app, lambda a: "context tokens saved" in [m.label for m in a.metric], what="the replay asked again")


def test_an_uploaded_traces_replay_shows_its_progress_and_stop_leaves_it_out(app):
    from scratchpad_lab.ui.runs_page import REPLAY_STOPPED

    app.switch_page("pages/runs.py").run()
    slot = upload_slot("runs_upload")
    app.file_uploader(key="runs_upload").upload("long.json", _trace_bytes(3000, observation_chars=300),
                                                  "application/json")
    app.run()
    rerun_until(app, _shows_progress(slot, "iteration "))
    assert app.selectbox(key="runs_open").value.startswith("sample:")  # the page still answers meanwhile
    _stop_and_wait(app, slot)
    assert app.session_state["runs_uploads"] == []
    assert REPLAY_STOPPED in _texts(app)
    app.run()  # the file stays in the uploader: it is not replayed again by itself
    assert live_job(app, slot).finished and app.session_state["runs_uploads"] == []
