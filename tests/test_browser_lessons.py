"""Links and lessons in a real browser (Playwright driving Debian's /usr/bin/chromium, localhost only).

What only a browser shows: the hostile value of a bad link appears nowhere on the page, the lesson's live view
really refreshes until the run reaches each pause point, each pause and the end fit one 1280x800 screen, and
Continue lets the run go on to its end, with no script or console error on the way. (That a sample's link
opens the Runs page at its step is tests/test_browser_acceptance.py's.)
"""
from __future__ import annotations

import pytest

from browser_support import (FRAMES_JS, IDLE_JS, ScriptErrors, blank_page, browser, choose_pacing, server, shoot,  # noqa: F401 (fixtures)
                             wait_for, wait_for_charts_drawn)
from scratchpad_lab.engine.run.lesson_runs import lesson

pytestmark = pytest.mark.browser

LESSON_TIMEOUT_MS = 180_000  # a bound on a hang: a loaded fresh clone once took over 60 s to reach the first pause


def test_a_hostile_link_opens_the_default_page_with_a_note_and_no_markup(blank_page, server):
    page = blank_page
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{server}/?sample=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&step=6")
    page.get_by_text("The link's sample is not one of the recorded sample runs").wait_for()
    page.get_by_role("heading", name="Scratchpad Lab · Playground").wait_for()
    assert "onerror" not in page.content() and page.locator("img[src=x]").count() == 0 and not dialogs


# The boxes of a lesson's pause (or end) in the window: each [top, bottom], and the window's height.
LESSON_BOXES_JS = """(keys) => Object.fromEntries(keys.map(k => {
  const e = document.querySelector('.st-key-' + k);
  const r = e ? e.getBoundingClientRect() : null;
  return [k, r ? [Math.round(r.top), Math.round(r.bottom)] : null];
}).concat([['window', window.innerHeight]]))"""


def _on_one_screen(page, keys, where: str) -> None:
    """Every box of `keys` is drawn and wholly inside the window as the page stands (nobody scrolled to it)."""
    boxes = page.evaluate(LESSON_BOXES_JS, keys)
    assert all(boxes[k] and 0 <= boxes[k][0] and boxes[k][1] <= boxes["window"] for k in keys), (where, boxes)


def test_a_lesson_runs_to_its_end_pausing_at_each_moment_on_one_screen_with_no_script_error(blank_page, server):
    page = blank_page
    errors = ScriptErrors(page)  # from the first request on
    page.set_viewport_size({"width": 1280, "height": 800})
    item = lesson(1)
    page.goto(f"{server}/?lesson=1")
    page.get_by_role("heading", name=f"Lesson 1: {item.title}").wait_for()
    wait_for(page, IDLE_JS, "opening the lesson")
    # the quickest pace that still paces (0.2 s a step, against the default 0.6): the live view must still
    # find each pause point while the run goes
    pace = page.get_by_role("slider", name="Pace: seconds per scripted step")
    choose_pacing(page, pace, "0.2")
    page.get_by_role("button", name="Start lesson").click()
    for stage, point in enumerate(item.pauses):
        page.locator(f".st-key-lesson_continue_{stage} button").wait_for(timeout=LESSON_TIMEOUT_MS)
        wait_for(page, IDLE_JS, f"pause {stage + 1}")
        callout = page.locator(f".st-key-lesson_callout_{stage}")
        callout.get_by_text(f"Pause {stage + 1} of {len(item.pauses)}: {point.name}").wait_for()
        callout.get_by_text("What happened:").wait_for()
        wait_for_charts_drawn(page, 1)
        # at 1280x800, as the pause comes: what to look at, the moment itself and the way on, with no scroll
        _on_one_screen(page, [f"lesson_moment_{stage}", f"lesson_continue_{stage}"], f"pause {stage + 1} at 1280x800")
        assert page.locator(f".st-key-lesson_moment_{stage}").inner_text().strip() != ""
        if stage == 0:
            shoot(page, "acceptance-lesson1-pause1", charts_at_least=1, scroll_to=callout)
            _on_one_screen(page, [f"lesson_callout_{stage}"], "pause 1 at 1500x1000")  # shoot ends at 1500x1000
            page.set_viewport_size({"width": 1280, "height": 800})
            page.evaluate(FRAMES_JS)
        page.locator(f".st-key-lesson_continue_{stage} button").click()
    page.get_by_text("Your turn").first.wait_for(timeout=LESSON_TIMEOUT_MS)
    # the ending is drawn first by the live fragment, then again by the full run the end asks for; until that
    # run is over the fragment's copy is still on the page (stale): wait for the settled page, which shows it once
    wait_for(page, f"(q) => ({IDLE_JS})() && [...document.querySelectorAll('p')].filter(p => p.innerText === q).length === 1",
             "the lesson's ending, once, on a settled page", timeout=LESSON_TIMEOUT_MS, arg=item.question)
    wait_for_charts_drawn(page, 1)
    # the end is said where the run ended, with the way on beside it, on the same screen
    _on_one_screen(page, ["lesson_next"], "the lesson's end at 1280x800")
    assert page.locator(".st-key-lesson_ending").get_by_text("Lesson 1 complete.").is_visible()
    answer = page.get_by_text(item.answer)
    assert not answer.is_visible()  # folded until asked for
    page.get_by_text("Answer", exact=True).click()
    answer.wait_for()
    shoot(page, "acceptance-lesson1-end", charts_at_least=1, scroll_to=page.locator(".st-key-lesson_ending"))
    _on_one_screen(page, ["lesson_next"], "the lesson's end at 1500x1000")
    page.locator(".st-key-lesson_next button").click()
    page.get_by_role("heading", name=f"Lesson 2: {lesson(2).title}").wait_for()
    wait_for(page, IDLE_JS, "opening the next lesson")
    assert page.get_by_role("button", name="Start lesson").is_visible()
    assert page.locator('[data-testid="stException"]').count() == 0
    errors.check("the Lessons page")
