"""The Benchmark page as a person sees it, in a real browser (Debian's /usr/bin/chromium via Playwright), issue 45:
the lab's sample runs benchmarked under trim only and LangMem, then, at 1280x800 and 1500x1000:

- the front chart's axes fit its points: every dot and whisker drawn inside the plot (a range fixed at 0-100 put the
  no-compression point on its corner, cut in half), and each chosen point ringed, ringing exactly the settings the
  chosen sentences name;
- the table's columns are all in view (no sideways scroll in either tab) and no cell says "None"; each "Open in
  Strategies" button's words are whole (its text is not cut: scrollWidth within clientWidth);
- the page, and the Runs page's stored result of that benchmark, show no path of the server (the dataset's folder,
  the repository, the store's file): the result is named by its dataset and its size;
- "Open in Strategies" settles five times in a row: the Strategies page shows the run, with no exception and no
  "Bad delta path", and the Benchmark's button works again after each.

Screenshots: test-artifacts/benchmark-<part>-<w>x<h>.png.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from browser_support import (ARTIFACTS, IDLE_JS, PAGE_STATE_JS, REPO, SCROLL_UNDER_HEADER_JS, SIZES, after_layout,  # noqa: F401
                             after_rerun, browser, charts_drawn_whole, server, wait_for, watched)

pytestmark = pytest.mark.browser
RUN_TIMEOUT_MS = 240_000
KEEP = ("trim only", "LangMem")   # the strategies benchmarked: a trim (no summarizer) and a summarizer, each chosen

# The front chart as drawn: the plot's box (the span of its grid lines), each dot's and whisker's box, and each
# ring's setting (a chosen point), from the SVG Vega drew.
CHART_JS = """() => {
  const chart = document.querySelector('.st-key-bench_chart');
  const box = e => { const r = e.getBoundingClientRect(); return {l: r.left, t: r.top, r: r.right, b: r.bottom}; };
  const grid = [...chart.querySelectorAll('svg g.role-axis-grid line')].map(box);
  const plot = {l: Math.min(...grid.map(g => g.l)), t: Math.min(...grid.map(g => g.t)),
                r: Math.max(...grid.map(g => g.r)), b: Math.max(...grid.map(g => g.b))};
  const setting = e => /setting: (.*?); peak %:/.exec(e.getAttribute('aria-label') || '')?.[1] ?? null;
  const dots = [...chart.querySelectorAll('svg g.mark-symbol.role-mark:not(.chosen_rings_marks) > path')];
  const whiskers = [...chart.querySelectorAll('svg g.mark-rule.role-mark > line')];
  const rings = [...chart.querySelectorAll('svg g.chosen_rings_marks > path')];
  return {plot, dots: dots.map(d => ({...box(d), setting: setting(d)})), whiskers: whiskers.map(box),
          rings: rings.map(setting)};
}"""

# Each table in view (the tab shown): its grid's scroll box (a sideways scroll hides columns) and its column names.
TABLES_JS = """() => [...document.querySelectorAll('[data-testid="stDataFrame"]')].filter(d => d.offsetParent)
  .filter(d => !d.closest('.st-key-warm_chart')).map(d => {
    const scroller = d.querySelector('.dvn-scroller');
    return {scroll: scroller.scrollWidth, client: scroller.clientWidth,
            columns: [...d.querySelectorAll('table th')].map(t => t.innerText.trim())};
  })"""

# Each "Open in Strategies" button: its words, and whether any of its boxes cuts them (scrollWidth past clientWidth).
BUTTONS_JS = """() => [...document.querySelectorAll('[data-testid="stButton"] button')]
  .filter(b => b.innerText.trim().startsWith('Open in Strat')).map(b => ({
    text: b.innerText.trim(),
    cut: [b, ...b.querySelectorAll('*')].filter(e => e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0).length}))"""

# The Strategies page after an opened worst run has settled: idle, its job taken in (Run strategies enabled again,
# no progress bar), the results drawn, and the trajectory picked is the benchmark's worst run.
SETTLED_JS = """() => {
  const run = [...document.querySelectorAll('button')].find(b => b.innerText.trim() === 'Run strategies');
  const picked = document.querySelector('input[role="combobox"][aria-label="Trajectory"]')?.value ?? '';
  return (""" + IDLE_JS + """)() && run && !run.disabled && !document.querySelector('[data-testid="stProgress"]')
    && [...document.querySelectorAll('h3')].some(h => h.innerText.trim() === 'What each strategy sent')
    && picked.startsWith('benchmark #1 · worst run');
}"""


def _go(page, name: str) -> None:
    page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]', has_text=name).click()
    page.get_by_role("heading", name=f"Scratchpad Lab · {name}").wait_for()
    wait_for(page, IDLE_JS, f"opening {name}")


def _keep_only(page, titles) -> None:
    """Take every other strategy out of the Benchmark's pick, one tag at a time (each removal is a rerun)."""
    picker = page.locator(".st-key-bench_pick")
    while True:
        tags = [t.strip() for t in picker.locator("[data-tag] > span[title]").all_inner_texts()]
        extra = [t for t in tags if t not in titles]
        if not extra:
            return
        picker.get_by_role("button", name="Remove " + extra[0], exact=True).click()
        wait_for(page, """([t]) => ![...document.querySelectorAll('.st-key-bench_pick [data-tag] > span[title]')]
            .some(e => e.innerText.trim() === t)""", f"taking {extra[0]} out of the pick", arg=[extra[0]])
        wait_for(page, IDLE_JS, "the pick's rerun")


def _benchmark(page, runs: int = 2) -> None:
    _go(page, "Benchmark")
    _keep_only(page, KEEP)
    box = page.get_by_role("spinbutton", name="Runs (the first N of the dataset)")
    box.fill(str(runs))
    after_rerun(page, lambda: box.press("Enter"), "setting the runs")  # the value is sent on Enter, then a rerun
    after_rerun(page, page.get_by_role("button", name="Run the benchmark", exact=True).click,
                "pressing Run the benchmark", timeout=RUN_TIMEOUT_MS)
    page.get_by_role("button", name="Open in Strategies").first.wait_for(timeout=RUN_TIMEOUT_MS)
    wait_for(page, IDLE_JS, "the benchmark's result did not settle", RUN_TIMEOUT_MS)


def _main_text(page) -> str:
    """What the page shows: its main part and its sidebar (body.innerText was seen to leave out the main part's top)."""
    return page.evaluate("""() => ['stMain', 'stSidebar'].map(id => document.querySelector(`[data-testid="${id}"]`)
        ?.innerText ?? '').join('\\n')""")


def _server_paths() -> list:
    """What of the server's file system must not reach a visitor: the repository and its sample runs, the store's
    folder, and the shared datasets' relative path."""
    from scratchpad_lab.ui.library import samples_dir

    store = os.environ.get("SCRATCHPAD_LAB_DB", "")
    paths = ["/work/", "../shared", str(REPO), str(samples_dir().resolve())]
    return paths + ([str(Path(store).parent)] if store and "://" not in store else [])


def _chosen_settings(page, settings) -> set:
    """The settings the chosen points' sentences name ("For the ...: <setting> keeps ...")."""
    sentences = [t for t in page.locator('[data-testid="stText"]').all_inner_texts() if t.startswith("For the ")]
    return {s for s in settings if any(re.search(re.escape(s) + r"[ ,]", t) for t in sentences)}


def test_the_chart_fits_its_points_marks_the_chosen_ones_and_the_table_reads_whole(watched):
    page, errors = watched
    _benchmark(page)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        chart = page.locator(".st-key-bench_chart")
        chart.evaluate(SCROLL_UNDER_HEADER_JS)
        after_layout(page)
        charts_drawn_whole(page, 1, f"{width}px")
        drawn = page.evaluate(CHART_JS)
        plot = drawn["plot"]
        assert len(drawn["dots"]) == 7, drawn  # no compression, trim only's three, LangMem's three
        for mark in drawn["dots"] + drawn["whiskers"]:  # inside the plot, none on its edge cut in half
            assert plot["l"] - 0.5 <= mark["l"] and mark["r"] <= plot["r"] + 0.5, (width, plot, mark)
            assert plot["t"] - 0.5 <= mark["t"] and mark["b"] <= plot["b"] + 0.5, (width, plot, mark)
        chosen = _chosen_settings(page, {d["setting"] for d in drawn["dots"]})
        assert chosen and sorted(drawn["rings"]) == sorted(chosen), (drawn["rings"], chosen)
        legend = chart.locator("svg g.role-legend").all_text_contents()  # svg text has no innerText
        assert any("a chosen point (★ in the table)" in t for t in legend), legend
        page.screenshot(path=str(ARTIFACTS / f"benchmark-chart-{width}x{height}.png"))

        page.get_by_role("tab", name="Recall and cost").evaluate(SCROLL_UNDER_HEADER_JS)
        for tab, columns in (("Recall and cost", ["setting", "runs", "argument recall %", "95 % interval", "peak %",
                                                  "summarizer tokens", "front"]),
                             ("More figures", ["setting", "recoverable %", "never compressed %"])):
            page.get_by_role("tab", name=tab).click()  # a tab is drawn by the browser: no rerun
            after_layout(page)
            wait_for(page, f"() => ({TABLES_JS})().some(t => t.columns.length >= {len(columns)})",
                     f"the {tab} table's columns at {width}px")
            [table] = page.evaluate(TABLES_JS)
            assert table["scroll"] <= table["client"] + 1, (width, tab, table)  # every column in view
            assert set(columns) <= set(table["columns"]), (tab, table)
            page.screenshot(path=str(ARTIFACTS / f"benchmark-table-{tab.split()[0].lower()}-{width}x{height}.png"))
        page.get_by_role("tab", name="Recall and cost").click()
        page.get_by_role("button", name="Open in Strategies").first.scroll_into_view_if_needed()
        after_layout(page)
        buttons = page.evaluate(BUTTONS_JS)
        assert buttons and all(b == {"text": "Open in Strategies", "cut": 0} for b in buttons), (width, buttons)
        page.screenshot(path=str(ARTIFACTS / f"benchmark-worst-{width}x{height}.png"))
    text = _main_text(page)
    assert "None" not in re.findall(r"\bNone\b", text), "a raw None on the page"
    assert [p for p in _server_paths() if p in text] == [], "a server path on the Benchmark page"

    # the stored result, on the Runs page: named by its dataset and size, with no path of the server
    _go(page, "Runs")
    page.get_by_text("Stored Compare, sweep, recommendation and benchmark results", exact=False).click()
    box = page.get_by_role("combobox", name="Result", exact=True)
    box.wait_for()
    assert re.match(r"#1 · benchmark of 2 runs · the lab's sample runs · stored ", box.input_value()), box.input_value()
    page.get_by_text("Computed from: the lab's sample runs", exact=True).wait_for()
    text = _main_text(page)
    assert [p for p in _server_paths() if p in text] == [], "a server path on the Runs page"
    page.screenshot(path=str(ARTIFACTS / "benchmark-stored-result-runs-page.png"))
    errors.check("the Benchmark page and its stored result")


def test_open_in_strategies_settles_five_times_in_a_row(watched):
    page, errors = watched
    page.set_viewport_size({"width": 1280, "height": 800})
    _benchmark(page)
    settled = 0
    for attempt in range(5):
        if attempt:
            _go(page, "Benchmark")
        button = page.get_by_role("button", name="Open in Strategies").first
        button.scroll_into_view_if_needed()
        button.click()
        page.get_by_role("heading", name="Scratchpad Lab · Strategies").wait_for(timeout=RUN_TIMEOUT_MS)
        wait_for(page, SETTLED_JS, f"try {attempt + 1}: the Strategies page did not settle on the opened run",
                 RUN_TIMEOUT_MS)
        state = page.evaluate(PAGE_STATE_JS)
        text = _main_text(page)
        assert not state["exceptions"] and "Bad delta path" not in text, (attempt, state["exceptions"])
        assert page.get_by_text("Opened from the Benchmark", exact=False).count() == 1
        settled += 1
    assert settled == 5
    page.screenshot(path=str(ARTIFACTS / "benchmark-opened-in-strategies-1280x800.png"))
    errors.check("opening worst runs in Strategies")
