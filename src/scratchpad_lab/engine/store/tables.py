"""The store's tables (SQLAlchemy Core), its schema version, and the path from an empty database to it.

Streamlit-free. One row per stored thing; the thing itself is kept as the JSON of its file format (a run
record or a trace exactly as a download holds it, a result as model.results), so a row read back is
checked by the same schema as a file. The columns beside the JSON are what the library lists and
searches without opening a run. Of those, `compressions`, `summarizer_calls` and `failed_calls` are the
run's figures row (analysis/figures.py, `figure_columns` below), so `runs list` and the Runs page's stored
runs say what `run`, `runs show` and the Playground say (version 1 counted every compression event, a
summarizer call that replaced nothing included; version 2 recomputes the stored rows from their bodies).

Migrations: `lab_meta` holds `schema_version`. `MIGRATIONS[n]` takes a database at version n - 1 to
version n; `migrate` applies the missing ones in order, each in the same transaction as its version
bump, under a lock (PostgreSQL: an advisory lock; SQLite: BEGIN IMMEDIATE), so two processes starting
at once upgrade a database once. A database newer than this code is refused, never changed. To change
the schema: edit the tables below, add `MIGRATIONS[n + 1]` that brings a version-n database there (and a
test that opens a version-n database), and raise SCHEMA_VERSION.
"""
from __future__ import annotations

from typing import Callable, Dict, Sequence

from sqlalchemy import (BigInteger, Column, Index, Integer, MetaData, String, Table, Text, UniqueConstraint,
                        inspect, select, text)
from sqlalchemy.engine import Connection

from scratchpad_lab.analysis.figures import compression_counts
from scratchpad_lab.engine.store.store_error import StoreError
from scratchpad_lab.model.events import Event

SCHEMA_VERSION = 3
LOCK_ID = 0x5C7A7C4  # PostgreSQL advisory lock taken while migrating

metadata = MetaData()

meta = Table("lab_meta", metadata,
             Column("name", String(40), primary_key=True),
             Column("value", String(200), nullable=False))

# Runs and traces. owner: "" for a local store (everything is the one user's); in hosted mode the
# SHA-256 of the visitor's browser id, never the id itself.
runs = Table("lab_runs", metadata,
             Column("id", String(64), primary_key=True),
             Column("owner", String(64), nullable=False, server_default=""),
             Column("kind", String(10), nullable=False),          # "run" | "trace"
             Column("name", String(200), nullable=False, server_default=""),
             Column("scenario", String(100), nullable=False, server_default=""),
             Column("strategy", String(200), nullable=False, server_default=""),
             Column("prompt", String(100), nullable=False, server_default=""),
             Column("outcome", String(20), nullable=False, server_default=""),
             Column("iterations", Integer, nullable=False, server_default="0"),
             Column("compressions", Integer, nullable=False, server_default="0"),       # figure_columns
             Column("summarizer_calls", Integer, nullable=False, server_default="0"),   # (version 2)
             Column("failed_calls", Integer, nullable=False, server_default="0"),       # (version 2)
             Column("created", String(40), nullable=False, server_default=""),
             Column("stored_ns", BigInteger, nullable=False),
             Column("size_bytes", Integer, nullable=False),
             Column("body", Text, nullable=False),
             Index("lab_runs_owner_stored", "owner", "stored_ns"),
             Index("lab_runs_stored", "stored_ns"))

prompts = Table("lab_prompt_versions", metadata,
                Column("id", Integer, primary_key=True, autoincrement=True),
                Column("owner", String(64), nullable=False, server_default=""),
                Column("name", String(100), nullable=False),
                Column("version", Integer, nullable=False),
                Column("text", Text, nullable=False),
                Column("stored_ns", BigInteger, nullable=False),
                UniqueConstraint("owner", "name", "version", name="lab_prompt_versions_one"))

results = Table("lab_results", metadata,
                Column("id", String(64), primary_key=True),
                Column("owner", String(64), nullable=False, server_default=""),
                Column("kind", String(20), nullable=False),       # model.results.RESULT_KINDS
                Column("name", String(200), nullable=False, server_default=""),
                Column("source", String(200), nullable=False, server_default=""),
                Column("stored_ns", BigInteger, nullable=False),
                Column("size_bytes", Integer, nullable=False),
                Column("body", Text, nullable=False),
                Index("lab_results_owner_stored", "owner", "stored_ns"))


# What a visitor is told on their next visit: their runs removed to make room for others' (version 3).
notices = Table("lab_notices", metadata,
                Column("id", Integer, primary_key=True, autoincrement=True),
                Column("owner", String(64), nullable=False),
                Column("stored_ns", BigInteger, nullable=False),
                Column("text", Text, nullable=False),
                Index("lab_notices_owner", "owner"))


FIGURE_COLUMNS = ("compressions", "summarizer_calls", "failed_calls")


def figure_columns(events: Sequence[Event]) -> Dict[str, int]:
    """A run's counted columns, from the figures row's own count (figures.compression_counts, which
    `figures(events)` reads): compressions are summaries that replaced what is sent; failed calls are
    figures.failed_call's (a rejection in review is not one)."""
    return dict(zip(FIGURE_COLUMNS, compression_counts(events)))


def _to_1(conn: Connection) -> None:
    """The first version: runs and traces, prompt versions, results (made with today's columns: the
    version-2 step then finds its columns there and only recounts, which an empty database makes quick)."""
    metadata.create_all(conn, tables=[meta, runs, prompts, results])  # (notices: version 3)


def _to_2(conn: Connection) -> None:
    """Version 2: summarizer_calls and failed_calls beside compressions, and all three recounted from each
    stored run's body by the figures row (version 1 counted every compression event as a compression)."""
    from scratchpad_lab.model.records import load_any
    from scratchpad_lab.model.trace import RecordError
    have = {c["name"] for c in inspect(conn).get_columns(runs.name)}
    for name in FIGURE_COLUMNS[1:]:
        if name not in have:
            conn.execute(text(f"ALTER TABLE {runs.name} ADD COLUMN {name} INTEGER NOT NULL DEFAULT 0"))
    stored = conn.execute(select(runs.c.id, runs.c.body).where(runs.c.kind == "run")).all()
    for run_id, body in stored:
        try:
            events = load_any(body, "A stored run").events
        except (RecordError, AttributeError):  # AttributeError: a trace's body under kind run
            continue  # a row changed behind the lab's back: Store.load reports it when it is opened
        conn.execute(runs.update().where(runs.c.id == run_id).values(**figure_columns(events)))


def _to_3(conn: Connection) -> None:
    """Version 3: notices, so a visitor whose runs the total cap removed is told when they come back."""
    metadata.create_all(conn, tables=[notices])


MIGRATIONS: Dict[int, Callable[[Connection], None]] = {1: _to_1, 2: _to_2, 3: _to_3}


def current_version(conn: Connection) -> int:
    if not inspect(conn).has_table(meta.name):
        return 0
    value = conn.execute(select(meta.c.value).where(meta.c.name == "schema_version")).scalar()
    if value is None or not str(value).isdigit():
        raise StoreError("The database has a lab_meta table without a schema version: it was not made by "
                         "Scratchpad Lab, or an upgrade was cut short. Point SCRATCHPAD_LAB_DB at another "
                         "database.", "bad_row")
    return int(value)


def migrate(conn: Connection, migrations: Dict[int, Callable[[Connection], None]] = MIGRATIONS,
            target: int = SCHEMA_VERSION) -> int:
    """Bring the database in `conn` (inside a transaction) to `target`; returns the version it was at."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:lock)"), {"lock": LOCK_ID})
    found = current_version(conn)
    if found > target:
        raise StoreError(f"The database is at store schema version {found}, written by a newer Scratchpad Lab; "
                         f"this one knows versions up to {target}. Upgrade Scratchpad Lab, or point "
                         "SCRATCHPAD_LAB_DB at another database.", "newer_schema")
    for version in range(found + 1, target + 1):
        migrations[version](conn)
        if version == 1:
            conn.execute(meta.insert().values(name="schema_version", value="1"))
        else:
            conn.execute(meta.update().where(meta.c.name == "schema_version").values(value=str(version)))
    return found
