"""The built-in model in Chromium (issue 33): in the Playground, with the built-in SmolLM2 as the summarizer, a
run's status says it waits for the model while a summary is written, and the compression card shows what the
model wrote (short, capped, not the extractive summarizer's sections), with no script error.

The shared app server has the operator's reply cap set low (SCRATCHPAD_LAB_BUILTIN_MAX_TOKENS=8, browser_support),
so one summary takes seconds on one thread, not a minute.
"""
from __future__ import annotations

import re

import pytest

from browser_support import (ARTIFACTS, IDLE_JS, SELECTED_JS, ScriptErrors, after_rerun, browser, choose, server,  # noqa: F401
                             wait_for)

pytestmark = pytest.mark.browser

RUN_TIMEOUT_MS = 180_000
# What a timed-out wait reports: the status row's metrics (label and value) and the page's texts and errors.
STATUS_STATE_JS = """() => ({
  metrics: [...document.querySelectorAll('[data-testid="stMetric"]')].map(m => m.innerText.replace(/\\s+/g, ' ')).slice(0, 12),
  texts: [...document.querySelectorAll('[data-testid="stText"]')].map(e => e.innerText).slice(0, 30),
  errors: [...document.querySelectorAll('[data-testid="stAlertContentError"]')].map(e => e.innerText.slice(0, 300)),
})"""

# Every 20 ms: the status metric's label while a model call is in flight ("status: waiting for ...").
WATCH_JS = """() => {
  window.__labWaits = [];
  const look = () => {
    for (const l of document.querySelectorAll('[data-testid="stMetricLabel"]')) {
      const t = l.innerText.trim();
      if (t.startsWith('status: waiting for') && !window.__labWaits.includes(t)) window.__labWaits.push(t);
    }
    if (!window.__labStop) setTimeout(look, 20);
  };
  look();
}"""


def test_a_playground_run_with_the_built_in_model_waits_for_it_and_shows_what_it_wrote(browser, server):
    from scratchpad_lab.ui.sidebar_settings import SETTING_LABELS, SUMMARIZERS
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors = ScriptErrors(page)
    try:
        page.goto(server)
        page.get_by_role("button", name="Run", exact=True).wait_for()
        page.wait_for_function(IDLE_JS)
        sidebar = page.locator('[data-testid="stSidebar"]')
        choose(page, "Summarizer", SUMMARIZERS["builtin"])
        choose(page, SETTING_LABELS["summarize_every"], "2")
        slider = page.get_by_role("slider", name="Pacing")
        after_rerun(page, lambda: slider.press("Home"), "choosing the instant pace")  # each change drawn before the next
        page.wait_for_function("el => el.getAttribute('aria-valuetext') === 'instant'", arg=slider.element_handle())
        sidebar.get_by_text("Advanced", exact=True).click()
        limit = page.get_by_label("Max iterations", exact=True)
        limit.fill("3")
        after_rerun(page, lambda: limit.press("Enter"), "setting Max iterations")
        page.wait_for_function("() => document.querySelector('input[aria-label=\"Max iterations\"]')?.value === '3'")
        for label, value in ((SETTING_LABELS["summarize_every"], "2"), ("Summarizer", SUMMARIZERS["builtin"])):
            assert page.evaluate(SELECTED_JS, [label, value]), f"{label} no longer reads {value!r}"
        page.evaluate("() => { window.__labStop = false; }")
        page.evaluate(WATCH_JS)
        page.get_by_role("button", name="Run", exact=True).click()
        try:
            wait_for(page, """() => [...document.querySelectorAll('[data-testid="stMain"] strong')]
                .some(e => e.innerText.startsWith('Compression at iteration 2'))""",
                     "the built-in model's first compression", RUN_TIMEOUT_MS, state_js=STATUS_STATE_JS)
        except AssertionError:  # what the page showed when it gave up (the status says what the run waited for)
            page.screenshot(path=str(ARTIFACTS / "builtin-playground-timeout.png"), full_page=True)
            raise
        page.wait_for_function("() => document.querySelector('input[aria-label=\"Show run\"]')?.value"
                               ".startsWith('#1 ')", timeout=RUN_TIMEOUT_MS)
        page.wait_for_function(IDLE_JS, timeout=RUN_TIMEOUT_MS)
        page.evaluate("() => { window.__labStop = true; }")
        waits = page.evaluate("() => window.__labWaits")
        main = page.locator('[data-testid="stMain"]').inner_text()
        page.screenshot(path=str(ARTIFACTS / "builtin-playground-1280x800.png"), full_page=True)
        errors.check("the Playground with the built-in model")
    finally:
        context.close()
    assert any("built-in" in w or "summarizer" in w for w in waits), waits  # said while the model wrote
    assert "Compression at iteration 2" in main
    assert "Key findings" not in main, "the extractive summarizer's sections: the model did not write it"
    assert re.search(r"SmolLM2|built-in", main), main[:600]
