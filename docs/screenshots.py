"""The README's and the guide's pictures of the app, drawn from the app itself so they can be redrawn.

    python docs/screenshots.py            # every picture
    python docs/screenshots.py playground # one (playground, runs, fork, compare, prompt_lab, strategies, lessons,
                                          #      health-playground, health-runs, health-strategies,
                                          #      benchmark-long-session)

Starts `streamlit run app.py` on a free localhost port, drives each page in Debian's headless chromium
(Playwright with executable_path=/usr/bin/chromium and the launch flags of tests/browser_support.py;
never `playwright install`) at 1280x800 as a visitor would, and writes docs/img/<page>.png. The
Playground is caught live, while its run is going, just after its first compression. The health-* pictures
are crops (CROPPED) of the window: a compression card with its failed health checks on the Playground and on
the Runs page, and the Strategies page's columns down to their rows of facts kept by kind and compressions
with a problem, each where a real run of the offline summarizer trips the checks (no event is made up); the
Strategies crop is taller than 800 px, so its window is 1280 wide and taller (WINDOWS). benchmark-long-session
benchmarks the real Claude Code session of ../shared/datasets/long-runs (never copied into the repository) on the
Benchmark page; without that file it is skipped with a line saying so. Every picture is
reduced to a palette of at most 128 colours (Pillow, which Streamlit already installs), so all of them
together stay a few hundred KB; the README shows the page tour's pictures small, the guide full size.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "docs" / "img"
SIZE = (1280, 800)
LONG_MS = 120_000
BENCHMARK_MS = 900_000  # 27 settings over a 400k-character session: 16 s on a quiet machine, minutes on a busy one
LONG_SESSION = (REPO.parent / "shared" / "datasets" / "long-runs" / "claude-code"
                / "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl")


class Unavailable(Exception):
    """A picture whose data is not on this machine: skipped, said in a line, and the others are drawn."""

sys.path.insert(0, str(REPO / "tests"))
from browser_support import (CHROMIUM, CHROMIUM_ARGS, COUNT_RERUNS_JS, IDLE_JS, METRIC_JS, free_port,  # noqa: E402
                             healthy, stop_server, wait_for_charts_drawn)


def _settle(page, timeout: int = LONG_MS) -> None:
    page.wait_for_function(IDLE_JS, timeout=timeout)


def _click_and_settle(page, button, timeout: int = LONG_MS) -> None:
    page.evaluate(COUNT_RERUNS_JS)
    button.click()
    page.wait_for_function(f"() => window.__labReruns >= 1 && ({IDLE_JS})()", timeout=timeout)


def _open(page, url: str, heading: str) -> None:
    page.goto(url)
    page.get_by_role("heading", name=heading).wait_for(timeout=LONG_MS)
    _settle(page)


def _charts(page, least: int) -> None:
    wait_for_charts_drawn(page, least, timeout=LONG_MS)  # the acceptance suite's own check: every chart drew
    page.wait_for_timeout(600)  # Vega's first paint after its marks exist


def _top(page, locator) -> None:
    """Scroll the page so `locator` is at the top of the window (under Streamlit's header)."""
    locator.first.evaluate("e => e.scrollIntoView({block: 'start'})")
    page.mouse.wheel(0, -70)
    page.wait_for_timeout(400)


def playground(page, server: str) -> None:
    _open(page, server + "/", "Scratchpad Lab · Playground")
    page.get_by_role("button", name="Run", exact=True).click()
    page.wait_for_function(f"() => ({METRIC_JS})('status') === 'running'", timeout=LONG_MS)
    # just after the first compression, while the run goes on: the newest compression is on screen
    page.wait_for_function(f"() => ({METRIC_JS})('compressions') === '1' && "
                           "document.querySelectorAll('[data-stale=\"true\"]').length === 0", timeout=LONG_MS)
    page.wait_for_timeout(300)


def runs(page, server: str) -> None:
    page.goto(server + "/?sample=support-ticket-tight&step=6")
    page.get_by_text("Showing iteration 6 of 14.").wait_for(timeout=LONG_MS)
    _settle(page)
    _charts(page, 1)
    # the opened run from its description down (the list of runs is above it, out of the picture): its step slider,
    # status row, scratchpad and the compression card of iteration 6
    _top(page, page.get_by_text("Open run", exact=True))


def fork(page, server: str) -> None:
    """The Runs page's What if...: the sample's first compression skipped, the fork beside the original."""
    page.goto(server + "/?sample=support-ticket-tight")
    _settle(page)
    page.get_by_text("Showing the whole run (14 iterations).").wait_for(timeout=LONG_MS)
    _settle(page)
    box = page.locator(".st-key-runs_fork_whatif")
    box.wait_for(timeout=LONG_MS)
    _top(page, box)
    _click_and_settle(page, box.get_by_role("button", name="What if..."))
    page.locator(".st-key-runs_fork_chart").wait_for(timeout=LONG_MS)
    _settle(page)
    _charts(page, 2)
    _top(page, page.get_by_text("The fork at iteration", exact=False))


def compare(page, server: str) -> None:
    _open(page, server + "/compare", "Scratchpad Lab · Compare")
    _click_and_settle(page, page.locator(".st-key-cmp_run").get_by_role("button", name="Compare", exact=True))
    page.get_by_text("All the numbers").wait_for(timeout=LONG_MS)
    _charts(page, 1)
    # the main area's chart: the frame's hidden warm-up chart (ui/warm.py) comes first in the page
    _top(page, page.locator('[data-testid="stMain"] [data-testid="stVegaLiteChart"], '
                            '[data-testid="stMain"] [data-testid="stArrowVegaLiteChart"]'))
    page.mouse.wheel(0, -260)
    page.wait_for_timeout(400)


def prompt_lab(page, server: str) -> None:
    _open(page, server + "/prompt_lab", "Scratchpad Lab · Prompt lab")
    _click_and_settle(page, page.get_by_role("button", name="Run the matrix"))
    page.wait_for_function("() => document.body.innerText.includes(' cells in')", timeout=LONG_MS)
    _settle(page)
    _top(page, page.get_by_role("heading", name="4 · Run the matrix"))


def strategies(page, server: str) -> None:
    _open(page, server + "/strategies", "Scratchpad Lab · Strategies")
    _click_and_settle(page, page.get_by_role("button", name="Run strategies", exact=True))
    page.get_by_role("heading", name="What each strategy sent").wait_for(timeout=LONG_MS)
    _charts(page, 1)
    _top(page, page.get_by_role("heading", name="Context sent at each step"))


def lessons(page, server: str) -> None:
    page.goto(server + "/?lesson=1")
    page.get_by_role("heading", name="Lesson 1:", exact=False).wait_for(timeout=LONG_MS)
    _settle(page)
    pace = page.get_by_role("slider", name="Pace: seconds per scripted step")
    page.evaluate(COUNT_RERUNS_JS)
    pace.press("Home")  # the fastest pace: the first pause comes at once
    page.wait_for_function(f"() => window.__labReruns >= 1 && ({IDLE_JS})()", timeout=LONG_MS)
    page.get_by_role("button", name="Start lesson").click()
    page.locator(".st-key-lesson_continue_0 button").wait_for(timeout=LONG_MS)
    _settle(page)
    _charts(page, 1)
    _top(page, page.locator(".st-key-lesson_callout_0"))


def _pick(page, label: str, option: str) -> None:
    """Choose `option` in the select labelled `label`, as a visitor does, and wait for the page to settle."""
    box = page.get_by_role("combobox", name=label, exact=True)
    if box.input_value() == option:  # chosen already: choosing it again runs nothing
        return
    page.evaluate(COUNT_RERUNS_JS)
    box.click()
    page.get_by_role("option", name=option, exact=True).click()
    page.wait_for_function(f"() => window.__labReruns >= 1 && ({IDLE_JS})()", timeout=LONG_MS)


def _land(page, locator, margin: int = 90) -> None:
    """Scroll so `locator`'s top is `margin` px below the window's top, clear of Streamlit's fixed header."""
    locator.first.evaluate(f"e => {{ e.style.scrollMarginTop = '{margin}px'; e.scrollIntoView({{block: 'start'}}); }}")
    page.wait_for_timeout(400)


def _card_top(page, card) -> dict:
    """The clip of a compression card's top: its header, red health chips, "why" narration, lost facts by
    kind, and the first lines of its merged text (the card is taller than the window)."""
    _land(page, card)
    box, text = card.bounding_box(), card.locator('[class*="st-key-"][class*="_merged"]').bounding_box()
    bottom = min(text["y"] + 150, SIZE[1])
    return {"x": box["x"] - 8, "y": box["y"] - 8, "width": box["width"] + 16, "height": bottom - box["y"] + 8}


def health_playground(page, server: str) -> dict:
    """A finished Tight run of the log-triage scenario; the card of its compression at iteration 12, which a size
    trigger follows at 13 (fires again at once) and which did not pay for itself (cost more than it saved)."""
    _open(page, server + "/", "Scratchpad Lab · Playground")
    _pick(page, "Scenario", "Log triage: checkout outage")
    _click_and_settle(page, page.get_by_role("button", name="Use it"))  # the first-look preset: Tight (2 / 2,000)
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_role("heading", name="Runs in this tab").wait_for(timeout=LONG_MS)
    page.get_by_role("combobox", name="Show run", exact=True).wait_for(timeout=LONG_MS)
    _settle(page)
    card = page.locator(".st-key-shown_0_card_1")  # newest first: 13, then 12
    card.get_by_text("Compression at iteration 12", exact=False).wait_for(timeout=LONG_MS)
    return _card_top(page, card)


def health_runs(page, server: str) -> dict:
    """The support-ticket-tight sample opened on the Runs page at its compression of iteration 4 (a link's
    card=4): a size trigger fired again at iteration 5, so its card says it fires again at once."""
    page.goto(server + "/?sample=support-ticket-tight&card=4")
    page.get_by_text("Showing iteration 4 of 14.").wait_for(timeout=LONG_MS)
    _settle(page)
    _charts(page, 1)
    card = page.locator(".st-key-runs_view_card_0")
    card.get_by_text("Compression at iteration 4", exact=False).wait_for(timeout=LONG_MS)
    return _card_top(page, card)


def health_strategies(page, server: str) -> dict:
    """The default three strategies on the log-triage-defaults sample, in the columns under the table (the
    table's rows, one column per strategy, as text): the middleware's compressions cost more than they saved,
    LangMem's dropped the user's newest message, deepagents compressed nothing. A column from its title to its
    last rows is taller than 800 px, so this one window is taller (WINDOWS), as wide: the same layout."""
    _open(page, server + "/strategies", "Scratchpad Lab · Strategies")
    _pick(page, "Trajectory", "sample · log-triage-defaults.json")
    _click_and_settle(page, page.get_by_role("button", name="Run strategies", exact=True))
    page.get_by_role("heading", name="What each strategy sent").wait_for(timeout=LONG_MS)
    _settle(page)
    titles = page.locator('[data-testid="stMarkdownContainer"] div[style*="border-top"]')
    _land(page, titles)
    heads = [titles.nth(i).bounding_box() for i in range(titles.count())]
    health = page.locator('[data-testid="stText"]').filter(has_text="compressions with a problem:")
    bottom = max(b["y"] + b["height"] for b in (health.nth(i).bounding_box() for i in range(health.count())))
    left, right = heads[0]["x"] - 12, heads[-1]["x"] + heads[-1]["width"] + 12
    return {"x": left, "y": heads[0]["y"] - 12, "width": right - left, "height": bottom + 14 - (heads[0]["y"] - 12)}


def benchmark_long_session(page, server: str) -> None:
    """The Benchmark page on the real Claude Code session of ../shared (LONG_SESSION: 217 replies, a manual
    compaction), uploaded as a dataset of one run and benchmarked under every default strategy and its own compaction:
    the front chart, the chosen points starred, with the table's first rows under it."""
    if not LONG_SESSION.exists():
        raise Unavailable(f"needs {LONG_SESSION} (real data beside the repository, never copied into it)")
    _open(page, server + "/benchmark", "Scratchpad Lab · Benchmark")
    _click_and_settle(page, page.get_by_text("Upload a dataset file", exact=True))
    page.locator('[data-testid="stFileUploaderDropzone"] input[type=file]').first.set_input_files(str(LONG_SESSION))
    page.wait_for_function("""() => { const b = [...document.querySelectorAll('button')]
        .find(e => e.innerText.trim() === 'Run the benchmark'); return b && !b.disabled; }""", timeout=LONG_MS)
    _settle(page)
    _click_and_settle(page, page.get_by_role("button", name="Run the benchmark", exact=True), BENCHMARK_MS)
    page.get_by_text("For the lowest peak", exact=False).first.wait_for(timeout=BENCHMARK_MS)
    _settle(page, BENCHMARK_MS)
    _charts(page, 1)
    _land(page, page.locator(".st-key-bench_chart"), margin=110)  # the y axis's title whole, under the header


SHOTS = {"playground": playground, "runs": runs, "fork": fork, "compare": compare, "prompt_lab": prompt_lab,
         "strategies": strategies, "lessons": lessons, "health-playground": health_playground,
         "health-runs": health_runs, "health-strategies": health_strategies,
         "benchmark-long-session": benchmark_long_session}
CROPPED = ("health-playground", "health-runs", "health-strategies")  # a part of the window (a clip), not all of it
WINDOWS = {"health-strategies": (SIZE[0], 1200)}  # as wide as SIZE (the same layout), taller: its clip is
                                                    # over 800 px tall


def optimise(path: Path) -> None:
    from PIL import Image

    image = Image.open(path).convert("RGB")
    image.quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        path, optimize=True)


def main(names: list) -> None:
    from playwright.sync_api import sync_playwright

    unknown = [n for n in names if n not in SHOTS]
    if unknown:
        raise SystemExit(f"unknown picture(s) {', '.join(unknown)}; choose from {', '.join(SHOTS)}")
    OUT.mkdir(parents=True, exist_ok=True)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("SCRATCHPAD_LAB_SAMPLES", "SCRATCHPAD_LAB_HOSTED")}
    # A store of its own, empty, in a temporary folder: the pictures show no one's runs, and the Playground
    # run they make is stored nowhere that lasts.
    store = tempfile.mkdtemp(prefix="scratchpad-lab-pictures-")
    env.update(SCRATCHPAD_LAB_DB=str(Path(store) / "lab.db"), XDG_DATA_HOME=store)
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                             "--server.port", str(port), "--server.address", "127.0.0.1",
                             "--browser.gatherUsageStats", "false"], cwd=REPO, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while not healthy(server):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("streamlit did not start")
            time.sleep(0.2)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            # The root URL first: a link straight to a page that is a new server's very first request opens
            # that page without the app's frame (Streamlit's pages-folder mode, until app.py has run once).
            warm = browser.new_page()
            warm.goto(server)
            warm.get_by_role("button", name="Run", exact=True).wait_for(timeout=LONG_MS)
            warm.close()
            for name in names or list(SHOTS):
                width, height = WINDOWS.get(name, SIZE)
                context = browser.new_context(viewport={"width": width, "height": height})
                page = context.new_page()
                page.set_default_timeout(30_000)
                try:
                    clip = SHOTS[name](page, server)
                except Unavailable as why:
                    print(f"skipped {name}: {why}")
                    context.close()
                    continue
                if (clip is not None) != (name in CROPPED):
                    raise SystemExit(f"{name}: a cropped picture returns its clip, a whole window returns nothing")
                if clip is not None and (clip["y"] < 0 or clip["y"] + clip["height"] > height):
                    raise SystemExit(f"{name}: what it shows does not fit in its {width}x{height} window")
                path = OUT / f"{name}.png"
                page.screenshot(path=str(path), clip=clip)
                context.close()
                optimise(path)
                print(f"wrote {path.relative_to(REPO)} ({path.stat().st_size / 1024:.0f} KB)")
            browser.close()
    finally:
        stop_server(proc)


if __name__ == "__main__":
    main(sys.argv[1:])
