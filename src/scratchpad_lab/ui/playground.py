"""The playground page: choose a scenario, press Run, watch the scratchpad grow and get compressed.

Live updates follow the pattern that works here: the Run's worker thread appends events to its log;
an `st.fragment(run_every=...)` reads the log twice a second while a run is going (None when idle)
and calls `st.rerun()` once when the run ends. The worker never calls `st.*`.
"""
from __future__ import annotations

import streamlit as st

from ..runner import Run
from ..scenarios import DEMO_NOTICE, get_scenario
from .library import download_button, run_label, runs_frame, sample_picker
from ..providers import EndpointError, EndpointLLM
from .loss import loss_panel
from .endpoints import price_table
from .settings import K_SCENARIO, config_from_state, sidebar_settings
from .state import PLAY_ACTIVE, PLAY_PRICES_BY_MODEL, PLAY_RUNS, PLAY_SHOWN, PLAY_START_ERROR, init_session
from .view import render_run
from .review_panel import attach_review, review_panel, review_switch

LIVE_REFRESH_S = 0.4
IDLE_STOP_S = 120.0  # a run nobody has looked at for this long belongs to a closed tab


def _collect_finished(run: Run) -> None:
    """Move a finished live run into this tab's runs and show it."""
    runs = st.session_state[PLAY_RUNS]
    if run.record is not None and all(r is not run.record for r in runs):
        runs.append(run.record)
        st.session_state[PLAY_SHOWN] = len(runs) - 1
    st.session_state[PLAY_ACTIVE] = None


def _controls(run: Run) -> None:
    c1, c2, _ = st.columns([1, 1, 4])
    if c1.button("Stop", key="play_stop", disabled=run.finished):
        run.stop()
    if run.paused:
        if c2.button("Resume", key="play_resume"):
            run.resume()
    elif c2.button("Pause", key="play_pause", disabled=run.finished,
                   help="Uses the agent's own pause(): it stops before its next step."):
        run.pause()


def _live() -> None:
    run = st.session_state.get(PLAY_ACTIVE)
    if run is None:
        return
    st.subheader(f"Live: {run.name}")
    _controls(run)
    review_panel(run)
    events = run.log.snapshot()
    render_run(events, run.config, live=not run.finished, elapsed_s=run.elapsed_s(),
               key="live", prices=st.session_state.get(PLAY_PRICES_BY_MODEL))
    if run.finished:
        _collect_finished(run)
        st.rerun()


def _probe_model(config, keys):
    """With a summarizer endpoint in the settings, probes can be asked of that model too."""
    if config is None or config.summarizer != "endpoint" or config.summarizer_endpoint is None:
        return None
    return lambda: EndpointLLM(config.summarizer_endpoint, keys.get("summarizer", ""))


def _start_run() -> None:
    config, keys, _ = config_from_state()  # the settings as they are now, even if changed with this click
    active = st.session_state[PLAY_ACTIVE]
    if config is None or (active is not None and not active.finished):
        return
    n = len(st.session_state[PLAY_RUNS]) + 1
    try:
        run = Run(config, keys=keys, pace=True, idle_stop_s=IDLE_STOP_S, name=f"Run {n}")
    except EndpointError as exc:  # e.g. a base URL refused in hosted mode: nothing started
        st.session_state[PLAY_START_ERROR] = str(exc)
        return
    attach_review(run)
    st.session_state[PLAY_ACTIVE] = run.start()


def page() -> None:
    init_session()
    config, keys, problem = sidebar_settings()
    st.session_state[PLAY_PRICES_BY_MODEL] = prices = price_table()
    st.title("Scratchpad Lab · Playground")
    scenario = get_scenario(st.session_state[K_SCENARIO])
    st.markdown(f"**{scenario.title}**: {scenario.description}")
    real_agent = config is not None and config.agent_endpoint is not None
    st.text("Task given to the agent: " + ((config.task if real_agent and config.task else None) or scenario.task))
    if real_agent:
        st.caption(DEMO_NOTICE + f" A real model ({config.agent_endpoint.label()}) decides the steps with the "
                   "scenario's tools; each run takes its own path.")
    else:
        st.caption(DEMO_NOTICE + " The agent is scripted (no LLM, no key): it follows a fixed plan of tool calls, "
                   "then answers only from what is still in its scratchpad. The summarizer and the trims are the "
                   "real packages at work.")
    active = st.session_state[PLAY_ACTIVE]
    running = active is not None and not active.finished
    if problem:
        st.error(f"Fix this setting to run: {problem}")
    # The run starts in the button's callback, before the page is drawn again, so the same render that
    # shows the run going also shows Run disabled (a double click cannot start a second run).
    review_switch()
    st.button("Run", type="primary", key="play_run", disabled=running or config is None,
              on_click=_start_run)
    if st.session_state.get(PLAY_START_ERROR):
        st.error("The run could not start:")
        st.text(st.session_state.pop(PLAY_START_ERROR))
    active = st.session_state[PLAY_ACTIVE]
    running = active is not None and not active.finished

    st.fragment(run_every=LIVE_REFRESH_S if running else None)(_live)()

    runs = st.session_state[PLAY_RUNS]
    st.divider()
    st.subheader("Runs in this tab")
    opened = sample_picker("play_sample")
    if opened is not None:
        runs.append(opened)
        st.session_state[PLAY_SHOWN] = len(runs) - 1
    if st.session_state.get("play_sample_error"):  # the message quotes the file: shown as text
        st.error("That sample could not be opened:")
        st.text(st.session_state.pop("play_sample_error"))
    if not runs:
        st.text("No finished runs yet. Press Run, or open a recorded sample run.")
        return
    st.dataframe(runs_frame(runs, prices), hide_index=True, key="play_runs_table")
    shown = st.session_state[PLAY_SHOWN]
    shown = len(runs) - 1 if shown is None or shown >= len(runs) else shown
    choice = st.selectbox("Show run", list(range(len(runs))), index=shown, key=f"play_show_{len(runs)}",
                          format_func=lambda i: run_label(runs, i))
    st.session_state[PLAY_SHOWN] = choice
    record = runs[choice]
    download_button(record, key=f"play_download_{choice}", index=choice)
    if active is None or active.finished:
        end = [e for e in record.events if e.kind == "finish"]
        render_run(record.events, record.config, live=False,
                   elapsed_s=float(end[-1].data.get("elapsed_s", 0)) if end else 0.0, key=f"shown_{choice}",
                   prices=prices)
        loss_panel(record, key=f"loss_{choice}", model_factory=_probe_model(config, keys))
