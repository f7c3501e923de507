"""Links and lessons in a real browser (Playwright driving Debian's /usr/bin/chromium, localhost only).

What only a browser shows: a link opens the Runs page at the step it names (the app switches page and
drops the query), the hostile value of a bad link appears nowhere on the page, the lesson's live view
really refreshes until the run reaches each pause point, and Continue lets the run go on to its end.
"""
from __future__ import annotations

import pytest

from browser_support import IDLE_JS, after_rerun, blank_page, browser, server, sync_api, wait_for  # noqa: F401 (fixtures)
from scratchpad_lab.engine.lessons import lesson

pytestmark = pytest.mark.browser

LESSON_TIMEOUT_MS = 180_000  # a bound on a hang: a loaded fresh clone once took over 60 s to reach the first pause


def test_a_sample_step_link_opens_that_step_and_offers_its_link(blank_page, server):
    page = blank_page
    page.goto(f"{server}/?sample=support-ticket-tight&step=6")
    page.get_by_text("Showing iteration 6 of 14.").wait_for()
    page.get_by_text("Scratchpad sent at iteration 6:").wait_for()
    assert page.get_by_role("heading", name="Scratchpad Lab · Runs").is_visible()
    assert page.locator('[data-testid="stSliderThumbValue"]').first.inner_text().strip() == "6"
    page.locator('[data-testid="stSidebar"] [data-testid="stCode"]').get_by_text(
        "?sample=support-ticket-tight&step=6").wait_for()


def test_a_hostile_link_opens_the_default_page_with_a_note_and_no_markup(blank_page, server):
    page = blank_page
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{server}/?sample=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&step=6")
    page.get_by_text("The link's sample is not one of the recorded sample runs").wait_for()
    page.get_by_role("heading", name="Scratchpad Lab · Playground").wait_for()
    assert "onerror" not in page.content() and page.locator("img[src=x]").count() == 0 and not dialogs


def test_a_lesson_runs_to_its_end_pausing_at_each_moment(blank_page, server):
    page = blank_page
    item = lesson(5)
    page.goto(f"{server}/?lesson=5")
    page.get_by_role("heading", name=f"Lesson 5: {item.title}").wait_for()
    # the quickest pace that still paces (0.2 s a step, against the default 0.6): the live view must still
    # find each pause point while the run goes
    pace = page.get_by_role("slider", name="Pace: seconds per scripted step")
    after_rerun(page, lambda: (pace.press("Home"), pace.press("ArrowRight")), "choosing the pace")
    assert pace.get_attribute("aria-valuetext") == "0.2"
    page.get_by_role("button", name="Start lesson").click()
    for stage, point in enumerate(item.pauses):
        page.locator(f".st-key-lesson_continue_{stage} button").wait_for(timeout=LESSON_TIMEOUT_MS)
        callout = page.locator(f".st-key-lesson_callout_{stage}")
        callout.get_by_text(f"Pause {stage + 1} of {len(item.pauses)}: {point.name}").wait_for()
        callout.get_by_text("What happened:").wait_for()
        page.locator(f".st-key-lesson_continue_{stage} button").click()
    page.get_by_text("Your turn").first.wait_for(timeout=LESSON_TIMEOUT_MS)
    # the ending is drawn first by the live fragment, then again by the full run the end asks for; until that
    # run is over the fragment's copy is still on the page (stale): wait for the settled page, which shows it once
    wait_for(page, f"(q) => ({IDLE_JS})() && [...document.querySelectorAll('p')].filter(p => p.innerText === q).length === 1",
             "the lesson's ending, once, on a settled page", timeout=LESSON_TIMEOUT_MS, arg=item.question)
    answer = page.get_by_text(item.answer)
    assert not answer.is_visible()  # folded until asked for
    page.get_by_text("Answer", exact=True).click()
    answer.wait_for()
