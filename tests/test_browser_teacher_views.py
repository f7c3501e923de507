"""The teacher's views say what they show, in plain words and numbers (issue 45 items 4 and 5), in Chromium at
1280x800 and 1500x1000:

- the Playground: the scratchpad pane is full to its last line while it shows the newest part of a long scratchpad
  (no blank line at its foot, none of its text cut off), the first compression's text starts with the summary's
  header (not a struck "Step 1:"), the timeline's columns all fit the table (nothing scrolls past its right edge),
  and a preset changed by hand reads Custom;
- a lesson held at a pause: the progress line over it and the status row name the same iteration (the agent, at
  a fast pace, has gone on past the moment before it held), and its settings line uses the Playground's words;
- Compare: the settings grid's headers are the sidebar's words, the row with Tight's triggers says it is not quite
  Tight (its summaries are the run's length, not 600 chars), and each Sweep heatmap's title is drawn, whole, over
  its chart, its axis titles inside the chart's box.

Figures to test-artifacts/teacher-views.json, screenshots to test-artifacts/teacher-*.png.
"""
from __future__ import annotations

import json

import pytest

from browser_support import (ARTIFACTS, IDLE_JS, METRIC_JS, SIZES, ScriptErrors, browser, choose, scaled, server,  # noqa: F401
                             sync_api, wait_for)

pytestmark = pytest.mark.browser

RUN_TIMEOUT_MS = 90_000
RAW_NAMES = ("summarize_every", "max_scratchpad_chars", "agent_trim_chars", "extractive_budget_chars")

# Every 25 ms until stopped: the scratchpad pane's text, the height its lines take and the height it has (px,
# inside its padding), one line's height and how far its text runs past its foot.
PANE_SAMPLER_JS = """() => {
  window.__pane = []; window.__paneStop = false;
  const tick = () => {
    const pre = document.querySelector('.st-key-live_scratchpad [data-testid="stCode"] pre');
    const code = pre ? pre.querySelector('code') : null;
    if (code) {
      const cs = getComputedStyle(pre);
      window.__pane.push({text: code.innerText.slice(0, 80),
        cut: code.innerText.includes('earlier chars not shown'),
        inner: pre.clientHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom),
        used: code.getBoundingClientRect().height, line: parseFloat(getComputedStyle(code).lineHeight),
        overflow: pre.scrollHeight - pre.clientHeight});
    }
    if (!window.__paneStop) setTimeout(tick, 25);
  };
  tick();
}"""

# How far the timeline's columns run past the table's right edge (px; 0: they all fit).
TIMELINE_JS = """() => {
  const s = document.querySelector('.st-key-live_timeline .dvn-scroller');
  return s ? s.scrollWidth - s.clientWidth : null;
}"""

# The newest compression's merged text, as drawn (our inert HTML: the first piece first).
NEWEST_TEXT_JS = """() => {
  const box = document.querySelector('.st-key-live_diff');
  const head = box ? [...box.querySelectorAll('strong')].map(e => e.innerText).find(t => t.startsWith('Compression at')) : null;
  const merged = document.querySelector('.st-key-live_newest_merged [data-testid="stHtml"]');
  const text = merged ? merged.innerText.trim() : null;
  return {head, text: text ? text.slice(0, 60) : null};
}"""

# Each Sweep heatmap: its heading (ours), whether the heading is drawn whole above the chart, and whether every axis
# title of the chart is inside the chart's box.
HEATMAPS_JS = """() => [...document.querySelectorAll('[class*="st-key-cmp_heatmap_"]')].map(box => {
  const heading = box.querySelector('[data-testid="stMarkdownContainer"] strong');
  const chart = box.querySelector('[data-testid="stVegaLiteChart"]');
  const h = heading ? heading.getBoundingClientRect() : null;
  const c = chart ? chart.getBoundingClientRect() : null;
  const axes = chart ? [...chart.querySelectorAll('g.role-axis-title text')].map(t => {
    const r = t.getBoundingClientRect();
    return {text: t.textContent, box: [r.left - c.left, r.top - c.top, c.right - r.right, c.bottom - r.bottom].map(Math.round),
            inside: r.top >= c.top - 3 && r.bottom <= c.bottom + 3 && r.left >= c.left - 3
            && r.right <= c.right + 3};  // (a glyph's box may stand a pixel or two past its text)
  }) : [];
  return {title: heading ? heading.innerText.trim() : null,
          drawn: !!(h && c && h.height > 0 && h.width > 0 && h.bottom <= c.top + 1 && heading.scrollWidth <= heading.clientWidth + 1),
          svgTitle: chart ? [...chart.querySelectorAll('g.role-title text')].map(t => t.textContent) : [], axes};
})"""

# The line under the lesson's progress bar: the first progress bar on the page is the run's (the trigger bars follow).
PROGRESS_LINE_JS = """() => {
  const bar = document.querySelector('[data-testid="stMain"] [data-testid="stProgress"]');
  return bar?.closest('[data-testid="stColumn"]')?.querySelector('[data-testid="stText"]')?.innerText ?? null;
}"""

# The settings grid's headers (glide's accessibility mirror).
GRID_HEADS_JS = """() => [...document.querySelectorAll('.st-key-cmp_settings table[role="grid"] thead th')]
  .map(th => th.innerText.trim()).filter(t => t)"""


def _tab(browser, size):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.set_default_timeout(scaled(30_000))
    return context, page


def _open(page, url: str) -> None:
    page.goto(url)
    page.get_by_role("button", name="Run", exact=True).wait_for(timeout=scaled(60_000))
    page.wait_for_function(IDLE_JS, timeout=scaled(60_000))


def _to(page, title: str) -> None:
    page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]', has_text=title).click()
    page.get_by_role("heading", name=f"Scratchpad Lab · {title}").wait_for()
    page.wait_for_function(IDLE_JS)


def _preset_after(page, every: str, expected: str) -> str:
    """Choose `every` as the periodic trigger by hand; the preset picker's value once the rerun has drawn it (the
    choice shows in its box before the rerun starts: waited for until it reads `expected`, or for 10 s). Chosen again
    when the trigger's box does not read `every` once the page is idle: a rerun drawn over the choice can lose it
    on a busy machine (a person would see their choice gone and pick it again)."""
    for _ in range(3):
        choose(page, "Summarize every N iterations", every)
        try:
            page.wait_for_function("(v) => document.querySelector('input[aria-label=\"Preset\"]')?.value === v",
                                   arg=expected, timeout=scaled(10_000))
        except sync_api.TimeoutError:
            pass
        page.wait_for_function(IDLE_JS)
        box = page.get_by_role("combobox", name="Summarize every N iterations", exact=True)
        if box.input_value() == every:
            break
    return page.get_by_role("combobox", name="Preset", exact=True).input_value()


def _pane_figures(samples: list) -> dict:
    cut = [s for s in samples if s["cut"]]
    return {"samples_of_a_cut_scratchpad": len(cut),
            "most_blank_px": round(max((s["inner"] - s["used"] for s in cut), default=0), 1),
            "most_overflow_px": max((s["overflow"] for s in cut), default=0),
            "line_px": cut[0]["line"] if cut else None}


def test_the_playground_pane_fills_the_first_card_starts_with_the_header_and_the_timeline_fits(browser, server):
    figures = {}
    for size in SIZES:
        context, page = _tab(browser, size)
        errors = ScriptErrors(page)
        name = f"{size[0]}x{size[1]}"
        try:
            _open(page, server)
            choose(page, "Preset", "Tight (2 / 2,000)")
            # the preset's settings drawn in their boxes before a trigger is changed by hand, as a person sees them
            # (a change made before they arrive sends the boxes' old values back, and the settings are then no preset)
            wait_for(page, "() => document.querySelector('input[aria-label=\"Compress when over (chars)\"]')?.value "
                           "=== '2000'", "the preset's size cap was not drawn")
            # a preset changed by hand reads Custom, and the preset's settings read as it again
            preset = _preset_after(page, "3", "Custom (your settings)")
            again = _preset_after(page, "2", "Tight (2 / 2,000)")
            page.evaluate(PANE_SAMPLER_JS)
            page.get_by_role("button", name="Run", exact=True).click()
            wait_for(page, f"() => ({NEWEST_TEXT_JS})().head?.startsWith('Compression at iteration 2')",
                     "the first compression was not drawn", RUN_TIMEOUT_MS)
            wait_for(page, f"() => ({NEWEST_TEXT_JS})().text !== null", "its text was not drawn", RUN_TIMEOUT_MS)
            first = page.evaluate(NEWEST_TEXT_JS)
            page.screenshot(path=str(ARTIFACTS / f"teacher-playground-live-{name}.png"))
            wait_for(page, f"() => ({METRIC_JS})('status') === 'answered'", "the run did not end", RUN_TIMEOUT_MS)
            page.evaluate("() => { window.__paneStop = true; }")
            pane = _pane_figures(page.evaluate("() => window.__pane"))
            wait_for(page, "() => document.querySelector('input[aria-label=\"Show run\"]') !== null",
                     "the finished run was not listed", RUN_TIMEOUT_MS)
            page.wait_for_function(IDLE_JS, timeout=scaled(RUN_TIMEOUT_MS))
            page.locator(".st-key-live_timeline").evaluate("e => e.scrollIntoView({block: 'center'})")
            page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
            past_edge = page.evaluate(TIMELINE_JS)
            page.screenshot(path=str(ARTIFACTS / f"teacher-playground-timeline-{name}.png"))
            errors.check(f"the Playground at {name}")
        finally:
            context.close()
        figures[name] = {"preset_after_a_change": preset, "preset_after_changing_back": again,
                         "first_compression_text": first["text"], "timeline_past_its_edge_px": past_edge, **pane}
        assert (preset, again) == ("Custom (your settings)", "Tight (2 / 2,000)"), figures
        assert first["text"].startswith("[Summarized up to step 2]"), figures
        assert past_edge == 0, f"a timeline column runs past the table's edge at {name}: {figures}"
        assert pane["samples_of_a_cut_scratchpad"] > 0, figures
        # full to its last line: less than a line blank at its foot, and none of the newest text below it
        assert pane["most_blank_px"] < pane["line_px"], f"the pane has a blank line at {name}: {figures}"
        assert pane["most_overflow_px"] <= 1, f"the pane's newest text is cut off at {name}: {figures}"
    (ARTIFACTS / "teacher-views-playground.json").write_text(json.dumps(figures, indent=1), encoding="utf-8")
    print(json.dumps(figures))


def test_a_lessons_progress_line_and_status_row_name_the_same_iteration(browser, server):
    figures = {}
    for size in SIZES:
        context, page = _tab(browser, size)
        errors = ScriptErrors(page)
        name = f"{size[0]}x{size[1]}"
        try:
            _open(page, server)
            _to(page, "Lessons")
            settings = page.locator('[data-testid="stText"]').filter(has_text="Settings: ").first.inner_text()
            slider = page.get_by_role("slider", name="Pace: seconds per scripted step")
            # a fast pace (0.2 s a step): the agent runs on a step or two before the lesson holds it, and the run is
            # still going at the first pause (at 0 s it can end before the page sees the pause)
            slider.press("Home")
            wait_for(page, "el => el.getAttribute('aria-valuetext') === '0.0'", "the pace is not 0",
                     arg=slider.element_handle())
            page.wait_for_function(IDLE_JS)
            slider.press("ArrowRight")
            wait_for(page, "el => el.getAttribute('aria-valuetext') === '0.2'", "the pace is not 0.2",
                     arg=slider.element_handle())
            page.wait_for_function(IDLE_JS)
            page.get_by_role("button", name="Start lesson").click()
            page.get_by_role("button", name="Continue").wait_for(timeout=scaled(RUN_TIMEOUT_MS))
            page.wait_for_function(IDLE_JS)
            progress = page.evaluate(PROGRESS_LINE_JS)
            iteration = page.evaluate(f"({METRIC_JS})('iteration')")
            callout = page.locator('[data-testid="stMarkdownContainer"] strong').filter(has_text="Pause 1 of").first.inner_text()
            page.screenshot(path=str(ARTIFACTS / f"teacher-lesson-pause-{name}.png"))
            errors.check(f"a lesson's pause at {name}")
        finally:
            context.close()
        figures[name] = {"progress": progress, "status_row_iteration": iteration, "callout": callout,
                         "settings": settings}
        number = iteration.split(" of ")[0]
        assert progress.startswith(f"paused at iteration {number} of "), figures
        assert callout.endswith(f"(iteration {number})"), figures
        assert settings.startswith("Settings: Scenario: ") and "Summarize every N iterations: 3" in settings, figures
        assert not any(raw in settings for raw in RAW_NAMES), figures
    (ARTIFACTS / "teacher-views-lesson.json").write_text(json.dumps(figures, indent=1), encoding="utf-8")
    print(json.dumps(figures))


def test_compares_settings_speak_the_sidebars_words_and_the_sweeps_heatmap_titles_are_drawn(browser, server):
    context, page = _tab(browser, SIZES[0])
    errors = ScriptErrors(page)
    figures = {}
    try:
        _open(page, server)
        _to(page, "Compare")
        wait_for(page, f"() => ({GRID_HEADS_JS})().length >= 5", "the settings grid was not drawn")
        heads = page.evaluate(GRID_HEADS_JS)
        note = page.get_by_text("Row 2: The triggers of the preset Tight (2 / 2,000)", exact=False).inner_text()
        page.get_by_role("tab", name="Sweep").click()
        page.get_by_role("button", name="Sweep", exact=True).click()
        wait_for(page, "() => document.querySelectorAll('[class*=\"st-key-cmp_heatmap_\"] svg g.role-mark').length >= 4",
                 "the sweep's heatmaps were not drawn", RUN_TIMEOUT_MS * 2)
        page.wait_for_function(IDLE_JS, timeout=scaled(RUN_TIMEOUT_MS))
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            page.locator('[class*="st-key-cmp_heatmap_"]').first.evaluate("e => e.scrollIntoView({block: 'center'})")
            page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
            page.wait_for_function(IDLE_JS)
            wait_for(page, f"() => ({HEATMAPS_JS})().every(h => h.axes.length >= 2)", "the heatmaps' axes were not drawn")
            figures[f"{width}x{height}"] = page.evaluate(HEATMAPS_JS)
            page.screenshot(path=str(ARTIFACTS / f"teacher-sweep-{width}x{height}.png"))
        errors.check("the Compare page and its Sweep")
    finally:
        context.close()
    (ARTIFACTS / "teacher-views-compare.json").write_text(json.dumps({"grid": heads, "note": note, **figures},
                                                                    indent=1), encoding="utf-8")
    print(json.dumps({"grid": heads, "note": note}))
    assert heads[:5] == ["Summarize every N iterations", "Compress when over (chars)", "Agent's own limit (chars)",
                         "Summarizer", "Prompt"], heads
    assert "where Tight writes 600" in note, note
    for size, maps in figures.items():
        assert [m["title"] for m in maps] == ["tokens saved vs no compression", "summarizer tokens (in + out)",
                                              "answer score", "facts kept"], (size, maps)
        assert all(m["drawn"] for m in maps), f"a heatmap's title is not drawn whole over its chart at {size}: {maps}"
        assert all(a["inside"] for m in maps for a in m["axes"]), f"an axis title is cut at {size}: {maps}"
