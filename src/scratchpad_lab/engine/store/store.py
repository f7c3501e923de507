"""The store: run records, traces as imported, prompt versions and results, in one database.

Streamlit-free, so the CLI and the tests use it as the pages do. Everything goes in and comes out through
the file formats' own checks (model.records.load_any, model.results.ResultFile): a row that would not load
as a file is refused on the way in and reported on the way out. Nothing stored holds a key: the records
never carry one (model.config), and `save_run` also removes any key value it is told of, in case a model's
error message quoted one.

Owners: "" is the one user of a local store. In hosted mode each browser is a visitor; its rows carry the
SHA-256 of its id (`owner_of`), listing shows a visitor only its own rows, and a run id (128 random bits,
secrets.token_urlsafe) is the only way to another visitor's run. Caps (location.Limits) remove the oldest
runs first, and say which: over a visitor's own caps, their own; over the totals, those of the visitor
holding the most (`_make_room`), who is told on their next visit (`take_notices`). Prompt versions count
toward the bytes caps.

Every database failure becomes one StoreError whose message says what happened and what to do; nothing a
page shows is lost by it (the page keeps its runs in memory and offers the download).
"""
from __future__ import annotations

import hashlib
import json
import secrets as _secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Union

from sqlalchemy import create_engine, delete, event, func, or_, select, update
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, SQLAlchemyError

from scratchpad_lab.engine.store import tables as t
from scratchpad_lab.engine.store.store_error import StoreError
from scratchpad_lab.engine.store.location import DB_ENV, Limits, limits_from_env, normalized, sqlite_file, store_url
from scratchpad_lab.model.config import prompt_too_long
from scratchpad_lab.model.endpoint import hosted_mode
from scratchpad_lab.model.records import RunRecord, load_any, prompt_label
from scratchpad_lab.model.results import Result
from scratchpad_lab.model.schemas import FILE_LIMIT, MAX_FILE_BYTES
from scratchpad_lab.model.trace import RecordError, Trace

RUN_ID_BYTES = 16                 # secrets.token_urlsafe(16): 22 characters, 128 random bits
MAX_NAME = 200
MAX_PROMPT_NAME = 100
KEY_REMOVED = "[a key was here; removed before storing]"


@dataclass(frozen=True)
class RunSummary:
    """A stored run as the library lists it (the run itself is opened with Store.load)."""

    id: str
    kind: str            # "run" | "trace"
    name: str
    scenario: str
    strategy: str
    prompt: str
    outcome: str
    iterations: int
    compressions: int        # the figures row's (tables.figure_columns), as `runs show` and the pages count
    summarizer_calls: int
    failed_calls: int        # figures.failed_call: the summarizer replied nothing or raised; never your rejection
    created: str
    stored_ns: int
    size_bytes: int
    owner: str

    @property
    def stored_at(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.stored_ns / 1e9))


@dataclass(frozen=True)
class Saved:
    id: str
    removed: List[RunSummary]     # the oldest runs removed to stay under the caps
    owner: str = ""
    existing: bool = False        # save_run(once=True) found this content stored already: nothing was stored

    def notice(self) -> Optional[str]:
        """What was removed to make room, naming only the saver's own runs (another visitor's are counted)."""
        if not self.removed:
            return None
        own = [r for r in self.removed if r.owner == self.owner]
        parts = []
        if own:
            names = ", ".join(f"“{r.name or 'run'}”" for r in own[:3])
            parts.append(f"{len(own)} of yours ({names}{f' and {len(own) - 3} more' if len(own) > 3 else ''})")
        if len(own) < len(self.removed):
            parts.append(f"{len(self.removed) - len(own)} older runs of others")
        return ("The store keeps a limited number of runs, so the oldest were removed to make room: "
                + " and ".join(parts) + ".")


@dataclass(frozen=True)
class PromptVersion:
    name: str
    version: int
    text: str
    stored_ns: int

    @property
    def stored_at(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.stored_ns / 1e9))


@dataclass(frozen=True)
class ResultSummary:
    id: str
    kind: str
    name: str
    source: str
    stored_ns: int
    size_bytes: int

    @property
    def stored_at(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.stored_ns / 1e9))


def owner_of(visitor_id: Optional[str]) -> str:
    """The owner column for a hosted visitor's browser id ("" for the one user of a local store)."""
    return hashlib.sha256(visitor_id.encode("utf-8")).hexdigest() if visitor_id else ""


def new_id() -> str:
    """128 random bits, URL-safe; never starting with "-", so `scratchpad-lab runs show ID` reads it as an id."""
    while True:
        made = _secrets.token_urlsafe(RUN_ID_BYTES)
        if not made.startswith("-"):
            return made


def strategy_of(record: RunRecord) -> str:
    """The compression a run used, in the words the library searches."""
    c = record.config
    every = "off" if c.summarize_every is None else str(c.summarize_every)
    return (f"autourgos middleware every {every} / {c.max_scratchpad_chars:,} chars, agent trim "
            f"{c.agent_trim_chars:,}, {c.summarizer.kind} summarizer")


# ── engines, one per URL per process ─────────────────────────────────────────

_ENGINES: "OrderedDict[str, Engine]" = OrderedDict()
_READY: set = set()
_LOCK = threading.Lock()
_MAX_ENGINES = 8
_last_ns = 0


def _now_ns() -> int:
    """time.time_ns(), strictly increasing within this process (newest first needs no ties)."""
    global _last_ns
    with _LOCK:
        _last_ns = max(time.time_ns(), _last_ns + 1)
        return _last_ns


_SQLITE_WAIT_S = 15.0  # how long a connection waits for another process's lock before saying "locked"


def _wal(cursor) -> None:
    """Switch the file to write-ahead logging. SQLite answers this pragma "database is locked" at once, without
    its busy handler, while another connection holds a lock on a file still in rollback mode (two processes
    opening a new store together), so it is retried here for as long as busy_timeout would wait."""
    deadline = time.monotonic() + _SQLITE_WAIT_S
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def _sqlite_engine(url: str) -> Engine:
    path = sqlite_file(url)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"The store's folder {path.parent} cannot be created ({exc.strerror}). Set "
                             f"{DB_ENV} to a file in a folder you can write to.", "settings") from None
    engine = create_engine(url, connect_args={"timeout": 15, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        dbapi_connection.isolation_level = None  # SQLAlchemy's BEGIN below, not the driver's, opens transactions
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout={int(_SQLITE_WAIT_S * 1000)}")
        if path is not None:
            _wal(cursor)  # the CLI can write while the app reads
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn) -> None:
        # A writing transaction takes the write lock at once, so two processes wait for each other
        # (busy_timeout) instead of failing when a read lock cannot be upgraded.
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("lab_write") else "BEGIN")

    return engine


def _engine(url: str) -> Engine:
    with _LOCK:
        engine = _ENGINES.get(url)
        if engine is not None:
            _ENGINES.move_to_end(url)
            return engine
    try:
        if url.startswith("sqlite"):
            engine = _sqlite_engine(url)
        else:
            engine = create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=5, pool_recycle=1800,
                                   connect_args={"connect_timeout": 5} if url.startswith("postgresql") else {})
    except (ArgumentError, NoSuchModuleError, ImportError, ValueError) as exc:
        raise StoreError(f"{DB_ENV} is not a database URL this lab can use ({type(exc).__name__}: {exc}). Use "
                         "sqlite:///path/to/lab.db, a file path, or postgresql+psycopg://user:password@host/db.",
                         "settings") from None
    with _LOCK:
        engine = _ENGINES.setdefault(url, engine)
        while len(_ENGINES) > _MAX_ENGINES:
            old_url, old = _ENGINES.popitem(last=False)
            _READY.discard(old_url)
            old.dispose()
    return engine


def forget(url: str) -> None:
    """Close this process's connections to `url` (tests; a server switching databases)."""
    with _LOCK:
        engine = _ENGINES.pop(url, None)
        _READY.discard(url)
    if engine is not None:
        engine.dispose()


def shown_url(url: str) -> str:
    """The URL as a person may see it: the password hidden; an SQLite file as its path."""
    path = sqlite_file(url)
    if path is not None:
        return str(path)
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(a URL that is not a database URL)"


HIDDEN = "the server's database"


def hide_location(text: str, url: str) -> str:
    """`text` without where the database is: its file (and folder), host, port, user, password and name,
    as the URL gives them and as drivers quote them ('at "10.0.0.5", port 5432', 'for user "lab"')."""
    import re
    parts: List[str] = []
    path = sqlite_file(url)
    if path is not None:
        parts += [str(path), str(path.parent)]
    else:
        try:
            found = make_url(url)
            parts += [str(v) for v in (found.password, found.host, found.username, found.database) if v]
        except ArgumentError:
            pass
    whole = {url, shown_url(url), str(path)}
    for part in sorted({p for p in parts if len(p) >= 2} | whole, key=len, reverse=True):
        text = text.replace(part, HIDDEN if part in whole else "…")
    text = re.sub(r'(server at|host|user|database|role)\s+"[^"]*"(\s*\([^)]*\))?', r"\1 …", text, flags=re.I)
    text = re.sub(r"\bport\s+\d+", "port …", text, flags=re.I)
    text = re.sub(r"\b\d{1,3}(\.\d{1,3}){3}\b", "…", text)
    return text.replace(f"({HIDDEN})", "").replace("  ", " ")


def _problem(exc: BaseException, where: str) -> StoreError:
    """A database failure as a sentence, by its cause: full, unreachable, or refused."""
    orig = getattr(exc, "orig", None) or exc
    said = (str(orig).strip().splitlines() or [type(orig).__name__])[0][:300]
    sqlstate = getattr(orig, "sqlstate", None) or ""
    lowered = said.lower()
    if "full" in lowered and ("database" in lowered or "disk" in lowered) or sqlstate == "53100" \
            or "no space left" in lowered or sqlstate.startswith("53"):
        return StoreError(f"The run store ({where}) is full: {said}. Nothing was stored. Delete runs (the Runs "
                          "page, or `scratchpad-lab runs delete`), or make room for the database.", "full")
    # A login refused (wrong password, unknown role: SQLSTATE class 28) is a server that answered, not one
    # that cannot be reached: say which setting to change.
    if sqlstate.startswith("28") or "authentication failed" in lowered:
        return StoreError(f"The run store ({where}) refused the login: {said}. Check the user name and password "
                          f"in {DB_ENV} (or `[scratchpad_lab] db` in .streamlit/secrets.toml).", "refused_login")
    if isinstance(exc, DBAPIError) and (exc.connection_invalidated or type(orig).__name__ in (
            "OperationalError", "InterfaceError")) or "connect" in lowered:
        return StoreError(f"The run store ({where}) cannot be reached: {said}. Check that the database is running "
                          f"(docs/hosting.md says how to start PostgreSQL), or set {DB_ENV}.", "unreachable")
    return StoreError(f"The run store ({where}) refused this: {said}.", "bad_row")


class Store:
    """One database's runs, traces, prompt versions and results. Cheap to make: engines are shared."""

    def __init__(self, url: Optional[str] = None, limits: Optional[Limits] = None) -> None:
        self.url = normalized(url) if url else store_url()
        self.limits = limits or limits_from_env()
        self.where = shown_url(self.url)
        try:
            self._engine = _engine(self.url)
        except StoreError as exc:
            raise self._safe(exc) from None

    def _safe(self, exc: StoreError) -> StoreError:
        """In hosted mode, the error as a visitor may see it: without the database's file path, host, port,
        user or name (an operator reads them in the server's own log and settings)."""
        return StoreError(hide_location(str(exc), self.url), exc.kind) if hosted_mode() else exc

    # ── connections ─────────────────────────────────────────────────────────

    @contextmanager
    def _tx(self, write: bool = False) -> Iterator[Connection]:
        """A transaction, with the schema brought up to date once per process; failures as StoreError."""
        engine = self._engine.execution_options(lab_write=True) if write else self._engine
        try:
            if self.url not in _READY:
                with self._engine.execution_options(lab_write=True).begin() as conn:
                    t.migrate(conn)
                _READY.add(self.url)
            with engine.begin() as conn:
                yield conn
        except StoreError as exc:
            raise self._safe(exc) from None
        except UnicodeEncodeError:  # a lone surrogate that no check below caught: still the store's own error
            raise StoreError(NOT_TEXT.format(what="A value given to the store"), "settings") from None
        except SQLAlchemyError as exc:
            raise self._safe(_problem(exc, self.where)) from None
        except OSError as exc:
            raise self._safe(StoreError(f"The run store ({self.where}) cannot be opened: {exc.strerror or exc}. Set "
                                        f"{DB_ENV} to a file you can write to.", "unreachable")) from None

    def check(self) -> None:
        """Open the database (creating or upgrading its schema); StoreError if it cannot be used."""
        with self._tx() as conn:
            conn.execute(select(func.count()).select_from(t.meta))

    # ── runs and traces ─────────────────────────────────────────────────────

    def save_run(self, loaded: Union[RunRecord, Trace], owner: str = "", *, name: str = "",
                 keys: Iterable[str] = (), once: bool = False) -> Saved:
        """Store a run record or a trace (as imported); returns its new id and the runs removed to make room.
        `keys`: key values that must not be stored (removed wherever they appear). `once` (an upload): when
        this owner already stored exactly this content, nothing is stored and that run's id comes back
        (`Saved.existing`), so the same file uploaded twice is one stored run."""
        raw = loaded.to_dict()
        body = _redacted(_dumps(raw), keys)
        checked = _checked(body, "The run to store")
        size = len(body.encode("utf-8"))
        if size > MAX_FILE_BYTES:
            raise StoreError(f"This run is {size:,} bytes as JSON; the store takes runs of up to {FILE_LIMIT} "
                             "(the file limit). It was not stored; download it instead.", "too_large")
        if owner and size > self.limits.visitor_bytes:
            raise StoreError(f"This run is {size / 1e6:.1f} MB; each visitor may store {self.limits.visitor_bytes / 1e6:.0f} "
                             "MB in all. It was not stored; download it instead.", "too_large")
        row = dict(id=new_id(), owner=owner, stored_ns=_now_ns(), size_bytes=size, body=body, **_columns(checked, name))
        if once:
            with self._tx() as conn:  # the same size first, then the same text: the content, byte for byte
                same = conn.execute(select(t.runs.c.id).where(t.runs.c.owner == owner, t.runs.c.size_bytes == size,
                                                              t.runs.c.body == body).limit(1)).first()
            if same is not None:
                return Saved(same.id, [], owner, existing=True)
        with self._tx(write=True) as conn:
            conn.execute(t.runs.insert().values(**row))
            removed = self._make_room(conn, owner, _Keep(run=row["id"]))
        return Saved(row["id"], removed, owner)

    def _make_room(self, conn: Connection, owner: str, keep: "_Keep") -> List[RunSummary]:
        """Remove runs (and prompt versions, which count toward the bytes) until every cap holds.

        Over their own caps, the saver loses their own oldest. Over the totals, the visitor holding the most
        loses their oldest first (on a tie, the saver, then whoever stored last): so a visitor over their
        share pays for their own saves, and a new visitor, holding little, removes nothing of a visitor who
        holds no more than they do. Another visitor's removed runs are noted for their next visit."""
        removed: List[RunSummary] = []
        if owner:
            self._shrink(conn, owner, keep, self.limits.visitor_runs, self.limits.visitor_bytes, removed)
        while True:
            held = self._holdings(conn)
            runs = sum(h[0] for h in held.values())
            size = sum(h[1] for h in held.values())
            over_runs, over_bytes = runs > self.limits.total_runs, size > self.limits.total_bytes
            if not (over_runs or over_bytes):
                break
            measure = 0 if over_runs else 1
            candidates = [o for o, h in held.items() if h[measure] > 0 and (o != owner or self._spare(conn, o, keep))]
            if not candidates:
                raise StoreError("The store is full, and nothing of yours is left to remove to make room. It was "
                                 "not stored; download it instead.", "full")
            who = max(candidates, key=lambda o: (held[o][measure], o == owner, held[o][2]))
            gone = self._remove_oldest(conn, who, keep)
            if gone is not None:
                removed.append(gone)
        others = {}
        for r in removed:
            if r.owner != owner:
                others.setdefault(r.owner, []).append(r)
        for who, theirs in others.items():
            names = ", ".join(f"“{r.name or 'run'}”" for r in theirs[:3])
            more = f" and {len(theirs) - 3} more" if len(theirs) > 3 else ""
            conn.execute(t.notices.insert().values(owner=who, stored_ns=_now_ns(), text=(
                f"The store was full, so {len(theirs)} of your oldest stored run{'s' * (len(theirs) != 1)} "
                f"({names}{more}) {'were' if len(theirs) != 1 else 'was'} removed to make room: you held the "
                "most. Download runs you want to keep.")))
        return removed

    def _holdings(self, conn: Connection) -> Dict[str, list]:
        """{owner: [runs, bytes (runs and prompt versions), newest stored_ns]}."""
        held: Dict[str, list] = {}
        for who, count, size, newest in conn.execute(
                select(t.runs.c.owner, func.count(), func.coalesce(func.sum(t.runs.c.size_bytes), 0),
                       func.max(t.runs.c.stored_ns)).group_by(t.runs.c.owner)):
            held[who] = [int(count), int(size), int(newest or 0)]
        for who, size, newest in conn.execute(
                select(t.prompts.c.owner, func.coalesce(func.sum(func.length(t.prompts.c.text)), 0),
                       func.max(t.prompts.c.stored_ns)).group_by(t.prompts.c.owner)):
            entry = held.setdefault(who, [0, 0, 0])
            entry[1] += int(size)
            entry[2] = max(entry[2], int(newest or 0))
        return held

    def _spare(self, conn: Connection, who: str, keep: "_Keep") -> bool:
        """Whether `who` has anything but the row being kept to give up."""
        runs = conn.execute(select(func.count()).select_from(t.runs).where(
            t.runs.c.owner == who, t.runs.c.id != keep.run)).scalar()
        return bool(runs) or bool(conn.execute(select(func.count()).select_from(t.prompts).where(
            t.prompts.c.owner == who, t.prompts.c.id != keep.prompt)).scalar())

    def _remove_oldest(self, conn: Connection, who: str, keep: "_Keep") -> Optional[RunSummary]:
        """`who`'s oldest run (not `keep`), else their oldest prompt version; the run's summary, if a run went."""
        found = conn.execute(select(*_SUMMARY_COLUMNS).where(t.runs.c.owner == who, t.runs.c.id != keep.run)
                             .order_by(t.runs.c.stored_ns.asc()).limit(1)).first()
        if found is not None:
            conn.execute(delete(t.runs).where(t.runs.c.id == found.id))
            return _summary(found)
        oldest = conn.execute(select(t.prompts.c.id).where(t.prompts.c.owner == who,
                                                           t.prompts.c.id != keep.prompt)
                              .order_by(t.prompts.c.stored_ns.asc()).limit(1)).scalar()
        if oldest is None:
            raise StoreError("The store is full, and nothing of yours is left to remove to make room. It was not "
                             "stored; download it instead.", "full")
        conn.execute(delete(t.prompts).where(t.prompts.c.id == oldest))
        return None

    def _shrink(self, conn: Connection, who: str, keep: "_Keep", most_runs: int, most_bytes: int,
                removed: List[RunSummary]) -> None:
        """`who`'s own oldest go until they hold at most `most_runs` runs and `most_bytes` (prompts included)."""
        while True:
            count, size, _ = self._holdings(conn).get(who, [0, 0, 0])
            if count <= most_runs and size <= most_bytes:
                return
            if not self._spare(conn, who, keep):
                raise StoreError(f"You hold {size / 1e6:.1f} MB in runs and prompt versions, over the "
                                 f"{most_bytes / 1e6:.0f} MB each visitor may store. It was not stored.", "too_large")
            gone = self._remove_oldest(conn, who, keep)
            if gone is not None:
                removed.append(gone)

    def take_notices(self, owner: str = "") -> List[str]:
        """What this visitor should be told since their last visit (each said once: taken, it is gone)."""
        with self._tx(write=True) as conn:
            rows = conn.execute(select(t.notices.c.id, t.notices.c.text).where(t.notices.c.owner == owner)
                                .order_by(t.notices.c.stored_ns.asc())).all()
            if rows:
                conn.execute(delete(t.notices).where(t.notices.c.id.in_([r.id for r in rows])))
        return [r.text for r in rows]

    def list_runs(self, owner: Optional[str] = "", search: str = "", limit: int = 500) -> List[RunSummary]:
        """Stored runs newest first; `owner` None lists every owner's (the CLI's --all). Each word of
        `search` must appear in the name, scenario, strategy or prompt (any case)."""
        _text(search, "The search")
        query = select(*_SUMMARY_COLUMNS).order_by(t.runs.c.stored_ns.desc()).limit(max(1, limit))
        if owner is not None:
            query = query.where(t.runs.c.owner == owner)
        for word in search.split()[:10]:
            pattern = "%" + word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            query = query.where(or_(*(col.ilike(pattern, escape="\\") for col in (
                t.runs.c.name, t.runs.c.scenario, t.runs.c.strategy, t.runs.c.prompt))))
        with self._tx() as conn:
            return [_summary(r) for r in conn.execute(query)]

    def summary(self, run_id: str) -> RunSummary:
        _text(run_id, RUN_ID)
        with self._tx() as conn:
            found = conn.execute(select(*_SUMMARY_COLUMNS).where(t.runs.c.id == run_id)).first()
        if found is None:
            raise _not_found(run_id)
        return _summary(found)

    def load(self, run_id: str) -> Union[RunRecord, Trace]:
        """The stored run record or trace, checked by the file schema as it comes out."""
        _text(run_id, RUN_ID)
        with self._tx() as conn:
            body = conn.execute(select(t.runs.c.body).where(t.runs.c.id == run_id)).scalar()
        if body is None:
            raise _not_found(run_id)
        try:
            return load_any(body, "The stored run")
        except RecordError as exc:
            raise StoreError(f"{exc} It cannot be opened; delete it.", "bad_row") from None

    def export(self, run_id: str) -> str:
        """The stored run as the JSON file a download gives (loadable by `replay` and the Runs page)."""
        loaded = self.load(run_id)
        if isinstance(loaded, RunRecord):
            return loaded.to_json()
        return json.dumps(loaded.to_dict(), ensure_ascii=False, indent=1)

    def rename(self, run_id: str, name: str, owner: Optional[str] = "") -> None:
        name = " ".join(name.split())[:MAX_NAME]
        if not name:
            raise StoreError("Give the run a name (letters or numbers); it was not renamed.", "settings")
        with self._tx(write=True) as conn:
            found = conn.execute(select(t.runs.c.owner, t.runs.c.kind, t.runs.c.body).where(t.runs.c.id == run_id)).first()
            _may_change(found, run_id, owner)
            values = {"name": name}
            if found.kind == "run":  # the record's own name goes with it into an export
                raw = json.loads(found.body)
                raw["name"] = name
                values["body"] = _dumps(raw)
                values["size_bytes"] = len(values["body"].encode("utf-8"))
            conn.execute(update(t.runs).where(t.runs.c.id == run_id).values(**values))

    def delete(self, run_ids: Sequence[str], owner: Optional[str] = "") -> int:
        """Delete runs; `owner` None may delete anyone's (the CLI). Returns how many went."""
        for run_id in run_ids:
            _text(run_id, RUN_ID)
        with self._tx(write=True) as conn:
            for run_id in run_ids:
                _may_change(conn.execute(select(t.runs.c.owner).where(t.runs.c.id == run_id)).first(), run_id, owner)
            done = conn.execute(delete(t.runs).where(t.runs.c.id.in_(list(run_ids))))
        return done.rowcount or 0

    def usage(self, owner: Optional[str] = "") -> tuple:
        """(runs, bytes) stored by `owner` (None: by everyone)."""
        query = select(func.count(), func.coalesce(func.sum(t.runs.c.size_bytes), 0)).select_from(t.runs)
        if owner is not None:
            query = query.where(t.runs.c.owner == owner)
        with self._tx() as conn:
            count, total = conn.execute(query).one()
        return int(count), int(total)

    # ── prompt versions ─────────────────────────────────────────────────────

    def save_prompt(self, name: str, text: str, owner: str = "") -> PromptVersion:
        """A new version of the named prompt (the same text as its newest version adds none)."""
        name = " ".join(name.split())[:MAX_PROMPT_NAME]
        if not name:
            raise StoreError("Give the prompt version a name; it was not saved.", "settings")
        too_long = prompt_too_long(text)  # the one prompt limit, on every path in (a page, an upload, the CLI)
        if too_long:
            raise StoreError(f"{too_long} It was not saved.", "too_large")
        text = text.encode("utf-8", "replace").decode("utf-8").replace("\x00", "")
        with self._tx(write=True) as conn:
            newest = conn.execute(select(t.prompts).where(t.prompts.c.owner == owner, t.prompts.c.name == name)
                                  .order_by(t.prompts.c.version.desc()).limit(1)).first()
            if newest is not None and newest.text == text:
                return PromptVersion(newest.name, newest.version, newest.text, newest.stored_ns)
            version = PromptVersion(name, (newest.version if newest else 0) + 1, text, _now_ns())
            conn.execute(t.prompts.insert().values(owner=owner, name=name, version=version.version, text=text,
                                                   stored_ns=version.stored_ns))
            count = conn.execute(select(func.count()).select_from(t.prompts).where(t.prompts.c.owner == owner)).scalar()
            if count > self.limits.prompt_versions:
                oldest = select(t.prompts.c.id).where(t.prompts.c.owner == owner).order_by(
                    t.prompts.c.stored_ns.asc()).limit(count - self.limits.prompt_versions)
                conn.execute(delete(t.prompts).where(t.prompts.c.id.in_([r.id for r in conn.execute(oldest)])))
            new_row = conn.execute(select(t.prompts.c.id).where(
                t.prompts.c.owner == owner, t.prompts.c.name == name, t.prompts.c.version == version.version)).scalar()
            self._make_room(conn, owner, _Keep(prompt=new_row))  # prompt versions count toward the bytes caps
        return version

    def prompt_history(self, name: str, owner: str = "") -> List[PromptVersion]:
        """Every version of one prompt, newest first."""
        with self._tx() as conn:
            rows = conn.execute(select(t.prompts).where(t.prompts.c.owner == owner, t.prompts.c.name == name)
                                .order_by(t.prompts.c.version.desc()))
            return [PromptVersion(r.name, r.version, r.text, r.stored_ns) for r in rows]

    def latest_prompts(self, owner: str = "") -> Dict[str, PromptVersion]:
        """Each prompt's newest version, the most recently saved prompt first."""
        with self._tx() as conn:
            rows = conn.execute(select(t.prompts).where(t.prompts.c.owner == owner)
                                .order_by(t.prompts.c.stored_ns.desc()))
            out: Dict[str, PromptVersion] = {}
            for r in rows:
                out.setdefault(r.name, PromptVersion(r.name, r.version, r.text, r.stored_ns))
            return out

    # ── results ─────────────────────────────────────────────────────────────

    def save_result(self, result: Result, owner: str = "") -> str:
        body = _dumps(result.to_dict())
        checked = Result.from_dict(json.loads(body), "The result to store")
        if len(body) > MAX_FILE_BYTES:
            raise StoreError("This result is too large to store.", "too_large")
        result_id = new_id()
        with self._tx(write=True) as conn:
            conn.execute(t.results.insert().values(
                id=result_id, owner=owner, kind=checked.kind, name=checked.name[:MAX_NAME],
                source=checked.source[:MAX_NAME], stored_ns=_now_ns(), size_bytes=len(body.encode("utf-8")), body=body))
            ids = [r.id for r in conn.execute(select(t.results.c.id).where(t.results.c.owner == owner)
                                              .order_by(t.results.c.stored_ns.desc()).offset(self.limits.results))]
            if ids:
                conn.execute(delete(t.results).where(t.results.c.id.in_(ids)))
        return result_id

    def list_results(self, owner: Optional[str] = "", limit: int = 200) -> List[ResultSummary]:
        query = select(t.results.c.id, t.results.c.kind, t.results.c.name, t.results.c.source, t.results.c.stored_ns,
                       t.results.c.size_bytes).order_by(t.results.c.stored_ns.desc()).limit(limit)
        if owner is not None:
            query = query.where(t.results.c.owner == owner)
        with self._tx() as conn:
            return [ResultSummary(r.id, r.kind, r.name, r.source, r.stored_ns, r.size_bytes) for r in conn.execute(query)]

    def load_result(self, result_id: str) -> Result:
        with self._tx() as conn:
            body = conn.execute(select(t.results.c.body).where(t.results.c.id == result_id)).scalar()
        if body is None:
            raise StoreError("That result is not in the store (it may have been deleted).", "not_found")
        try:
            return Result.from_dict(json.loads(body), "The stored result")
        except (RecordError, ValueError) as exc:
            raise StoreError(f"{exc} It cannot be opened; delete it.", "bad_row") from None

    def delete_result(self, result_id: str, owner: Optional[str] = "") -> None:
        with self._tx(write=True) as conn:
            _may_change(conn.execute(select(t.results.c.owner).where(t.results.c.id == result_id)).first(),
                        result_id, owner)
            conn.execute(delete(t.results).where(t.results.c.id == result_id))


@dataclass(frozen=True)
class _Keep:
    """The row being saved, which making room never removes."""

    run: str = ""
    prompt: int = -1


# ── helpers ────────────────────────────────────────────────────────────────

_SUMMARY_COLUMNS = (t.runs.c.id, t.runs.c.kind, t.runs.c.name, t.runs.c.scenario, t.runs.c.strategy, t.runs.c.prompt,
                    t.runs.c.outcome, t.runs.c.iterations, t.runs.c.compressions,
                    t.runs.c.summarizer_calls, t.runs.c.failed_calls, t.runs.c.created,
                    t.runs.c.stored_ns, t.runs.c.size_bytes, t.runs.c.owner)


def _summary(row) -> RunSummary:
    return RunSummary(*(row[i] for i in range(len(_SUMMARY_COLUMNS))))


NOT_TEXT = ("{what} holds a byte that is not UTF-8 text (a terminal's $'\\xff', say), which the store cannot look "
            "up; type it again in plain text.")
RUN_ID = "The run id"  # `scratchpad-lab runs list` shows each run's id


def _text(value: str, what: str) -> str:
    """`value` if a database can take it. A byte that is not UTF-8 reaches Python as a lone surrogate
    (surrogateescape: a command-line argument, a file name), which every driver refuses with a
    UnicodeEncodeError: here it is a StoreError that says so."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise StoreError(NOT_TEXT.format(what=what), "settings") from None
    return value


def _not_found(run_id: str) -> StoreError:
    del run_id  # a link's id is not quoted back
    return StoreError("That run is not in the store: it was deleted (the oldest runs go when the store is full), "
                      "or the link was cut short.", "not_found")


def _may_change(found, run_id: str, owner: Optional[str]) -> None:
    if found is None:
        raise _not_found(run_id)
    if owner is not None and found.owner != owner:
        raise StoreError("That run was stored by another visitor: you can open it by its link, but only they can "
                         "rename or delete it.", "not_yours")


def _dumps(raw: dict) -> str:
    try:
        text = json.dumps(raw, ensure_ascii=False, separators=(",", ":"))
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:  # a lone surrogate from a model: kept as its \\u escape, which any database takes
        return json.dumps(raw, ensure_ascii=True, separators=(",", ":"))


def _redacted(body: str, keys: Iterable[str]) -> str:
    for key in {k for k in keys if isinstance(k, str) and len(k) >= 8}:
        for form in {key, json.dumps(key)[1:-1]}:
            body = body.replace(form, KEY_REMOVED)
    return body


def _checked(body: str, where: str) -> Union[RunRecord, Trace]:
    try:
        return load_any(body, where)
    except RecordError as exc:
        raise StoreError(f"{exc} It was not stored.", "bad_row") from None


def _columns(loaded: Union[RunRecord, Trace], name: str) -> dict:
    if isinstance(loaded, Trace):
        return dict(kind="trace", name=(name or "uploaded trace")[:MAX_NAME], scenario="", outcome="",
                    strategy="trace (a trajectory, not run here yet)", prompt="", iterations=len(loaded.steps),
                    created="", **{name: 0 for name in t.FIGURE_COLUMNS})
    events = loaded.events
    return dict(kind="run", name=(name or loaded.name or "run")[:MAX_NAME], scenario=(loaded.scenario or loaded.mode)[:100],
                strategy=strategy_of(loaded)[:MAX_NAME], prompt=prompt_label(loaded.config)[:100],
                outcome=loaded.outcome[:20], iterations=sum(1 for e in events if e.kind == "iteration"),
                created=(loaded.created or "")[:40], **t.figure_columns(events))


def secret_values(configs: Iterable, keys: Optional[Dict[str, str]] = None, secrets: Optional[dict] = None) -> List[str]:
    """Every key a run could have used: the typed ones and the server's variables its endpoints resolve to."""
    from scratchpad_lab.engine.net.providers import resolve_key
    from scratchpad_lab.model.endpoint import NO_KEY_PLACEHOLDER
    found = [v for v in (keys or {}).values() if v]
    for config in configs:
        for endpoint in (getattr(config, "agent_endpoint", None),
                         getattr(getattr(config, "summarizer", None), "endpoint", None)):
            if endpoint is not None:
                value = resolve_key(endpoint, secrets=secrets)
                if value and value != NO_KEY_PLACEHOLDER:
                    found.append(value)
    return found

