"""The run store (issue 24), on SQLite and on PostgreSQL (`any_db`; the PostgreSQL half skips, saying why, when
SCRATCHPAD_LAB_TEST_PG is not set, and runs in CI, where .ci/run sets it).

What is checked is what a person relies on: a stored run comes back as the same run and exports as a file the
lab loads; the library lists newest first and finds by name, scenario, strategy and prompt; visitors see only
their own; caps remove the oldest first and say so; no key is ever stored; the schema has a version and an
upgrade path; two processes share one store; a database that cannot take a write says so.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import MetaData, create_engine, inspect, select, text

from scratchpad_lab.engine.store import (SCHEMA_VERSION, Limits, Store, StoreError, forget, new_id, owner_of,
                                         store_url)
from scratchpad_lab.engine.store import tables
from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.model.endpoint import Endpoint
from scratchpad_lab.model.records import RunRecord, load_any, load_record
from scratchpad_lab.model.results import Result

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_runs"
TIGHT = SAMPLES / "support-ticket-tight.json"
LOG = SAMPLES / "log-triage-defaults.json"


def _cli(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "scratchpad_lab.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ), cwd=ROOT)


def _every_stored_text(url: str) -> str:
    """Every value of every row of every table, as text."""
    engine = create_engine(url)
    meta = MetaData()
    meta.reflect(engine)
    with engine.connect() as conn:
        out = [repr(tuple(row)) for table in meta.sorted_tables for row in conn.execute(select(table))]
    engine.dispose()
    return "\n".join(out)


# ── runs come back as they went in ──────────────────────────────────────────

def test_a_stored_run_comes_back_event_for_event_and_exports_as_a_file_the_lab_loads(any_db, tmp_path):
    record = load_record(TIGHT)
    store = Store(any_db)
    saved = store.save_run(record)
    back = store.load(saved.id)
    assert isinstance(back, RunRecord)
    assert back.to_dict() == record.to_dict()
    exported = tmp_path / "exported.json"
    exported.write_text(store.export(saved.id), encoding="utf-8")
    assert load_any(exported.read_bytes()).to_dict() == record.to_dict()
    done = _cli("replay", str(exported), "--summarize-every", "3", "--json")
    assert done.returncode == 0, done.stderr


def test_a_trace_is_stored_as_imported_and_listed_as_a_trace(any_db):
    trace = load_record(TIGHT).trace
    store = Store(any_db)
    saved = store.save_run(trace, name="my agent's trace")
    assert store.load(saved.id).to_dict() == trace.to_dict()
    summary = store.summary(saved.id)
    assert (summary.kind, summary.name, summary.iterations) == ("trace", "my agent's trace", len(trace.steps))


def test_the_library_lists_newest_first_and_finds_by_name_scenario_strategy_and_prompt(any_db):
    store = Store(any_db)
    tight = load_record(TIGHT)
    named = load_record(TIGHT)
    named.config = named.config.replace(  # a model summarizer: it follows the prompt, so the run is credited to it
        prompt_name="Ids first", summarizer_prompt="Keep ids. {scratchpad}", summarizer="endpoint",
        summarizer_endpoint=Endpoint(provider="custom", base_url="http://127.0.0.1:9/v1", model="m"))
    first = store.save_run(tight, name="Tight triggers")
    second = store.save_run(load_record(LOG), name="Defaults on logs")
    third = store.save_run(named, name="Prompt trial")
    assert [r.id for r in store.list_runs()] == [third.id, second.id, first.id]
    assert [r.id for r in store.list_runs(search="tight")] == [first.id]                # name, any case
    assert [r.id for r in store.list_runs(search="log-triage")] == [second.id]          # scenario
    assert {r.id for r in store.list_runs(search="every 2 /")} == {first.id, third.id}  # strategy
    assert [r.id for r in store.list_runs(search="ids FIRST")] == [third.id]            # prompt, every word
    assert store.list_runs(search="100%_") == []                                        # wildcards are text


def test_a_run_that_does_not_fit_the_file_schema_is_refused_and_nothing_is_stored(any_db):
    record = load_record(TIGHT)
    record.outcome = "exploded"
    with pytest.raises(StoreError) as refused:
        Store(any_db).save_run(record)
    assert refused.value.kind == "bad_row" and "outcome" in str(refused.value)
    assert Store(any_db).list_runs() == []


def test_a_row_changed_behind_the_labs_back_is_reported_not_shown(any_db):
    store = Store(any_db)
    saved = store.save_run(load_record(TIGHT))
    engine = create_engine(any_db)
    with engine.begin() as conn:
        conn.execute(tables.runs.update().where(tables.runs.c.id == saved.id).values(
            body=json.dumps({"schema": "scratchpad-lab/run@1", "events": "not a list"})))
    engine.dispose()
    with pytest.raises(StoreError) as found:
        store.load(saved.id)
    assert found.value.kind == "bad_row" and "delete it" in str(found.value)


# ── ids, owners, rename, delete ─────────────────────────────────────────────

def test_run_ids_are_128_random_bits_that_never_look_like_an_option():
    ids = {new_id() for _ in range(2000)}
    assert len(ids) == 2000
    assert all(len(i) == 22 and not i.startswith("-") and set(i) <= set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") for i in ids)


def test_visitors_see_only_their_own_runs_and_only_the_owner_renames_or_deletes(any_db):
    store = Store(any_db)
    ann, bob = owner_of("browser-of-ann-" + "a" * 20), owner_of("browser-of-bob-" + "b" * 20)
    mine = store.save_run(load_record(TIGHT), ann, name="Ann's run")
    store.save_run(load_record(LOG), bob, name="Bob's run")
    assert [r.name for r in store.list_runs(ann)] == ["Ann's run"]
    assert [r.name for r in store.list_runs(bob)] == ["Bob's run"]
    assert store.load(mine.id).name == load_record(TIGHT).name  # anyone with the id opens it
    for change in (lambda: store.rename(mine.id, "taken", bob), lambda: store.delete([mine.id], bob)):
        with pytest.raises(StoreError) as refused:
            change()
        assert refused.value.kind == "not_yours"
    store.rename(mine.id, "  Ann's   tight run ", ann)
    assert store.summary(mine.id).name == "Ann's tight run" and store.load(mine.id).name == "Ann's tight run"
    assert store.delete([mine.id], ann) == 1 and store.list_runs(ann) == []
    assert "browser-of-ann" not in _every_stored_text(any_db)  # only the id's hash is kept


# ── caps ────────────────────────────────────────────────────────────────────

def test_a_visitors_run_cap_removes_their_oldest_first_and_names_it(any_db):
    store = Store(any_db, Limits(visitor_runs=2))
    me, other = owner_of("v1" * 12), owner_of("v2" * 12)
    theirs = store.save_run(load_record(LOG), other, name="not mine")
    first = store.save_run(load_record(TIGHT), me, name="first")
    store.save_run(load_record(TIGHT), me, name="second")
    third = store.save_run(load_record(TIGHT), me, name="third")
    assert [r.name for r in third.removed] == ["first"]
    assert "“first”" in third.notice()
    assert [r.name for r in store.list_runs(me)] == ["third", "second"]
    assert store.summary(theirs.id).name == "not mine"  # another visitor's runs are not theirs to lose
    with pytest.raises(StoreError):
        store.load(first.id)


def test_byte_and_total_caps_remove_the_oldest_and_never_name_another_visitors_run(any_db):
    size = len(load_record(TIGHT).to_json())
    store = Store(any_db, Limits(visitor_bytes=size * 10, total_runs=3))
    other = owner_of("other" * 5)
    for _ in range(3):  # they hold the most, so the total cap takes their oldest (issue 29: fair eviction)
        store.save_run(load_record(LOG), other, name="someone else's secret title")
    last = store.save_run(load_record(TIGHT), owner_of("me" * 12), name="mine")
    assert len(last.removed) == 1 and "secret title" not in last.notice() and "of others" in last.notice()
    assert store.usage(None)[0] == 3
    tiny = Store(any_db, Limits(visitor_bytes=1000))
    with pytest.raises(StoreError) as refused:
        tiny.save_run(load_record(TIGHT), owner_of("me" * 12))
    assert refused.value.kind == "too_large" and "download it" in str(refused.value)


# ── keys ────────────────────────────────────────────────────────────────────

def test_no_key_is_stored_even_when_an_error_message_quotes_one(any_db, monkeypatch):
    planted_env, typed = "sk-planted-env-4f4f4f4f", "sk-typed-9e9e9e9e"
    monkeypatch.setenv("LAB_STORE_TEST_KEY", planted_env)
    monkeypatch.setenv("SCRATCHPAD_LAB_KEY_HOSTS", "LAB_STORE_TEST_KEY=http://127.0.0.1:9/v1")
    record = load_record(TIGHT)
    endpoint = Endpoint(provider="custom", base_url="http://127.0.0.1:9/v1", model="m", key_env="LAB_STORE_TEST_KEY")
    record.config = RunConfig.build(scenario="support-ticket", agent_endpoint=endpoint)
    record.error = f"401: Incorrect API key provided: {planted_env}; also tried {typed}"
    from scratchpad_lab.engine.store import secret_values
    store = Store(any_db)
    saved = store.save_run(record, keys=secret_values([record.config], {"agent": typed}))
    stored = _every_stored_text(any_db)
    assert planted_env not in stored and typed not in stored
    assert "removed before storing" in store.load(saved.id).error
    store.save_prompt("p", "Summarize. {scratchpad}")
    assert planted_env not in _every_stored_text(any_db)


# ── prompt versions and results ─────────────────────────────────────────────

def test_prompt_versions_keep_their_history_per_visitor(any_db):
    store = Store(any_db)
    assert store.save_prompt("Ids", "Keep ids. {scratchpad}").version == 1
    assert store.save_prompt("Ids", "Keep ids. {scratchpad}").version == 1   # the same text adds no version
    assert store.save_prompt("Ids", "Keep every id. {scratchpad}").version == 2
    store.save_prompt("Short", "Be short. {scratchpad}", owner_of("visitor" * 4))
    assert [(v.version, v.text) for v in store.prompt_history("Ids")] == [
        (2, "Keep every id. {scratchpad}"), (1, "Keep ids. {scratchpad}")]
    assert list(store.latest_prompts()) == ["Ids"]
    assert list(store.latest_prompts(owner_of("visitor" * 4))) == ["Short"]


def test_a_comparison_result_is_stored_with_its_figures_and_capped(any_db):
    store = Store(any_db, Limits(results=2))
    rows = [{"setting": "#1 every 2", "compressions": 7, "facts_retained": 0.5, "answer_score": None}]
    ids = [store.save_result(Result("compare", rows, ["#1 every 2"], source="sample · x.json")) for _ in range(3)]
    listed = store.list_results()
    assert [r.id for r in listed] == [ids[2], ids[1]]
    back = store.load_result(ids[2])
    assert back.rows == rows and back.source == "sample · x.json" and back.kind == "compare"


# ── the schema: a version, and the path up to it ────────────────────────────

def test_a_new_store_is_made_at_the_schema_version_and_reopening_changes_nothing(any_db):
    Store(any_db).check()
    engine = create_engine(any_db)
    with engine.connect() as conn:
        assert tables.current_version(conn) == SCHEMA_VERSION
        assert {"lab_meta", "lab_runs", "lab_prompt_versions", "lab_results"} <= set(inspect(conn).get_table_names())
        assert tables.migrate(conn) == SCHEMA_VERSION  # already there: nothing to do
    engine.dispose()


def test_an_older_store_is_upgraded_in_one_transaction_and_a_failed_step_changes_nothing(any_db):
    store = Store(any_db)
    store.save_run(load_record(TIGHT), name="kept")
    engine = store._engine.execution_options(lab_write=True)  # the store's own connections (SQLite: BEGIN IMMEDIATE)

    def add_column(conn):
        conn.execute(text("ALTER TABLE lab_runs ADD COLUMN starred INTEGER NOT NULL DEFAULT 0"))

    def broken(conn):
        add_column(conn)
        raise RuntimeError("the step failed half way")

    following = SCHEMA_VERSION + 1  # a step after today's schema
    with pytest.raises(RuntimeError), engine.begin() as conn:
        tables.migrate(conn, {**tables.MIGRATIONS, following: broken}, target=following)
    with engine.connect() as conn:
        assert tables.current_version(conn) == SCHEMA_VERSION
        assert "starred" not in {c["name"] for c in inspect(conn).get_columns("lab_runs")}
    with engine.begin() as conn:
        assert tables.migrate(conn, {**tables.MIGRATIONS, following: add_column}, target=following) == SCHEMA_VERSION
    with engine.connect() as conn:
        assert tables.current_version(conn) == following
        assert conn.execute(text("SELECT name, starred FROM lab_runs")).all() == [("kept", 0)]


def test_a_version_1_store_is_recounted_by_the_figures_row_when_opened(any_db):
    """Version 1 counted every compression event as a compression: a silent summarizer's 12 empty replies
    were listed as 12. Opening it upgrades the rows to the figures row's count (issue 28, item 4)."""
    from scratchpad_lab.analysis.figures import figures
    from scratchpad_lab.engine.run.runner import Run
    silent = Run(RunConfig.build(scenario="support-ticket", summarize_every=3, max_scratchpad_chars=2000,
                                 summarizer="silent")).run()
    want = figures(silent.events)
    assert want.compressions == 0 and want.failed_calls == want.summarizer_calls > 0
    store = Store(any_db)
    silent_id = store.save_run(silent, name="silent").id
    tight_id = store.save_run(load_record(TIGHT), name="tight").id
    engine = create_engine(any_db)
    with engine.begin() as conn:  # make it what version 1 wrote: no such columns, every event counted
        for column in ("summarizer_calls", "failed_calls"):
            conn.execute(text(f"ALTER TABLE lab_runs DROP COLUMN {column}"))
        conn.execute(text("UPDATE lab_runs SET compressions = :n WHERE id = :id"),
                     {"n": sum(1 for e in silent.events if e.kind == "compression"), "id": silent_id})
        conn.execute(tables.meta.update().values(value="1"))
    engine.dispose()
    forget(any_db)
    rows = {r.id: r for r in Store(any_db).list_runs()}
    assert (rows[silent_id].compressions, rows[silent_id].summarizer_calls, rows[silent_id].failed_calls) == \
        (0, want.summarizer_calls, want.failed_calls)
    tight = figures(load_record(TIGHT).events)
    assert (rows[tight_id].compressions, rows[tight_id].failed_calls) == (tight.compressions, 0)
    engine = create_engine(any_db)
    with engine.connect() as conn:
        assert tables.current_version(conn) == SCHEMA_VERSION
    engine.dispose()


def test_a_store_newer_than_this_lab_is_refused_and_left_alone(any_db):
    Store(any_db).check()
    engine = create_engine(any_db)
    with engine.begin() as conn:
        conn.execute(tables.meta.update().values(value=str(SCHEMA_VERSION + 1)))
    engine.dispose()
    forget(any_db)
    with pytest.raises(StoreError) as refused:
        Store(any_db).list_runs()
    assert refused.value.kind == "newer_schema" and "Upgrade Scratchpad Lab" in str(refused.value)


# ── two processes, one store ────────────────────────────────────────────────

def test_a_new_store_opens_while_another_process_holds_its_first_lock(lab_db):
    """Two processes opening a new SQLite store at once: while one holds the write lock on the file (still in
    rollback mode), SQLite refuses the other's switch to WAL at once, "database is locked", without waiting.
    The second must wait for the lock and open the store, not fail (CI saw `runs list` fail so)."""
    import sqlite3
    import threading
    from scratchpad_lab.engine.store.location import sqlite_file
    holder = sqlite3.connect(sqlite_file(lab_db), isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("CREATE TABLE other_process_was_here (x)")
    release = threading.Timer(0.5, lambda: holder.execute("COMMIT"))
    release.start()
    try:
        forget(lab_db)
        Store(lab_db).check()
        assert Store(lab_db).list_runs() == []
    finally:
        release.join()
        holder.close()


def test_two_processes_create_and_share_one_store(any_db):
    """Two CLI processes open a new store at once (one creates the schema, the other waits for it), then a run
    stored by one is listed and exported by another."""
    procs = [subprocess.Popen([sys.executable, "-m", "scratchpad_lab.cli", "runs", "list"], cwd=ROOT,
                              env=dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    done = _cli("run", "--scenario", "log-triage", "--summarize-every", "2", "--save")
    assert done.returncode == 0, done.stderr
    [row] = Store(any_db).list_runs()
    assert f"stored as {row.id}" in done.stderr and row.scenario == "log-triage"
    listed = _cli("runs", "list", "--json")
    assert json.loads(listed.stdout)[0]["id"] == row.id  # one JSON document, as every --json
    shown = _cli("runs", "show", row.id)
    assert shown.returncode == 0 and "scenario: log-triage" in shown.stdout and "compressions:" in shown.stdout
    replayed = _cli("replay", str(TIGHT), "--save")
    assert replayed.returncode == 0 and len(Store(any_db).list_runs()) == 2
    gone = _cli("runs", "delete", row.id)
    assert gone.returncode == 0 and "deleted 1 run" in gone.stderr
    missing = _cli("runs", "show", row.id)
    assert missing.returncode == 2 and "not in the store" in missing.stderr


def test_import_save_keeps_an_imported_run_in_the_store_as_its_trace(any_db, tmp_path):
    """`import --save` stores the imported trace under the file's name (listed on the Runs page, replayable);
    with --out too, both are written; with neither, it says what to add and stores nothing."""
    history = ROOT / "sample_runs" / "imported" / "autourgos-history-support-ticket.json"
    saved = _cli("import", str(history), "--task", "Resolve T-5521", "--save")
    assert saved.returncode == 0, saved.stderr
    [row] = Store(any_db).list_runs()
    assert row.kind == "trace" and row.name == history.name and f"stored {row.id}" in saved.stdout
    stored = Store(any_db).load(row.id)
    out = tmp_path / "t.json"
    both = _cli("import", str(history), "--task", "Resolve T-5521", "--save", "--out", str(out))
    assert both.returncode == 0 and len(Store(any_db).list_runs()) == 2
    assert json.loads(out.read_text())["steps"] == stored.to_dict()["steps"]
    assert stored.task == "Resolve T-5521"
    neither = _cli("import", str(history), "--task", "x")
    assert neither.returncode == 2 and "--out TRACE.json" in neither.stderr and "--save" in neither.stderr
    assert len(Store(any_db).list_runs()) == 2


# ── where the store is, and when it cannot be used ──────────────────────────

def test_the_default_store_is_a_file_in_the_users_data_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("SCRATCHPAD_LAB_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert store_url() == f"sqlite:///{tmp_path}/data/scratchpad-lab/lab.db"
    Store().check()  # the folder is made on first use
    assert (tmp_path / "data" / "scratchpad-lab" / "lab.db").is_file()
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert store_url().endswith("/home/.local/share/scratchpad-lab/lab.db")
    monkeypatch.setenv("SCRATCHPAD_LAB_DB", "postgres://u:p@db.example/lab")
    assert store_url() == "postgresql+psycopg://u:p@db.example/lab"
    assert store_url({"scratchpad_lab": {"db": "ignored"}}).startswith("postgresql+psycopg://")
    monkeypatch.delenv("SCRATCHPAD_LAB_DB")
    assert store_url({"scratchpad_lab": {"db": str(tmp_path / "s.db")}}) == f"sqlite:///{tmp_path}/s.db"


def test_a_store_that_cannot_be_reached_or_is_set_wrong_says_what_to_do(tmp_path):
    unreachable = Store("postgresql+psycopg://lab:secret-pass@127.0.0.1:9/lab")
    with pytest.raises(StoreError) as found:
        unreachable.list_runs()
    assert found.value.kind == "unreachable" and "secret-pass" not in str(found.value)
    # what to change, in words that read right in a terminal too (the page adds that the run stays on screen)
    assert "database is running" in str(found.value) and "SCRATCHPAD_LAB_DB" in str(found.value)
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(StoreError) as found:
        Store(str(tmp_path / "a-file" / "lab.db"))
    assert found.value.kind == "settings" and "cannot be created" in str(found.value)
    with pytest.raises(StoreError) as found:
        Store("mysql://u@h/db")
    assert found.value.kind == "settings" and "postgresql+psycopg://" in str(found.value)


def test_a_full_sqlite_store_refuses_the_write_with_a_message_and_keeps_what_it_had(lab_db):
    from sqlalchemy import event
    store = Store(lab_db)
    kept = store.save_run(load_record(TIGHT))
    forget(lab_db)
    store = Store(lab_db)
    with store._engine.connect() as conn:
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar()

    @event.listens_for(store._engine, "connect")
    def _cap(dbapi_connection, _record):
        dbapi_connection.execute(f"PRAGMA max_page_count = {pages}")
    store._engine.dispose()
    with pytest.raises(StoreError) as full:
        store.save_run(load_record(LOG))
    assert full.value.kind == "full" and "Delete runs (the Runs page, or `scratchpad-lab runs delete`)" in str(full.value)
    assert [r.id for r in store.list_runs()] == [kept.id]
