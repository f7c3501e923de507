"""The Benchmark page on a long coding session in a real browser (Debian's /usr/bin/chromium via Playwright), issue
44: the real Claude Code session in ../shared (397,828 characters, 217 replies, a manual compaction), uploaded as a
dataset of one run, benchmarks under every default strategy and its own compaction; the front chart is drawn, the
table names the recording's own compaction, and nothing errs."""
from __future__ import annotations

import pytest

from browser_support import (ARTIFACTS, IDLE_JS, after_rerun, browser, scaled, server, wait_for,  # noqa: F401 (fixtures)
                             wait_for_charts_drawn, watched)

pytestmark = pytest.mark.browser
RUN_TIMEOUT_MS = 300_000   # 28 settings over a 400k-character session: 16 s quiet, over a minute on a busy machine


def test_the_benchmark_page_runs_the_long_claude_code_session_with_its_own_compaction_as_a_row(watched):
    from conftest import shared_file

    session = shared_file("datasets", "long-runs", "claude-code", "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl")
    page, errors = watched
    page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]', has_text="Benchmark").click()
    page.get_by_role("heading", name="Scratchpad Lab · Benchmark").wait_for()
    wait_for(page, IDLE_JS, "opening Benchmark")
    after_rerun(page, page.get_by_text("Upload a dataset file", exact=True).click, "picking an upload")
    page.locator('[data-testid="stFileUploaderDropzone"] input[type=file]').first.set_input_files(str(session))
    run = page.get_by_role("button", name="Run the benchmark", exact=True)
    page.wait_for_function("""() => { const b = [...document.querySelectorAll('button')]
        .find(e => e.innerText.trim() === 'Run the benchmark'); return b && !b.disabled; }""", timeout=RUN_TIMEOUT_MS)
    after_rerun(page, run.click, "pressing Run the benchmark", timeout=RUN_TIMEOUT_MS)
    try:
        page.get_by_text("For the lowest peak", exact=False).first.wait_for(timeout=scaled(RUN_TIMEOUT_MS))
    finally:
        page.screenshot(path=str(ARTIFACTS / "benchmark-long-session-1280x800.png"), full_page=True)
    wait_for(page, IDLE_JS, "the benchmark's result did not settle", RUN_TIMEOUT_MS)
    text = page.locator("section.main, [data-testid='stMain']").first.inner_text()
    assert "1 run" in text or "1 runs" in text, text[:500]
    assert "recorded-compaction" in text, "the recording's own compaction is a row of the table"
    wait_for_charts_drawn(page, 1)
    page.screenshot(path=str(ARTIFACTS / "benchmark-long-session-1280x800.png"), full_page=True)
    errors.check("the Benchmark page on a long Claude Code session")
