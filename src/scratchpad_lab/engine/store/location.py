"""Where the store lives and how much it may hold: one URL setting and the limits, read from the environment
or st.secrets.

Streamlit-free (the page passes st.secrets in). The URL is SCRATCHPAD_LAB_DB, else `[scratchpad_lab] db`
in st.secrets, else an SQLite file in the user's data folder ($XDG_DATA_HOME/scratchpad-lab/lab.db, by
default ~/.local/share/scratchpad-lab/lab.db), whose folder is created on first use. A PostgreSQL URL
(postgresql+psycopg://user:password@host/db) is how several app processes share one store.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional

from scratchpad_lab.engine.store.store_error import StoreError

DB_ENV = "SCRATCHPAD_LAB_DB"
SECRETS_SECTION = "scratchpad_lab"   # st.secrets: [scratchpad_lab] db = "postgresql+psycopg://..."
FILE_NAME = "lab.db"


def data_folder() -> Path:
    base = os.environ.get("XDG_DATA_HOME", "").strip()
    return (Path(base) if base else Path.home() / ".local" / "share") / "scratchpad-lab"


def default_path() -> Path:
    return data_folder() / FILE_NAME


def store_url(secrets: Optional[Mapping] = None) -> str:
    """The database URL in force: the environment, then st.secrets, then the SQLite file in the data folder."""
    url = os.environ.get(DB_ENV, "").strip()
    if not url and secrets:
        try:
            url = str((secrets.get(SECRETS_SECTION) or {}).get("db") or "").strip()
        except (AttributeError, TypeError):
            url = ""
    return normalized(url) if url else "sqlite:///" + str(default_path())


def normalized(url: str) -> str:
    """A bare path is an SQLite file; postgres:// and postgresql:// mean psycopg 3 (the driver installed).
    Anything but SQLite or PostgreSQL is refused with what to write instead."""
    url = url.strip()
    if "://" not in url:
        return "sqlite:///" + str(Path(url).expanduser().resolve())
    scheme, rest = url.split("://", 1)
    if scheme in ("postgres", "postgresql"):
        return "postgresql+psycopg://" + rest
    if scheme in ("sqlite", "postgresql+psycopg"):
        return url
    raise StoreError(f"{DB_ENV} names a database this lab does not use ({scheme.split('+')[0]}). Use a file path, "
                     "sqlite:///path/to/lab.db, or postgresql+psycopg://user:password@host:5432/dbname.", "settings")


def sqlite_file(url: str) -> Optional[Path]:
    """The file of an sqlite:/// URL (None for memory or another database)."""
    if not url.startswith("sqlite"):
        return None
    path = url.split(":///", 1)[1] if ":///" in url else ""
    path = path.split("?", 1)[0]
    return Path(path) if path and path != ":memory:" else None


# ── limits ──────────────────────────────────────────────────────────────────

@dataclass(frozen=True)
class Limits:
    """Caps on stored runs (runs and traces). A visitor's caps hold in hosted mode (each browser is one
    visitor); the totals hold always. Over a cap, the oldest runs go first, and the page says which."""

    visitor_runs: int = 100
    visitor_bytes: int = 50 * 1024 * 1024
    total_runs: int = 10_000
    total_bytes: int = 2 * 1024 * 1024 * 1024
    prompt_versions: int = 1_000          # per visitor (hosted) or in all (local)
    results: int = 200                    # Compare and recommendation results, per visitor or in all


LIMIT_ENV = {"visitor_runs": "SCRATCHPAD_LAB_DB_VISITOR_RUNS", "visitor_bytes": "SCRATCHPAD_LAB_DB_VISITOR_MB",
             "total_runs": "SCRATCHPAD_LAB_DB_TOTAL_RUNS", "total_bytes": "SCRATCHPAD_LAB_DB_TOTAL_MB"}


def limits_from_env() -> Limits:
    """The default Limits, each overridable by its variable (runs as a count, bytes in MB)."""
    values = {}
    for field, env in LIMIT_ENV.items():
        raw = os.environ.get(env, "").strip()
        if not raw:
            continue
        try:
            number = int(raw)
        except ValueError:
            number = 0
        if number < 1:
            raise StoreError(f"{env} is {raw!r}; set it to a whole number of 1 or more "
                             f"({'megabytes' if field.endswith('bytes') else 'runs'}).", "settings")
        values[field] = number * 1024 * 1024 if field.endswith("bytes") else number
    return Limits(**values)
