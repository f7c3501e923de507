"""Every page runs: each file in pages/ is opened through the app frame with AppTest (found by listing the
folder, so a new page is covered the day it is added) and must render without an exception or an error."""
import pytest
from streamlit.testing.v1 import AppTest

from conftest import APP, ROOT

PAGES = sorted((ROOT / "pages").glob("*.py"))


def test_the_pages_folder_is_found():
    assert PAGES, "no pages found"


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_every_page_renders_without_an_exception(page, monkeypatch):
    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    at.switch_page(f"pages/{page.name}").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert at.title or at.header or at.subheader or at.text, "the page showed something"
