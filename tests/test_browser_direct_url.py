"""A link straight to a page, as the first request a new server gets, opens that page inside the app's
frame (its navigation, presenter toggle and link box), not Streamlit's bare page-folder list.

Each browser test module starts its own server, so the first page this module opens is the server's
first script run."""
from __future__ import annotations

import pytest

from browser_support import ARTIFACTS, browser, server  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser


def test_the_first_request_to_a_page_url_gets_the_apps_frame(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        page.goto(server + "/prompt_lab")
        page.get_by_role("heading", name="Scratchpad Lab · Prompt lab").wait_for()
        nav = page.locator('[data-testid="stSidebarNav"]')
        nav.get_by_text("Prompt lab", exact=True).wait_for()  # the app's page titles, not file names
        assert nav.get_by_text("prompt lab", exact=True).count() == 0
        assert nav.get_by_text("app", exact=True).count() == 0
        page.get_by_text("Presenter mode").wait_for()
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "direct-url-prompt-lab.png"))
    finally:
        context.close()
