"""The lab fetches nothing from another host (issue 20): every request the browser makes while it opens
each page, runs the Playground to the end and shows the run, goes to the app's own 127.0.0.1 address.
(A `:material/...:` page icon made every visitor's browser fetch an svg from fonts.gstatic.com; the
page icon is now a file the app serves, and the Material icons of navigation, alerts and buttons come
from Streamlit's bundled font.)"""
from __future__ import annotations

from urllib.parse import urlparse

import pytest

from browser_support import IDLE_JS, browser, choose_pacing, server  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser

PAGES = ["", "runs", "compare", "prompt_lab", "strategies", "lessons", "benchmark"]


def test_no_page_makes_a_request_off_the_apps_own_host(browser, server):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    requests = []
    context.on("request", lambda request: requests.append(request.url))
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        for path in PAGES:
            page.goto(f"{server}/{path}")
            page.wait_for_function(IDLE_JS)
            page.get_by_text("Scratchpad Lab", exact=False).first.wait_for()
        page.goto(server)
        page.get_by_role("button", name="Run", exact=True).wait_for()
        page.wait_for_function(IDLE_JS)
        # paced fast (0.1 s a step, not the demo's 0.5): the live view still draws and refreshes while it runs
        pacing = page.get_by_role("slider", name="Pacing")
        choose_pacing(page, pacing, "fast (0.1 s/step)")
        page.get_by_role("button", name="Run", exact=True).click()
        page.wait_for_function("() => [...document.querySelectorAll('[data-testid=\"stMetricValue\"]')]"
                               ".some(e => e.innerText.trim() === 'answered')", timeout=60_000)
        page.wait_for_function(IDLE_JS)
        icons = page.evaluate("() => [...document.querySelectorAll('link[rel~=\"icon\"]')].map(l => l.href)")
    finally:
        context.close()
    off_host = [u for u in requests if urlparse(u).scheme in ("http", "https", "ws", "wss")
                and urlparse(u).hostname != "127.0.0.1"]
    assert len(requests) > 50 and off_host == [], off_host
    assert icons and all(urlparse(u).hostname == "127.0.0.1" or u.startswith("data:") for u in icons), icons


def test_the_benchmark_html_report_draws_its_charts_with_the_network_blocked(browser, tmp_path):
    """`bench --html` writes one self-contained file: opened in Chromium with every request but the file itself
    refused, its front chart draws (points and whiskers with a size on the page) and nothing was asked of any
    host."""
    from conftest import ROOT
    from scratchpad_lab.engine.studies.benchmark import BenchmarkRequest, run_benchmark
    from scratchpad_lab.engine.studies.benchmark_report import write_report
    report = tmp_path / "report.html"
    write_report(run_benchmark(BenchmarkRequest(ROOT / "sample_runs", ["trim-only"], runs=2, workers=1)), report)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    asked = []

    def refuse(route):
        if route.request.url != report.as_uri():
            asked.append(route.request.url)
            return route.abort()
        return route.continue_()
    context.route("**/*", refuse)
    page = context.new_page()
    try:
        page.goto(report.as_uri())
        drawn = page.evaluate("""() => [...document.querySelectorAll('svg')].map(svg => {
            const r = svg.getBoundingClientRect();
            const marks = [...svg.querySelectorAll('circle, line, path')].filter(e => {
                const b = e.getBoundingClientRect(); return b.width > 0 || b.height > 0; });
            return {width: r.width, height: r.height, marks: marks.length}; })""")
        text = page.locator("body").inner_text()
    finally:
        context.close()
    assert drawn and all(d["width"] > 200 and d["height"] > 100 and d["marks"] >= 2 for d in drawn), drawn
    assert asked == [], asked
    assert "no compression" in text and "trim-only" in text
