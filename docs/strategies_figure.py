"""The README's Strategies picture, drawn by the page's own chart code (ui/strategies_chart.py).

`python docs/strategies_figure.py` starts this file under `streamlit run` (Streamlit ships the Vega
renderer; no network), opens it in Debian's headless chromium and saves the chart as
docs/strategies.png. Under `streamlit run` it only draws the chart.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TRAJECTORY = REPO / "sample_runs" / "log-triage-defaults.json"
SPECS = ["autourgos-middleware:summarize_every=3,max_scratchpad_chars=3000,agent_trim_chars=6000",
         "autourgos-builtin:summarize_every=3,max_scratchpad_chars=3000",
         "trim-only:agent_trim_chars=3000",
         "deepagents:trigger_tokens=1500,keep_messages=4",
         "langmem:max_tokens=800,max_summary_tokens=200"]


def draw() -> None:
    import streamlit as st

    from scratchpad_lab.model.records import load_path
    from scratchpad_lab.engine.strategies import parse_spec, run_strategies
    from scratchpad_lab.ui.strategies_chart import chart

    st.set_page_config(layout="wide")
    results = run_strategies(load_path(TRAJECTORY), [parse_spec(s) for s in SPECS])
    st.altair_chart(chart(results, width=900, height=380).properties(
        title="log-triage sample: context tokens sent at each step, tight settings"), width="content")


def capture(out: Path) -> None:
    sys.path.insert(0, str(REPO / "tests"))
    from browser_support import CHROMIUM, CHROMIUM_ARGS, free_port, stop_server
    from playwright.sync_api import sync_playwright

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", __file__, "--server.headless", "true",
                             "--server.port", str(port), "--server.address", "127.0.0.1",
                             "--browser.gatherUsageStats", "false"], cwd=REPO, env=dict(os.environ),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("streamlit did not start")
                time.sleep(0.2)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 800})
            page.goto(f"http://127.0.0.1:{port}")
            chart = page.locator('[data-testid="stVegaLiteChart"], [data-testid="stArrowVegaLiteChart"]').first
            chart.wait_for(timeout=120_000)
            page.wait_for_timeout(800)  # the chart's first render
            chart.screenshot(path=str(out))
            browser.close()
    finally:
        stop_server(proc)
    print(f"wrote {out}")


if __name__ == "__main__":
    try:
        from streamlit.runtime import exists as _in_streamlit
    except ImportError:  # pragma: no cover
        _in_streamlit = lambda: False  # noqa: E731
    if _in_streamlit():
        draw()
    else:
        capture(REPO / "docs" / "strategies.png")
