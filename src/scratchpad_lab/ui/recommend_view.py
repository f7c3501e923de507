"""The Strategies page's Recommend view: which compression, with which settings, for this trajectory.

It runs engine/studies/recommender.py's search (every strategy over its grid), draws every point in one chart (one
colour per strategy, the Pareto front large and ringed), lists the front with one sentence each, and opens any
point as a run (its events through the existing run view: `view.render_run` for the autourgos strategies,
the compression cards and timeline for the others, whose triggers the autourgos trigger panel does not
describe). The front's table and the folded table of every point give each point's facts kept by kind and
compressions with a problem in the Strategies table's words (engine/recommend.Point.texts), and, when the
sidebar's Pins hold pins, its pins kept: the search is checked against the page's pins, as Run strategies is. "Use in Playground" puts an autourgos point's settings into the Playground's sidebar. Every text
drawn is our own words, numbers and registry names; a run's own text goes through the run view, which shows it
as text.

The search runs as a job (engine/tasks: `recommend`) in its own slot, drawn by the one live fragment (ui/live.py):
the task checks the work limit before it starts (as every task does), its progress
reads "point k of n", and Stop ends it within a step with nothing of it kept (the last finished search stays).
Opening a point is a job too, of its own slot: the point is replayed once when it is picked (after the same work
limit check), with a progress line and a Stop; a stopped or failed opening shows nothing as opened and is replayed
again only when asked (its button), so the next rerun does not undo a Stop.
A finished search is kept in the lab's store as a "recommendation" result, listed on the Runs page, when the
"Store finished runs" setting is on.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional

import streamlit as st

from scratchpad_lab.analysis.pricing import DEFAULT_PRICES
from scratchpad_lab.engine.jobs import Job
from scratchpad_lab.engine.strategies.registry import default_names, names, strategy
from scratchpad_lab.engine.tasks import (MAX_POINTS, OpenPointRequest, RecommendRequest, Search, TakeAway,
                                         default_grid, open_point, parse_grid, recommend, recorded_trajectory,
                                         take_away_for_trace)
from scratchpad_lab.model.summarizer import SummarizerChoice
from scratchpad_lab.model.config import largest
from scratchpad_lab.model.errors import LabError
from scratchpad_lab.ui import live
from scratchpad_lab.ui.markup import escape
from scratchpad_lab.ui.problems import show_error, show_problem
from scratchpad_lab.ui.setting_words import knob_label, label_words, sentence_words, settings_words
from scratchpad_lab.ui.sidebar_settings import EVERY_CHOICES, SETTING_LABELS, preset_label_for
from scratchpad_lab.ui.state import (K_BUDGET, K_CAP, K_EVERY, K_PRESET, K_SCENARIO, K_TRIM, STRAT_OPEN_POINT, STRAT_POINT_JOB, STRAT_REC_JOB,
                                     STRAT_RECOMMEND)
from scratchpad_lab.ui.store_view import store_result
from scratchpad_lab.ui.pins_box import pins_from_state, pins_to_summarizer
from scratchpad_lab.ui.strategies_chart import POINT_TEXTS, front_chart, points_frame
from scratchpad_lab.ui.view import render_cards, render_run, timeline_frame

OWN_PRICE = "the summarizer's own price"
PLAYGROUND = ("autourgos-middleware", "trim-only")  # the Playground runs the middleware and the agent's trim
SEARCH_WORKERS = 2  # the page's search runs on both cores (engine/studies/recommender.py)
SEARCH_ERRORS = (LabError,)  # every error a person can cause
SEARCH_PROBLEM = "The search could not run on this trajectory."
OPEN_PROBLEM = "This point could not run on this trajectory."


def grid_text(name: str) -> str:
    """A strategy's default grid as the grid box shows it (the CLI's --grid syntax after NAME:)."""
    return ",".join(f"{k}={'|'.join('none' if v is None else str(v) for v in values)}"
                    for k, values in default_grid(name).items())


def playground_settings(point) -> Optional[Dict[str, Any]]:
    """The Playground widget values that run this point, or None when the Playground cannot (another package,
    or a value its picker does not offer)."""
    s = point.spec.resolved()
    if point.strategy == "autourgos-middleware":
        every = "off" if s["summarize_every"] is None else s["summarize_every"]
        if every not in EVERY_CHOICES:
            return None
        return {K_EVERY: every, K_CAP: s["max_scratchpad_chars"], K_TRIM: s["agent_trim_chars"]}
    if point.strategy == "trim-only":  # the middleware's triggers off: only the agent's trim cuts
        return {K_EVERY: "off", K_CAP: largest("max_scratchpad_chars"), K_TRIM: s["agent_trim_chars"]}
    return None


def handoff_words(values: Dict[str, Any], scenario: Optional[str], kept: str) -> str:
    """What "Use in Playground" did, in the sidebar's words (not the CLI's `name:key=value` syntax)."""
    every = values[K_EVERY]
    settings = (f"{SETTING_LABELS['summarize_every']}: {every}, {SETTING_LABELS['max_scratchpad_chars']}: "
                f"{values[K_CAP]:,}, {SETTING_LABELS['agent_trim_chars']}: {values[K_TRIM]:,}")
    if scenario:
        return (f"The Playground now runs the {scenario} scenario, the one this trajectory was recorded from, with "
                f"these settings: {settings}. The preset reads Custom unless they are a preset's.")
    return (f"The Playground now has these settings: {settings}. It runs only its built-in scenarios, so it keeps "
            f"the {kept} scenario; to replay this trajectory itself with them, use the Compare page.")


def _use_in_playground(values: Dict[str, Any], scenario: Optional[str]) -> None:
    for key, value in values.items():
        st.session_state[key] = value
    if scenario:
        st.session_state[K_SCENARIO] = scenario
    st.session_state[K_PRESET] = preset_label_for(values[K_EVERY], values[K_CAP], st.session_state.get(K_BUDGET))
    st.session_state[STRAT_OPEN_POINT + "_used"] = handoff_words(values, scenario, st.session_state.get(K_SCENARIO))


def _scenario_of(entry: Any) -> Optional[str]:
    """The built-in scenario the trajectory on this page was recorded from, if it is one the Playground runs."""
    from scratchpad_lab.model.scenarios import SCENARIOS
    name = getattr(getattr(entry, "record", None), "scenario", None)
    return name if name in SCENARIOS else None


def _inputs(summarizer: SummarizerChoice):
    """(strategies picked, their grids (None while a grid's text is wrong), the price model)."""
    picked = st.multiselect("Strategies to search", names(), default=default_names(), key="strat_rec_pick",
                            format_func=lambda n: strategy(n).title)
    grids: Dict[str, Dict[str, tuple]] = {}
    bad = False
    if st.toggle("Edit the grids (the values tried; N% is that share of the trajectory's no-compression peak)",
                 key="strat_rec_edit"):
        for name in picked:
            text = st.text_input(strategy(name).title, value=grid_text(name), key=f"strat_rec_grid_{name}",
                                 help="key=v1|v2,key2=v3: every combination is tried. Keys: "
                                      + ", ".join(f"{k.key} ({knob_label(name, k.key)})" for k in strategy(name).knobs))
            if text.strip() and text.strip() != grid_text(name):
                try:
                    grids[name] = parse_grid(f"{name}:{text}")[1]
                except LabError as exc:  # names the key or value to change; no search starts until it is fixed
                    show_error(exc)
                    bad = True
    prices = [OWN_PRICE] + sorted(DEFAULT_PRICES)
    price = st.selectbox("Price the summarizer's tokens at", prices, key="strat_rec_price",
                         help="The offline summarizer is free; pick a model to see what its tokens would cost.")
    return picked, (None if bad else grids), None if price == OWN_PRICE else price


def _collect(job: Job) -> None:
    """A finished search: shown from now on, and kept in the store (when storing is on), listed on the Runs page."""
    if job.result is None:
        return
    key, found, title = job.result
    st.session_state[STRAT_RECOMMEND] = (key, found)
    st.session_state.pop(STRAT_OPEN_POINT, None)
    if not live.busy(STRAT_POINT_JOB):  # a point stopped in the last search is opened afresh in this one
        st.session_state[STRAT_POINT_JOB.job] = None
    store_result("recommendation", found.rows(), [p.cli_arg() for p in found.points], title,
                 name=f"recommendation of {len(found.points)} points ({len(found.front)} on the front)",
                 measured_with=found.measured_with)


def _start(entry: Any, picked, grids, summarizer: SummarizerChoice, price: Optional[str]) -> None:
    """Start the search as a job, unless the task refuses it first (a grid with no point that can run, or a
    search over the work limit: engine/tasks' `recommend`)."""
    try:
        job = recommend(RecommendRequest(entry.loaded, tuple(picked), grids, summarizer, price,
                                         workers=SEARCH_WORKERS, key=entry.key, title=entry.title,
                                         pins=tuple(pins_from_state()), pins_to_summarizer=pins_to_summarizer()))
    except LabError as exc:
        show_problem(SEARCH_PROBLEM, str(exc))
        return
    if live.start(STRAT_REC_JOB, job):
        st.rerun()  # drawn again with Recommend settings disabled and the live view refreshing


def recommend_view(entry: Any, summarizer: SummarizerChoice) -> None:
    picked, grids, price = _inputs(summarizer)
    if st.button("Recommend settings", key="strat_rec_run",
                 disabled=not picked or grids is None or live.busy(STRAT_REC_JOB)):
        _start(entry, picked, grids, summarizer, price)
    live.show(STRAT_REC_JOB, on_end=_collect, problem=SEARCH_PROBLEM, errors=SEARCH_ERRORS)
    kept = st.session_state.get(STRAT_RECOMMEND)
    if kept is None:
        st.caption(f"Runs every picked strategy at every point of its grid (at most {MAX_POINTS} points) on this "
                   "trajectory, through the real packages, and shows which settings no other point beats.")
        return
    key, found = kept
    if key != entry.key:
        st.caption("Showing the last search, for another trajectory: press Recommend settings for this one.")
    _show(found, entry, summarizer)


FORM_WORDS = {"scratchpad": "as a scratchpad", "messages": "as messages"}


def _show(found: Search, entry: Any, summarizer: SummarizerChoice) -> None:
    titles = {n: strategy(n).title for n in names()}
    front = found.front
    st.text(f"{len(front)} of {len(found.points)} points are on the front (drawn large and ringed; higher keeps more, "
            f"further left costs less): no other point keeps as many facts for the last call at as low a peak, mean "
            f"and summarizer cost; a point that cut nothing is left off it. Doing nothing peaks at "
            + " and ".join(f"{peak:,} tokens {FORM_WORDS.get(form, form)}"
                           for form, peak in found.baseline_peak_tokens.items())
            + "." + (f" {found.summaries_reused} summaries were reused." if found.summaries_reused else ""))
    if found.pins:  # a count only: the pins are the person's own text (each point's column says what it kept)
        st.text(f"Every point was checked against the {len(found.pins)} pin{'s' * (len(found.pins) != 1)} of the "
                f"sidebar's Pins, as Run strategies checks every strategy"
                + (", and asked its summarizer to keep them where its package takes a prompt."
                   if found.pins_to_summarizer else "."))
    here = st.session_state.get(STRAT_RECOMMEND, (None,))[0] == entry.key  # else its shares of a peak are not said
    labels = [p.cli_arg() for p in found.points]
    for i, pick in enumerate(found.chosen):  # one point per budget, a sentence each (settings may be a person's text)
        st.text(sentence_words(pick.sentence, labels))  # its points named in words, not as --strategy arguments
        point = next((p for p in found.points if pick.setting and p.cli_arg() == pick.setting), None)
        if point is not None:
            show_take_away(lambda p=point: take_away_for_trace(
                p.strategy, p.settings, recorded_trajectory(entry.loaded) if here else None), f"strat_rec_take_{i}")
    picked = st.altair_chart(front_chart(found.points, titles, width=1000, describe=_point_words), width="stretch",
                             key="strat_rec_chart", on_select="rerun", selection_mode="point")
    rows = points_frame(found.points, titles, _point_words)
    rows["why"] = [sentence_words(why, labels) for why in rows["why"]]  # "exactly the figures of <a point>"
    words = [c for c in rows.columns if c in POINT_TEXTS.values()]  # the Strategies table's words of each row
    st.dataframe(rows[rows["front"] == "on the front"][["strategy", "settings", *words, "why"]], hide_index=True,
                 key="strat_rec_front", width="stretch")
    with st.expander(f"Every point ({len(rows)})"):
        st.dataframe(rows[["strategy", "settings", "front", "peak % of no compression", "facts at the answer %",
                           "summarizer tokens", *words]], hide_index=True, key="strat_rec_points", width="stretch")
    for name, settings, reason in found.skipped[:5]:  # a grid's values may be a person's text: escaped
        st.caption(escape(f"Skipped {titles.get(name, name)} ({settings_words(name, settings)}): {reason}"))
    errors = [p for p in found.points if p.error]
    for p in errors[:3]:
        show_problem(escape(f"{label_words(p.cli_arg())} stopped early."), p.error)
    chosen = _selected(picked)
    options = list(range(len(found.points)))
    order = sorted(options, key=lambda i: (not found.points[i].on_front, i))
    if chosen is not None and chosen in options:
        st.session_state["strat_rec_open"] = chosen
    index = st.selectbox("Open a point as a run", order, key="strat_rec_open",
                         format_func=lambda i: ("★ " if found.points[i].on_front else "") + label_words(found.points[i].cli_arg()))
    point = found.points[index]
    values = playground_settings(point)
    if values is not None:
        st.button("Use in Playground", key="strat_rec_use", on_click=_use_in_playground,
                  args=(values, _scenario_of(entry)))
    elif point.strategy.startswith("autourgos"):
        st.caption("The Playground runs the middleware with the agent's trim; this point's settings are not one "
                   "of its choices.")
    used = st.session_state.pop(STRAT_OPEN_POINT + "_used", None)
    if used:
        st.success(escape(used))
        st.page_link("pages/playground.py", label="Open the Playground")
    _open(point, entry, summarizer, found)


def _point_words(point) -> str:
    """A point's settings in the page's words (its strategy has a column of its own)."""
    return settings_words(point.strategy, point.settings)


def show_take_away(make: Callable[[], TakeAway], key: str) -> None:
    """A chosen point taken to a person's agent (engine/strategies/snippets.py), under the line that chose it: its
    figures in absolute units (our words, the registry's keys and numbers) and the package's own code, as code; a
    setting its package refuses says so. Recommend, the Strategies verdict and the Benchmark's chosen points."""
    try:
        take = make()
    except LabError as exc:
        st.caption(escape(f"No snippet for this point: {exc}"))
        return
    with st.container(key=key):
        if take.lines():
            st.text("Take it to your agent:\n" + "\n".join(take.lines()))
        if take.code:
            st.code(take.code, language="python")
        else:
            st.caption(escape(take.why_none))


def _selected(picked: Any) -> Optional[int]:
    try:
        chosen = picked.selection.point  # type: ignore[union-attr]
    except AttributeError:
        return None
    return int(chosen[0]["point"]) if chosen else None


def _start_open(point, entry: Any, summarizer: SummarizerChoice, found: Search) -> None:
    """Start opening the point (a job whose tag says which point it opens), unless the work limit refuses it first
    (the check every Strategies job makes); with the search's pins, so the run opened is the point's."""
    try:
        job = open_point(OpenPointRequest(entry.loaded, point.spec, point.cli_arg(), summarizer,
                                          tag=(entry.key, point.cli_arg()), pins=found.pins,
                                          pins_to_summarizer=found.pins_to_summarizer))
    except LabError as exc:
        show_problem(OPEN_PROBLEM, str(exc))
        return
    if live.start(STRAT_POINT_JOB, job):
        st.rerun()  # drawn again with the live view refreshing


def _collect_point(job: Job) -> None:
    if job.result is not None:
        st.session_state[STRAT_OPEN_POINT] = job.result


def _open(point, entry: Any, summarizer: SummarizerChoice, found: Search) -> None:
    """The point as a run: opened by a job when it is picked, then drawn by the run view. A point whose opening was
    stopped or failed waits for its button, and one picked while another is opening opens when that one ends."""
    wanted = (entry.key, point.cli_arg())
    opened = st.session_state.get(STRAT_OPEN_POINT)
    if opened is None or opened[0] != wanted:
        job = live.current(STRAT_POINT_JOB)
        if live.busy(STRAT_POINT_JOB):
            if job.tag != wanted:
                st.caption(escape(f"{label_words(job.tag[1])} is still opening: this point opens when it ends, or at "
                                  "once if you press Stop."))
        elif (job is None or job.tag != wanted
              or st.button("Open this point as a run", key="strat_rec_open_run")):
            _start_open(point, entry, summarizer, found)
    live.show(STRAT_POINT_JOB, on_end=_collect_point, problem=OPEN_PROBLEM, errors=(LabError,))
    opened = st.session_state.get(STRAT_OPEN_POINT)
    if opened is None or opened[0] != wanted:
        return
    result = opened[1]
    st.subheader(escape(label_words(point.cli_arg())))
    if point.why:
        st.text(point.why[0].upper() + point.why[1:])
    if result.config is not None:
        render_run(result.events, result.config, live=False, key="strat_point")
        return
    for q in result.quirks[:6]:
        st.warning(escape(f"step {q.iteration}: {q.text}"), icon=":material/warning:")  # may quote a reply
    st.caption("The trigger panel describes the autourgos middleware, so it is left out for this package.")
    st.text("Timeline")
    st.dataframe(timeline_frame(result.events), hide_index=True, height=260)
    render_cards(result.events, key="strat_point")
