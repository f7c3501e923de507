"""The Strategies page: one trajectory replayed under several compression systems, side by side.

Each strategy runs through its real package (`scratchpad_lab.engine.strategies`); the LangChain packages load
only when a LangChain strategy runs. The strategies run as a job, drawn by the one live fragment
(ui/live.py) with their progress, strategy by strategy, and a Stop button; the Recommend view
(ui/recommend_view.py) runs its search the same way, as a job of its own slot. The last result is kept in
session state, so moving the step slider never replays. Text from a run, a file or a summarizer is shown
only with st.code / st.text or in dataframe cells; headings and quirk lines are our own words, numbers and
package-made file paths. Under the results, What if... forks the autourgos middleware's run as the Playground forks
a run (ui/what_if.py); every other strategy says in one line why it is not forked.
"""
from __future__ import annotations

from typing import Any, Dict

import pandas as pd
import streamlit as st

from scratchpad_lab.engine.strategies.registry import fork_note, names, strategy
from scratchpad_lab.engine.tasks import (MAX_STRATEGIES, StrategiesOutcome, StrategiesRequest, knobs, make_spec,
                                         take_away_for_trace)
from scratchpad_lab.engine.tasks import strategies as strategies_task
from scratchpad_lab.analysis.figures import figures, kinds_kept_text, percent
from scratchpad_lab.analysis.health import counts_text
from scratchpad_lab.analysis.pin_checks import over_compressions
from scratchpad_lab.model.errors import LabError
from scratchpad_lab.model.trace import Trace, compaction_words as recorded_who
from scratchpad_lab.ui.what_if import what_if
from scratchpad_lab.ui.markup import escape
from scratchpad_lab.ui.pins_box import pins_from_state, pins_to_summarizer, sidebar_pins
from scratchpad_lab.ui.summarizer_picker import summarizer_picker
from scratchpad_lab.ui.problems import show_problem, user_errors
from scratchpad_lab.ui.runs_page import all_entries, pick_entry, show_sample_problems, upload_widget
from scratchpad_lab.ui.recommend_view import recommend_view, show_take_away
from scratchpad_lab.ui.setting_words import knob_label
from scratchpad_lab.ui.state import STRAT_JOB, STRAT_RECOMMEND, STRAT_RESULT, STRAT_SOURCE, init_session
from scratchpad_lab.ui.figure_tables import BEST, ROW_LABELS, best_in_row
from scratchpad_lab.engine.jobs import Job
from scratchpad_lab.ui import live
from scratchpad_lab.ui.strategies_chart import chart, colour
from scratchpad_lab.ui.worst_runs import opened_note

DEFAULT_PICK = ["autourgos-middleware", "deepagents", "langmem"]
SHOW_CHARS = 40_000   # a sent context longer than this is shown cut, and the page says so
# The table's rows, in order (their labels and which way is better: ui/figure_tables.py, shared with Compare).
STRATEGY_ROWS = ("compressions", "summarizer_calls", "summarizer_tokens_in", "summarizer_tokens_out",
                 "summarizer_cost_usd", "peak_context_tokens", "peak_share", "mean_context_tokens", "mean_share",
                 "context_tokens_saved", "saved_share", "facts_at_answer", "facts_recoverable", "answer_facts_kept",
                 "probes_answerable",
                 "facts_retained", "trim_facts_retained", "offloaded_files", "kept_by_kind", "health",
                 "pins_kept", "pins_to_summarizer")
PIN_ROWS = ("pins_kept", "pins_to_summarizer")  # only when the run was given pins (its rows carry them)
SHARES = ("peak_share", "mean_share", "saved_share", "facts_at_answer", "facts_recoverable", "answer_facts_kept",
          "probes_answerable")


def _shown(key: str, rows) -> bool:
    """A scenario's rows only for a scenario; "facts in a file it names" only when some strategy offloaded a fact
    to a file its context names (deepagents); every other row always (the pins rows: the caller decides)."""
    if key == "facts_recoverable":
        return any(row.get(key) for row in rows)
    if key in ("answer_facts_kept", "probes_answerable", *PIN_ROWS):
        return any(row.get(key) is not None for row in rows)
    return True


RUN_ERRORS = (LabError,)  # every error a person can cause
RUN_PROBLEM = "These strategies could not run on this trajectory."


def _collect(job: Job) -> None:
    if job.result is not None:
        st.session_state[STRAT_RESULT] = job.result


def _settings_widgets(name: str) -> Dict[str, Any]:
    """A strategy's knobs, each labelled in words (ui/setting_words.py), its help naming the key the package, the CLI
    and an error use. Each widget's first value is put in Session State, never given as its default: opening a
    Benchmark worst run sets these keys (ui/worst_runs.py), and a widget given both warns on the server."""
    values: Dict[str, Any] = {}
    for knob in knobs(name):
        key = f"strat_{name}_{knob.key}"
        label, help_text = knob_label(name, knob.key), f"{knob.help} In the package and the CLI: `{knob.key}`."
        if knob.kind == "names":
            st.session_state.setdefault(key, " ".join(knob.default))
            values[knob.key] = st.text_input(label, help=help_text, key=key,
                                             placeholder="tool names, separated by spaces")
        elif knob.kind == "text":
            st.session_state.setdefault(key, knob.default)
            values[knob.key] = st.text_input(label, max_chars=int(knob.high), help=help_text, key=key)
        elif knob.kind == "fraction":
            st.session_state.setdefault(key, knob.default)
            values[knob.key] = st.number_input(label, min_value=float(knob.low), max_value=float(knob.high),
                                               step=0.05, help=help_text, key=key, placeholder="package default")
        else:
            st.session_state.setdefault(key, knob.default)
            values[knob.key] = st.number_input(label, min_value=int(knob.low), max_value=int(knob.high),
                                               step=1, help=help_text, key=key,
                                               placeholder="package default" if knob.kind == "int_or_none" else None)
    return values


def _cell(key: str, row: Dict[str, Any], f) -> str:
    value = row.get(key)
    if key == "pins_kept":
        return f.pins_kept_text
    if key == "pins_to_summarizer":  # the switch, or why it does nothing for this strategy (registry.pins_switch)
        return {True: "on", False: "off"}.get(value, value) if isinstance(value, bool) else str(value)
    if key == "facts_retained":
        return f.facts_kept_text
    if key == "trim_facts_retained":
        return f.trim_facts_kept_text
    if key == "kept_by_kind":  # with each kind's share in a file the context names, where a strategy wrote one
        return kinds_kept_text(f.kept_by_kind, f.compressions > 0, recoverable=row.get("recoverable_by_kind"),
                               cut=not row.get("cut_nothing", True),
                               compresses_by=strategy(row["strategy"]).compresses_by if row.get("strategy") else "summary")
    if key == "health":
        return counts_text(value)
    if value is None:
        return "-"
    if key in SHARES:
        return percent(value)
    if key == "summarizer_cost_usd":
        return f"${value:.4f}"
    return f"{value:,.1f}" if isinstance(value, float) else f"{value:,}"


def table_texts(results) -> Dict[str, Dict[str, str]]:
    """Every strategy's row as it reads in the table and its column: shares as percentages, facts kept as on
    every page, the best value of each row marked ★ among the strategies that cut something (when they differ
    on it): a strategy that did nothing reads exactly its baseline, which is no achievement. A scenario's rows
    only when the source is a scenario."""
    rows = [r.row() for r in results]
    facts = [figures(r.events) for r in results]
    keys = [k for k in STRATEGY_ROWS if _shown(k, rows)]
    keys = [k for k in keys if k not in PIN_ROWS or any("pins" in row for row in rows)]
    # ★ among the strategies that cut something; the recording's own compaction is the reference they are read
    # beside, not one of them (its summarizer's calls and tokens are not in the recording: its 0 is unknown, not free)
    judged = [i for i, (row, r) in enumerate(zip(rows, results))
              if not row["cut_nothing"] and not strategy(r.name).recorded]
    best = {key: best_in_row(key, {i: rows[i][key] for i in judged}) for key in keys}
    out: Dict[str, Dict[str, str]] = {}
    for i, (result, row, f) in enumerate(zip(results, rows, facts)):
        title = strategy(result.name).title
        out[title] = {ROW_LABELS[k]: _cell(k, row, f) + (BEST if i in best.get(k, ()) else "") for k in keys}
    return out


def baseline_caption(results) -> str:
    """How the table reads: each strategy against the no-compression run of its own form, named with its peak."""
    peaks = {}
    for r in results:
        form = strategy(r.name).context
        peaks.setdefault(form, max(r.baseline_tokens, default=0))
    forms = {"scratchpad": "the scratchpad strategies against the same agent replayed with nothing cut "
                           "(no summary, no trim, every tool result whole)",
             "messages": "the message strategies against the whole conversation sent in full"}
    said = "; ".join(f"{forms[form]}, peaking at {peak:,} tokens" for form, peak in peaks.items())
    return ("Every strategy is counted one way (the lab's tokenizer on what each call sent) and read against "
            f"doing nothing in its own form: {said}. So a strategy that cut nothing reads exactly 100 % and saves "
            "0 tokens. Facts at the answer: of the facts in what that no-compression run's last call was sent, "
            "the share still in what this strategy's last call was sent. ★ marks the best value of a row among "
            "the strategies that cut something.")


def verdict(results) -> str:
    """One sentence: which strategy to use, for what, on this trajectory (our words, titles and numbers only).
    Judged among the strategies that cut something, by what the last call still held (facts at the answer) and
    by the peak context against doing nothing in the same form; the ones that cut nothing are named apart."""
    rows = [(strategy(r.name).title, r.row()) for r in results]
    if len(rows) < 2:  # a verdict compares: one strategy is not a choice
        return (f"No verdict: only {rows[0][0] if rows else 'no strategy'} ran. Pick a second strategy (doing nothing "
                "is already the baseline) and run again to compare them.")
    idle = [t for t, row in rows if row["cut_nothing"]]
    idle_text = (f" {', '.join(idle)} cut nothing here (the caps never fired), so "
                 f"{'it reads' if len(idle) == 1 else 'they read'} exactly the baseline.") if idle else ""
    picked = verdict_picks(results, rows)
    if picked is None:
        return "Verdict: none of these strategies cut anything on this trajectory: lower their caps to compare them." \
            + idle_text
    keeps, small = [(t, row) for t, row, _ in picked]

    def said(row) -> str:
        facts = "-" if row["facts_at_answer"] is None else percent(row["facts_at_answer"])
        return f"peak {percent(row['peak_share'])} of doing nothing, {facts} of the facts at the answer"

    if keeps[0] == small[0]:
        return f"Verdict: {keeps[0]} keeps the most and sends the least here ({said(keeps[1])}): use it." + idle_text
    return (f"Verdict: to keep the facts, {keeps[0]} ({said(keeps[1])}); for the smallest context, {small[0]} "
            f"({said(small[1])})." + idle_text)


def verdict_picks(results, rows=None):
    """(the one that keeps the most facts at the answer, the one with the smallest peak), each (title, row, result),
    among the strategies that cut something; None when none did. The verdict names these, and their settings are
    shown under it as code (ui/recommend_view.show_take_away)."""
    rows = rows if rows is not None else [(strategy(r.name).title, r.row()) for r in results]
    cut = [(t, row, r) for (t, row), r in zip(rows, results) if not row["cut_nothing"] and row["peak_share"] is not None]
    if not cut or len(rows) < 2:
        return None
    keeps = max(cut, key=lambda x: (x[1]["facts_at_answer"] or 0, -x[1]["peak_share"]))
    small = min(cut, key=lambda x: (x[1]["peak_share"], -(x[1]["facts_at_answer"] or 0)))
    return keeps, small


def _row_texts(result, texts: Dict[str, Dict[str, str]]) -> Dict[str, str]:
    return texts[strategy(result.name).title]


def _quirk_line(q) -> str:
    """A quirk as inert markdown: it may quote a tool's name, a file path or a package's reply."""
    return escape(f"step {q.iteration}: {q.text}")


def _column(result, texts: Dict[str, Dict[str, str]], shown_quirks: int = 4) -> None:
    st.markdown(f"<div style='border-top:6px solid {colour(result.name)};padding-top:4px'><b>{strategy(result.name).title}"
                f"</b></div>", unsafe_allow_html=True)  # our own words and a fixed colour only
    if result.seen_as:  # how it saw the run: our own words and counts
        st.caption(result.seen_as)
    for label, text in _row_texts(result, texts).items():
        st.text(f"{label}: {text}")
    lost = over_compressions(result.events)[2]  # analysis/pin_checks.py: the one rule (cheap: no fact search)
    if lost:  # the person's own text: shown as text
        st.text("pins lost: " + "; ".join(lost))
    why = result.why_no_compression()
    if why:
        st.info(why, icon=":material/info:")  # our own words, the registry's phrases and numbers
    if result.error:
        show_problem("This strategy stopped early.", result.error)
    for q in result.quirks[:shown_quirks]:
        st.warning(_quirk_line(q), icon=":material/warning:")
    if len(result.quirks) > shown_quirks:
        st.caption(f"{len(result.quirks) - shown_quirks} more like this.")
    for path, content in list(result.files.items())[:10]:
        with st.expander(escape(f"file {path} ({len(content):,} chars)")):
            st.code(content[:SHOW_CHARS] + ("\n[... shown cut here ...]" if len(content) > SHOW_CHARS else ""),
                    language=None)


def _what_if(shown: StrategiesOutcome, result) -> None:
    """Under a strategy whose result is a run (the autourgos middleware's), the Playground's What if... control
    (ui/what_if.py), forking that run with the summarizer it was made with; under any other, the one line saying why
    it is not forked (the registry's fork_note: our words and the registry's titles)."""
    run = shown.run_of(result)
    if run is None:
        st.text(fork_note(result.name))
        return
    title = strategy(result.name).title
    st.markdown(f"**{escape(title)}**")
    # the parent's name (the trajectory's title may be a file's name) reaches the page only as text
    what_if(run, "strat_fork", parent_name=f"{title} on {shown.title}", summarizer=shown.fork_summarizer(result))


def page() -> None:
    init_session()
    st.title("Scratchpad Lab · Strategies")
    st.caption("The same trajectory under the compression systems of the references, each through its real "
               f"package: {', '.join(strategy(n).title for n in names())}. One summarizer writes every summary: "
               "the offline extractive one, the built-in model, or a model you connect.")
    with st.expander("Upload a run record or a trace"):
        added = upload_widget("strat_upload")
    entries, problems = all_entries()
    show_sample_problems(problems)
    if not entries:
        st.info("No trajectory yet: run one in the Playground, or upload a run record or trace.")
        st.stop()
    entry = pick_entry(entries, "Trajectory", "strat_source", STRAT_SOURCE, open_key=added.key if added else None)
    lost_at = opened_note(entry)  # a benchmark's worst run: where its arguments were lost (ui/worst_runs.py)
    st.caption("Each system sees the run in its own package's form. The message systems see a recorded conversation "
               "as a LangChain agent holds it: its system prompt as the agent's system prompt (sent with every "
               "call, never summarized or cleared), user turns as human messages, replies with their tool calls, "
               "tool results in full. The autourgos systems see one task and a scratchpad, with the system prompt "
               "as the agent's own; later user turns reach them as results of a `user` tool. Each column says how "
               "it saw this run.")
    trajectory = entry.loaded if isinstance(entry.loaded, Trace) else getattr(entry.loaded, "trace", None)
    if trajectory is not None and trajectory.compactions:  # our own words and the recording's numbers
        offered = st.session_state.setdefault("strat_recorded_offered", set())
        pick = list(st.session_state.get("strat_pick", DEFAULT_PICK))
        if entry.key not in offered and "recorded-compaction" not in pick and len(pick) < MAX_STRATEGIES:
            st.session_state["strat_pick"] = ["recorded-compaction", *pick]  # once per run opened: it is the point
        offered.add(entry.key)
        st.info(f"This run carries {recorded_who(trajectory)}: \"{strategy('recorded-compaction').title}\" replays it "
                "as a row beside the strategies, on the same calls.", icon=":material/history:")
    # its first value in Session State, not as the widget's default: other code sets it (a worst run opened from the
    # Benchmark, a run with its own compaction), and a widget given both warns on the server
    st.session_state.setdefault("strat_pick", list(DEFAULT_PICK))
    picked = st.multiselect(f"Strategies (two to {MAX_STRATEGIES})", names(), key="strat_pick",
                            max_selections=MAX_STRATEGIES, format_func=lambda n: strategy(n).title)
    settings: Dict[str, Dict[str, Any]] = {}
    cols = st.columns(max(len(picked), 1))
    for col, name in zip(cols, picked):
        with col:
            st.markdown(f"**{strategy(name).title}**")
            st.caption(strategy(name).about)
            with st.expander("settings"):
                settings[name] = _settings_widgets(name)
    summarizer = summarizer_picker("strat")  # one summarizer for every strategy (ui/summarizer_picker.py)
    sidebar_pins(follows_prompt=summarizer.kind != "extractive")  # the Playground's pins box: one set of pins
    if st.toggle("Which compression should I use? Recommend settings for this trajectory", key="strat_rec_on",
                 value=st.session_state.get(STRAT_RECOMMEND) is not None):
        with st.container(key="strat_rec"):  # no border: the opened point's run view needs the page's width
            recommend_view(entry, summarizer)
    if st.button("Run strategies", type="primary", key="strat_run", disabled=live.busy(STRAT_JOB)):
        if len(picked) < 2:
            st.error("Pick at least two strategies to compare.")
        else:
            specs = []
            with user_errors():  # names the setting and its allowed range
                specs = [make_spec(n, {k: v for k, v in settings[n].items() if v is not None}) for n in picked]
            job = None
            if specs:
                try:  # refused before it starts when the job is over the work limit (engine/limits.py)
                    job = strategies_task(StrategiesRequest(entry.loaded, tuple(specs), summarizer,
                                                            (entry.key, tuple(picked)), entry.title,
                                                            pins=tuple(pins_from_state()),
                                                            pins_to_summarizer=pins_to_summarizer()))
                except LabError as exc:
                    show_problem(RUN_PROBLEM, str(exc))
            if job is not None and live.start(STRAT_JOB, job):
                st.rerun()  # drawn again with Run strategies disabled and the live view refreshing
    live.show(STRAT_JOB, on_end=_collect, problem=RUN_PROBLEM, errors=RUN_ERRORS)
    shown: StrategiesOutcome = st.session_state.get(STRAT_RESULT)
    if shown is None:
        st.info("Pick strategies and press Run strategies.")
        return
    if shown.signature[0] != entry.key:
        st.caption("Showing the last result, for another trajectory: press Run strategies for this one.")
    results = shown.results
    with st.container(key="strat_verdict"):
        st.markdown(f"**{escape(verdict(results))}**")  # titles and numbers: escaped all the same
        if shown.summarizer is not None and len(results) > 1:
            st.caption(shown.summarizer.measured_with)  # our own words
    named = {id(r): (t, r) for t, _, r in verdict_picks(results) or ()}  # one when it is both
    for i, (title, result) in enumerate(named.values()):
        st.text(f"{title}, as it ran here:")
        show_take_away(lambda r=result: take_away_for_trace(r.name, r.settings, shown.trajectory),
                       f"strat_verdict_take_{i}")
    st.subheader("Context sent at each step")
    st.caption(baseline_caption(results))
    with_base = st.toggle("Draw the no-compression baselines", key="strat_chart_baseline")
    st.altair_chart(chart(results, width=1000, baseline=with_base), width="stretch")
    texts = table_texts(results)
    table = pd.DataFrame(texts)
    st.dataframe(table, key="strat_table")
    columns = st.columns(len(results))
    for col, result in zip(columns, results):
        with col:
            _column(result, texts)
    st.subheader("What if...")  # the whole width: a fork's chart and figures beside its original's
    for result in results:
        _what_if(shown, result)
    steps = max(len(r.sent_tokens) for r in results)
    st.subheader("What each strategy sent")
    # two at a time, side by side: seven columns of about 100 px broke every word (one, for a run opened alone)
    titles = {r.name: strategy(r.name).title for r in results}
    order = [r.name for r in results]
    pick, other, at = st.columns([2, 2, 3], vertical_alignment="bottom")
    first = pick.selectbox("Strategy", order, key="strat_sent_a", format_func=titles.get)
    rest = [n for n in order if n != first]
    second = other.selectbox("beside", rest, key=f"strat_sent_b_{first}", format_func=titles.get) if rest else None
    start = min(lost_at, steps) if lost_at else min(steps, max(2, steps // 2))
    with at:
        step = st.slider("Step", 1, max(steps, 2), start, key="strat_step")
    by_name = {r.name: r for r in results}
    panes = [by_name[first]] + ([by_name[second]] if second else [])
    columns = st.columns(2)
    for col, result in zip(columns, panes):
        with col, st.container(key=f"strat_sent_{result.name}"):
            text = result.sent_text(step)
            tokens = result.sent_tokens[step - 1] if step <= len(result.sent_tokens) else 0
            st.text(f"{strategy(result.name).title}: {tokens:,} tokens, {len(text):,} chars")
            for q in result.quirks:
                if q.iteration == step:
                    st.warning(_quirk_line(q), icon=":material/warning:")
            st.code(text[:SHOW_CHARS] + ("\n[... shown cut here ...]" if len(text) > SHOW_CHARS else ""),
                    language=None, height=420, wrap_lines=True)
