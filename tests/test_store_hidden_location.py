"""Issue 29, item 9: a hosted store's errors never show visitors where the database is (its file path, or
the PostgreSQL user, host, port and name); locally they still do, as that is what a user fixes."""
import pytest

from scratchpad_lab.engine.store import Store, StoreError


def _error(url: str) -> StoreError:
    with pytest.raises(StoreError) as info:
        Store(url).check()
    return info.value


def test_an_sqlite_file_that_cannot_be_made_is_not_named_in_hosted_mode(tmp_path, monkeypatch):
    blocker = tmp_path / "secret-folder-name"
    blocker.write_text("a file where the store's folder should be")
    url = f"sqlite:///{blocker}/lab.db"
    assert "secret-folder-name" in str(_error(url))  # local: the path is what to fix
    monkeypatch.setenv("SCRATCHPAD_LAB_HOSTED", "1")
    said = str(_error(url))
    assert "secret-folder-name" not in said and str(tmp_path) not in said and "cannot" in said


def test_an_unreachable_postgresql_is_not_described_in_hosted_mode(monkeypatch):
    pytest.importorskip("psycopg")
    url = "postgresql+psycopg://labuser:hunter22@127.0.0.1:9/labdatabase"  # port 9: nothing listens
    monkeypatch.setenv("SCRATCHPAD_LAB_HOSTED", "1")
    error = _error(url)
    said = str(error)
    for secret in ("labuser", "hunter22", "127.0.0.1", "labdatabase", "port 9", ":9"):
        assert secret not in said, (secret, said)
    assert error.kind == "unreachable" and "cannot be reached" in said
