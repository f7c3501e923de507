"""Bench: N browser tabs each run the playground at once (pacing instant); how many show their finished
run, and the server's memory before, at the peak, and after the tabs close.

    python3 bench/tabs.py --tabs 20 --after 90
    python3 bench/tabs.py --tabs 20 --ttl 120      # Streamlit's own default session TTL, for comparison

It starts its own `streamlit run app.py` on a free localhost port (with .streamlit/config.toml, or the
--ttl given) and drives Debian's /usr/bin/chromium through Playwright. Bounded: each phase has a cap
(--wait-finished, --after). Prints one line per phase and a summary; it is a bench, not a test.
"""
from __future__ import annotations

import argparse
import os
import signal
import socket
import tempfile
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
FINISHED_JS = """() => document.querySelector('input[role="combobox"][aria-label="Show run"]')
  ?.value?.startsWith('#1') === true"""


def _instant(page) -> None:
    """Set the tab's pacing to "instant" and wait until its rerun has reached the page."""
    page.get_by_role("button", name="Run", exact=True).wait_for()
    slider = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]').get_by_role("slider", name="Pacing")
    slider.press("Home")
    for _ in range(240):
        if slider.get_attribute("aria-valuetext") == "instant":
            break
        time.sleep(0.25)
    time.sleep(1)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def report(proc, trim: bool = False) -> str:
    """What the server holds now (see bench/serve_with_report.py), after a gc.collect()."""
    path = Path(os.environ["LAB_REPORT"])
    before = path.read_text() if path.exists() else ""
    os.kill(proc.pid, signal.SIGUSR1 if trim else signal.SIGUSR2)
    for _ in range(100):
        text = path.read_text() if path.exists() else ""
        if text.count("threads:") > before.count("threads:"):
            return "    " + text[len(before):].strip().replace("\n", "\n    ")
        time.sleep(0.1)
    return "    (no report)"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/_stcore/health", timeout=1) as reply:
            return reply.status == 200
    except OSError:
        return False


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tabs", type=int, default=10)
    ap.add_argument("--wait-finished", type=float, default=120.0, help="seconds to wait for every tab's run")
    ap.add_argument("--after", type=float, default=60.0, help="seconds to watch memory after the tabs close")
    ap.add_argument("--ttl", type=int, default=None, help="override server.disconnectedSessionTTL")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    port = free_port()
    cmd = [sys.executable, str(REPO / "bench" / "serve_with_report.py"), "run", "app.py", "--server.headless", "true", "--server.port",
           str(port), "--server.address", "127.0.0.1"]
    if args.ttl is not None:
        cmd += ["--server.disconnectedSessionTTL", str(args.ttl)]
    env = {k: v for k, v in os.environ.items() if k != "SCRATCHPAD_LAB_SAMPLES"}
    os.environ["LAB_REPORT"] = env["LAB_REPORT"] = tempfile.mktemp(prefix="lab-report-")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "src"), env.get("PYTHONPATH")]))  # this checkout
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 40
        while not healthy(url):
            if proc.poll() is not None or time.monotonic() > deadline:
                print("streamlit did not start", file=sys.stderr)
                return 1
            time.sleep(0.2)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            # One page loaded once, so the idle figure includes the imports a first session pays for.
            # A first tab runs once, so the idle figure includes what the first run of the process loads
            # (imports, tokenizer, chart libraries) and the rest measures what each tab adds.
            warm = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
            warm.set_default_timeout(60_000)
            warm.goto(url)
            _instant(warm)
            warm.get_by_role("button", name="Run", exact=True).click()
            warm.wait_for_function(FINISHED_JS, timeout=120_000)
            warm.context.close()
            time.sleep(2)
            idle = rss_mb(proc.pid)
            print(f"idle (one tab ran once and closed): {idle:.0f} MB, {threads(proc.pid)} threads")
            print(report(proc))
            contexts, pages = [], []
            for _ in range(args.tabs):
                ctx = browser.new_context(viewport={"width": 1280, "height": 800})
                page = ctx.new_page()
                page.set_default_timeout(60_000)
                page.goto(url)
                contexts.append(ctx)
                pages.append(page)
            for page in pages:
                _instant(page)
            time.sleep(1)
            started = time.monotonic()
            for page in pages:
                page.get_by_role("button", name="Run", exact=True).click()
            shown, peak = set(), 0.0
            while len(shown) < len(pages) and time.monotonic() - started < args.wait_finished:
                for i, page in enumerate(pages):
                    if i not in shown and page.evaluate(FINISHED_JS):
                        shown.add(i)
                        print(f"  tab {i + 1:>2} shows its finished run at {time.monotonic() - started:5.1f} s")
                peak = max(peak, rss_mb(proc.pid))
                time.sleep(0.5)
            took = time.monotonic() - started
            print(f"{len(shown)} of {len(pages)} tabs show their finished run ({took:.1f} s); "
                  f"server peak {peak:.0f} MB, {threads(proc.pid)} threads")
            print(report(proc))
            for ctx in contexts:
                ctx.close()
            closed = time.monotonic()
            samples = []
            while time.monotonic() - closed < args.after:
                time.sleep(5)
                samples.append((time.monotonic() - closed, rss_mb(proc.pid), threads(proc.pid)))
                print(f"  {samples[-1][0]:5.0f} s after closing: {samples[-1][1]:.0f} MB, {samples[-1][2]} threads")
            print(report(proc))
            # Streamlit drops expired disconnected sessions only when its session store is next touched:
            # one more visit does that (as the next visitor of a real server would).
            visit = browser.new_context()
            visit.new_page().goto(url)
            visit.pages[0].get_by_role("button", name="Run", exact=True).wait_for(timeout=60_000)
            visit.close()
            time.sleep(3)
            print(f"  after one more visit: {rss_mb(proc.pid):.0f} MB, {threads(proc.pid)} threads")
            print(report(proc, trim=True))
            after_visit = rss_mb(proc.pid)
            browser.close()
        last = samples[-1] if samples else (0, rss_mb(proc.pid), threads(proc.pid))
        print(f"summary: tabs={args.tabs} shown={len(shown)} idle={idle:.0f}MB peak={peak:.0f}MB "
              f"after_{last[0]:.0f}s={last[1]:.0f}MB threads_after={last[2]} after_visit_and_trim={after_visit:.0f}MB")
        return 0
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


if __name__ == "__main__":
    sys.exit(main())
