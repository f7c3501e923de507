"""Forks in Chromium at 1280x800 (issue 34, item 4): on the Runs page, What if... at a sample's first compression
with it skipped draws the fork beside the original, both lines drawn on one size chart, and the fork opens from
its own link in a fresh page. One page load, several checks (a browser test is a cost every session pays)."""
from __future__ import annotations

import re

import pytest

from browser_support import (ARTIFACTS, IDLE_JS, SCROLL_UNDER_HEADER_JS, ScriptErrors, after_layout, after_rerun,
                             browser, server, wait_for)  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser

# The fork chart's line marks: one path per series with a drawn `d`, and their stroke colours.
LINES_JS = """() => [...document.querySelectorAll('.st-key-runs_fork_chart svg g.mark-line.role-mark path')]
  .filter(p => (p.getAttribute('d') || '').length > 10).map(p => p.getAttribute('stroke') || getComputedStyle(p).stroke)"""
LINK_JS = """() => [...document.querySelectorAll('[data-testid="stText"]')].map(e => e.innerText)
  .find(t => t.startsWith("The fork's own link: ")) ?? null"""


def test_a_fork_with_its_compression_skipped_is_drawn_beside_the_original_and_opens_from_its_link(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.set_default_timeout(30_000)
        errors = ScriptErrors(page)
        page.goto(server + "/?sample=support-ticket-tight")
        page.wait_for_function(IDLE_JS)
        box = page.locator(".st-key-runs_fork_whatif")
        box.evaluate(SCROLL_UNDER_HEADER_JS)
        assert "What if..." in box.inner_text()
        after_rerun(page, lambda: box.get_by_role("button", name="What if...").click(), "What if...")
        wait_for(page, f"() => new Set(({LINES_JS})()).size === 2", "the fork chart drew two lines", timeout=60_000)
        page.locator(".st-key-runs_fork_chart").evaluate(SCROLL_UNDER_HEADER_JS)
        after_layout(page)
        strokes = page.evaluate(LINES_JS)
        assert len(strokes) == 2 and len(set(strokes)) == 2, strokes  # the original and the fork, each its hue
        legend = page.locator(".st-key-runs_fork_chart svg g.role-legend").text_content()
        assert "original" in legend and "fork" in legend
        assert page.get_by_text("The two first differ at iteration 2 (the fork point).").count() == 1
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "forks-1280x800.png"))
        link = page.evaluate(LINK_JS)
        assert link and re.search(r"\?run=[A-Za-z0-9_-]{22}$", link), link
        errors.check("the Runs page with a fork")

        fresh = context.new_page()
        fresh_errors = ScriptErrors(fresh)
        fresh.goto(link.removeprefix("The fork's own link: "))
        fresh.wait_for_function(IDLE_JS)
        wait_for(fresh, """() => [...document.querySelectorAll('[data-testid="stText"]')].some(e =>
          e.innerText.startsWith('A fork of support-ticket-tight.json at iteration 2 (that compression skipped)'))""",
                 "the fork opened from its link")
        fresh_errors.check("the fork opened from its link")
    finally:
        context.close()
