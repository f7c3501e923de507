"""Bench: N browser tabs each run the playground at once (pacing instant); how many show their finished
run and when, the server's CPU during the runs and after, and its memory before, at the peak, and after
the tabs close.

    python3 bench/tabs.py --tabs 20 --after 90
    python3 bench/tabs.py --tabs 20 --ttl 120      # Streamlit's own default session TTL, for comparison

It starts its own `streamlit run app.py` on a free localhost port (with .streamlit/config.toml, or the
--ttl given) and drives Debian's /usr/bin/chromium through Playwright. Bounded: each phase has a cap
(--wait-finished, --after). Prints one line per phase and a summary; it is a bench, not a test.

A tab shows its finished run when the run slot's status is no longer "running" or "paused" and the
"Show run" picker is drawn with run #1 (the full rerun after the run ended happened). Printed:
- memory, threads and live objects when idle (after a first run), at the peak, and after closing;
- how many tabs showed their finished run, and when (s after the first click: median and max);
- the server's CPU seconds (from /proc) during the runs, and in the 10 s after every tab had shown its
  finished run with the tabs still open (a refresh that never stops keeps that high; an idle page ~0).
(Folds in the former bench/many_tabs.py.) Issue 9 item 8 measured "3-8 of 20 pages ever showed the
finished run in 7 minutes, server at 85 % CPU".
"""
from __future__ import annotations

import argparse
import os
import signal
import statistics
import tempfile
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
from browser_support import CHROMIUM, CHROMIUM_ARGS as ARGS, free_port, healthy, stop_server  # noqa: E402

FINISHED_JS = """() => {
  const row = document.querySelector('.st-key-live_status');
  const pick = document.querySelector('input[aria-label="Show run"]');
  if (!row || !pick || !pick.value.startsWith('#1')) return false;
  for (const m of row.querySelectorAll('[data-testid="stMetric"]')) {
    const l = m.querySelector('[data-testid="stMetricLabel"]');
    if (l && l.innerText.trim() === 'status')
      return !['running', 'paused'].includes(m.querySelector('[data-testid="stMetricValue"]').innerText.trim());
  }
  return false;
}"""
QUIET_S = 10.0  # the CPU window after every tab showed its finished run


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


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tabs", type=int, default=10)
    ap.add_argument("--wait-finished", type=float, default=300.0, help="seconds to wait for every tab's run")
    ap.add_argument("--after", type=float, default=60.0, help="seconds to watch memory after the tabs close")
    ap.add_argument("--ttl", type=int, default=None, help="override server.disconnectedSessionTTL")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    port = free_port()
    cmd = [sys.executable, str(REPO / "bench" / "serve_with_report.py"), "run", "app.py", "--server.headless", "true", "--server.port",
           str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"]
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
            cpu0, started = cpu_seconds(proc.pid), time.monotonic()
            for page in pages:
                page.get_by_role("button", name="Run", exact=True).click()
            shown, peak = {}, 0.0
            while len(shown) < len(pages) and time.monotonic() - started < args.wait_finished:
                for i, page in enumerate(pages):
                    if i not in shown and page.evaluate(FINISHED_JS):
                        shown[i] = time.monotonic() - started
                        print(f"  tab {i + 1:>2} shows its finished run at {shown[i]:5.1f} s")
                peak = max(peak, rss_mb(proc.pid))
                time.sleep(0.25)
            took, cpu_runs = time.monotonic() - started, cpu_seconds(proc.pid) - cpu0
            times = sorted(shown.values())
            print(f"{len(shown)} of {len(pages)} tabs show their finished run ({took:.1f} s)"
                  + (f"; after {statistics.median(times):.1f} s median, {times[-1]:.1f} s max" if times else "")
                  + f"; server peak {peak:.0f} MB, {threads(proc.pid)} threads")
            # The tabs stay open and idle: a live refresh that never stopped would keep the server busy.
            cpu1, quiet0 = cpu_seconds(proc.pid), time.monotonic()
            while time.monotonic() - quiet0 < QUIET_S:
                peak = max(peak, rss_mb(proc.pid))
                time.sleep(0.5)
            cpu_after, quiet = cpu_seconds(proc.pid) - cpu1, time.monotonic() - quiet0
            print(f"server CPU: {cpu_runs:.1f} s over the {took:.1f} s of the runs ({cpu_runs / took:.0%} of a core); "
                  f"{cpu_after:.2f} s in the {quiet:.0f} s after ({cpu_after / quiet:.0%} of a core)")
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
        timing = f"median={statistics.median(times):.1f}s max={times[-1]:.1f}s " if times else ""
        print(f"summary: tabs={args.tabs} shown={len(shown)} {timing}cpu_runs={cpu_runs:.1f}s "
              f"cpu_after_{quiet:.0f}s={cpu_after:.2f}s idle={idle:.0f}MB peak={peak:.0f}MB "
              f"after_{last[0]:.0f}s={last[1]:.0f}MB threads_after={last[2]} after_visit_and_trim={after_visit:.0f}MB")
        return 0
    finally:
        stop_server(proc)


if __name__ == "__main__":
    sys.exit(main())
