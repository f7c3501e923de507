"""The Compare page's main path in a real browser: `streamlit run app.py` driven by Playwright through
Debian's /usr/bin/chromium (never `playwright install`), on localhost only.

A trace the app did not write (the synthetic generator's, dumped as JSON) is uploaded through the file
uploader in the "Upload a run record or a trace" expander, chosen as the run to replay, and replayed
under the two default settings rows (every 5 / 15,000 chars and every 2 / 2,000 chars). The page must
then show one column per setting, and their `compressions` metrics must differ.

The session starts on the Playground (/) and reaches Compare through the sidebar link, as a person would:
a first visit straight to /compare is not what is tested here.

The settings editor is a glide data grid drawn on a canvas; glide keeps an accessibility mirror of the
cells in view inside the canvas element (td[data-testid="glide-cell-<col>-<row>"]). The table has two
rows and five columns, all in view at this window width, so the rows are read from that mirror.
"""
from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest

from browser_support import (ARTIFACTS, IDLE_JS, after_rerun, browser, full_page_screenshot, server, shoot,  # noqa: F401 (fixtures)
                             upload_trace, wait_for, watched)

pytestmark = pytest.mark.browser

COMPARE_TIMEOUT_MS = 60_000
SOURCE_LABEL = "Run or trace to replay"


# ── the trace to upload ─────────────────────────────────────────────────────

@pytest.fixture
def trace_file(tmp_path) -> Path:
    """A trace this app did not write: the synthetic generator's, as a JSON file."""
    from synthetic import synthetic_trace

    path = tmp_path / "synthetic-trace.json"
    path.write_text(json.dumps(synthetic_trace(steps=30, seed=5).to_dict()), encoding="utf-8")
    return path


# ── page state ─────────────────────────────────────────────────────────────

# One entry per column that shows a setting (its subheader is "Setting N"): the heading, the label
# under it (st.text) and its compressions as the table of figures reads (null until drawn).
SETTING_COLUMNS_JS = """() => {
  // each setting's compressions, from the table of figures (a column per setting; glide's accessibility mirror)
  const found = {};
  for (const grid of document.querySelectorAll('table[role="grid"]')) {
    const heads = [...grid.querySelectorAll('thead th')].map(th => th.innerText.trim());
    for (const tr of grid.querySelectorAll('tbody tr')) {
      const cells = [...tr.querySelectorAll('th, td')].map(td => td.innerText.trim());
      if (cells[0] !== 'compressions') continue;
      heads.forEach((h, i) => { if (/^Setting \\d+$/.test(h)) found[h] = cells[i].replace(' ★', ''); });
    }
  }
  const out = [];
  for (const col of document.querySelectorAll('[data-testid="stColumn"]')) {
    const heading = col.querySelector('[data-testid="stHeading"] [data-heading-text]');
    if (!heading || !/^Setting \\d+$/.test(heading.innerText.trim())) continue;
    const name = heading.innerText.trim();
    out.push({heading: name, label: col.querySelector('[data-testid="stText"]')?.innerText.trim() ?? null,
              compressions: found[name] ?? null});
  }
  return out;
}"""

# The settings editor's rows, from glide's accessibility mirror inside the canvas.
SETTINGS_ROWS_JS = """() => {
  const grid = document.querySelector('.st-key-cmp_settings table[role="grid"]');
  if (!grid) return null;
  const heads = [...grid.querySelectorAll('thead th')].map(th => th.innerText.trim());
  return [...grid.querySelectorAll('tbody tr')].map(tr => Object.fromEntries(
    [...tr.querySelectorAll('td')].map((td, i) => [heads[i], td.innerText.trim()])));
}"""

STATE_JS = f"""() => ({{
  idle: ({IDLE_JS})(),
  scriptState: document.querySelector('[data-testid="stApp"]')?.getAttribute('data-test-script-state') ?? null,
  stale: document.querySelectorAll('[data-stale="true"]').length,
  source: document.querySelector('input[role="combobox"][aria-label="{SOURCE_LABEL}"]')?.value ?? null,
  columns: ({SETTING_COLUMNS_JS})(),
  errors: [...document.querySelectorAll('[data-testid="stAlertContentError"]')].map(e => e.innerText.slice(0, 300)),
  exceptions: [...document.querySelectorAll('[data-testid="stException"]')].map(e => e.innerText.slice(0, 300)),
}})"""


# every wait of this file: a failure says what the Compare page shows
_wait = partial(wait_for, state_js=STATE_JS)
_and_wait_for_the_rerun = partial(after_rerun, state_js=STATE_JS)


def _wait_idle(page, what: str, timeout: int = 20_000) -> None:
    _wait(page, IDLE_JS, f"the page did not settle ({what})", timeout)


def _source(page) -> str:
    return page.get_by_role("combobox", name=SOURCE_LABEL, exact=True).input_value()


# ── the test ───────────────────────────────────────────────────────────────

def test_an_uploaded_trace_compared_under_two_settings_shows_two_columns_that_compress_differently(
        watched, trace_file):
    page, errors = watched

    # to Compare through the sidebar, in the same session
    page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]', has_text="Compare").click()
    page.get_by_role("heading", name="Scratchpad Lab · Compare").wait_for()
    page.wait_for_url("**/compare")
    page.locator(".st-key-cmp_upload input[type=file]").wait_for(state="attached")
    _wait_idle(page, "opening Compare")
    assert not _source(page).startswith("upload"), "nothing has been uploaded yet"

    # upload the trace; the page replays it once with the defaults (a job), then opens it by itself
    upload_trace(page, trace_file, SOURCE_LABEL, "upload #1 · trace of 30 steps")
    expander = page.locator('[data-testid="stExpander"]').filter(has_text="Upload a run record or a trace")
    expander.get_by_text(trace_file.name).wait_for()
    assert page.locator('[data-testid="stAlertContentError"]').count() == 0, page.evaluate(STATE_JS)
    assert _source(page) == "upload #1 · trace of 30 steps (replayed with the package defaults)"
    page.locator('[data-testid="stAlertContentInfo"]').filter(has_text="Recorded trajectory:").wait_for()

    # the settings table: the two default rows, which compress differently on this trace
    _wait(page, f"() => ({SETTINGS_ROWS_JS})()?.length > 0", "the settings editor was not drawn")
    from scratchpad_lab.ui.sidebar_settings import SETTING_LABELS  # the headers are the sidebar's words
    rows = [(r[SETTING_LABELS["summarize_every"]], r[SETTING_LABELS["max_scratchpad_chars"]])
            for r in page.evaluate(SETTINGS_ROWS_JS) if any(r.values())]
    assert rows == [("5", "15000"), ("2", "2000")], rows  # (the mirror holds the values; the canvas draws 15,000)

    button = page.locator(".st-key-cmp_run").get_by_role("button", name="Compare", exact=True)
    assert button.is_enabled(), f"Compare is disabled: {page.evaluate(STATE_JS)}"
    _and_wait_for_the_rerun(page, button.click, "pressing Compare", timeout=COMPARE_TIMEOUT_MS)
    _wait(page, f"""() => {{
      const cols = ({SETTING_COLUMNS_JS})();
      return cols.length === 2 && cols.every(c => c.compressions !== null) && ({IDLE_JS})();
    }}""", "the comparison's columns did not appear", timeout=COMPARE_TIMEOUT_MS)

    columns = page.evaluate(SETTING_COLUMNS_JS)
    assert [c["heading"] for c in columns] == ["Setting 1", "Setting 2"], columns
    assert columns[0]["label"].startswith("#1 every 5 / 15,000"), columns
    assert columns[1]["label"].startswith("#2 every 2 / 2,000"), columns
    compressions = [int(c["compressions"].replace(",", "")) for c in columns]
    assert compressions[0] != compressions[1], columns
    assert compressions[1] > compressions[0], f"every 2 / 2,000 compresses more often than every 5: {columns}"
    assert page.get_by_text("These results are for an earlier choice", exact=False).count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0

    # every setting in one chart, drawn whole at both sizes
    shoot(page, "acceptance-compare", charts_at_least=1,
          scroll_to=page.get_by_text("Scratchpad tokens sent at each iteration", exact=False))
    full_page_screenshot(page, ARTIFACTS / "compare.png")
    assert (ARTIFACTS / "compare.png").stat().st_size > 10_000
    errors.check("the Compare page")
