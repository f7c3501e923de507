"""A fresh server, as its first visitor meets it (Chromium via Playwright; a server of its own, since the
shared one has long been visited and warmed).

- The very first request is a page's own path (/benchmark): the page is drawn inside the app's frame (its
  navigation by title, the frame's sidebar words), not as Streamlit's raw list of files (issue 29 item 6).
- Then the first Run after the server started (issue 30 item 8): the server has warmed the run stack (its
  log says so, waited for, never a fixed time) and the size chart's box has its height from the first paint
  of the live view, so the timeline under it never moves, and the chart draws while the run is still going.
Screenshots to test-artifacts/first-visit-*.png.
"""
from __future__ import annotations

import json
import threading
import time

import pytest

from browser_support import (ARTIFACTS, IDLE_JS, METRIC_JS, ScriptErrors, browser, start_app, stop_server,  # noqa: F401
                             wait_for)
from scratchpad_lab.ui.warm import WARM_LOG

pytestmark = pytest.mark.browser
RUN_TIMEOUT_MS = 60_000

# Every 25 ms until stopped: the chart box's height, the timeline's top, and whether the chart drew marks,
# with the status the run had then.
SAMPLER_JS = """() => {
  window.__firstSamples = []; window.__firstStop = false;
  const box = (k) => { const e = document.querySelector('.st-key-' + k); return e ? e.getBoundingClientRect() : null; };
  const tick = () => {
    const chart = box('live_chart'), timeline = box('live_timeline');
    if (chart) {
      const marks = document.querySelectorAll('.st-key-live_chart svg g.role-mark path, .st-key-live_chart svg g.role-mark line').length;
      window.__firstSamples.push({chart: Math.round(chart.height), timeline: timeline ? Math.round(timeline.top) : null,
                                  marks, status: (""" + METRIC_JS + """)('status')});
    }
    if (!window.__firstStop) setTimeout(tick, 25);
  };
  tick();
}"""


def test_a_fresh_servers_first_visit_is_framed_and_its_first_run_is_drawn_in_place(browser, tmp_path):
    log = tmp_path / "server.log"
    proc, url = start_app(log)
    context = browser.new_context(viewport={"width": 1500, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors = ScriptErrors(page)
    try:
        page.goto(url + "/benchmark")
        page.get_by_role("heading", name="Scratchpad Lab · Benchmark").wait_for()
        wait_for(page, IDLE_JS, "the first page did not settle")
        nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
        assert "Playground" in nav and "Benchmark" in nav and "app" not in nav.split(), nav
        page.locator('[data-testid="stSidebar"]').get_by_text("Scratchpad Lab shows what context compression",
                                                               exact=False).wait_for()
        page.screenshot(path=str(ARTIFACTS / "first-visit-benchmark-1500x1000.png"))

        page.set_viewport_size({"width": 1280, "height": 800})
        page.locator('[data-testid="stSidebarNav"] a', has_text="Playground").click()
        run = page.get_by_role("button", name="Run", exact=True)
        run.wait_for()
        wait_for(page, IDLE_JS, "the Playground did not settle")
        _wait_for_log(page, log, WARM_LOG)
        page.evaluate(SAMPLER_JS)
        run.click()
        # the chart drew while the run was going: then stop it (the rest of a run shows nothing new here)
        page.wait_for_function("() => window.__firstSamples.some(s => s.marks > 0 && s.status === 'running')",
                               timeout=RUN_TIMEOUT_MS)
        page.screenshot(path=str(ARTIFACTS / "first-visit-run-1280x800.png"))
        page.evaluate("() => { window.__firstStop = true; }")
        samples = page.evaluate("() => window.__firstSamples")
        page.locator(".st-key-play_stop button").click()
        print(json.dumps({"samples": len(samples), "chart_heights": sorted({s["chart"] for s in samples}),
                          "timeline_tops": sorted({s["timeline"] for s in samples if s["timeline"] is not None})}))
        assert min(s["chart"] for s in samples) >= 240, f"the chart's space was not kept from the first paint: {samples[:5]}"
        tops = {s["timeline"] for s in samples if s["timeline"] is not None}
        assert len(tops) == 1, f"the timeline moved while the first run was live: {sorted(tops)}"
        errors.check("a fresh server's first visit and first run")
    finally:
        context.close()
        stop_server(proc)


def _wait_for_log(page, log, line: str, timeout_s: float = 60.0) -> None:
    """Wait until the server's log has `line` (polled as start_app polls the server's health)."""
    deadline = time.monotonic() + timeout_s
    while line not in log.read_text(errors="replace"):
        assert time.monotonic() < deadline, f"the server never logged {line!r}:\n{log.read_text(errors='replace')[-2000:]}"
        threading.Event().wait(0.1)
