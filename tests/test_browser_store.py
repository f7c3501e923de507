"""The run store in Chromium (issue 24): in hosted mode two app servers share one PostgreSQL database; a run
made in the Playground on one is listed, by our words, on the other (a process that never held it, as after a
restart), to the same browser; a second visitor does not see it listed, and opens it there by its link at a
step in a fresh browser.

One test: the servers get their store through the environment (SCRATCHPAD_LAB_DB), a database of its own
(`pg_db`; it skips, saying why, where SCRATCHPAD_LAB_TEST_PG is not set, and CI sets it). The same walk on
SQLite, a server restarted on the same file, was a second test of 18-23 s: SQLite across processes is
tests/test_store.py's (two processes sharing one store), and a finished run stored, listed and opened by its
link in a new session on either database is tests/test_app_library.py's.
"""
from __future__ import annotations

import re

import pytest

from browser_support import IDLE_JS, browser, select_options, start_app, stop_server  # noqa: F401 (browser: a fixture)

pytestmark = pytest.mark.browser

RUN_TIMEOUT_MS = 60_000
LINK = re.compile(r"\?run=([A-Za-z0-9_-]{22})&step=(\d+)$")


def _context(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(30_000)
    return context


def _idle(page) -> None:
    page.wait_for_function(IDLE_JS, timeout=RUN_TIMEOUT_MS)


def _run_in_playground(page, url: str) -> None:
    page.goto(url)
    page.get_by_role("button", name="Run", exact=True).wait_for()
    _idle(page)
    slider = page.get_by_role("slider", name="Pacing")
    slider.press("Home")  # instant
    page.wait_for_function("el => el.getAttribute('aria-valuetext') === 'instant'", arg=slider.element_handle())
    _idle(page)
    page.get_by_role("button", name="Run", exact=True).click()
    page.wait_for_function("""() => document.querySelector('input[role="combobox"][aria-label="Show run"]')
        ?.value?.startsWith('#1 Run 1')""", timeout=RUN_TIMEOUT_MS)
    _idle(page)


def _stored_options(page) -> list:
    """The Runs page's stored runs, as the select lists them (our words: number, time, kind, iterations)."""
    if page.get_by_role("combobox", name="Stored run", exact=True).count() == 0:
        return []
    return select_options(page, "Stored run")


def _open_runs_page(page, url: str) -> None:
    """The Runs page in a new session of this browser (its cookie goes with it). The root first: a page's own
    path as a new server's very first request opens without the app's frame (see docs/troubleshooting.md)."""
    page.goto(url)
    page.get_by_role("button", name="Run", exact=True).wait_for()
    page.goto(url + "/runs")
    page.get_by_text("Stored runs", exact=True).wait_for()
    _idle(page)


def _sidebar_link(page) -> str:
    """The sidebar's link box (the hidden, empty code box that loads the highlighter early, ui/warm.py, is not it)."""
    return page.locator('[data-testid="stSidebar"] [data-testid="stCode"]').filter(has_text="/?").inner_text().strip()


def _link_of_the_stored_run(page) -> tuple:
    """Open the newest stored run in the viewer; (its id, the step) from the sidebar's link."""
    page.locator(".st-key-runs_lib_open button").click()
    page.wait_for_function("""() => /\\?run=[A-Za-z0-9_-]{22}&step=\\d+$/.test(
        [...document.querySelectorAll('[data-testid="stSidebar"] [data-testid="stCode"]')]
            .map(e => e.innerText.trim()).find(t => t) ?? '')""",
                           timeout=RUN_TIMEOUT_MS)
    link = _sidebar_link(page)
    found = LINK.search(link)
    return found.group(1), int(found.group(2))


def _opens_at_step(browser, url: str, run_id: str, step: int) -> None:
    context = _context(browser)
    try:
        page = context.new_page()
        page.goto(f"{url}/?run={run_id}&step={step}")
        page.get_by_text(re.compile(rf"^Showing iteration {step} of \d+\.$")).wait_for(timeout=RUN_TIMEOUT_MS)
        assert page.get_by_role("slider", name=re.compile("^Step")).get_attribute("aria-valuetext") == str(step)
        assert _sidebar_link(page).endswith(
            f"/?run={run_id}&step={step}")
    finally:
        context.close()


def test_two_hosted_servers_share_one_postgresql_store_and_a_second_visitor_reaches_a_run_only_by_its_link(
        browser, tmp_path, pg_db):
    env = {"SCRATCHPAD_LAB_DB": pg_db, "SCRATCHPAD_LAB_HOSTED": "1"}
    first, first_url = start_app(tmp_path / "a.log", env)
    second, second_url = start_app(tmp_path / "b.log", env)
    try:
        visitor = _context(browser)
        try:
            page = visitor.new_page()
            _run_in_playground(page, first_url)
            _open_runs_page(page, first_url)
            run_id, last = _link_of_the_stored_run(page)
            assert last >= 4  # the link opens the run at its last step
            # the same browser (its cookie) on the other server: a process that never held the run lists it
            _open_runs_page(page, second_url)
            [listed] = _stored_options(page)
            assert listed.startswith("#1 · Run 1 · ") and f", {last} iterations · stored " in listed, listed
        finally:
            visitor.close()
        other = _context(browser)  # a second visitor: a browser of its own
        try:
            page = other.new_page()
            _open_runs_page(page, second_url)
            assert _stored_options(page) == []
            assert page.get_by_text("No stored runs yet", exact=False).count() == 1
        finally:
            other.close()
        _opens_at_step(browser, second_url, run_id, 3)  # and a fresh browser there, at a step
    finally:
        stop_server(first)
        stop_server(second)
