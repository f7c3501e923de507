"""The presenter's screen holds still (issue 45 item 3), in Chromium at 1280x800 and 1500x1000:

- the status row stays one line when an item appears in it: with two pins (their badge), a summarizer whose first
  reply is empty (a failed call: "summarizer calls" appears beside "compressions", and the failure banner under the
  story) and slow ("status: waiting for the summarizer"), the row's box keeps the height of its first paint and the
  scratchpad, the triggers, the newest compression and the chart keep their place, sampled every 25 ms from the
  first paint to the end;
- while the summarizer works on the iteration that has just begun, the Why line and the status row both name that
  iteration, never the one before;
- Stop during a summarizer call reads "stopped", with no "summarizer calls failed" banner and no exception's name;
- a fresh server's first run (and a fresh browser's) never shows Streamlit's grey placeholder blocks
  ([data-testid="stSkeleton"]) from the Run click to the end of the run.

The slow summarizer is tests/fake_openai.py's server, in this process; the run's summarizer is set to it in the
sidebar. Figures to test-artifacts/steady-screen-*.json, screenshots to test-artifacts/steady-screen-*.png.
"""
from __future__ import annotations

import json

import pytest

from browser_support import (ARTIFACTS, IDLE_JS, METRIC_JS, SIZES, ScriptErrors, browser, choose, server,  # noqa: F401
                             scaled, start_app, stop_server, sync_api, wait_for)
from fake_openai import FakeOpenAI

pytestmark = pytest.mark.browser

RUN_TIMEOUT_MS = 90_000
PINS = ["A-1001", "courier scan"]

# Every 25 ms until stopped, while the status row is drawn: its box's height, whether each of its items sits on the
# row's one line (every item overlaps every other vertically), the labels in it, the Why line and the iteration.
ROW_SAMPLER_JS = """() => {
  window.__rowSamples = []; window.__rowStop = false;
  const tick = () => {
    const box = document.querySelector('.st-key-live_status [data-testid="stHorizontalBlock"]')
      || document.querySelector('.st-key-live_status [data-testid="stVerticalBlock"] > div');
    const row = document.querySelector('.st-key-live_status');
    if (box && row) {
      const spans = [...box.children].map(c => c.getBoundingClientRect()).filter(r => r.height > 0)
        .map(r => [r.top, r.bottom]);
      const labels = [...row.querySelectorAll('[data-testid="stMetricLabel"]')].map(l => l.innerText.trim());
      const badges = [...row.querySelectorAll('[data-testid="stMarkdownContainer"] span')].map(b => b.innerText.trim())
        .filter(t => t.includes('pin'));
      const why = [...document.querySelectorAll('.st-key-live_triggers [data-testid="stText"]')]
        .map(t => t.innerText).find(t => t.startsWith('Why: ')) || null;
      const tops = Object.fromEntries(['live_scratchpad', 'live_triggers', 'live_diff', 'live_chart'].map(k => {
        const e = document.querySelector('.st-key-' + k); return [k, e ? Math.round(e.getBoundingClientRect().top) : null];
      }));
      window.__rowSamples.push({height: Math.round(row.getBoundingClientRect().height), tops,
        oneLine: Math.max(...spans.map(s => s[0])) < Math.min(...spans.map(s => s[1])),
        labels, badges, why, iteration: (""" + METRIC_JS + """)('iteration'),
        buttons: [...row.querySelectorAll('button')].map(b => b.innerText.trim()).filter(t => t),
        settled: document.querySelector('[data-testid="stApp"]').getAttribute('data-test-script-state') === 'notRunning',
        status: labels.find(l => l.startsWith('status')) || null});
    }
    if (!window.__rowStop) setTimeout(tick, 25);
  };
  tick();
}"""

# Every 20 ms until stopped: the grey placeholder blocks on the page (where each is: its keyed box, or "page").
SKELETON_SAMPLER_JS = """() => {
  window.__skeletons = []; window.__skeletonStop = false;
  const tick = () => {
    const found = [...document.querySelectorAll('[data-testid="stSkeleton"]')]
      .filter(e => !e.closest('.st-key-warm_chart'))  // the frame's hidden warm-up box (ui/warm.py): never seen
      .map(e => { const k = e.closest('[class*="st-key-"]');
                  return k ? [...k.classList].find(c => c.startsWith('st-key-')) : 'page'; });
    if (found.length) window.__skeletons.push(found);
    if (!window.__skeletonStop) setTimeout(tick, 20);
  };
  tick();
}"""


@pytest.fixture
def fake():
    with FakeOpenAI() as server_:
        yield server_


def _tab(browser, size):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.set_default_timeout(scaled(30_000))
    return context, page


def _open(page, url: str) -> None:
    page.goto(url)
    page.get_by_role("button", name="Run", exact=True).wait_for(timeout=scaled(60_000))  # a server's first page
    page.wait_for_function(IDLE_JS, timeout=scaled(60_000))


def _type(page, label: str, value: str, then: str) -> None:
    """Type a value and wait until the page shows what it changes (`then`: a JS condition), then is idle. Typed
    again when it changed nothing (a box drawn anew by the rerun before, e.g. the provider's, can lose the keys)."""
    for _ in range(4):
        # the provider's own box, once the box of the provider before it has gone from the page
        page.wait_for_function("(l) => document.querySelectorAll(`input[aria-label=\"${l}\"]`).length === 1", arg=label)
        box = page.get_by_label(label, exact=True)
        try:
            box.fill(value)
            box.press("Enter")
            page.wait_for_function(then, timeout=scaled(4_000))
            break
        except sync_api.Error:  # a later rerun drew the box again between the count and the keys (strict mode)
            page.wait_for_function(IDLE_JS)
    wait_for(page, then, f"typing {label} changed nothing")
    page.wait_for_function(IDLE_JS)


def _fake_summarizer(page, url: str) -> None:
    """The run's summarizer is the fake server (a custom base URL), every 2 iterations, no pacing."""
    from scratchpad_lab.ui.sidebar_settings import SETTING_LABELS, SUMMARIZERS
    choose(page, "Summarizer", SUMMARIZERS["endpoint"])
    choose(page, "Summarizer provider", "Custom base URL")
    _type(page, "Summarizer model", "slow-model", "() => document.body.innerText.includes('enter the base URL')")
    _type(page, "Summarizer base URL", url, "() => !document.body.innerText.includes('Fix this setting to run')")
    choose(page, SETTING_LABELS["summarize_every"], "2")
    slider = page.get_by_role("slider", name="Pacing")
    slider.press("Home")  # instant
    wait_for(page, "el => el.getAttribute('aria-valuetext') === 'instant'", "the pace is not instant",
             arg=slider.element_handle())
    page.wait_for_function(IDLE_JS)


def _pins(page) -> None:
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("Pins: text that must survive", exact=True).click()
    area = page.get_by_label("Pins: text that must survive (one a line)", exact=True)
    area.wait_for()
    page.wait_for_function(IDLE_JS)
    area.fill("\n".join(PINS))
    area.press("Tab")  # a text area takes its text when it loses the focus
    wait_for(page, "() => document.body.innerText.includes('Pins: 2 must survive')", "the pins were not taken")
    page.wait_for_function(IDLE_JS)


def _status(page) -> str:
    return page.evaluate(f"({METRIC_JS})('status')")


def test_the_status_row_holds_one_line_and_the_why_line_names_the_iteration_the_summarizer_works_on(browser, server,
                                                                                                   fake):
    fake.default = ("ok", "Key findings:\n- the ticket is open")
    fake.delay = 1.2  # each call: the status waits for the summarizer
    figures = {}
    for size in SIZES:
        fake.script = [("ok", "")]  # each run's first reply is empty: "summarizer calls" appears beside "compressions"
        context, page = _tab(browser, size)
        errors = ScriptErrors(page)
        try:
            _open(page, server)
            _fake_summarizer(page, fake.url)
            _pins(page)
            page.evaluate(ROW_SAMPLER_JS)
            page.get_by_role("button", name="Run", exact=True).click()
            wait_for(page, f"() => ({METRIC_JS})('status') === 'answered'", "the run did not end", RUN_TIMEOUT_MS)
            page.evaluate("() => { window.__rowStop = true; }")
            samples = page.evaluate("() => window.__rowSamples")
            page.screenshot(path=str(ARTIFACTS / f"steady-screen-row-{size[0]}x{size[1]}.png"))
            errors.check(f"the Playground with a slow summarizer at {size[0]}x{size[1]}")
        finally:
            context.close()
        live = [s for s in samples if s["status"] is not None]
        first = live[0]
        with_calls = [s for s in live if "summarizer calls" in s["labels"]]
        waiting = [s for s in live if s["status"] == "status: waiting for the summarizer"]
        heights = sorted({s["height"] for s in live})
        figures[f"{size[0]}x{size[1]}"] = {
            "samples": len(live), "first_paint_height_px": first["height"], "heights_px": heights,
            "items_at_first_paint": first["labels"] + first["badges"],
            "items_with_calls": (with_calls[-1]["labels"] + with_calls[-1]["badges"]) if with_calls else None,
            "wrapped_samples": sum(1 for s in live if not s["oneLine"])}
        assert with_calls and waiting, f"the extra items never appeared: {figures}"
        # the pins badge, Stop and Pause stay drawn while "summarizer calls" appears before them
        bare = [s for s in live if not s["badges"] or set(s["buttons"]) != {"Stop", "Pause"}]
        assert not bare, f"the pins badge or a control is missing from the row in {len(bare)} of {len(live)}: {bare[:3]}"
        # one line throughout, and the row's box keeps its first height when an item appears
        assert all(s["oneLine"] for s in live), f"the status row wraps at {size}: {figures}"
        assert heights == [first["height"]], f"the status row's height changes at {size}: {figures}"
        # nor does anything under it move: the failure banner of the empty reply is drawn under the live story
        moved = {k: sorted({s["tops"][k] for s in live if s["tops"][k] is not None}) for k in first["tops"]}
        figures[f"{size[0]}x{size[1]}"]["story_tops_px"] = moved
        assert all(len(v) == 1 for v in moved.values()), f"the live story moved at {size}: {moved}"
        # while the summarizer works, the Why line names the iteration the status row names
        # (read between refreshes: within one, the row is redrawn a moment before the panel under it)
        told = [s for s in waiting if s["why"] and s["iteration"] and s["settled"]]
        assert told, f"no Why line was drawn while the summarizer worked: {waiting[:3]}"
        for s in told:
            number = s["iteration"].split(" of ")[0]
            assert s["why"].startswith(f"Why: Iteration {number}: "), s
            assert "summarizer is at work" in s["why"], s
    (ARTIFACTS / "steady-screen-row.json").write_text(json.dumps(figures, indent=1), encoding="utf-8")
    print(json.dumps(figures))


def test_stop_during_a_summarizer_call_reads_stopped(browser, server, fake):
    for size in SIZES:
        fake.default = ("stall", 30)  # the summarizer never answers in time: Stop lands during its call
        context, page = _tab(browser, size)
        errors = ScriptErrors(page)
        try:
            _open(page, server)
            _fake_summarizer(page, fake.url)
            page.get_by_role("button", name="Run", exact=True).click()
            wait_for(page, """() => [...document.querySelectorAll('.st-key-live_status [data-testid="stMetricLabel"]')]
                     .some(l => l.innerText.trim() === 'status: waiting for the summarizer')""",
                     "the run never waited for the summarizer", RUN_TIMEOUT_MS)
            page.locator(".st-key-play_stop button").click()
            wait_for(page, f"() => ({METRIC_JS})('status') === 'stopped'", "Stop did not read stopped", RUN_TIMEOUT_MS)
            wait_for(page, IDLE_JS, "the page did not settle after Stop")
            main = page.locator('[data-testid="stMain"]').inner_text()
            page.screenshot(path=str(ARTIFACTS / f"steady-screen-stopped-{size[0]}x{size[1]}.png"))
            errors.check(f"Stop during a summarizer call at {size[0]}x{size[1]}")
        finally:
            fake.stalled.set()  # the stalled reply ends (the run no longer waits for it)
            context.close()
            fake.stalled.clear()
        assert _words(main, "stopped"), main[:800]
        assert "summarizer calls failed" not in main and "RunStopped" not in main, main[:1500]


def _words(text: str, word: str) -> bool:
    return any(line.strip() == word for line in text.splitlines())


def test_a_fresh_servers_first_run_shows_no_placeholder_blocks(browser, tmp_path):
    """A server of its own (the shared one has long been visited); a fresh browser at each size, so each first run
    finds no element's code loaded yet."""
    proc, url = start_app(tmp_path / "server.log")
    seen = {}
    try:
        for size in SIZES:
            context, page = _tab(browser, size)
            errors = ScriptErrors(page)
            try:
                _open(page, url)
                page.evaluate(SKELETON_SAMPLER_JS)
                page.get_by_role("button", name="Run", exact=True).click()
                # the whole run at the demo pace, to the finished run's page (its download button, its loss panel)
                wait_for(page, f"() => ({METRIC_JS})('status') === 'answered'", "the run did not end", RUN_TIMEOUT_MS)
                wait_for(page, "() => document.querySelector('input[aria-label=\"Show run\"]') !== null",
                         "the finished run was not listed", RUN_TIMEOUT_MS)
                page.wait_for_function(IDLE_JS, timeout=scaled(RUN_TIMEOUT_MS))
                page.evaluate("() => { window.__skeletonStop = true; }")
                found = page.evaluate("() => window.__skeletons")
                page.screenshot(path=str(ARTIFACTS / f"steady-screen-first-run-{size[0]}x{size[1]}.png"))
                errors.check(f"a fresh server's first run at {size[0]}x{size[1]}")
            finally:
                context.close()
            seen[f"{size[0]}x{size[1]}"] = {"samples_with_placeholders": len(found),
                                            "where": sorted({k for sample in found for k in sample})}
    finally:
        stop_server(proc)
    (ARTIFACTS / "steady-screen-first-run.json").write_text(json.dumps(seen, indent=1), encoding="utf-8")
    print(json.dumps(seen))
    assert all(v["samples_with_placeholders"] == 0 for v in seen.values()), seen
