"""The Benchmark page: every strategy over a grid of settings on a dataset of runs, measured by the arguments the
agent's later tool calls needed (engine/studies/benchmark.py; `scratchpad-lab bench` is the same study).

A dataset is the lab's sample runs, a file or folder in the folder the operator configures
(SCRATCHPAD_LAB_DATASETS_DIR), or an upload. The study runs as a job (engine/benchmark.benchmark_job) in its own
slot, drawn by the one live fragment (ui/live.py) with its progress and Stop; a stopped benchmark keeps what
finished. Where it runs (this machine's processes, or a Ray cluster) is the operator's setting (secrets or
environment, engine/cells/executor.py), never a visitor's; the page says which. The result: the front chart of dataset
means with interval whiskers, the table with the chosen points marked (Benchmark.rows(): with each setting's facts
kept by kind, means over the runs it compressed, and its runs with each problem, in the Strategies table's words),
the chosen points' sentences, and a
setting's worst runs with the values each lost; clicking a point on the chart picks its setting, and each worst run
opens in the Strategies view at the call where it lost an argument (ui/worst_runs.py). With the "Re-decide the next
call" switch on, the next calls are re-decided by a model after the benchmark (ui/decide_view.py). Every text
from a dataset (run names, lost values) is shown as text (st.text, a dataframe cell), never as markdown.
"""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any, Dict, List, Optional

import altair as alt
import pandas as pd
import streamlit as st

from scratchpad_lab.engine.strategies.registry import default_names, names, strategy
from scratchpad_lab.engine.tasks import (Benchmark, BenchmarkRequest, benchmark, choice_from_settings, read_dataset,
                                         read_dataset_bytes, take_away_for_label)
from scratchpad_lab.model.errors import LabError
from scratchpad_lab.model.results import RECOVERABLE_COLUMN
from scratchpad_lab.ui import decide_view, live
from scratchpad_lab.ui.charts import CHOSEN, LEGEND, LEVEL, fitted_domain
from scratchpad_lab.ui.strategies_chart import STRATEGY_LEGEND
from scratchpad_lab.ui.library import samples_dir
from scratchpad_lab.ui.problems import show_problem
from scratchpad_lab.ui.recommend_view import show_take_away
from scratchpad_lab.ui.setting_words import label_words, sentence_words
from scratchpad_lab.ui.store_view import shown_source, store_result
from scratchpad_lab.ui.state import (BENCH_CHART_PICK, BENCH_DECIDE_JOB, BENCH_JOB, BENCH_RAN, BENCH_RESULT,
                                     BENCH_STARTED, init_session, page_secrets)
from scratchpad_lab.ui.summarizer_picker import summarizer_picker
from scratchpad_lab.ui.worst_runs import STRATEGIES_PAGE, open_worst

DATASETS_ENV = "SCRATCHPAD_LAB_DATASETS_DIR"
SAMPLES, CONFIGURED, UPLOAD = "The lab's sample runs", "A dataset of this lab's datasets folder", "Upload a dataset file"
PROBLEM = "The benchmark could not run on this dataset."
DEFAULT_RUNS = 20


def datasets_dir() -> Optional[Path]:
    configured = os.environ.get(DATASETS_ENV)
    return Path(configured) if configured and Path(configured).is_dir() else None


def without_paths(text: str) -> str:
    """`text` with the server's folders of datasets (the samples', the configured one) written as their names: a
    visitor is never shown where a dataset is kept (a broken run's reason, a dataset's problem quote its file)."""
    for folder in (samples_dir(), datasets_dir()):
        if folder is not None:
            for path in dict.fromkeys((str(folder.resolve()), str(folder))):
                text = text.replace(path, shown_source(str(folder)))
    return text


def _dataset(source: str, runs: int):
    """The dataset picked (None until there is one to run), named as a visitor may see it: by its file's name, never
    its path on the server (the benchmark's messages and its stored result quote the dataset's `source`)."""
    try:
        found = _read_dataset(source, runs)
    except LabError as exc:
        raise LabError(without_paths(exc.sentence)) from None
    return None if found is None else replace(found, source=shown_source(found.source))


def _read_dataset(source: str, runs: int):
    if source == SAMPLES:
        return read_dataset(samples_dir(), runs)
    if source == CONFIGURED:
        folder = datasets_dir()
        choices = sorted(p.name for p in folder.iterdir() if p.suffix.lower() in (".json", ".jsonl") or p.is_dir())
        if not choices:
            st.info(f"{DATASETS_ENV} holds no .json or .jsonl file or folder.")
            return None
        picked = st.selectbox("Dataset", choices, key="bench_configured")
        return read_dataset(folder / picked, runs)
    upload = st.file_uploader("A dataset file (.json or .jsonl of many runs, up to 10 MB)", type=["json", "jsonl"],
                              key="bench_upload")
    return None if upload is None else read_dataset_bytes(upload.getvalue(), upload.name, runs)


def executor() -> Any:
    """Where the benchmark runs: the operator's setting (secrets, else the environment; engine/cells/executor.py),
    never a visitor's: the page has no widget for it."""
    return choice_from_settings(os.environ, page_secrets())


def _collect(job: Any) -> None:
    if job.result is not None:
        request, decide = st.session_state.get(BENCH_STARTED) or (None, None)
        st.session_state[BENCH_RESULT], st.session_state[BENCH_RAN] = job.result, request
        stored = job.result.result()
        store_result(stored.kind, stored.rows, stored.labels, stored.source, stored.name, stored.measured_with)
        decide_view.start_after(request, decide, bool(job.result.stopped))


def front_rows(result: Benchmark) -> List[Dict[str, Any]]:
    """The chart's points: each setting with both means, its recall interval, whether it is on the front, and the
    budgets it was chosen for ("" when none)."""
    chosen: Dict[str, List[str]] = {}
    for c in result.chosen:
        if c.setting and c.budget not in chosen.setdefault(c.setting, []):
            chosen[c.setting].append(c.budget)
    return [{"setting": s.label, "settings": label_words(s.label), "strategy": s.strategy,
             "peak %": round(100 * s.mean("peak_share"), 1),
             "argument recall %": round(100 * s.means["argument_recall"]["mean"], 1),
             "low %": round(100 * s.means["argument_recall"]["low"], 1),
             "high %": round(100 * s.means["argument_recall"]["high"], 1),
             "front": "on the front" if s.on_front else "off it", "chosen for": "; ".join(chosen.get(s.label, []))}
            for s in result.settings if s.mean("argument_recall") is not None and s.mean("peak_share") is not None]


def front_chart(result: Benchmark) -> alt.Chart:
    """Each setting's mean peak against its mean argument recall, with the recall's 95 % interval as a whisker; the
    chosen points ringed and starred (the ★ of the table). Both axes fit the points (charts.fitted_domain): a range
    fixed at 0-100 put the no-compression point on the plot's corner, cut in half."""
    data = pd.DataFrame(front_rows(result))
    labels = list(dict.fromkeys(data["strategy"]))
    colours = [strategy(n).colour if n in names() else "#555555" for n in labels]
    scale = alt.Scale(domain=labels, range=colours)
    base = alt.Chart(data, width=900, height=360)
    x = alt.X("peak %:Q", title="peak context, % of no compression (lower is cheaper)", axis=alt.Axis(**LEVEL),
              scale=alt.Scale(domain=fitted_domain(data["peak %"]), nice=False, zero=False))
    y_scale = alt.Scale(domain=fitted_domain([*data["low %"], *data["high %"]]), nice=False, zero=False)
    colour = alt.Color("strategy:N", scale=scale, legend=alt.Legend(**STRATEGY_LEGEND))
    whiskers = base.mark_rule().encode(
        x=x, y=alt.Y("low %:Q", title="argument recall, % (95 % interval)", axis=alt.Axis(**LEVEL), scale=y_scale),
        y2="high %:Q", color=colour)
    pick = alt.selection_point(name="point", fields=["setting"], on="click")
    # the setting in words under the heading "setting" (the selection keeps its label, which the page maps back)
    tooltip = [alt.Tooltip("settings:N", title="setting"), "peak %", "argument recall %", "low %", "high %", "front",
               "chosen for"]
    dots = base.mark_point(filled=True, opacity=0.9).encode(
        x=x, y=alt.Y("argument recall %:Q", scale=y_scale), color=colour,
        size=alt.Size("front:N", scale=alt.Scale(domain=["on the front", "off it"], range=[240, 50]), legend=None),
        tooltip=tooltip).add_params(pick)
    chosen = base.transform_filter("datum['chosen for'] != ''")
    # a ring (hollow: a click inside it still reaches the dot under it) and a star above, named in a legend
    rings = chosen.mark_point(shape="circle", filled=False, size=700, strokeWidth=2.5, opacity=1).encode(
        x=x, y=alt.Y("argument recall %:Q", scale=y_scale),
        stroke=alt.Stroke("mark:N", scale=alt.Scale(domain=[CHOSEN], range=["#000000"]),
                          legend=alt.Legend(**{**LEGEND, "title": None, "columns": 1}, symbolType="circle")),
        tooltip=tooltip).transform_calculate(mark=f"'{CHOSEN}'")
    stars = chosen.mark_text(text="★", dy=-20, fontSize=18, color="#000000").encode(
        x=x, y=alt.Y("argument recall %:Q", scale=y_scale), tooltip=tooltip)
    return alt.layer(whiskers, dots, rings.properties(name="chosen_rings"), stars)


def clicked_setting(event: Any) -> Optional[str]:
    """The setting of the point clicked on the front chart (the selection `point`), or None."""
    try:
        chosen = event.selection.point  # type: ignore[union-attr]
    except AttributeError:
        return None
    return str(chosen[0]["setting"]) if chosen and "setting" in chosen[0] else None


# The table in two tabs, each readable whole at 1280 px (one of 14 columns was 5 in view): the figures the chart
# plots, then the rest; each setting's facts kept by kind and runs with a problem, sentences too long for a cell, are
# said in full for the setting picked below the table (`setting_details`). The stored result keeps every column.
INTERVAL = "95 % interval"
FIGURE_COLUMNS = ("setting", "runs", "argument recall %", INTERVAL, "peak %", "summarizer tokens", "front")
MORE_COLUMNS = ("setting", RECOVERABLE_COLUMN, "gold recall %", "never compressed %", "passed: recall %",
                "failed: recall %")
ROW_HEIGHT = 66  # px: three lines of a cell
MISSING = "–"   # a cell with no value (no run of that kind): never the word None
COLUMN_HELP = {
    "setting": "The strategy and its settings; ★ marks a chosen point (ringed on the chart).",
    "runs": "The runs this setting was measured on.",
    "argument recall %": "Mean over the runs: the share of the argument values the agent's later tool calls needed "
                         "that were still in the context it sent.",
    INTERVAL: "The 95 % bootstrap interval of the mean argument recall.",
    "peak %": "Mean over the runs: the largest context sent, as a share of the no-compression peak.",
    "summarizer tokens": "Mean over the runs: the tokens the summarizer was sent and wrote.",
    "front": "On the front: no other setting is as good on argument recall, peak, mean context and summarizer "
             "tokens and better on one.",
    RECOVERABLE_COLUMN: "Of the needed values, the share not in the context but in a file the context names.",
    "gold recall %": "Argument recall on the dataset's gold actions only.",
    "never compressed %": "The share of runs on which this setting never compressed.",
    "passed: recall %": "Mean argument recall over the runs that passed.",
    "failed: recall %": "Mean argument recall over the runs that failed.",
}


def setting_cell(label: str) -> str:
    """A row's setting as the table shows it: in words, a chosen point's ★ (Benchmark.rows()) kept in front."""
    star = "★ " if label.startswith("★ ") else ""
    return star + label_words(label[len(star):])


def table(result: Benchmark) -> pd.DataFrame:
    """Every column of the benchmark's rows (as stored), each setting in words (ui/setting_words.py: the stored rows
    keep the `--strategy` argument), the interval as one column and tokens as whole numbers."""
    frame = pd.DataFrame(result.rows())
    frame["setting"] = [setting_cell(label) for label in frame["setting"]]
    frame[INTERVAL] = [MISSING if low is None or high is None else f"{low:g}–{high:g}"
                       for low, high in zip(frame["low"], frame["high"])]
    frame["summarizer tokens"] = pd.to_numeric(frame["summarizer tokens"], errors="coerce").round().astype("Int64")
    return frame


def _columns(frame: pd.DataFrame, names: tuple) -> pd.DataFrame:
    """`names` of the frame, leaving out a column with no value in any row (gold recall without gold actions)."""
    return frame[[c for c in names if c in frame.columns and (c == "setting" or frame[c].notna().any())]]


def _column_config(frame: pd.DataFrame) -> Dict[str, Any]:
    config: Dict[str, Any] = {"setting": st.column_config.TextColumn("setting", help=COLUMN_HELP["setting"],
                                                                     width=240)}
    for name in frame.columns[1:]:
        if name in (INTERVAL, "front"):
            config[name] = st.column_config.TextColumn(name, help=COLUMN_HELP.get(name))
        else:
            config[name] = st.column_config.NumberColumn(
                name, help=COLUMN_HELP.get(name), format="localized" if name in ("runs", "summarizer tokens") else "%.1f")
    return config


def show_table(result: Benchmark) -> None:
    frame = table(result)
    figures, more = st.tabs(["Recall and cost", "More figures"])
    for tab, names_, key in ((figures, FIGURE_COLUMNS, "bench_table"), (more, MORE_COLUMNS, "bench_table_more")):
        shown = _columns(frame, names_)
        # rows of three lines (a row over 4rem wraps its text: a long setting reads whole in its column)
        tab.dataframe(shown, hide_index=True, key=key, width="stretch", placeholder=MISSING, row_height=ROW_HEIGHT,
                      height=38 + ROW_HEIGHT * min(len(shown), 8), column_config=_column_config(shown))


def setting_details(result: Benchmark, label: str) -> None:
    """The picked setting's facts kept by kind and its runs with a problem, in full (our words and numbers)."""
    found = result.setting(label)
    st.text(f"Facts kept by kind: {found.kinds_text}")
    st.text(f"Runs with a problem: {found.problems_text}")


def show(result: Benchmark) -> None:
    st.text(f"{len(result.runs)} runs ({len(result.broken)} could not be imported), {result.points_done:,} points in "
            f"{result.elapsed_s:,.1f} s; means over runs with 95 % bootstrap intervals (seed {result.seed}).")
    st.text(result.placement.sentence())
    for who, how in result.seen:  # our own words and counts
        st.caption(f"{who} saw each run {how}.")
    if result.stopped:
        st.warning("Stopped: the figures cover the runs that finished.")
    ran = st.session_state.get(BENCH_RAN)  # the request it ran: its dataset's traces give each run's peak
    by_name = {run.name: run.trace for run in getattr(getattr(ran, "dataset", None), "usable", [])}
    labels = [s.label for s in result.settings]
    for i, chosen in enumerate(result.chosen):
        st.text(sentence_words(chosen.sentence, labels))  # its settings in words, not as --strategy arguments
        traces = [by_name[r["name"]] for r in result.runs if chosen.setting in r["cells"] and r["name"] in by_name]
        if chosen.setting and traces:  # its figures on the runs it was measured on, and the package's code
            show_take_away(lambda label=chosen.setting, t=traces: take_away_for_label(label, t), f"bench_take_{i}")
    if result.separation:  # our own words and numbers: does argument recall tell passed from failed runs here?
        st.info(result.separation, icon=":material/compare_arrows:")
    event = st.altair_chart(front_chart(result), key="bench_chart", on_select="rerun", selection_mode="point")
    show_table(result)
    labels = [s.label for s in result.settings if s.worst]
    clicked = clicked_setting(event)
    if clicked != st.session_state.get(BENCH_CHART_PICK):  # a new click picks its setting once; the select stays free
        st.session_state[BENCH_CHART_PICK] = clicked
        if clicked in labels:
            st.session_state["bench_worst"] = clicked
    if labels:
        picked = st.selectbox("A setting's worst runs (lowest argument recall; click a point on the chart to pick "
                              "its setting)", labels, key="bench_worst", format_func=label_words)
        setting_details(result, picked)
        _worst_runs(result, picked)
    for name, why in result.broken[:10]:
        st.text(f"Not imported: {name}: {without_paths(why)}")


def worst_line(worst: Dict[str, Any]) -> str:
    """One worst run in words: what it kept, what sat in a file its context named (recoverable), what it lost
    where (the values quote the dataset: shown with st.text)."""
    def call(c: Dict[str, Any]) -> str:
        said = []
        if c.get("lost"):
            said.append(f"lost {', '.join(map(str, c['lost']))}")
        if c.get("recoverable"):
            said.append(f"offloaded to a file it names {', '.join(map(str, c['recoverable']))}")
        return f"call {c['iteration']} ({c['tool']}) " + " and ".join(said)
    recoverable = worst.get("recoverable")
    head = f"{worst['run']}: {worst['argument_recall']:.0%} kept" + (
        f", {recoverable:.0%} recoverable from its files" if recoverable else "")
    return head + ". " + "; ".join(call(c) for c in worst["lost"])


def _worst_runs(result: Benchmark, label: str) -> None:
    """Each worst run of the setting: what it lost where (text: it quotes the dataset), and a button that opens it
    in the Strategies view at the call where it lost the most."""
    ran = st.session_state.get(BENCH_RAN)
    for i, worst in enumerate(result.setting(label).worst):
        text, button = st.columns([3, 1], vertical_alignment="center")  # [5, 1] cut the button's words at 1280 px
        text.text(worst_line(worst))
        if button.button("Open in Strategies", key=f"bench_open_{i}", disabled=ran is None,
                         help="This run in the Strategies view under this setting, at the call where it lost the "
                              "most, with the lost values named.") and open_worst(result, ran, label, worst):
            st.switch_page(STRATEGIES_PAGE)


def page() -> None:
    init_session()
    st.title("Scratchpad Lab · Benchmark")
    st.caption("Every strategy over a grid of settings on a dataset of runs, each run replayed through the real "
               "packages; measured by whether the context each strategy sent still held the argument values the "
               "agent's later tool calls used (doing nothing keeps 100 % by construction).")
    try:
        where = executor()
    except LabError as exc:  # the operator's setting is wrong: say so, and run nothing
        show_problem("The benchmark's executor setting is wrong.", exc.sentence)
        return
    st.caption(f"Runs on {where.where}.")
    sources: List[str] = [SAMPLES] + ([CONFIGURED] if datasets_dir() else []) + [UPLOAD]
    source = st.radio("Dataset", sources, key="bench_source", horizontal=True)
    runs = int(st.number_input("Runs (the first N of the dataset)", 1, 5_000, DEFAULT_RUNS, key="bench_runs"))
    picked = st.multiselect("Strategies", names(), default=default_names(), key="bench_pick",
                            format_func=lambda n: strategy(n).title)
    summarizer = summarizer_picker("bench", "Summarizer (serves every strategy on every run)")
    deciding, decide = decide_view.decide_inputs(summarizer.kind)
    try:
        dataset = _dataset(source, runs)
    except LabError as exc:
        show_problem(PROBLEM, exc.sentence)
        dataset = None
    busy = live.busy(BENCH_JOB) or live.busy(BENCH_DECIDE_JOB)
    if st.button("Run the benchmark", key="bench_run",
                 disabled=dataset is None or not picked or busy or (deciding and decide is None)):
        request = BenchmarkRequest(dataset, picked, summarizer=summarizer, runs=runs, executor=where)
        st.session_state[BENCH_STARTED] = (request, decide)
        if live.start(BENCH_JOB, benchmark(request)):
            st.rerun()
    live.show(BENCH_JOB, on_end=_collect, problem=PROBLEM, errors=(LabError,))
    result = st.session_state.get(BENCH_RESULT)
    if result is not None:
        show(result)
    _, decide_fields = st.session_state.get(BENCH_STARTED) or (None, None)
    endpoint = (decide_fields or {}).get("endpoint")  # the deciding endpoint's model, for its list price
    decide_view.show(endpoint.model if endpoint is not None else None)
