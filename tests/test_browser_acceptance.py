"""What a person sees, page by page, in a real browser: each page's main action done as a user does it,
then every chart on the page must have drawn (its svg has data marks, or its canvas has ink) and the
browser must have reported no script error and no console error (Streamlit's own `_stcore/` 404s on
a deep link aside). Screenshots of each page at 1280x800 and 1500x1000 go to test-artifacts/. The
Playground's run, a lesson, Compare, Strategies and the Prompt lab are checked the same way inside the tests
that walk them already (tests/test_browser.py, _lessons, _compare, _strategies, _prompt_lab), so each is
walked once.

One `streamlit run app.py` serves every browser test file (browser_support's shared server); each test
opens its own browser context, so each is a new session, as a new visitor would be.
"""
from __future__ import annotations

import re

import pytest

from browser_support import (COUNT_RERUNS_JS, IDLE_JS, METRIC_JS, SIZES, ScriptErrors, browser, charts,  # noqa: F401
                             server, shoot, sync_api, wait_for_charts_drawn)

pytestmark = pytest.mark.browser

LONG_MS = 90_000
# Where the Runs page's step slider and the status row of the step are, in the window.
BOXES_JS = """() => Object.fromEntries(['runs_step_box', 'runs_view_status'].map(k => {
  const e = document.querySelector('.st-key-' + k);
  const r = e ? e.getBoundingClientRect() : null;
  return [k, r ? {top: Math.round(r.top), bottom: Math.round(r.bottom)} : null];
}).concat([['window', window.innerHeight]]))"""
LANDED_JS = f"""() => {{ const b = ({BOXES_JS})();
  return b.runs_step_box && b.runs_view_status && b.runs_step_box.top >= 0 && b.runs_step_box.top < 200
    && b.runs_view_status.bottom <= b.window; }}"""
# The Recommend view's chart (key strat_rec_chart): its point marks, drawn in svg, or its canvas's ink.
FRONT_CHART_JS = """() => {
  const chart = document.querySelector('.st-key-strat_rec_chart');
  if (!chart) return null;
  let marks = 0;
  for (const group of chart.querySelectorAll('svg g.role-mark')) {
    for (const m of group.children) if (m.getAttribute('d')) marks++;
  }
  let ink = 0;
  for (const canvas of chart.querySelectorAll('canvas')) {
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    for (let i = 3; i < data.length; i += 4) if (data[i] !== data[3]) ink++;
  }
  return {marks, ink};
}"""
PROBLEMS_JS = """() => ({
  exceptions: [...document.querySelectorAll('[data-testid="stException"]')].map(e => e.innerText.slice(0, 400)),
  errors: [...document.querySelectorAll('[data-testid="stAlertContentError"]')].map(e => e.innerText.slice(0, 400)),
})"""


@pytest.fixture
def visit(browser, server):
    """A new visitor's tab at 1280x800: (page, the errors its browser reports)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors = ScriptErrors(page)
    try:
        yield page, errors
    finally:
        context.close()


def _idle(page, what: str, timeout: int = 30_000) -> None:
    try:
        page.wait_for_function(IDLE_JS, timeout=timeout)
    except sync_api.TimeoutError:
        raise AssertionError(f"the page did not settle ({what}): {page.evaluate(PROBLEMS_JS)}") from None


def _click_and_settle(page, button, what: str, timeout: int = LONG_MS) -> None:
    page.evaluate(COUNT_RERUNS_JS)
    button.click()
    try:
        page.wait_for_function(f"() => window.__labReruns >= 1 && ({IDLE_JS})()", timeout=timeout)
    except sync_api.TimeoutError:
        raise AssertionError(f"no finished rerun after {what}: {page.evaluate(PROBLEMS_JS)}") from None


def _no_problems_on_the_page(page) -> None:
    shown = page.evaluate(PROBLEMS_JS)
    assert not shown["exceptions"] and not shown["errors"], shown


def _open(page, server: str, path: str, heading: str) -> None:
    page.goto(server + path)
    page.get_by_role("heading", name=heading).wait_for()
    _idle(page, f"opening {path}")


def test_runs_sample_opened_at_a_step_draws_its_chart_with_no_script_error(visit, server):
    page, errors = visit
    page.goto(f"{server}/?sample=support-ticket-tight&step=6")
    page.get_by_text("Showing iteration 6 of 14.").wait_for()
    _idle(page, "the Runs page at step 6")
    # the link lands on its step: the slider and the status row of that step on screen, not the list of runs
    try:
        page.wait_for_function(LANDED_JS, timeout=10_000)
    except sync_api.TimeoutError:
        raise AssertionError(f"the link did not land on its step: {page.evaluate(BOXES_JS)}") from None
    assert page.evaluate(f"({METRIC_JS})('iteration')") == "6 of 30"
    page.get_by_text("Scratchpad sent at iteration 6:").wait_for()
    assert page.get_by_role("heading", name="Scratchpad Lab · Runs").is_visible()  # the link switched the page
    assert page.locator('[data-testid="stSliderThumbValue"]').first.inner_text().strip() == "6"
    page.locator('[data-testid="stSidebar"] [data-testid="stCode"]').get_by_text(  # and offers its own link
        "?sample=support-ticket-tight&step=6").wait_for()
    wait_for_charts_drawn(page, 1)
    shoot(page, "acceptance-runs-step6", charts_at_least=1)
    shoot(page, "acceptance-runs-step6-chart", charts_at_least=1, scroll_to=page.get_by_text("Timeline", exact=True))
    _no_problems_on_the_page(page)
    errors.check("the Runs page")


def test_sweep_draws_every_heatmap_with_no_script_error(visit, server):
    page, errors = visit
    _open(page, server, "/compare", "Scratchpad Lab · Compare")
    page.get_by_role("tab", name="Sweep").click()
    _click_and_settle(page, page.get_by_role("button", name="Sweep", exact=True), "pressing Sweep")
    page.get_by_role("combobox", name="Open a cell as a run", exact=True).wait_for()
    # four heatmaps (the sample is a scenario run, so it has an answer score) and the opened cell's chart
    wait_for_charts_drawn(page, 5)
    for width, height in SIZES:
        shoot(page, "acceptance-sweep", sizes=((width, height),), charts_at_least=5,
              scroll_to=page.get_by_role("tab", name="Sweep"))
        heatmaps = charts(page)[:4]
        # the default grid is 3 x 3 (every 2, 5, off x 2,000, 4,000, 15,000): a number in every cell
        for chart in heatmaps:
            assert len(chart["texts"]) == 9, (width, chart)
            assert all(re.fullmatch(r"[\d,]+%?", t) for t in chart["texts"]), (width, chart)
        assert [all(t.endswith("%") for t in c["texts"]) for c in heatmaps] == [False, False, True, True], heatmaps
    errors.check("the Sweep tab")
    _no_problems_on_the_page(page)


def test_recommend_draws_every_point_of_its_search_with_no_script_error(visit, server):
    page, errors = visit
    _open(page, server, "/strategies", "Scratchpad Lab · Strategies")
    _click_and_settle(page, page.get_by_text("Which compression should I use?", exact=False), "opening Recommend")
    button = page.get_by_role("button", name="Recommend settings", exact=True)
    _click_and_settle(page, button, "pressing Recommend settings")  # the search is a job: the live view runs it
    page.get_by_text("points are on the front (drawn large and ringed", exact=False).wait_for(timeout=LONG_MS)
    _idle(page, "the search's result", LONG_MS)
    try:  # one mark per point at least (the front's points are ringed: two marks each)
        page.wait_for_function(f"() => {{ const c = ({FRONT_CHART_JS})(); return c && (c.marks >= 20 || c.ink > 0); }}",
                               timeout=20_000)
    except sync_api.TimeoutError:
        raise AssertionError(f"the Recommend chart drew nothing: {page.evaluate(FRONT_CHART_JS)}") from None
    shoot(page, "acceptance-recommend", charts_at_least=1, scroll_to=page.locator(".st-key-strat_rec_chart"))
    _no_problems_on_the_page(page)
    errors.check("the Recommend view")


def test_benchmark_on_the_built_in_dataset_draws_its_front_and_names_its_picks_with_no_script_error(visit, server):
    page, errors = visit
    _open(page, server, "/benchmark", "Scratchpad Lab · Benchmark")
    runs = page.get_by_label("Runs (the first N of the dataset)")
    runs.fill("2")
    page.evaluate(COUNT_RERUNS_JS)
    runs.press("Enter")
    page.wait_for_function(f"() => window.__labReruns >= 1 && ({IDLE_JS})()")
    _click_and_settle(page, page.get_by_role("button", name="Run the benchmark"), "Run the benchmark")
    page.get_by_text("means over runs with 95 % bootstrap intervals", exact=False).wait_for(timeout=LONG_MS)
    _idle(page, "the finished benchmark", timeout=LONG_MS)
    wait_for_charts_drawn(page, 1)  # the front of the dataset means, with interval whiskers
    text = page.locator('[data-testid="stMain"]').inner_text()
    assert "2 runs" in text, text[:400]
    assert page.locator('[data-testid="stDataFrame"]').count() >= 1  # the table of settings, the picks starred
    shoot(page, "acceptance-benchmark", charts_at_least=1, scroll_to=page.get_by_text("means over runs with 95 % bootstrap intervals", exact=False))
    _no_problems_on_the_page(page)
    errors.check("the Benchmark page")
