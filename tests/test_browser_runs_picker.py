"""A file of many runs uploaded on the Runs page, in a real browser (Debian's /usr/bin/chromium via Playwright), issue
45: a tau-bench-like list of three OpenAI-chat runs (written here, each with its own reservation code and number of
tool calls) is offered run by run under the uploader; its first run opens at once, run 3 picked is replayed and
opened (its own reservation code in the scratchpad, its five iterations), and the page never points to a command-line
flag. The stored-run picker names each run by the file's name and the run's, drawn as plain text (the file's name
carries markup that must not render), and the Runs page shows no path of the server. At 1280x800 and 1500x1000.

Screenshots: test-artifacts/runs-picker-<part>-<w>x<h>.png.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from browser_support import (ARTIFACTS, IDLE_JS, PICKED_JS, REPO, SCROLL_UNDER_HEADER_JS, SIZES, after_layout,  # noqa: F401
                             browser, choose, open_select, server, wait_for, watched)

pytestmark = pytest.mark.browser
RUN_TIMEOUT_MS = 120_000
FILE_NAME = "airline <b>runs **three**.json"   # markup in a file's name (no "/": a path): shown as text, never drawn
RUN_SELECT = "Run of the uploaded file (3 runs)"
CODES = ("AAA111", "BBB222", "CCC333")


def _run(task: int, code: str, calls: int) -> dict:
    """One tau-bench record: a task id, a trial, a reward, and its conversation (`traj`) of `calls` tool calls."""
    traj = [{"role": "system", "content": "You are the airline's support agent. Confirm before any change."},
            {"role": "user", "content": f"Please check reservation {code}."}]
    for i in range(calls):
        traj.append({"role": "assistant", "content": None, "tool_calls": [{"id": f"c{i}", "type": "function", "function": {
            "name": "get_reservation_details", "arguments": json.dumps({"reservation_id": code})}}]})
        traj.append({"role": "tool", "tool_call_id": f"c{i}",
                     "content": json.dumps({"reservation_id": code, "cabin": "economy", "look": i})})
    traj.append({"role": "assistant", "content": f"Reservation {code} is confirmed."})
    return {"task_id": task, "trial": 0, "reward": 1.0, "traj": traj}


@pytest.fixture
def three_runs(tmp_path) -> Path:
    path = tmp_path / FILE_NAME
    path.write_text(json.dumps([_run(0, CODES[0], 1), _run(1, CODES[1], 2), _run(2, CODES[2], 4)]), encoding="utf-8")
    return path


def _page_text(page) -> str:
    return page.evaluate("""() => ['stMain', 'stSidebar'].map(id => document.querySelector(`[data-testid="${id}"]`)
        ?.innerText ?? '').join('\\n')""")


def _server_paths() -> list:
    from scratchpad_lab.ui.library import samples_dir

    store = os.environ.get("SCRATCHPAD_LAB_DB", "")
    paths = ["/work/", "../shared", str(REPO), str(samples_dir().resolve())]
    return paths + ([str(Path(store).parent)] if store and "://" not in store else [])


def test_a_file_of_many_runs_offers_each_run_and_replays_the_one_picked(watched, three_runs):
    page, errors = watched
    page.set_viewport_size({"width": 1280, "height": 800})
    page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]', has_text="Runs").click()
    page.get_by_role("heading", name="Scratchpad Lab · Runs").wait_for()
    wait_for(page, IDLE_JS, "opening Runs")

    page.locator('[data-testid="stFileUploaderDropzone"] input[type=file]').first.set_input_files(str(three_runs))
    # the file's first run is replayed (a job) and opened by itself; the select of its runs is under the uploader
    wait_for(page, PICKED_JS, "the file's first run was not opened", RUN_TIMEOUT_MS, arg=["Open run", "upload #1 · run 1 of 3 · "])
    wait_for(page, IDLE_JS, "the upload did not settle", RUN_TIMEOUT_MS)
    box = page.get_by_role("combobox", name=RUN_SELECT, exact=True)
    assert box.input_value() == "run 1 of 3 · task 0, trial 0"
    offered = [o.strip() for o in open_select(page, RUN_SELECT).all_inner_texts()]
    page.keyboard.press("Escape")
    assert offered == ["run 1 of 3 · task 0, trial 0", "run 2 of 3 · task 1, trial 0", "run 3 of 3 · task 2, trial 0"]
    page.get_by_text("This file holds 3 runs (0 could not be imported)", exact=False).wait_for()

    # run 3 picked: replayed with the package defaults and opened as an upload of its own
    choose(page, RUN_SELECT, "run 3 of 3 · task 2, trial 0")
    wait_for(page, PICKED_JS, "run 3 was not opened", RUN_TIMEOUT_MS, arg=["Open run", "upload #2 · run 3 of 3 · "])
    wait_for(page, IDLE_JS, "run 3 did not settle", RUN_TIMEOUT_MS)
    page.get_by_text("Showing the whole run (5 iterations).", exact=True).wait_for()
    assert box.input_value() == "run 3 of 3 · task 2, trial 0"  # the pick stays (it went back to run 1 once)
    codes = "\n".join(page.locator('[data-testid="stCode"]').all_inner_texts())
    assert CODES[2] in codes and CODES[0] not in codes, "the scratchpad shown is run 3's"
    text = _page_text(page)
    assert "--conversation" not in text and "conversation 1" not in text, "no pointer to a command-line flag"
    assert [p for p in _server_paths() if p in text] == [], "a server path on the Runs page"

    # the stored runs: each named by the file and the run, the file's markup drawn as text
    stored = [o.strip() for o in open_select(page, "Stored run").all_inner_texts()]
    markup = page.evaluate("""() => document.querySelectorAll(`[role="listbox"] b, [role="listbox"] strong,
        [role="listbox"] img`).length""")
    page.keyboard.press("Escape")
    assert any(f" · {FILE_NAME} · task 2, trial 0 · trace of 5 steps · stored " in o for o in stored), stored
    assert any(f" · {FILE_NAME} · task 0, trial 0 · trace of 2 steps · stored " in o for o in stored), stored
    assert markup == 0, "the file's name is drawn as text in the select"
    # no upload reads "Run 1" (a Playground run of another test, in the suite's shared store, is "Run 1 · its scenario")
    assert not [o for o in stored if " · Run 1 · " in o and "trace of" in o], stored

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        box.evaluate(SCROLL_UNDER_HEADER_JS)
        after_layout(page)
        assert box.is_visible() and page.get_by_role("combobox", name="Open run", exact=True).count() == 1
        page.screenshot(path=str(ARTIFACTS / f"runs-picker-upload-{width}x{height}.png"))
        page.get_by_role("combobox", name="Stored run", exact=True).evaluate(SCROLL_UNDER_HEADER_JS)
        after_layout(page)
        page.screenshot(path=str(ARTIFACTS / f"runs-picker-stored-{width}x{height}.png"))
    assert page.locator('[data-testid="stException"]').count() == 0
    errors.check("the Runs page with a file of many runs")
