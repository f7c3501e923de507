"""The Strategies page's main path in a real browser (Debian's /usr/bin/chromium via Playwright).

A trace the app did not write (synthetic, invented material) is uploaded; one of its tool results is
95,000 characters (so deepagents moves it to a file) and another carries an HTML/script payload. Three
strategies run side by side: the page must show one column per strategy with its figures, the
offloaded file, the chart (drawn whole at 1280x800 and 1500x1000), and what each strategy sent at a step,
with the hostile text as text, and the browser reports no script or console error.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from browser_support import (ARTIFACTS, IDLE_JS, METRIC_JS, PAGE_STATE_JS, after_layout, after_rerun, browser,  # noqa: F401 (fixtures)
                             charts_drawn_whole, server, upload_trace, wait_for, wait_for_charts_drawn, watched)

pytestmark = pytest.mark.browser
RUN_TIMEOUT_MS = 120_000
PAYLOAD = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'


@pytest.fixture
def trace_file(tmp_path) -> Path:
    from synthetic import synthetic_trace

    trace = synthetic_trace(steps=24, seed=8, parse_error_rate=0)
    trace.steps[1].observations[0] = "Found: " + PAYLOAD
    trace.steps[3].observations[0] = ("big table " * 9_500)[:95_000]
    path = tmp_path / "strategies-trace.json"
    path.write_text(json.dumps(trace.to_dict()), encoding="utf-8")
    return path


def test_three_strategies_side_by_side_on_an_uploaded_trace(watched, trace_file):
    page, errors = watched
    page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]', has_text="Strategies").click()
    page.get_by_role("heading", name="Scratchpad Lab · Strategies").wait_for()
    wait_for(page, IDLE_JS, "opening Strategies")

    # its replay with the defaults is a job: the page opens the upload by itself once it has ended
    upload_trace(page, trace_file, "Trajectory", "upload #1 · trace of 24 steps")
    box = page.get_by_role("combobox", name="Trajectory", exact=True)
    assert box.input_value().startswith("upload #1 · trace of 24 steps"), box.input_value()

    button = page.get_by_role("button", name="Run strategies", exact=True)
    after_rerun(page, button.click, "pressing Run strategies", timeout=RUN_TIMEOUT_MS)
    page.get_by_role("heading", name="What each strategy sent").wait_for(timeout=RUN_TIMEOUT_MS)
    wait_for(page, IDLE_JS, "the results did not settle", RUN_TIMEOUT_MS)

    texts = page.evaluate(PAGE_STATE_JS)["texts"]
    assert sum(1 for t in texts if t.startswith("compressions: ")) == 3, texts
    assert "files offloaded: 1" in texts, texts        # deepagents moved the 95,000-char result to a file
    assert page.get_by_text("file /large_tool_results/", exact=False).count() == 1
    wait_for_charts_drawn(page, 1)  # the context sent at each step
    # what was sent: two strategies side by side (the first two; any two can be picked)
    assert [t.split(":")[0] for t in texts if " tokens, " in t and t.endswith(" chars")] == \
        ["autourgos middleware", "deepagents"], texts
    # found by its words: after a run that ended within a tick, Streamlit drew the verdict's container without its
    # st-key-strat_verdict class (seen when the strategies' packages were already imported by an earlier test)
    verdict = page.locator('[data-testid="stMarkdownContainer"] strong').filter(has_text=re.compile("^Verdict: ")).inner_text()
    assert verdict.startswith("Verdict: ") and any(f" {t} " in verdict for t in ("autourgos middleware", "LangMem")), verdict

    # the hostile tool result is shown as text, never run or drawn
    codes = page.locator('[data-testid="stCode"]').all_inner_texts()
    assert any(PAYLOAD in c for c in codes), "the payload is shown literally in what a strategy sent"
    assert page.evaluate("() => window.__xss === undefined")
    assert page.locator('img[src="x"]').count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator('[data-testid="stAlertContentError"]').count() == 0

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for width, height in ((1280, 800), (1500, 1000)):
        page.set_viewport_size({"width": width, "height": height})
        for part, heading in (("top", "Scratchpad Lab · Strategies"), ("results", "Context sent at each step"),
                              ("sent", "What each strategy sent")):
            page.get_by_role("heading", name=heading).scroll_into_view_if_needed()
            after_layout(page)
            if part == "results":
                charts_drawn_whole(page, 1, f"{width}px")
            page.screenshot(path=str(ARTIFACTS / f"strategies-{width}x{height}-{part}.png"))
        # readable: each of the two panes of what was sent is wide enough for whole words (7 columns were ~100 px)
        panes = page.evaluate("""() => [...document.querySelectorAll('[class*="st-key-strat_sent_"] [data-testid="stCode"]')]
            .map(e => Math.round(e.getBoundingClientRect().width))""")
        assert len(panes) == 2 and min(panes) >= 400, (width, panes)
    errors.check("the Strategies page")


CHAT = [
    {"role": "system", "content": "You are the airline's support agent. Policy: confirm the user id first; never "
                                  "change a basic economy flight; ask for a yes before any change."},
    {"role": "user", "content": "Hi, I want to change reservation ZFA04Y to the 15 May flight."},
    {"role": "assistant", "content": "Sure. What is your user id?"},
    {"role": "user", "content": "It is mia_li_3668."},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
        "name": "get_reservation_details", "arguments": json.dumps({"reservation_id": "ZFA04Y"})}}]},
    {"role": "tool", "tool_call_id": "c1", "content": json.dumps(
        {"reservation_id": "ZFA04Y", "user_id": "mia_li_3668", "cabin": "economy", "payment": "credit_card_4421486"})},
    {"role": "assistant", "content": "Shall I move ZFA04Y to HAT271 on 15 May for $212?"},
    {"role": "user", "content": "Yes, please."},
    {"role": "assistant", "content": "Done: ZFA04Y is now on HAT271 on 15 May."}]


def test_each_column_says_how_its_strategy_saw_an_uploaded_conversation(watched, tmp_path):
    """A chat with a system prompt and three user turns: the message strategies' columns say they saw it as a
    LangChain agent holds it, the autourgos middleware's that it saw one task with the policy as its system_prompt."""
    page, errors = watched
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(CHAT), encoding="utf-8")
    page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]', has_text="Strategies").click()
    page.get_by_role("heading", name="Scratchpad Lab · Strategies").wait_for()
    wait_for(page, IDLE_JS, "opening Strategies")
    upload_trace(page, chat, "Trajectory", "upload #1 · OpenAI chat messages")
    after_rerun(page, page.get_by_role("button", name="Run strategies", exact=True).click, "pressing Run strategies",
                timeout=RUN_TIMEOUT_MS)
    page.get_by_role("heading", name="What each strategy sent").wait_for(timeout=RUN_TIMEOUT_MS)
    wait_for(page, IDLE_JS, "the results did not settle", RUN_TIMEOUT_MS)
    captions = page.locator('[data-testid="stCaptionContainer"]').all_inner_texts()
    seen = [c for c in captions if c.startswith("as ")]
    assert seen == ["as an autourgos agent's scratchpad: its system_prompt set to the recording's, one task, 4 steps, "
                    "1 tool result, its later user turns as the results of 2 calls to a user tool",
                    "as a LangChain agent: system prompt, 3 user turns, 1 tool result",
                    "as a LangChain agent: system prompt, 3 user turns, 1 tool result"], seen
    errors.check("the Strategies page on a conversation")


def test_a_long_claude_code_session_opens_with_its_own_compaction_as_a_row_and_every_chart_drawn(watched):
    """The real Claude Code session in ../shared (397,828 characters, 217 replies, a manual compaction): uploaded as
    it is, it replays under the recording's own compaction (put in the pick by itself) and the default strategies,
    the chart is drawn whole at 1280x800, what each strategy sent is shown in bounded panes, and nothing errs."""
    from conftest import shared_file

    session = shared_file("datasets", "long-runs", "claude-code", "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl")
    page, errors = watched
    page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]', has_text="Strategies").click()
    page.get_by_role("heading", name="Scratchpad Lab · Strategies").wait_for()
    wait_for(page, IDLE_JS, "opening Strategies")
    upload_trace(page, session, "Trajectory", "upload #1 · a Claude Code session")
    page.get_by_text("This run carries Claude Code's own compaction, manual at 142,431 tokens").wait_for()
    after_rerun(page, page.get_by_role("button", name="Run strategies", exact=True).click, "pressing Run strategies",
                timeout=RUN_TIMEOUT_MS)
    page.get_by_role("heading", name="What each strategy sent").wait_for(timeout=RUN_TIMEOUT_MS)
    wait_for(page, IDLE_JS, "the results did not settle", RUN_TIMEOUT_MS)
    captions = page.locator('[data-testid="stCaptionContainer"]').all_inner_texts()
    assert any(c.startswith("Claude Code's own compaction, manual at 142,431 tokens; as a LangChain agent") for c in
               captions), captions
    page.get_by_role("heading", name="Context sent at each step").scroll_into_view_if_needed()
    after_layout(page)
    charts_drawn_whole(page, 1, "1280px")
    panes = page.evaluate("""() => [...document.querySelectorAll('[class*="st-key-strat_sent_"] [data-testid="stCode"]')]
        .map(e => e.innerText.length)""")
    assert len(panes) == 2 and max(panes) < 60_000, panes  # a 180,000-character context is not drawn whole
    page.screenshot(path=str(ARTIFACTS / "strategies-long-session-1280x800.png"))
    errors.check("the Strategies page on a long Claude Code session")


def test_the_runs_page_opens_the_long_claude_code_session_and_moves_through_its_calls(watched):
    """The 397,828-character session uploaded on the Runs page: it opens at its last step with its chart drawn, and
    the step slider moves back through its calls, each step drawn without a script error."""
    from conftest import shared_file

    session = shared_file("datasets", "long-runs", "claude-code", "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl")
    page, errors = watched
    page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]', has_text="Runs").click()
    page.get_by_role("heading", name="Scratchpad Lab · Runs").wait_for()
    wait_for(page, IDLE_JS, "opening Runs")
    page.locator('[data-testid="stFileUploaderDropzone"] input[type=file]').first.set_input_files(str(session))
    page.wait_for_function("""() => [...document.querySelectorAll('input[role="combobox"]')]
        .some(e => e.value.startsWith('upload #1'))""", timeout=RUN_TIMEOUT_MS)
    wait_for(page, IDLE_JS, "the session's replay did not settle", RUN_TIMEOUT_MS)
    slider = page.get_by_role("slider", name="Step: show the run as it was at iteration")
    thumb = page.locator('[data-testid="stSlider"]').filter(has=slider).locator('[data-testid="stSliderThumbValue"]')
    last = int(thumb.inner_text().strip())
    assert last >= 217, last  # its 217 replies (the replay's own last step, a message, may follow)
    wait_for_charts_drawn(page, 1)
    slider.focus()
    for _ in range(3):
        after_rerun(page, lambda: page.keyboard.press("ArrowLeft"), "moving back one step")
    assert int(thumb.inner_text().strip()) == last - 3
    page.get_by_text(f"Scratchpad sent at iteration {last - 3}:", exact=False).first.wait_for()
    assert page.evaluate(f"({METRIC_JS})('iteration')") == f"{last - 3} of {last}"  # not the config's 30
    wait_for_charts_drawn(page, 1)
    page.screenshot(path=str(ARTIFACTS / "runs-long-session-1280x800.png"))
    errors.check("the Runs page on a long Claude Code session")
