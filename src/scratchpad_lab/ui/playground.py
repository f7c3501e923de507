"""The playground page: choose a scenario, press Run, watch the scratchpad grow and get compressed.

Layout: one slot right under the Run button holds the run on show, live or finished, drawn by the same
`render_run_top` (so nothing jumps when a run ends); the runs of this tab, the sample picker, every
compression card and what compression lost follow below it.

Live updates: the Run's worker thread appends events to its log; an `st.fragment(run_every=...)`
reads it while a run is going (None when idle). Two things keep many tabs at once healthy:
- the refresh backs off: when a render takes longer than the interval, the interval grows (to twice
  the render time, at most MAX_REFRESH_S), and comes back down once renders are quick again. Streamlit
  reads run_every where the fragment is defined, so a change of interval costs one full rerun;
- the end of a run is never lost: the fragment calls `st.rerun()` when the run ends, and keeps calling
  it on every tick until a full run has drawn the finished run (PLAY_NEEDS_FULL), so a rerun request
  dropped under load is simply asked for again.
The worker never calls `st.*`.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Optional

import streamlit as st

from scratchpad_lab.engine.providers import EndpointLLM
from scratchpad_lab.model.errors import LabError
from scratchpad_lab.model.scenarios import DEMO_NOTICE, get_scenario
from scratchpad_lab.ui.endpoints import price_table
from scratchpad_lab.ui.markup import escape
from scratchpad_lab.ui.library import download_button, run_label, runs_frame, runs_table, sample_picker
from scratchpad_lab.ui.problems import show_problem
from scratchpad_lab.ui.settings import K_SCENARIO, config_from_state, sidebar_settings
from scratchpad_lab.ui.state import (PLAY_ACTIVE, PLAY_NEEDS_FULL, PLAY_PRICES_BY_MODEL, PLAY_REFRESH_S, PLAY_RUNS, PLAY_SHOWN,
                    PLAY_START_ERROR, init_session)
from scratchpad_lab.ui.review_panel import attach_review, review_panel, review_switch
from scratchpad_lab.ui.store import autosave_switch, not_stored_note, show_message, store_finished
from scratchpad_lab.ui.style import PAGE_CSS

if TYPE_CHECKING:
    from scratchpad_lab.engine.runner import Run
# The first page (no run yet) draws the settings, the Run button and the sample picker only: the runner
# (the agent, the observers, the tokenizer), the run view, the cards and the loss panel are imported
# where a run is started or shown, so the first page does without them (bench/live_latency.py).

LIVE_REFRESH_S = 0.4
MAX_REFRESH_S = 5.0
IDLE_STOP_S = 120.0  # a run nobody has looked at for this long belongs to a closed tab
VIEW_KEY = "live"    # the run slot's containers: live_status, live_scratchpad, live_triggers, live_diff


def refresh_interval(render_s: float, current: float, base: float = LIVE_REFRESH_S,
                     most: float = MAX_REFRESH_S) -> float:
    """The live view's next refresh interval, given how long the last render took: at least twice the
    render time while renders take longer than the interval; halved back towards `base` once a render
    takes under an eighth of it (the gap keeps it from see-sawing)."""
    if render_s > current:
        return round(min(most, max(current * 2, render_s * 2)), 2)
    if current > base and render_s * 8 < current:
        return round(max(base, current / 2), 2)
    return current


def _collect_finished(run: Run) -> None:
    """Move a finished live run into this tab's runs and show it, and store it (unless the setting is off;
    a store that fails leaves a message, and the run stays here)."""
    runs = st.session_state[PLAY_RUNS]
    if run.record is not None and all(r is not run.record for r in runs):
        runs.append(run.record)
        st.session_state[PLAY_SHOWN] = len(runs) - 1
        store_finished(run.record, keys=config_from_state()[1])
    st.session_state[PLAY_ACTIVE] = None
    st.session_state[PLAY_NEEDS_FULL] = True


def _controls(run: Optional[Run]) -> None:
    """Stop and Pause/Resume, side by side; drawn disabled for a finished run so nothing moves."""
    done = run is None or run.finished
    st.button("Stop", key="play_stop", disabled=done, on_click=run.stop if not done else None)
    if run is not None and run.paused and not done:
        st.button("Resume", key="play_resume", on_click=run.resume)
    else:
        st.button("Pause", key="play_pause", disabled=done, on_click=run.pause if not done else None,
                  help="Uses the agent's own pause(): it stops before its next step.")


def _live(record=None, name: str = "") -> None:
    """The run slot: the live run, or (no run going) the finished run on show. One fragment draws both,
    so a last refresh tick after a run ends redraws the finished run instead of clearing its status row."""
    started = time.monotonic()
    run = st.session_state.get(PLAY_ACTIVE)
    if run is None:
        if st.session_state.get(PLAY_NEEDS_FULL):
            st.rerun()  # the full rerun that shows the finished run has not happened: ask again
        if record is not None:
            from scratchpad_lab.ui.view import render_run_top  # lazy (see the imports); a look-up once imported
            end = [e for e in record.events if e.kind == "finish"]
            render_run_top(record.events, record.config, live=False, key=VIEW_KEY,
                           prices=st.session_state.get(PLAY_PRICES_BY_MODEL),
                           elapsed_s=float(end[-1].payload.elapsed_s) if end else 0.0,
                           controls=lambda: _controls(None), name=name)
        return
    review_panel(run)  # review mode only: the proposal waiting for accept, edit or reject
    from scratchpad_lab.ui.view import render_run_top
    events = run.log.snapshot()
    render_run_top(events, run.config, live=not run.finished, elapsed_s=run.elapsed_s(),
                   key=VIEW_KEY, prices=st.session_state.get(PLAY_PRICES_BY_MODEL), controls=lambda: _controls(run),
                   name=run.name)
    if run.finished:
        _collect_finished(run)
        st.rerun()
    current = st.session_state.get(PLAY_REFRESH_S) or LIVE_REFRESH_S
    following = refresh_interval(time.monotonic() - started, current)
    if following != current:
        st.session_state[PLAY_REFRESH_S] = following
        st.rerun()  # run_every is read where the fragment is defined: a full run sets the new interval


def _probe_model(config, keys):
    """With a summarizer endpoint in the settings, probes can be asked of that model too."""
    if config is None or config.summarizer != "endpoint" or config.summarizer_endpoint is None:
        return None
    return lambda: EndpointLLM(config.summarizer_endpoint, keys.get("summarizer", ""))


def _start_run() -> None:
    from scratchpad_lab.engine.runner import Run
    config, keys, _ = config_from_state()  # the settings as they are now, even if changed with this click
    active = st.session_state[PLAY_ACTIVE]
    if config is None or (active is not None and not active.finished):
        return
    n = len(st.session_state[PLAY_RUNS]) + 1
    try:
        run = Run(config, keys=keys, pace=True, idle_stop_s=IDLE_STOP_S, name=f"Run {n}")
    except LabError as exc:  # e.g. a base URL refused in hosted mode: nothing started
        st.session_state[PLAY_START_ERROR] = exc.sentence
        return
    attach_review(run)
    st.session_state[PLAY_REFRESH_S] = LIVE_REFRESH_S
    st.session_state[PLAY_ACTIVE] = run.start()


def _open_record(record) -> None:
    runs = st.session_state[PLAY_RUNS]
    runs.append(record)
    st.session_state[PLAY_SHOWN] = len(runs) - 1


def _scenario_text(config, scenario, folded: bool) -> None:
    real_agent = config is not None and config.agent_endpoint is not None
    task = (config.task if real_agent and config.task else None) or scenario.task
    if real_agent:
        note = (DEMO_NOTICE + f" A real model ({config.agent_endpoint.label()}) decides the steps with the "
                "scenario's tools; each run takes its own path.")
    else:
        note = (DEMO_NOTICE + " The agent is scripted (no LLM, no key): it follows a fixed plan of tool calls, "
                "then answers only from what is still in its scratchpad. The summarizer and the trims are the "
                "real packages at work.")
    box = st.expander(f"{scenario.title}: the scenario and the task") if folded else st.container()
    with box:
        st.markdown(f"**{scenario.title}**: {scenario.description}")
        st.text("Task given to the agent: " + task)
        st.caption(escape(note))  # it may quote the base URL the visitor typed


def _shown_index(runs) -> Optional[int]:
    if not runs:
        return None
    shown = st.session_state[PLAY_SHOWN]
    return len(runs) - 1 if shown is None or shown >= len(runs) else shown


def page() -> None:
    init_session()
    st.html(PAGE_CSS)
    st.session_state[PLAY_NEEDS_FULL] = False  # this is a full run: it draws whatever run has ended
    config, keys, problem = sidebar_settings()
    st.session_state[PLAY_PRICES_BY_MODEL] = prices = price_table()
    active = st.session_state[PLAY_ACTIVE]
    running = active is not None and not active.finished
    runs = st.session_state[PLAY_RUNS]

    head, run_col = st.columns([6, 1], vertical_alignment="center")
    head.title("Scratchpad Lab · Playground")
    # The run starts in the button's callback, before the page is drawn again, so the same render that
    # shows the run going also shows Run disabled (a double click cannot start a second run).
    run_col.button("Run", type="primary", key="play_run", disabled=running or config is None,
                   on_click=_start_run, width="stretch")
    active = st.session_state[PLAY_ACTIVE]
    running = active is not None and not active.finished
    scenario = get_scenario(st.session_state[K_SCENARIO])
    _scenario_text(config, scenario, folded=running or bool(runs))
    with st.sidebar:  # a run setting; in the main area it would push the live view down
        review_switch()
        autosave_switch()
    if problem:
        st.error(escape(f"Fix this setting to run: {problem}"))  # may quote what was typed
    if st.session_state.get(PLAY_START_ERROR):
        show_problem("The run could not start:", st.session_state.pop(PLAY_START_ERROR))

    interval = st.session_state.get(PLAY_REFRESH_S) or LIVE_REFRESH_S
    index = _shown_index(runs)
    record = runs[index] if not running and index is not None else None
    st.fragment(run_every=interval if running else None)(_live)(
        record, (record.name or f"run {index + 1}") if record is not None else "")

    st.subheader("Runs in this tab")
    show_message()  # what the store said about the run that just ended (stored, removed, or could not store)
    sample_picker("play_sample", on_open=_open_record)
    if st.session_state.get("play_sample_error"):  # the message quotes the file: shown as text
        show_problem("That sample could not be opened:", st.session_state.pop("play_sample_error"))
    if not runs:
        st.text("No finished runs yet. Press Run, or open a recorded sample run.")
        return
    runs_table(runs_frame(runs, prices), key="play_runs_table")
    show_key = f"play_show_{len(runs)}"
    pick, down = st.columns([3, 1], vertical_alignment="bottom")
    pick.selectbox("Show run", list(range(len(runs))), index=index, key=show_key,
                   format_func=lambda i: run_label(runs, i),
                   on_change=lambda: st.session_state.__setitem__(PLAY_SHOWN, st.session_state[show_key]))
    if record is not None:
        not_stored_note(record, key=f"play_store_again_{index}")
        from scratchpad_lab.ui.loss import loss_panel
        from scratchpad_lab.ui.view import render_cards
        with down:
            download_button(record, key=f"play_download_{index}", index=index)
        render_cards(record.events, key=f"shown_{index}", prices=prices)
        loss_panel(record, key=f"loss_{index}", model_factory=_probe_model(config, keys))
