"""The Prompt lab's matrix in a real browser: `streamlit run app.py` driven by Playwright through
Debian's /usr/bin/chromium, on localhost only, with the in-process fake chat server as the model.

Two prompts (the page's defaults: the package's prompt and "keep every identifier and number") x two
summarizers (the extractive reference and a model on the fake server) on the first sample run's first
compression: four cells, and the model's two summaries differ because the fake model's reply quotes
the prompt it was sent. Screenshots of the matrix at 1280x800 and 1500x1000 go to test-artifacts/
(and to $SCRATCHPAD_LAB_SHOTS when set).
"""
from __future__ import annotations

import os
from functools import partial
import shutil
from pathlib import Path

import pytest

from browser_support import (ARTIFACTS, IDLE_JS, ScriptErrors, after_layout, after_rerun, browser,  # noqa: F401 (fixtures)
                             charts, server, wait_for)
from fake_openai import FakeOpenAI, echo_marker

pytestmark = pytest.mark.browser

CELLS_JS = """() => [0, 1].flatMap(i => [0, 1].map(j => {
  const c = document.querySelector(`.st-key-pl_cell_${i}_${j}`);
  return c ? {badges: [...c.querySelectorAll('[data-testid="stMarkdownContainer"] span')].map(b => b.innerText),
              code: c.querySelector('code')?.innerText ?? null} : null;
}))"""


@pytest.fixture
def fake():
    with FakeOpenAI() as server_:
        server_.default = ("ok", echo_marker)
        yield server_


# every wait of this file: up to 30 s, and a failure says what each cell shows
_wait = partial(wait_for, timeout=30_000, state_js=CELLS_JS)
_rerun = partial(after_rerun, timeout=30_000, state_js=CELLS_JS)


def _fill(page, label: str, value: str, then) -> None:
    """Type a value and wait for what it changes on the page (`then`: a locator and the state to reach)."""
    box = page.get_by_label(label, exact=True)
    box.fill(value)
    box.press("Enter")
    locator, state = then
    locator.wait_for(state=state)
    _wait(page, IDLE_JS, f"the page did not settle after typing {label}")


def _shot(page, name: str, width: int, height: int) -> Path:
    page.set_viewport_size({"width": width, "height": height})
    page.get_by_role("heading", name="4 · Run the matrix").evaluate("e => e.scrollIntoView({block: 'start'})")
    after_layout(page)
    path = ARTIFACTS / f"promptlab-{name}-{width}x{height}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path))
    shots = os.environ.get("SCRATCHPAD_LAB_SHOTS")
    if shots:
        shutil.copy(path, Path(shots) / path.name)
    return path


def test_a_two_by_two_matrix_runs_and_the_model_column_follows_the_prompt(browser, server, fake):
    context = browser.new_context(viewport={"width": 1500, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors = ScriptErrors(page)  # from the first request on
    try:
        page.goto(server)
        page.get_by_role("button", name="Run", exact=True).wait_for()
        page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]', has_text="Prompt lab").click()
        page.get_by_role("heading", name="Scratchpad Lab · Prompt lab").wait_for()
        _wait(page, IDLE_JS, "the Prompt lab did not settle")
        assert page.get_by_text("The extractive summarizer ignores the prompt", exact=False).count() == 1

        run = page.get_by_role("combobox", name="Run", exact=True)
        run.click()
        page.keyboard.type("support-ticket-defaults")  # the lists are virtual: filter to the one option
        page.get_by_role("option", name="sample · support-ticket-defaults.json").click()
        _wait(page, "() => document.querySelector('input[aria-label=\"Run\"]')?.value"
                    ".includes('support-ticket-defaults')", "the sample was not picked")
        _wait(page, IDLE_JS, "the page did not settle after picking the sample")
        _fill(page, "How many summarizers", "2",
              (page.get_by_role("combobox", name="Summarizer 2 provider", exact=True), "visible"))
        provider = page.get_by_role("combobox", name="Summarizer 2 provider", exact=True)
        provider.click()
        page.keyboard.type("Custom base")
        page.get_by_role("option", name="Custom base URL", exact=True).click()
        page.locator(".st-key-pl_sum1_ep_base_url_custom input").wait_for()
        _wait(page, IDLE_JS, "the page did not settle after choosing Custom")
        _fill(page, "Summarizer 2 model", "fake-model",
              (page.get_by_text("enter the base URL of the server", exact=False), "visible"))
        _fill(page, "Summarizer 2 base URL", fake.url,
              (page.get_by_text("The extractive summarizer ignores the prompt", exact=False), "detached"))

        _rerun(page, page.get_by_role("button", name="Run the matrix").click, "Run the matrix")
        _wait(page, "() => document.body.innerText.includes('4 cells in')", "the matrix did not finish")
        # the fragment that shows the matrix reruns the whole page once when it is done: wait for that too
        _wait(page, f"() => ({CELLS_JS})().every(c => c && c.badges.some(b => b.startsWith('facts kept'))) "
                    f"&& ({IDLE_JS})()", "the page did not settle after the matrix")
        cells = page.evaluate(CELLS_JS)
        if not all(c is not None for c in cells):
            page.screenshot(path=str(ARTIFACTS / "promptlab-failure.png"), full_page=True)
        assert all(c is not None for c in cells), cells
        extractive = [cells[0], cells[2]]
        model = [cells[1], cells[3]]
        assert all("summary" in c["badges"] for c in extractive), cells
        for c in cells:  # one verdict a cell: "summary", or a grey "replied" beside "not a summary", never both
            assert ("summary" in c["badges"]) != ("replied" in c["badges"]), c["badges"]
            assert not ("summary" in c["badges"] and "not a summary" in c["badges"]), c["badges"]
        assert all(any(b.startswith("facts kept") for b in c["badges"]) for c in cells), cells
        assert extractive[0]["code"] == extractive[1]["code"], "the extractive column ignores the prompt"
        assert model[0]["code"].startswith("Summary by You are a context")
        assert model[0]["code"] != model[1]["code"], cells
        assert page.locator('[data-testid="stException"]').count() == 0
        assert charts(page) == []  # the Prompt lab draws no chart: cells are text
        _shot(page, "matrix", 1280, 800)
        _shot(page, "matrix", 1500, 1000)
        errors.check("the Prompt lab")
    finally:
        context.close()
