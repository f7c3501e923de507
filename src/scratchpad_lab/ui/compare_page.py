"""The Compare page: one trajectory replayed under two to six compression settings, side by side, and a
sweep of the two middleware triggers shown as heatmaps.

The replays are the engine's (`compare.compare`): the agent's path is held fixed, so the settings are
compared on exactly the same work. They run as a job (one at a time for the page: a comparison or a
sweep), drawn by the one live fragment (ui/live.py) with its progress, replay by replay, and a Stop
button. The last comparison and the last sweep are kept in session state, so a rerun (choosing whose
cards to show, opening a sweep cell) never replays again. Text from a run or a
file is shown only as st.code/st.text or in dataframe cells; labels are our words and validated numbers.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Dict, List, Optional

import streamlit as st

from scratchpad_lab.engine.tasks import (COMPARE_SUMMARIZERS, MAX_GRID, SUMMARIZER_CHOICES, CompareRequest,
                                         ComparisonResult, Setting, compare, default_table, grid, parse_table,
                                         replay_source, summarizer_notice)
from scratchpad_lab.model.config import RunConfig, every_text, field_bounds, field_default, largest, parse_every
from scratchpad_lab.model.presets import presets
from scratchpad_lab.analysis.metrics import model_ids
from scratchpad_lab.analysis.figures import LABELS, facts_kept_text, figures, percent_or
from scratchpad_lab.analysis.health import counts_text
from scratchpad_lab.engine.jobs import Job
from scratchpad_lab.ui.builtin_notice import builtin_ready
from scratchpad_lab.analysis.pricing import cost_usd
from scratchpad_lab.analysis.quality import FLAGS, annotate
from scratchpad_lab.model.records import RunRecord
from scratchpad_lab.model.errors import LabError
from scratchpad_lab.ui.cards import compression_card
from scratchpad_lab.ui.charts import heatmap, overlay_chart
from scratchpad_lab.ui.endpoints import endpoint_widgets
from scratchpad_lab.ui.problems import show_error, show_problem
from scratchpad_lab.ui.runs_page import Entry, entries_with_upload, pick_entry
from scratchpad_lab.ui.state import (CMP_EDITED, CMP_JOB, CMP_RESULT, CMP_SOURCE, CMP_SWEEP, CMP_TABLE,
                                     PLAY_PRICES_BY_MODEL, PL_VERSIONS, init_session)
from scratchpad_lab.ui.store_view import show_message, store_result
from scratchpad_lab.ui import live
from scratchpad_lab.ui.sidebar_settings import SETTING_LABELS
from scratchpad_lab.ui.figure_tables import BEST, ROW_LABELS, best_in_row, percent_cells, percent_config
from scratchpad_lab.ui.view import render_run

if TYPE_CHECKING:  # pandas is imported where a table is built (the first page does without it)
    import pandas as pd

SWEEP_EVERY = ["off", "1", "2", "3", "4", "5", "6", "8", "10", "15", "20"]
NO_SIZE_TRIGGER = largest("max_scratchpad_chars")
SWEEP_CAPS = sorted({1_000, 2_000, 4_000, 8_000, field_default("max_scratchpad_chars"), 30_000, NO_SIZE_TRIGGER})
MAX_CARDS = 25
SHARES = ("facts_retained", "answer_score")  # shares in the number tables: whole percentages, as in the text
SCENARIO_KIND = ("Scenario run: each setting re-runs the scenario's deterministic scripted agent. It takes the "
                 "same steps (the same tool calls) every time, and its final answer still comes from what is "
                 "left in its scratchpad, so the answer score moves with the setting.")
RECORDED_KIND = ("Recorded trajectory: each setting replays the recorded steps exactly; the agent's model is "
                 "not called again. The final answer is the recorded one under every setting "
                 "(keeps_recorded_answer), so there is no answer score to compare: watch facts kept and "
                 "the scratchpad sizes instead.")


def _signature(entry: Entry, settings: List[Setting]) -> tuple:
    return (entry.key, tuple(tuple(sorted(s.changes().items())) for s in settings))


REPLAY_ERRORS = (LabError, KeyError, ValueError)  # every error a person can cause is a LabError
REPLAY_PROBLEM = "This run cannot be replayed here; nothing was compared."


def _collect(job: Job) -> None:
    result: Optional[ComparisonResult] = job.result
    if result is not None:
        st.session_state[CMP_SWEEP if result.kind == "sweep" else CMP_RESULT] = result
        store_result(result.kind, result.rows, result.labels, result.source)


def _start(entry: Entry, request: CompareRequest) -> None:
    """Start the replays as this page's job, unless the task refuses them first (the work limit, engine/limits.py)."""
    try:
        job = compare(request)
    except LabError as exc:
        show_error(exc, "This run cannot be replayed here; nothing was compared.")
        return
    if live.start(CMP_JOB, job):
        st.rerun()  # the live view above the tabs starts refreshing


# ── shown from a ComparisonResult ───────────────────────────────────────────

def _money(value: Optional[float]) -> str:
    return "no price known" if value is None else f"${value:.4f}"


def _flags_text(row: Dict) -> str:
    found = [f"{f} {row[f'flag {f}']}" for f in FLAGS if row.get(f"flag {f}")]
    return "Quality flags: " + (", ".join(found) if found else "none")


def preset_note(every: Optional[int], cap: int, summarizer: Optional[str], budget: int) -> Optional[str]:
    """When a setting has the two triggers of a preset (the sidebar names it "Tight (2 / 2,000)", so "every 2 /
    2,000" reads as Tight) but writes summaries of another length, the sentence that says so; else None. The
    extractive summarizer's budget is the replayed run's own: a row does not set it."""
    for preset in presets().values():
        want = preset.settings
        if (want["summarize_every"], want["max_scratchpad_chars"]) != (every, cap):
            continue
        if summarizer in (None, "extractive") and budget != want["extractive_budget_chars"]:
            return (f"The triggers of the preset {preset.label}, but extractive summaries of up to {budget:,} chars "
                    f"(this run's budget), where {preset.name} writes {want['extractive_budget_chars']:,}.")
        return None
    return None


def in_column_words(problem: str) -> str:
    """A row's problem named by the table's column headings (the sidebar's words), as the person reads them above
    it: "max_scratchpad_chars = 50 is not allowed" reads "Compress when over (chars) = 50 is not allowed"."""
    for name, words in SETTING_LABELS.items():
        problem = re.sub(rf"\b{name}\b", words, problem)
    return problem


def _setting_note(setting: Setting, base: RunConfig) -> Optional[str]:
    chosen = setting.summarizer or base.summarizer
    return preset_note(setting.summarize_every, setting.max_scratchpad_chars, chosen.kind, chosen.budget_chars)


def _column(index: int, result: ComparisonResult) -> None:
    st.subheader(f"Setting {index + 1}")
    st.text(result.labels[index])
    config = result.records[index].config
    note = preset_note(config.summarize_every, config.max_scratchpad_chars, config.summarizer.kind,
                       config.summarizer.budget_chars)
    if note:
        st.caption(note)  # our words and numbers
    st.text(_flags_text(result.rows[index]))


# The comparison's figure rows, in order; their labels and which way is better are ui/figure_tables.py's (Strategies too).
COMPARE_ROWS = ("compressions", "summarizer_calls", "summarizer_tokens_in", "summarizer_tokens_out",
                "summarizer_cost_usd", "peak_context_tokens", "mean_context_tokens", "context_tokens_saved",
                "net_tokens_saved", "facts_retained", "answer_score")
COMPARE_HELP = ("One column per setting. ★ marks the best value of a row among the settings that cut something "
                "(a setting that compressed and trimmed nothing reads as doing nothing, which is no "
                "achievement), when they differ. Tokens saved: the sum over iterations of the scratchpad tokens "
                "sent with compression off minus those sent with this setting (same steps, same agent trim); "
                "net: minus the summarizer's tokens in and out. Facts kept: the share of the facts in the "
                "scratchpad before each compression that survived it.")


def figures_table(result: ComparisonResult, prices: Optional[dict]) -> Dict[str, Dict[str, str]]:
    """{figure label: {"Setting N": its text, ★ on the row's best}}: the comparison as one table."""
    summaries = [figures(r.events, r.scenario, prices) for r in result.records]
    values = [{**row, "summarizer_cost_usd": f.summarizer_cost_usd} for row, f in zip(result.rows, summaries)]
    judged = [i for i, v in enumerate(values) if v["compressions"] > 0 or v["context_tokens_saved"] != 0]

    def text(key: str, i: int) -> str:
        v = values[i][key]
        if key == "summarizer_cost_usd":
            return _money(v)
        if key == "facts_retained":
            return summaries[i].facts_kept_text
        if key == "answer_score":
            return "recorded answer" if result.keeps_answer else percent_or(v, "no score")
        return f"{v:,.0f}" if isinstance(v, float) else f"{v:,}"

    table: Dict[str, Dict[str, str]] = {}
    for key in COMPARE_ROWS:
        best = set() if key == "answer_score" and result.keeps_answer else \
            best_in_row(key, {i: values[i][key] for i in judged})
        table[ROW_LABELS[key]] = {f"Setting {i + 1}": text(key, i) + (BEST if i in best else "")
                                  for i in range(len(values))}
    # the figures row's facts kept by kind and health counts, worded as the Strategies table words them
    table[ROW_LABELS["kept_by_kind"]] = {f"Setting {i + 1}": f.kinds_kept_text for i, f in enumerate(summaries)}
    table[ROW_LABELS["health"]] = {f"Setting {i + 1}": counts_text(f.health) for i, f in enumerate(summaries)}
    if any(f.pins for f in summaries):  # analysis/pin_checks.py's count, once the run has pins
        table[LABELS["pins"]] = {f"Setting {i + 1}": f.pins_kept_text for i, f in enumerate(summaries)}
    return table


def numbers_table(result: ComparisonResult) -> tuple:
    """(frame, column_config): every figure of every setting under the words the pages use (the sidebar's for the
    settings, the figure rows' for the figures, "off" for no periodic trigger), counts and token figures as whole
    numbers (a mean of tokens read 793.5), shares as whole percentages."""
    import pandas as pd  # lazy: the first page does without it
    frame = percent_cells(pd.DataFrame(result.rows), SHARES)
    if "summarize_every" in frame.columns:
        frame["summarize_every"] = [every_text(None if pd.isna(v) else int(v)) for v in frame["summarize_every"]]
    for name in frame.columns:
        if name not in SHARES and pd.api.types.is_float_dtype(frame[name]):
            frame[name] = frame[name].round().astype("Int64")
    words = {**SETTING_LABELS, **ROW_LABELS, "setting": "setting"}
    words.update({f"flag {f}": f"flagged: {f.replace('_', ' ')}" for f in FLAGS})
    names = {name: words.get(name, name.replace("_", " ")) for name in frame.columns}
    config = {names[name]: st.column_config.NumberColumn(names[name], format="localized")
              for name in frame.columns if name not in SHARES and pd.api.types.is_numeric_dtype(frame[name])}
    config.update(percent_config([names[name] for name in SHARES if name in frame.columns]))
    return frame.rename(columns=names), config


def _cards(record: RunRecord, key: str, prices: Optional[dict]) -> None:
    annotated = annotate(record.events)
    _, summarizer_model = model_ids(record.events)
    if not annotated:
        st.text("This setting never compressed.")
    elif len(annotated) > MAX_CARDS:
        st.text(f"Showing the first {MAX_CARDS} of {len(annotated)} compression cards.")
    for i, c in enumerate(annotated[:MAX_CARDS]):
        cost = cost_usd(summarizer_model, int(c.get("tokens_in") or 0), int(c.get("tokens_out") or 0), prices)
        compression_card(c, key=f"{key}_{i}", cost=cost)  # its badges carry the flags, its text the facts lost


def _stale(result: ComparisonResult, signature: tuple) -> None:
    if result.signature != signature:
        st.info("These results are for an earlier choice of run or settings; press the button to replay with "
                "the current ones.")


def show_comparison(result: ComparisonResult, signature: tuple, prices: Optional[dict]) -> None:
    import pandas as pd  # lazy: the first page does without it
    _stale(result, signature)
    for index, col in enumerate(st.columns(len(result.records))):
        with col:
            _column(index, result)
    st.dataframe(pd.DataFrame(figures_table(result, prices)).T, key="cmp_figures", width="stretch")
    st.caption(COMPARE_HELP)
    st.text("All the numbers")
    numbers, config = numbers_table(result)
    st.dataframe(numbers, hide_index=True, key="cmp_numbers", column_config=config)
    series = {label: r.events for label, r in zip(result.labels, result.records)}  # labels carry their #N
    for trim, baseline in result.baselines.items():
        name = "compression off" if len(result.baselines) == 1 else f"compression off, trim {trim:,}"
        series[name] = baseline.events
    st.text("Scratchpad tokens sent at each iteration, every setting in one chart")
    st.altair_chart(overlay_chart(series, "tokens"), width="stretch")
    choice = st.selectbox("Show the compression cards of", list(range(len(result.records))), key="cmp_cards_for",
                          format_func=lambda i: f"Setting {i + 1}: {result.labels[i]}")
    _cards(result.records[choice], f"cmp_card_{choice}", prices)


# ── sweep ───────────────────────────────────────────────────────────────────

SWEEP_COLUMNS = {"summarize_every": SETTING_LABELS["summarize_every"],
                 "max_scratchpad_chars": SETTING_LABELS["max_scratchpad_chars"],
                 **{k: ROW_LABELS[k] for k in ("context_tokens_saved", "summarizer_tokens", "answer_score",
                                              "facts_retained", "compressions")}}


def sweep_frame(result: ComparisonResult) -> pd.DataFrame:
    """The sweep's cells by field name (the heatmaps read them); `sweep_table` is what a person reads."""
    import pandas as pd  # lazy: the first page does without it
    rows = [{"summarize_every": every_text(r["summarize_every"]), "max_scratchpad_chars": r["max_scratchpad_chars"],
             "context_tokens_saved": r["context_tokens_saved"],
             "summarizer_tokens": r["summarizer_tokens_in"] + r["summarizer_tokens_out"],
             "answer_score": r["answer_score"], "facts_retained": r["facts_retained"],
             "compressions": r["compressions"]} for r in result.rows]
    return pd.DataFrame(rows)


def sweep_table(result: ComparisonResult, frame: pd.DataFrame) -> pd.DataFrame:
    """The sweep's numbers under the labels every page uses, never a field's raw name or a bare None: facts
    kept as everywhere ("no compression happened"), no answer score column when the answer is the recorded one."""
    shown = percent_cells(frame, SHARES)
    shown["facts_retained"] = [facts_kept_text(r["facts_retained"], r["compressions"] > 0) for r in result.rows]
    if result.keeps_answer or not frame["answer_score"].notna().any():
        shown = shown.drop(columns=["answer_score"])
    else:
        shown["answer_score"] = [percent_or(r["answer_score"], "no score") for r in result.rows]
    return shown.rename(columns=SWEEP_COLUMNS)


def show_sweep(result: ComparisonResult, signature: tuple, prices: Optional[dict]) -> None:
    _stale(result, signature)
    frame = sweep_frame(result)
    charts = [(name, ROW_LABELS[name], ",d") for name in ("context_tokens_saved", "summarizer_tokens")]
    if not result.keeps_answer and frame["answer_score"].notna().any():
        charts.append(("answer_score", ROW_LABELS["answer_score"], ".0%"))
    charts.append(("facts_retained", ROW_LABELS["facts_retained"], ".0%"))
    import altair as alt  # lazy: the first page does without it
    for start in range(0, len(charts), 2):
        for col, (name, title, fmt) in zip(st.columns(2), charts[start:start + 2]):
            chart = heatmap(frame, name, title, fmt, good=name != "summarizer_tokens",
                            axis_titles=(SWEEP_COLUMNS["max_scratchpad_chars"], SWEEP_COLUMNS["summarize_every"]))
            # The chart's own title was drawn above its box, out of sight (stretched to the column, Vega left it out
            # of the size it fits): the title is a heading of the page's over the chart instead (our words).
            chart.title = alt.Undefined
            with col.container(key=f"cmp_heatmap_{name}", gap="xsmall"):
                st.markdown(f"**{title}**")
                # the height goes to st.altair_chart (set on the chart, it is lost to width="stretch"); at least
                # what the vertical axis's title needs, which a grid of one to three rows cut at its top
                st.altair_chart(chart, width="stretch", height=max(250, 130 + 36 * frame["summarize_every"].nunique()))
    shown = sweep_table(result, frame)
    st.dataframe(shown, hide_index=True, key="cmp_sweep_numbers",  # 43,784 as the heatmaps write it, not 43784
                 column_config={name: st.column_config.NumberColumn(name, format="localized") for name in shown.columns
                                if name != SWEEP_COLUMNS["summarize_every"] and shown[name].dtype.kind in "iuf"})
    cell = st.selectbox("Open a cell as a run", list(range(len(result.records))), key="cmp_sweep_cell",
                        format_func=lambda i: f"cell {i + 1}: {result.labels[i]}")
    record = result.records[cell]
    end = [e for e in record.events if e.kind == "finish"]
    render_run(record.events, record.config, live=False, key="cmp_sweep_view", prices=prices,
               elapsed_s=float(end[-1].payload.elapsed_s or 0) if end else 0.0)


def _sweep_section(entry: Entry, base: RunConfig, prices: Optional[dict]) -> None:
    st.text("Every pair of the two middleware triggers, replayed on the same trajectory (up to 6 x 6).")
    last = st.session_state[CMP_SWEEP]
    defaults = {"cmp_sweep_every": ["2", every_text(field_default("summarize_every")), "off"],
                "cmp_sweep_caps": [2_000, 4_000, field_default("max_scratchpad_chars")],
                "cmp_sweep_summarizer": SUMMARIZER_CHOICES[0], **(last.choices if last else {})}
    for key, value in defaults.items():  # widget state goes when the page is left: start from the last sweep
        st.session_state.setdefault(key, value)
    c1, c2, c3 = st.columns([2, 2, 1])
    everies = c1.multiselect(f"{SETTING_LABELS['summarize_every']} (off: no periodic trigger)", SWEEP_EVERY,
                             max_selections=MAX_GRID, key="cmp_sweep_every")
    caps = c2.multiselect(f"{SETTING_LABELS['max_scratchpad_chars']} ({NO_SIZE_TRIGGER:,}: no size trigger)", SWEEP_CAPS,
                          max_selections=MAX_GRID, key="cmp_sweep_caps", format_func=lambda c: f"{c:,}")
    summarizer = c3.selectbox("Summarizer", SUMMARIZER_CHOICES, key="cmp_sweep_summarizer")
    blocked = summarizer == "builtin" and not builtin_ready()  # the one-line install; no sweep without it
    every_values = [parse_every(e) for e in sorted(everies, key=SWEEP_EVERY.index)]
    chosen = base.summarizer.but(kind=summarizer)  # the run's own summarizer (its budget, its prompt), this kind
    settings = [Setting(**{**s.changes(), "summarizer": chosen})
                for s in grid(every_values, sorted(caps))] if everies and caps and not blocked else []
    signature = ("sweep",) + _signature(entry, settings)
    if st.button("Sweep", key="cmp_sweep_run", type="primary", disabled=not settings or live.busy(CMP_JOB)):
        choices = {"cmp_sweep_every": list(everies), "cmp_sweep_caps": list(caps), "cmp_sweep_summarizer": summarizer}
        _start(entry, CompareRequest(entry.loaded, tuple(settings), tuple(s.label() for s in settings), "cells",
                                     signature, "sweep", choices, title=entry.title))
    if not settings and not blocked:
        st.text("Pick at least one value of each.")
    result = st.session_state[CMP_SWEEP]
    if result is not None:
        show_sweep(result, signature, prices)


def _compare_section(entry: Entry, base: RunConfig, prices: Optional[dict]) -> None:
    st.text(f"One row per setting (2 to 6). {SETTING_LABELS['summarize_every']}: off or a number. "
            f"{SETTING_LABELS['agent_trim_chars']} empty: the run's own. Prompt empty: the package's prompt "
            "(a prompt must contain {scratchpad}), or the name of a prompt version saved in the Prompt lab. "
            "Summarizer endpoint: the model set here. Summaries are as long as the run's own extractive budget.")
    endpoint, keys = None, None
    with st.expander("Summarizer model (for rows whose summarizer is endpoint)"):
        found, key, problem = endpoint_widgets(st, "cmp_sum_ep", "Summarizer")
        if problem is None:
            endpoint, keys = found, {"summarizer": key}
    versions = st.session_state.get(PL_VERSIONS) or {}
    if versions:
        st.text("Prompt versions you can name in custom prompt: " + " · ".join(versions))
    st.session_state.setdefault(CMP_TABLE, default_table())
    if "cmp_settings" not in st.session_state and st.session_state[CMP_EDITED] is not None:
        # The editor's edits went with the page; start again from the table as it was last edited.
        st.session_state[CMP_TABLE] = st.session_state[CMP_EDITED]
    # the columns keep the fields' names (the engine reads the rows by them); their headers are the sidebar's words,
    # in widths that fit the page at 1280 px (Streamlit shares out what a wider window adds)
    table = st.data_editor(
        st.session_state[CMP_TABLE], num_rows="dynamic", hide_index=True, key="cmp_settings", placeholder="",
        column_config={
            "summarize_every": st.column_config.TextColumn(SETTING_LABELS["summarize_every"], width=205,
                                                           help="off, or a number of iterations"),
            "max_scratchpad_chars": st.column_config.NumberColumn(
                SETTING_LABELS["max_scratchpad_chars"], width=193, min_value=field_bounds("max_scratchpad_chars")[0],
                max_value=field_bounds("max_scratchpad_chars")[1], step=1, format="localized",
                help="The middleware's size trigger (max_scratchpad_chars)."),
            "agent_trim_chars": st.column_config.NumberColumn(
                SETTING_LABELS["agent_trim_chars"], width=183, min_value=field_bounds("agent_trim_chars")[0],
                max_value=field_bounds("agent_trim_chars")[1], step=1, format="localized",
                help="The agent's own trim (its max_scratchpad_chars); empty: the run's own."),
            "summarizer": st.column_config.SelectboxColumn("Summarizer", options=COMPARE_SUMMARIZERS, width=100),
            "custom prompt": st.column_config.TextColumn(
                "Prompt", width=95, help="A custom summarizer prompt: it must contain {scratchpad}, or be the name of "
                                         "a Prompt lab prompt version; empty: the package's prompt"),
        })
    st.session_state[CMP_EDITED] = table
    if "builtin" in set(table["summarizer"].dropna()):
        builtin_ready(fetch=True)  # the one-line install where it is missing (the row's problem says it too)
    settings, problems = parse_table(table, base, endpoint, versions)
    if problems:
        show_problem("Some settings need fixing before you can compare:", "\n".join(map(in_column_words, problems)))
    notes = [f"Row {i + 1}: {note}" for i, note in enumerate(_setting_note(s, base) for s in settings) if note]
    if notes:  # a row that reads as a preset but is not quite one says so before it is run
        st.caption("\n\n".join(notes))
    signature = _signature(entry, settings)
    if st.button("Compare", key="cmp_run", type="primary", disabled=bool(problems) or live.busy(CMP_JOB)):
        labels = [f"#{i + 1} {s.label()}" for i, s in enumerate(settings)]
        _start(entry, CompareRequest(entry.loaded, tuple(settings), tuple(labels), "settings", signature, keys=keys,
                                     title=entry.title))
    result = st.session_state[CMP_RESULT]
    if result is not None:
        show_comparison(result, signature, prices)


def page() -> None:
    init_session()
    prices = st.session_state.get(PLAY_PRICES_BY_MODEL)
    st.title("Scratchpad Lab · Compare")
    show_message()
    st.caption("Replay one trajectory under several compression settings. The agent's path is held fixed, so "
               "the settings are compared on exactly the same work; only compression (and the summarizer's "
               "cost) changes.")
    entries, added = entries_with_upload(
        "cmp_upload", "No runs to compare: run one in the Playground, or upload a run record or trace.",
        upload_in="Upload a run record or a trace")
    entry = pick_entry(entries, "Run or trace to replay", "cmp_source", CMP_SOURCE,
                       open_key=added.key if added else None)
    try:
        replay = replay_source(entry.loaded)
    except LabError as exc:
        show_error(exc, "This run cannot be replayed here: pick another.")
        st.stop()
    base = replay.config
    st.info(RECORDED_KIND if replay.keeps_recorded_answer else SCENARIO_KIND)
    notice = summarizer_notice(replay)
    if notice:  # quotes the file's model name and URL: plain text
        st.text(notice)
    # one job at a time for the page (a comparison or a sweep): its progress and Stop, above both tabs
    live.show(CMP_JOB, on_end=_collect, problem=REPLAY_PROBLEM, errors=REPLAY_ERRORS)
    tab_compare, tab_sweep = st.tabs(["Compare settings", "Sweep"])
    with tab_compare:
        _compare_section(entry, base, prices)
    with tab_sweep:
        _sweep_section(entry, base, prices)
