"""The library (issue 24) through the real app with AppTest: finished runs stored and listed, searched, renamed,
deleted and opened by their links; visitors in hosted mode; a store that is full or unreachable.

Every test has its own store (the `lab_db` / `pg_db` / `any_db` fixtures in conftest.py). A run is waited on
through the run itself (`join`, bounded), never a fixed sleep.
"""
from __future__ import annotations

import html
import json
import os
from pathlib import Path

import pytest

from conftest import APP, ok, rerun_until
from scratchpad_lab.ui.state import K_ADVANCED
from sqlalchemy import event, text
from streamlit.testing.v1 import AppTest

from scratchpad_lab.engine.store import Store, StoreError, forget, owner_of
from scratchpad_lab.model.records import load_record

SAMPLE = Path(APP).parent / "sample_runs" / "support-ticket-tight.json"


def _app(**params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    return ok(at.run())


def _finish_a_run(at: AppTest, every: int = 2) -> None:
    at.select_slider(key="play_pacing").set_value("instant")
    at.sidebar.selectbox(key="play_summarize_every").set_value(every).run()
    at.button(key="play_run").click().run()
    active = at.session_state["play_active_run"]
    if active is not None:
        active.join(timeout=60)
        assert not active.running
        ok(at.run())
    assert at.session_state["play_active_run"] is None
    ok(at.run())


def _texts(at: AppTest) -> str:
    return "\n".join(str(e.value) for coll in (at.text, at.error, at.warning, at.info, at.caption) for e in coll)


def _library(at: AppTest):
    found = [d.value for d in at.dataframe if {"stored", "name", "strategy", "prompt"} <= set(d.value.columns)]
    return found[0] if found else None


def test_a_finished_run_is_stored_listed_and_opened_by_its_link_in_a_new_session(any_db):
    at = _app()
    _finish_a_run(at)
    record = at.session_state["play_runs"][-1]
    [row] = Store(any_db).list_runs()
    assert row.name == record.name and row.compressions == sum(1 for e in record.events if e.kind == "compression")
    ok(at.switch_page("pages/runs.py").run())
    assert list(_library(at)["name"]) == [record.name]

    fresh = _app(run=row.id, step="4")   # another session: only the link
    assert fresh.title[0].value == "Scratchpad Lab · Runs"
    assert fresh.slider(key="runs_step").value == 4
    assert "Showing iteration 4 of" in _texts(fresh)
    assert fresh.sidebar.code[0].value.endswith(f"/?run={row.id}&step=4")
    # the run opened from the store is the same run, event for event
    shown = fresh.session_state["lib_opened_entries"][f"stored:{row.id}"].record
    assert [e.to_dict() for e in shown.events] == [e.to_dict() for e in record.events]


def test_a_card_link_opens_that_compression_and_a_bad_id_says_so_without_echoing_it(lab_db):
    saved = Store(lab_db).save_run(load_record(SAMPLE))
    at = _app(run=saved.id, card="4")
    assert at.slider(key="runs_step").value == 4
    cards = [m.value for m in at.markdown if m.value.startswith("**Compression at iteration")]
    assert cards[0].startswith("**Compression at iteration 4** ")
    missing = "A" * 22
    at = _app(run=missing, step="2")
    assert at.title[0].value == "Scratchpad Lab · Playground"
    assert "not in this lab's store" in " ".join(i.value for i in at.info) and missing not in _texts(at)


def test_the_setting_off_keeps_runs_out_of_the_store(lab_db):
    at = _app()
    at.sidebar.toggle(key="play_autosave").set_value(False).run()
    _finish_a_run(at)
    assert at.session_state["play_runs"] and Store(lab_db).list_runs() == []
    ok(at.switch_page("pages/runs.py").run())  # the setting survives a page switch
    ok(at.switch_page("pages/playground.py").run())
    assert at.sidebar.toggle(key="play_autosave").value is False


def test_the_runs_page_searches_renames_and_deletes_stored_runs(lab_db):
    store = Store(lab_db)
    tight = store.save_run(load_record(SAMPLE))
    other = store.save_run(load_record(SAMPLE.parent / "log-triage-defaults.json"))
    at = _app()
    ok(at.switch_page("pages/runs.py").run())
    assert len(_library(at)) == 2
    assert list(_library(at)["scenario"]) == ["log-triage", "support-ticket"]  # newest first
    at.text_input(key="runs_lib_search").set_value("log-triage").run()
    assert list(_library(at)["scenario"]) == ["log-triage"]
    at.text_input(key="runs_lib_search").set_value("").run()
    at.selectbox(key="runs_lib_pick").set_value(tight.id).run()
    at.text_input(key="runs_lib_name").set_value("tight, for class").run()
    ok(at.button(key="runs_lib_rename").click().run())
    assert store.summary(tight.id).name == "tight, for class"
    assert store.load(tight.id).name == "tight, for class"  # the record's own name too: an export carries it
    at.text_input(key="runs_lib_search").set_value("for class").run()
    assert list(_library(at)["name"]) == ["tight, for class"]
    ok(at.button(key="runs_lib_open").click().run())
    assert at.session_state["runs_open_entry"] == f"stored:{tight.id}"
    ok(at.button(key="runs_lib_delete").click().run())
    assert [r.id for r in store.list_runs()] == [other.id]
    assert "deleted" in _texts(at)
    assert at.session_state["runs_open_entry"] == f"stored:{tight.id}"  # still open in this tab
    assert any(b.proto.label == "Download this run (JSON)" for b in at.get("download_button"))


def test_an_upload_is_stored_as_imported(lab_db):
    at = _app()
    ok(at.switch_page("pages/runs.py").run())
    trace = load_record(SAMPLE).trace
    data = json.dumps(trace.to_dict()).encode("utf-8")
    ok(at.file_uploader(key="runs_upload").set_value([("my-trace.json", data, "application/json")]).run())
    rerun_until(at)  # the trace's replay is a job; the upload is stored when it has been read
    [row] = Store(lab_db).list_runs()
    assert row.kind == "trace" and row.name == "my-trace.json"  # named after its file (issue 30 item 7)
    assert Store(lab_db).load(row.id).to_dict() == trace.to_dict()  # the trace itself, not its replay


def test_an_upload_is_named_after_its_file_picked_for_open_and_a_second_upload_of_it_opens_the_first(lab_db):
    """Issue 30 item 7: every upload was stored as "uploaded run", the same file twice was stored twice, and
    right after an upload the stored-runs picker's "#1" was the run stored before it."""
    store = Store(lab_db)
    before = store.save_run(load_record(SAMPLE.parent / "log-triage-defaults.json"))
    at = _app()
    ok(at.switch_page("pages/runs.py").run())
    data = SAMPLE.read_bytes()
    ok(at.file_uploader(key="runs_upload").set_value([("tight for class.json", data, "application/json")]).run())
    rows = store.list_runs()
    assert [r.id for r in rows][1:] == [before.id]
    uploaded = rows[0]
    assert uploaded.name == "tight for class.json"
    assert at.selectbox(key="runs_lib_pick").value == uploaded.id  # Open opens the upload, not the run before
    first = at.session_state["runs_open_entry"]
    assert first.startswith("upload:")
    ok(at.selectbox(key="runs_open").set_value("sample:log-triage-defaults.json").run())
    ok(at.file_uploader(key="runs_upload").set_value([("the same, renamed.json", data, "application/json")]).run())
    assert [r.id for r in store.list_runs()] == [uploaded.id, before.id]  # stored once
    assert len(at.session_state["runs_uploads"]) == 1
    assert at.session_state["runs_open_entry"] == first  # the second upload opens the first
    assert at.selectbox(key="runs_lib_pick").value == uploaded.id
    assert "This file was uploaded before, as upload #1" in _texts(at)
    fresh = _app()  # another tab (a new session) uploading it again: the store finds its content
    ok(fresh.switch_page("pages/runs.py").run())
    ok(fresh.file_uploader(key="runs_upload").set_value([("again.json", data, "application/json")]).run())
    assert [r.id for r in store.list_runs()] == [uploaded.id, before.id]
    assert fresh.selectbox(key="runs_lib_pick").value == uploaded.id


def test_in_hosted_mode_each_visitor_lists_only_its_own_runs_and_reaches_others_by_link(any_db, monkeypatch):
    monkeypatch.setenv("SCRATCHPAD_LAB_HOSTED", "1")
    first = _app()
    _finish_a_run(first)
    visitor = first.session_state["lib_visitor_id"]
    [row] = Store(any_db).list_runs(owner_of(visitor))
    assert row.owner == owner_of(visitor) and row.owner != visitor  # the id itself is not stored
    second = _app()
    assert second.session_state["lib_visitor_id"] != visitor
    ok(second.switch_page("pages/runs.py").run())
    assert _library(second) is None and "No stored runs yet" in _texts(second)
    linked = _app(run=row.id, step="3")
    assert linked.slider(key="runs_step").value == 3
    assert _library(linked) is None  # opened by its link, still not listed for this visitor
    with pytest.raises(StoreError) as refused:  # and only its owner may delete it
        Store(any_db).delete([row.id], owner=owner_of(linked.session_state["lib_visitor_id"]))
    assert refused.value.kind == "not_yours"
    assert Store(any_db).list_runs(owner_of(visitor))


def _full(url: str) -> None:
    """Cap the SQLite file where it is now: SQLite then refuses writes with 'database or disk is full'."""
    forget(url)
    store = Store(url)
    with store._engine.connect() as conn:
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar()

    @event.listens_for(store._engine, "connect")
    def _cap(dbapi_connection, _record):
        dbapi_connection.execute(f"PRAGMA max_page_count = {pages}")
    store._engine.dispose()  # connections made from now on have the cap


def test_a_full_store_is_a_message_and_the_run_stays_on_screen_with_its_download(lab_db):
    Store(lab_db).check()
    _full(lab_db)
    at = _app()
    _finish_a_run(at)
    assert Store(lab_db).list_runs() == []
    assert "The run store had a problem:" in [e.value for e in at.error]
    said = _texts(at)
    assert "is full" in said and "can still be downloaded" in said
    assert at.session_state["play_runs"] and any(
        b.proto.label == "Download this run (JSON)" for b in at.get("download_button"))
    forget(lab_db)  # room again (the cap was this process's connections')
    ok(at.button(key="play_store_again_0").click().run())
    assert [r.name for r in Store(lab_db).list_runs()] == [at.session_state["play_runs"][0].name]
    assert "The run store had a problem:" not in [e.value for e in at.error]


def test_an_unreachable_store_is_a_message_and_nothing_on_screen_is_lost(monkeypatch):
    monkeypatch.setenv("SCRATCHPAD_LAB_DB", "postgresql+psycopg://nobody:x@127.0.0.1:9/none")  # port 9: refused
    at = _app()
    _finish_a_run(at)
    assert "cannot be reached" in _texts(at)
    assert at.session_state["play_runs"] and at.get("download_button")
    ok(at.switch_page("pages/runs.py").run())
    assert "The run store cannot be read: the runs of this tab below are unaffected." in [e.value for e in at.error]
    assert at.selectbox(key="runs_open").value  # the tab's run and the samples are still there to open


def test_a_postgresql_database_stopped_mid_session_gives_the_message_and_keeps_the_run(pg_db):
    at = _app()
    _finish_a_run(at)
    assert len(Store(pg_db).list_runs()) == 1
    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url
    name = make_url(pg_db).database
    admin = create_engine(os.environ["SCRATCHPAD_LAB_TEST_PG"], isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:  # the database goes away under the running app
        conn.execute(text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false'))
        conn.execute(text(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}' "
                          "AND pid <> pg_backend_pid()"))
    admin.dispose()
    _finish_a_run(at, every=3)
    assert "cannot be reached" in _texts(at) and "not currently accepting connections" in _texts(at)
    assert len(at.session_state["play_runs"]) == 2
    assert at.get("download_button")


def test_prompt_versions_keep_their_history_across_sessions_and_any_version_opens_in_the_playground(lab_db):
    lab = _app()
    ok(lab.switch_page("pages/prompt_lab.py").run())
    lab.text_input(key="pl_name_0").input("Ids")
    lab.text_area(key="pl_text_0").input("Keep ids.\n{scratchpad}").run()
    ok(lab.button(key="pl_save_0").click().run())
    lab.text_area(key="pl_text_0").input("Keep every id and number.\n{scratchpad}").run()
    ok(lab.button(key="pl_save_0").click().run())
    assert [(v.version, v.text) for v in Store(lab_db).prompt_history("Ids")] == [
        (2, "Keep every id and number.\n{scratchpad}"), (1, "Keep ids.\n{scratchpad}")]

    later = _app()  # another day, another session: the versions come from the store
    ok(later.switch_page("pages/prompt_lab.py").run())
    assert later.session_state["pl_prompt_versions"] == {"Ids": "Keep every id and number.\n{scratchpad}"}
    history = [t.value for t in later.text if t.value.startswith("version ")]
    assert [h.split(" · ")[0] for h in history] == ["version 2", "version 1"]
    ok(later.button(key="pl_history_use_1").click().run())
    # the name goes through the page's escape; compare what the reader sees (the offline summarizer gives a warning)
    assert any("“Ids v1”" in html.unescape(s.value) for s in list(later.success) + list(later.warning))
    ok(later.switch_page("pages/playground.py").run())
    later.session_state[K_ADVANCED] = True  # the prompt's box is in Advanced
    ok(later.run())
    assert later.sidebar.text_area(key="play_summarizer_prompt").value == "Keep ids.\n{scratchpad}"
    _finish_a_run(later)
    # the offline summarizer does not follow prompts, so the run is not credited to the version it was given
    assert later.session_state["play_runs"][-1].config.prompt_name is None
    assert Store(lab_db).list_runs(search="Ids v1") == []


def _recommend(at: AppTest) -> AppTest:
    """A small search on the Strategies page (two strategies over their default grids), waited for as a job."""
    ok(at.switch_page("pages/strategies.py").run())
    at.toggle(key="strat_rec_on").set_value(True).run()
    at.multiselect(key="strat_rec_pick").set_value(["trim-only", "clear-tool-uses"]).run()
    return rerun_until(ok(at.button(key="strat_rec_run").click().run()))


def test_a_recommendation_is_stored_with_every_point_and_listed_on_the_runs_page(lab_db):
    at = _recommend(_app())
    found = at.session_state["strat_recommend"][1]
    [listed] = Store(lab_db).list_results()
    result = Store(lab_db).load_result(listed.id)
    assert result.kind == "recommendation" and result.labels == [p.cli_arg() for p in found.points]
    assert result.name == f"recommendation of {len(found.points)} points ({len(found.front)} on the front)"
    assert [(r["settings"], r["on_front"], r["why"]) for r in result.rows] == \
        [(p.cli_arg(), p.on_front, p.why) for p in found.points]
    assert [r["peak_context_tokens"] for r in result.rows] == [p.figures["peak_context_tokens"] for p in found.points]
    ok(at.switch_page("pages/runs.py").run())
    assert any(e.label == "Stored Compare, sweep, recommendation and benchmark results (1)" for e in at.expander)
    assert "recommendation" in at.selectbox(key="runs_results_pick").format_func(listed.id)
    shown = next(d.value for d in at.dataframe if "settings" in d.value.columns and "on_front" in d.value.columns)
    assert list(shown["settings"]) == result.labels and list(shown["on_front"]) == [p.on_front for p in found.points]


def test_the_setting_off_keeps_a_recommendation_out_of_the_store(lab_db):
    at = _app()
    at.sidebar.toggle(key="play_autosave").set_value(False).run()
    at = _recommend(at)
    assert at.session_state["strat_recommend"] is not None  # shown on the page, not stored
    assert Store(lab_db).list_results() == []


def test_a_comparison_is_stored_with_its_figures_and_listed_on_the_runs_page(lab_db):
    at = _app()
    ok(at.switch_page("pages/compare.py").run())
    rerun_until(ok(at.button(key="cmp_run").click().run()))  # the replays are a job
    [listed] = Store(lab_db).list_results()
    result = Store(lab_db).load_result(listed.id)
    shown = at.session_state["cmp_result"]
    assert result.kind == "compare" and result.labels == shown.labels
    assert [r["compressions"] for r in result.rows] == [r["compressions"] for r in shown.rows]
    ok(at.switch_page("pages/runs.py").run())
    assert any(e.label == "Stored Compare, sweep, recommendation and benchmark results (1)" for e in at.expander)
    assert any(list(d.value["compressions"]) == [r["compressions"] for r in shown.rows] for d in at.dataframe
               if "compressions" in d.value.columns and "setting" in d.value.columns)
