"""The playground's main path in a real browser: `streamlit run app.py` driven by Playwright through
Debian's /usr/bin/chromium (never `playwright install`), on localhost only.

What only a browser shows: the live view really updates while the worker runs (the fragment's timer
fires), compression cards appear before the run ends, Altair draws the size chart, and a second run
with other settings lands next to the first. The browser reports no script or console error meanwhile, and
the page is captured at 1280x800 and 1500x1000 before, during and after the run (test-artifacts/).

The runs table is a glide data grid drawn on a canvas; the page holds only an accessibility mirror of
the cells currently scrolled into view, which depends on the window width and on glide's internals.
So the compression count of each run is read where the page shows it as text: pick the run in
"Show run" and read the `compressions` metric of the view below it (the figure the table's column is
computed from, by the same function). The number of runs is the number of "Show run" options, one per
row of the table.
"""
from __future__ import annotations

import pytest

from browser_support import (ARTIFACTS, METRIC_JS, after_rerun, browser, choose, full_page_screenshot,  # noqa: F401 (fixtures)
                             select_options, server, shoot, sync_api, wait_for_charts_drawn, watched)

pytestmark = pytest.mark.browser

RUN_TIMEOUT_MS = 40_000



# Compression cards on the page, by their heading (our own fixed words, drawn as bold markdown): the
# newest one in the one-screen view (live_diff) and, once a run has ended, one per compression below.
CARDS_JS = """() => [...document.querySelectorAll('[data-testid="stMarkdownContainer"] strong')]
  .filter(e => e.innerText.startsWith('Compression at iteration')).length"""
LISTED_CARDS_JS = """() => [...document.querySelectorAll(
  '[class*="st-key-shown_"][class*="_card_"] [data-testid="stMarkdownContainer"] strong')]
  .filter(e => e.innerText.startsWith('Compression at iteration')).length"""
# The finished run's view has settled: "Show run" is drawn and the cards match its compressions metric
# (while the page reruns, the live view's cards can linger beside the new ones for a moment).
SETTLED_JS = f"""() => {{
  const status = ({METRIC_JS})('status');
  return status !== null && status !== 'running'
    && document.querySelector('input[role="combobox"][aria-label="Show run"]') !== null
    && document.querySelectorAll('[data-stale="true"]').length === 0
    && document.querySelector('[data-testid="stStatusWidget"]') === null
    && document.querySelector('[data-testid="stApp"]')?.getAttribute('data-test-script-state') !== 'running'
    && String(({LISTED_CARDS_JS})()) === ({METRIC_JS})('compressions');
}}"""


SETTLED_PARTS_JS = f"""() => ({{
  status: ({METRIC_JS})('status'), compressions: ({METRIC_JS})('compressions'), cards: ({LISTED_CARDS_JS})(),
  showRun: document.querySelector('input[role="combobox"][aria-label="Show run"]')?.value ?? null,
  stale: document.querySelectorAll('[data-stale="true"]').length,
  statusWidget: document.querySelector('[data-testid="stStatusWidget"]')?.innerText ?? null,
  scriptState: document.querySelector('[data-testid="stApp"]')?.getAttribute('data-test-script-state') ?? null,
  exceptions: [...document.querySelectorAll('[data-testid="stException"]')].map(e => e.innerText.slice(0, 300)),
}})"""


def _wait_settled(page, timeout: int = RUN_TIMEOUT_MS) -> None:
    try:
        page.wait_for_function(SETTLED_JS, timeout=timeout)
    except sync_api.TimeoutError:
        raise AssertionError(f"the page did not settle: {page.evaluate(SETTLED_PARTS_JS)}") from None


def _and_wait_for_the_rerun(page, change) -> None:
    """Make a widget change and wait until the rerun it causes has finished: a person reads the page
    before pressing Run; a click racing a settings rerun is covered by the AppTest suite."""
    after_rerun(page, change, "a widget change", timeout=RUN_TIMEOUT_MS)


def _metric(page, label: str):
    return page.evaluate(METRIC_JS, label)


def _wait_metric(page, label: str, value: str, timeout: int = RUN_TIMEOUT_MS) -> None:
    page.wait_for_function(f"({METRIC_JS})({label!r}) === {value!r}", timeout=timeout)


def _selectbox(page, label: str):
    """A select box is a combobox input named by its label; its value is the chosen option's text."""
    return page.get_by_role("combobox", name=label, exact=True)


def _compressions_of(page, index: int) -> int:
    """Show run number index+1 and read its compressions metric once its view has been drawn."""
    box = _selectbox(page, "Show run")
    options = select_options(page, "Show run")
    if box.input_value() != options[index]:
        choose(page, "Show run", options[index])
    # the shown run's download button is keyed by its index: once the one for this run is on the page
    # and nothing is stale any more, the metrics below it belong to this run
    page.wait_for_selector(f".st-key-play_download_{index}")
    _wait_settled(page)
    return int(_metric(page, "compressions"))



def test_a_live_run_shows_compressions_before_it_ends_and_a_second_run_lands_beside_it(watched):
    page, errors = watched
    shoot(page, "acceptance-playground-first")
    pacing = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]')
    assert pacing.get_by_role("slider", name="Pacing").get_attribute("aria-valuetext") == "demo (0.5 s/step)"

    page.get_by_role("button", name="Run", exact=True).click()
    _wait_metric(page, "status", "running")
    first_iteration = _metric(page, "iteration")
    assert first_iteration and first_iteration.endswith(" of 30")

    # the live view updates while the worker runs: the iteration metric moves on...
    page.wait_for_function(f"({METRIC_JS})('iteration') !== {first_iteration!r}", timeout=RUN_TIMEOUT_MS)
    # ...and a compression card appears while the status still says running
    page.wait_for_function(
        f"""() => ({METRIC_JS})('status') === 'running' && ({CARDS_JS})() > 0""", timeout=RUN_TIMEOUT_MS)
    shoot(page, "acceptance-playground-live", sizes=((1280, 800),))

    _wait_metric(page, "status", "answered")
    _wait_settled(page)
    # the finished run's view: the size chart drawn by Vega, and the compression cards
    wait_for_charts_drawn(page, 2)  # the size chart, and what compression lost (the loss panel)
    shoot(page, "acceptance-playground-finished", charts_at_least=2)
    first_compressions = int(_metric(page, "compressions"))
    assert first_compressions >= 1
    assert page.evaluate(LISTED_CARDS_JS) == first_compressions
    # each card shows its word-level merged text by default
    assert page.locator('[class*="st-key-shown_"][class*="_card_"][class*="_merged"]').count() == first_compressions
    assert page.get_by_text("Answer score:", exact=False).count() == 1

    # other settings: summarize every 2 iterations, and no pacing for the second run
    choose(page, "Summarize every N iterations", "2")
    slider = pacing.get_by_role("slider", name="Pacing")
    _and_wait_for_the_rerun(page, lambda: slider.press("Home"))
    assert slider.get_attribute("aria-valuetext") == "instant"

    page.get_by_role("button", name="Run", exact=True).click()
    page.wait_for_function("""() => document.querySelector('input[role="combobox"][aria-label="Show run"]')
        ?.value?.startsWith('#2 Run 2')""", timeout=RUN_TIMEOUT_MS)
    _wait_settled(page)
    assert _metric(page, "status") == "answered"

    options = select_options(page, "Show run")
    assert len(options) == 2, options
    assert options[0].startswith("#1 Run 1 · every 5 /") and options[1].startswith("#2 Run 2 · every 2 /")
    second_compressions = _compressions_of(page, 1)
    assert _compressions_of(page, 0) == first_compressions
    assert second_compressions != first_compressions
    assert second_compressions > first_compressions, "every 2 compresses more often than every 5"

    full_page_screenshot(page, ARTIFACTS / "playground.png")
    assert (ARTIFACTS / "playground.png").stat().st_size > 10_000
    assert page.locator('[data-testid="stException"]').count() == 0
    errors.check("the Playground")
