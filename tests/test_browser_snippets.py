"""Take the setting to your agent, in a real browser (Debian's /usr/bin/chromium via Playwright) at 1280x800: under the
Strategies verdict, each strategy it names is drawn as its package's own code, with the numbers it ran at.

A synthetic trace (30 steps, long enough that LangMem's default budget fires) is uploaded and the page's default strategies run; the code drawn under the verdict
must be, line for line, the snippet engine/strategies/snippets.py makes of that strategy's settings on that trace
(tests/test_snippets.py builds each snippet's object with the real package).
"""
from __future__ import annotations

import json
import re

import pytest

from browser_support import (ARTIFACTS, IDLE_JS, after_layout, after_rerun, browser,  # noqa: F401 (fixtures)
                             server, upload_trace, wait_for, watched)

pytestmark = pytest.mark.browser
RUN_TIMEOUT_MS = 120_000
SNIPPETS_JS = """() => [...document.querySelectorAll('[data-testid="stCode"]')]
  .map(e => ({text: e.innerText, width: Math.round(e.getBoundingClientRect().width)}))
  .filter(c => c.text.includes('your_model'))"""


@pytest.fixture
def trace_and_file(tmp_path):
    from synthetic import synthetic_trace

    trace = synthetic_trace(steps=30, seed=5, parse_error_rate=0)
    path = tmp_path / "snippet-trace.json"
    path.write_text(json.dumps(trace.to_dict()), encoding="utf-8")
    return trace, path


def _lines(text: str) -> list:
    return [line.rstrip() for line in text.strip().splitlines()]


def test_the_strategies_verdict_shows_each_named_strategy_as_its_packages_code(watched, trace_and_file):
    from scratchpad_lab.engine.strategies.registry import names, strategy
    from scratchpad_lab.engine.strategies.snippets import take_away_for_trace
    from scratchpad_lab.engine.strategies.spec import defaults

    trace, path = trace_and_file
    page, errors = watched
    page.set_viewport_size({"width": 1280, "height": 800})
    page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]', has_text="Strategies").click()
    page.get_by_role("heading", name="Scratchpad Lab · Strategies").wait_for()
    wait_for(page, IDLE_JS, "opening Strategies")
    upload_trace(page, path, "Trajectory", "upload #1 · trace of 30 steps")
    after_rerun(page, page.get_by_role("button", name="Run strategies", exact=True).click, "pressing Run strategies",
                timeout=RUN_TIMEOUT_MS)
    page.get_by_role("heading", name="What each strategy sent").wait_for(timeout=RUN_TIMEOUT_MS)
    wait_for(page, IDLE_JS, "the results did not settle", RUN_TIMEOUT_MS)

    verdict = page.locator('[data-testid="stMarkdownContainer"] strong').filter(has_text=re.compile("^Verdict: "))
    said = verdict.inner_text()
    titles = {strategy(n).title: n for n in names()}
    picks = re.split(r"\): use it\.|\)\.", said)[0]  # the verdict's picks, not the ones it says cut nothing
    named = [n for t, n in sorted(titles.items(), key=lambda kv: picks.find(kv[0])) if f" {t} " in picks]
    assert named, said
    drawn = page.evaluate(SNIPPETS_JS)
    assert len(drawn) == len(named), (said, drawn)
    for name, code in zip(named, drawn):  # in the verdict's order: the one that keeps the most first
        expected = take_away_for_trace(name, defaults(name), trace).code
        assert _lines(code["text"]) == _lines(expected), name
        assert code["width"] >= 600, code["width"]  # the page's width, not a column's: whole lines are readable
    said_numbers = {"autourgos-middleware": ("AutoSummarizeMiddleware(", "summarize_every=5,", "max_scratchpad_chars=15000,"),
                    "langmem": ("summarize_messages(", "max_tokens=4000,", "max_summary_tokens=256,")}
    for name, code in zip(named, drawn):  # the package's constructor or call with the numbers it ran at
        assert all(part in code["text"] for part in said_numbers.get(name, ())), (name, code["text"])
    assert set(named) & set(said_numbers), named
    figures = [t for t in page.locator('[data-testid="stText"]').all_inner_texts()
               if t.startswith("Take it to your agent:")]
    assert len(figures) == len(named) and all("of this run's peak of " in t for t in figures), figures

    first = page.locator('[data-testid="stCode"]').filter(has_text="your_model").first
    first.scroll_into_view_if_needed()
    after_layout(page)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "strategies-snippet-1280x800.png"))
    errors.check("the Strategies page's snippets")
