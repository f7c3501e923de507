"""The guide's Strategies picture and table, from the page's own code on the shipped log-triage sample.

`python docs/strategies_figure.py` starts this file under `streamlit run` (Streamlit ships the Vega
renderer; no network), opens it in Debian's headless chromium and saves the chart as
docs/img/strategies-chart.png (under `streamlit run` it only draws the chart). `python docs/strategies_figure.py
--table` writes the table of figures into docs/strategies.md, between its two `strategies-table`
markers, from `run_strategies` (the rows `scratchpad-lab strategies --json` prints); tests/test_docs.py
checks that the committed table is what the strategies give now.
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
         "langmem:max_tokens=800,max_summary_tokens=200",
         "clear-tool-uses:trigger=1500,keep=2",
         "langchain-summarization:trigger_tokens=1500,keep_messages=4,trim_tokens_to_summarize=none"]


PAGE = REPO / "docs" / "strategies.md"
BEGIN, END = "<!-- strategies-table -->", "<!-- /strategies-table -->"
SETTINGS_WORDS = {"summarize_every": "every {}", "max_scratchpad_chars": "{:,}", "agent_trim_chars": "trim {:,}",
                  "trigger_tokens": "trigger {:,} tokens", "keep_messages": "keep {} messages",
                  "max_tokens": "max_tokens {:,}", "max_summary_tokens": "summary {:,}", "trigger": "trigger {:,}",
                  "keep": "keep {}", "trim_tokens_to_summarize": "no trim"}


def table() -> str:
    """The figures of SPECS on TRAJECTORY as a markdown table (the words of every page and command)."""
    from scratchpad_lab.analysis.figures import facts_kept_text, percent, percent_or
    from scratchpad_lab.engine.strategies import parse_spec, run_strategies
    from scratchpad_lab.model.records import load_path

    from scratchpad_lab.engine.strategies.registry import strategy

    rows = [r.row() for r in run_strategies(load_path(TRAJECTORY), [parse_spec(s) for s in SPECS])]
    peaks = {strategy(r["strategy"]).context: r["baseline_peak_tokens"] for r in rows}
    lines = [f"Doing nothing peaks at {peaks['scratchpad']:,} tokens here as the agent's scratchpad (what the "
             f"autourgos strategies are read against) and at {peaks['messages']:,} tokens as messages (what the "
             "message strategies are read against).", "",
             "| strategy (settings) | compressions | summarizer calls | summarizer tokens in / out "
             "| peak (% of none) | mean | saved | facts at the answer | facts kept | through trims | files |",
             "|---" * 11 + "|"]
    for spec, r in zip(SPECS, rows):
        given = [kv.split("=") for kv in spec.split(":", 1)[1].split(",")]  # as given, not the defaults
        settings = ", ".join(SETTINGS_WORDS.get(k, k + " {}").format(r["settings"][k]) for k, _ in given)
        lines.append(
            f"| {r['strategy']} ({settings}) | {r['compressions']} | {r['summarizer_calls']} "
            f"| {r['summarizer_tokens_in']:,} / {r['summarizer_tokens_out']:,} "
            f"| {r['peak_context_tokens']:,} ({percent(r['peak_share'])}) "
            f"| {r['mean_context_tokens']:,.0f} | {percent(r['saved_share'])} | {percent(r['facts_at_answer'])} "
            f"| {facts_kept_text(r['facts_retained'], r['compressions'] > 0)} "
            f"| {percent_or(r['trim_facts_retained'], 'no trim')} | {r['offloaded_files']} |")
    return "\n".join(lines)


def page_with_table(page: str, text: str) -> str:
    """`page` with the text between its two markers replaced by `text`."""
    head, _, rest = page.partition(BEGIN)
    _, _, tail = rest.partition(END)
    if not rest or END not in rest:
        raise SystemExit(f"{PAGE} has no {BEGIN} ... {END} block")
    return f"{head}{BEGIN}\n{text}\n{END}{tail}"


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
    from screenshots import optimise  # this folder's: the same palette reduction as the page pictures
    optimise(out)
    print(f"wrote {out.relative_to(REPO)} ({out.stat().st_size / 1024:.0f} KB)")


if __name__ == "__main__":
    try:
        from streamlit.runtime import exists as _in_streamlit
    except ImportError:  # pragma: no cover
        _in_streamlit = lambda: False  # noqa: E731
    if _in_streamlit():
        draw()
    elif sys.argv[1:] == ["--table"]:
        PAGE.write_text(page_with_table(PAGE.read_text(encoding="utf-8"), table()), encoding="utf-8")
        print(f"wrote the table in {PAGE.relative_to(REPO)}")
    else:
        capture(REPO / "docs" / "img" / "strategies-chart.png")
