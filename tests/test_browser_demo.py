"""The playground on a projector: in real headless Chromium at 1500x1000 and at 1280x800 (the sidebar
open), everything a presenter talks about while a run is going is on one screen, and a setting out of
its range disables Run with a message naming the allowed minimum.

The four parts of the live view are keyed containers (`st.container(key="live_status")`, ...);
Streamlit gives each the CSS class `st-key-<key>`, which is how they are found here. Screenshots go
to test-artifacts/.
"""
from __future__ import annotations

import pytest

from browser_support import ARTIFACTS, browser, server, sync_api  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser

SIZES = [(1500, 1000), (1280, 800)]
LIVE_KEYS = ["live_status", "live_scratchpad", "live_triggers", "live_diff"]
RUN_TIMEOUT_MS = 40_000

# The status metric's value, and each keyed container's box, read in one go (the run keeps going).
LIVE_STATE_JS = """(keys) => {
  let status = null;
  for (const m of document.querySelectorAll('.st-key-live_status [data-testid="stMetric"]')) {
    const l = m.querySelector('[data-testid="stMetricLabel"]');
    if (l && l.innerText.trim() === 'status') status = m.querySelector('[data-testid="stMetricValue"]').innerText.trim();
  }
  const main = document.querySelector('[data-testid="stMain"]');
  const boxes = {};
  for (const k of keys) {
    const e = document.querySelector('.st-key-' + k);
    if (!e) { boxes[k] = null; continue; }
    const r = e.getBoundingClientRect();
    boxes[k] = {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height};
  }
  const heading = [...document.querySelectorAll('.st-key-live_diff strong')]
    .some(e => e.innerText.startsWith('Compression at iteration'));
  const stale = document.querySelectorAll('[data-stale="true"]').length;
  return {status, boxes, heading, stale, scrolled: (main ? main.scrollTop : 0) + window.scrollY};
}"""


def _open(browser, server, width: int, height: int):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto(server)
    page.get_by_role("button", name="Run", exact=True).wait_for()
    return context, page


@pytest.mark.parametrize("width, height", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_while_a_run_goes_status_scratchpad_triggers_and_newest_compression_share_one_screen(
        browser, server, width, height):
    context, page = _open(browser, server, width, height)
    try:
        page.get_by_role("button", name="Run", exact=True).click()
        # once a compression has happened and while the run is still going
        try:
            page.wait_for_function(f"() => {{ const s = ({LIVE_STATE_JS})({LIVE_KEYS!r}); "
                                   "return s.status === 'running' && s.heading && s.stale === 0; }",
                                   timeout=RUN_TIMEOUT_MS)
        except sync_api.TimeoutError:
            raise AssertionError(f"no settled moment with a compression while running: "
                                 f"{page.evaluate(LIVE_STATE_JS, LIVE_KEYS)}") from None
        state = page.evaluate(LIVE_STATE_JS, LIVE_KEYS)
        page.screenshot(path=str(ARTIFACTS / f"demo-live-{width}x{height}.png"))
        assert state["status"] == "running", "measured while the run is still going"
        assert state["scrolled"] == 0, "nobody scrolled"
        for key, box in state["boxes"].items():
            assert box is not None, f"{key} is not on the page"
            assert box["height"] > 40 and box["width"] > 200, (key, box)
            assert box["left"] >= 0 and box["top"] >= 0, (key, box)
            assert box["right"] <= width and box["bottom"] <= height, f"{key} reaches outside {width}x{height}: {box}"
        print(f"{width}x{height}:", {k: [round(v) for v in (b['left'], b['top'], b['right'], b['bottom'])]
                                     for k, b in state["boxes"].items()})
        # the run ends by itself (about seven seconds at the demo pacing)
        page.wait_for_function(f"() => ({LIVE_STATE_JS})({LIVE_KEYS!r}).status === 'answered'",
                               timeout=RUN_TIMEOUT_MS)
        page.wait_for_function("() => !document.querySelector('[data-testid=\"stBaseButton-primary\"]')?.disabled"
                               " && document.querySelector('input[aria-label=\"Show run\"]')", timeout=RUN_TIMEOUT_MS)
        # the finished run stays where the live one was
        after = page.evaluate(LIVE_STATE_JS, LIVE_KEYS)
        assert after["status"] == "answered" and after["scrolled"] == 0
        for key in LIVE_KEYS:
            assert abs(after["boxes"][key]["top"] - state["boxes"][key]["top"]) <= 2, (key, state, after)
    finally:
        context.close()


@pytest.mark.parametrize("width, height", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_typing_50_into_compress_when_over_disables_run_and_names_the_minimum(browser, server, width, height):
    from scratchpad_lab.config import field_bounds

    lowest = field_bounds("max_scratchpad_chars")[0]
    context, page = _open(browser, server, width, height)
    try:
        box = page.locator('[data-testid="stSidebar"]').get_by_label("Compress when over (chars)", exact=True)
        box.fill("50")
        box.press("Enter")
        run = page.get_by_role("button", name="Run", exact=True)
        page.wait_for_function("() => document.querySelector('[data-testid=\"stBaseButton-primary\"]')?.disabled",
                               timeout=RUN_TIMEOUT_MS)
        assert run.is_disabled()
        message = page.locator('[data-testid="stSidebar"] [data-testid="stAlert"]').filter(
            has_text="Compress when over (chars) is 50")
        message.wait_for()
        assert f"the minimum is {lowest:,}" in message.inner_text()
        assert box.input_value() == "50", "the widget keeps what was typed"
        page.screenshot(path=str(ARTIFACTS / f"demo-range-{width}x{height}.png"))

        box.fill(str(lowest))
        box.press("Enter")
        page.wait_for_function("() => !document.querySelector('[data-testid=\"stBaseButton-primary\"]')?.disabled",
                               timeout=RUN_TIMEOUT_MS)
        assert message.count() == 0
    finally:
        context.close()
