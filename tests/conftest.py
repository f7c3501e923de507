"""Shared test setup: tests import helpers (fake_openai) from this folder."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))


# ── the run store (issue 24): never the user's own data folder ────────────────────────────────────

import secrets as _secrets  # noqa: E402

import pytest  # noqa: E402

TEST_PG_ENV = "SCRATCHPAD_LAB_TEST_PG"  # a PostgreSQL URL whose role may create databases (.ci/run sets it)


@pytest.fixture(scope="session", autouse=True)
def lab_store_in_tmp(tmp_path_factory):
    """The whole session (and every app server a test starts) stores into a temporary SQLite file and data
    folder, never ~/.local/share/scratchpad-lab."""
    folder = tmp_path_factory.mktemp("lab-store")
    saved = {k: os.environ.get(k) for k in ("SCRATCHPAD_LAB_DB", "XDG_DATA_HOME")}
    os.environ["SCRATCHPAD_LAB_DB"] = str(folder / "lab.db")
    os.environ["XDG_DATA_HOME"] = str(folder / "data-home")
    yield folder
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(autouse=True)
def lab_store_per_test(lab_store_in_tmp, monkeypatch):
    """Each test starts with an empty store of its own (runs and prompt versions stored by one test are not
    listed in the next); servers started by module fixtures keep the session's."""
    folder = lab_store_in_tmp / _secrets.token_hex(6)
    folder.mkdir()
    url = "sqlite:///" + str(folder / "lab.db")
    monkeypatch.setenv("SCRATCHPAD_LAB_DB", url)
    yield url
    if "scratchpad_lab.engine.store" in sys.modules:
        sys.modules["scratchpad_lab.engine.store"].forget(url)


@pytest.fixture
def lab_db(lab_store_per_test):
    """This test's own, empty SQLite store (SCRATCHPAD_LAB_DB points at it); its URL."""
    return lab_store_per_test


@pytest.fixture
def pg_db(monkeypatch):
    """A fresh PostgreSQL database for one test, made through SCRATCHPAD_LAB_TEST_PG and dropped after;
    SCRATCHPAD_LAB_DB points at it. Skipped, saying why, when that variable is not set (CI sets it)."""
    admin = os.environ.get(TEST_PG_ENV)
    if not admin:
        pytest.skip(f"{TEST_PG_ENV} is not set: the PostgreSQL store tests need a server whose role may create "
                    "databases (bash .ci/run installs and starts Debian's postgresql and sets it)")
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url
    name = "lab_t_" + _secrets.token_hex(6)
    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(admin).set(database=name).render_as_string(hide_password=False)
    monkeypatch.setenv("SCRATCHPAD_LAB_DB", url)
    try:
        yield url
    finally:
        from scratchpad_lab.engine.store import forget
        forget(url)
        with engine.connect() as conn:
            conn.execute(text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true'))
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def any_db(request):
    """The same test on a fresh SQLite file and on a fresh PostgreSQL database."""
    return request.getfixturevalue("lab_db" if request.param == "sqlite" else "pg_db")
