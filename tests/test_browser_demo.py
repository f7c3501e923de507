"""The playground on a projector, in real headless Chromium at 1500x1000 and at 1280x800 (the sidebar
open): a setting out of its range disables Run with a message naming the allowed minimum, untrusted text
in a compression card makes no element, and a fast run keeps its status row once finished. (That the live
story is on one screen while a run goes, and stays put when it ends, is tests/test_browser_layout.py's.)

The parts of the live view are keyed containers (`st.container(key="live_status")`, ...); Streamlit
gives each the CSS class `st-key-<key>`, which is how they are found here. Screenshots go to
test-artifacts/.
"""
from __future__ import annotations

import pytest

from browser_support import ARTIFACTS, PICKED_JS, browser, server, sync_api  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser

SIZES = [(1500, 1000), (1280, 800)]
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
def test_typing_50_into_compress_when_over_disables_run_and_names_the_minimum(browser, server, width, height):
    from scratchpad_lab.model.config import field_bounds

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
        # Run is drawn before the sidebar, so it is enabled a moment before the rerun takes the message away
        message.wait_for(state="detached", timeout=RUN_TIMEOUT_MS)
        assert message.count() == 0
    finally:
        context.close()


# ── untrusted text in the word-level diff ──────────────────────────────────

XSS = ["<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "![x](http://evil.invalid/a.png)",
       "[click](http://evil.invalid/l)", "www.evil.invalid", "ops@evil.invalid", ":red[INJECTED]",
       "`tick`", "$x^2$", "<iframe src=http://evil.invalid></iframe>"]

# Every element inside the rendered markdown and the inert HTML of the compression cards, by tag, and their text.
MARKDOWN_DOM_JS = """() => {
  const tags = {}; let text = '';
  for (const m of document.querySelectorAll('[class*="st-key-runs_view_card_"] [data-testid="stMarkdownContainer"], '
                                            + '[class*="st-key-runs_view_card_"] [data-testid="stHtml"]')) {
    m.querySelectorAll('*').forEach(e => tags[e.tagName] = (tags[e.tagName] || 0) + 1);
    text += m.innerText + '\\n';
  }
  return {tags, text, dialogs: window.__labDialogs || 0};
}"""


# Select the first card's merged text as a person would (the whole box) and read what a copy would carry.
COPY_JS = """() => {
  const box = document.querySelector('[class*="st-key-runs_view_card_"][class*="_merged"] [data-testid="stHtml"], '
    + '[class*="st-key-runs_view_card_"][class*="_merged"] [data-testid="stMarkdownContainer"]');
  if (!box) return null;
  const range = document.createRange();
  range.selectNodeContents(box);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  const copied = selection.toString();
  selection.removeAllRanges();
  return copied;
}"""


@pytest.fixture
def crafted_record(tmp_path):
    """A real run's record with every payload planted in the text each compression dropped and wrote."""
    from scratchpad_lab.model.config import RunConfig
    from scratchpad_lab.engine.run.runner import Run

    record = Run(RunConfig.build(scenario="support-ticket", summarize_every=4), name="crafted").run()
    for e in record.events:
        if e.kind == "compression":
            e.data["before"] = e.data["before"] + "\n" + "\n".join(XSS[:5]) + "\n"
            e.data["after"] = e.data["after"] + "\n" + "\n".join(XSS[5:]) + "\n"
    path = tmp_path / "crafted-run.json"
    record.save(path)
    return path


def test_payloads_in_the_word_level_diff_create_no_element_image_or_link(browser, server, crafted_record):
    context, page = _open(browser, server, 1500, 1000)
    try:
        page.on("dialog", lambda d: (page.evaluate("() => window.__labDialogs = (window.__labDialogs || 0) + 1"),
                                     d.dismiss()))
        page.goto(server + "/runs")
        page.locator(".st-key-runs_upload input[type=file]").wait_for(state="attached")
        page.locator(".st-key-runs_upload input[type=file]").set_input_files(str(crafted_record))
        # the page opens the upload by itself once it has read it (clicking the picker before that found no
        # "upload #1" option and waited out 5 s, one run in two)
        opened = page.get_by_role("combobox", name="Open run", exact=True)
        page.wait_for_function(PICKED_JS, arg=["Open run", "upload #1"], timeout=RUN_TIMEOUT_MS)
        assert opened.input_value().startswith("upload #1"), opened.input_value()
        page.wait_for_function("""() => [...document.querySelectorAll('[class*="st-key-runs_view_card_"] strong')]
            .some(e => e.innerText.startsWith('Compression at iteration'))""", timeout=RUN_TIMEOUT_MS)
        page.wait_for_function("() => document.querySelectorAll('[data-stale=\"true\"]').length === 0")
        dom = page.evaluate(MARKDOWN_DOM_JS)
        page.screenshot(path=str(ARTIFACTS / "demo-xss-card.png"))
        for payload in ["<img src=x onerror=alert(1)>", "![x](http://evil.invalid/a.png)", ":red[INJECTED]",
                        "<iframe src=http://evil.invalid></iframe>", "$x^2$", "`tick`"]:
            assert payload in dom["text"].replace("\u2060", ""), f"{payload!r} is not shown as text"
        made = {t for t in dom["tags"] if t not in {"P", "SPAN", "DEL", "STRONG", "BR", "DIV"}}
        assert not made, f"untrusted text made elements: {dom['tags']}"
        hostile = page.evaluate("""() => document.querySelectorAll(
            '[data-testid="stMain"] img, [data-testid="stMain"] iframe, [data-testid="stMain"] script, '
            + '[data-testid="stMain"] a[href*="evil.invalid"], [data-testid="stMain"] a[href^="mailto:"]').length""")
        assert hostile == 0
        assert dom["dialogs"] == 0
        # what a person copies from a card's text is exactly the text: no invisible joiner or space in it
        copied = page.evaluate(COPY_JS)
        assert copied, "the merged text is on the page"
        assert not set(copied) & {"\u2060", "\u200b", "\u200c", "\u200d", "\ufeff"}, \
            sorted({hex(ord(c)) for c in copied if ord(c) > 0x2000})
        for payload in ("www.evil.invalid", "ops@evil.invalid", "<img src=x onerror=alert(1)>", ":red[INJECTED]"):
            assert payload in copied, payload
    finally:
        context.close()


def test_a_fast_run_keeps_its_status_row_once_finished_and_shown(browser, server):
    """Pacing instant: the run ends before the live view's first ticks; the finished run, once the
    "Show run" picker is drawn (the full rerun after the end), still has its status row and stays so
    while the page settles (a late refresh tick used to clear it)."""
    context, page = _open(browser, server, 1280, 800)
    try:
        slider = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]').get_by_role("slider", name="Pacing")
        slider.press("Home")
        # the widget's value reaches the page with the rerun
        page.wait_for_function("e => e.getAttribute('aria-valuetext') === 'instant'", arg=slider.element_handle())
        page.wait_for_function("() => document.querySelector('[data-testid=\"stApp\"]')"
                               ".getAttribute('data-test-script-state') === 'notRunning'")
        page.get_by_role("button", name="Run", exact=True).click()
        page.locator('input[aria-label="Show run"]').wait_for(timeout=RUN_TIMEOUT_MS)
        settled = ("() => document.querySelector('[data-testid=\"stApp\"]')"
                   ".getAttribute('data-test-script-state') === 'notRunning'")
        for _ in range(3):  # each settled page, after any late tick, still shows the finished run's status
            page.wait_for_function(settled, timeout=RUN_TIMEOUT_MS)
            # Streamlit's browser side can leave the row's metrics out for a moment while a refresh tick of the
            # fragment and the full rerun after the end cross (seen in 3 of 5 long runs of the suite: the row held only its
            # buttons, and was whole again before a screenshot was taken); a row that stays empty fails here.
            try:
                page.wait_for_function(f"() => ({LIVE_STATE_JS})(['live_status']).status === 'answered'",
                                       timeout=5_000)
            except sync_api.TimeoutError:
                pass  # said by the assertion below, with what the row holds
            assert page.evaluate(LIVE_STATE_JS, ["live_status"])["status"] == "answered"
            # not a wait for readiness but the window the test watches: a refresh tick still pending (0.4 s
            # interval) arrives within it, and the next pass checks the row it leaves
            page.wait_for_timeout(500)
    finally:
        context.close()
