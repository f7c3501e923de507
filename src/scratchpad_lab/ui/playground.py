"""The playground page: choose a scenario, press Run, watch the scratchpad grow and get compressed.

Layout: one slot right under the Run button holds the run on show, live or finished, drawn by the same
`render_run_top` (so nothing jumps when a run ends); the runs of this tab, the sample picker, every
compression card and what compression lost follow below it.

Live updates: the Run is a job (engine/jobs.py); its worker thread appends events to its log, and the
one live fragment (ui/live.py: refresh only while a run is going, backing off when renders are slow, and
a full rerun once when the run ends) draws the run slot. The run's Stop and Pause sit in its status row.
The worker never calls `st.*`.
"""
from __future__ import annotations

import zlib
from typing import TYPE_CHECKING, Any, Optional, Tuple

import streamlit as st

from scratchpad_lab.engine.tasks import EndpointLLM
from scratchpad_lab.model.errors import LabError
from scratchpad_lab.model.scenarios import get_scenario
from scratchpad_lab.ui import live
from scratchpad_lab.ui.endpoints import price_table
from scratchpad_lab.ui.markup import escape
from scratchpad_lab.ui.library import download_button, run_label, runs_frame, runs_table, sample_picker
from scratchpad_lab.ui.pins_box import pin_picker, scratchpad_lines
from scratchpad_lab.ui.problems import show_problem
from scratchpad_lab.ui.sidebar_settings import (K_PRESET, K_SCENARIO, config_from_state, current_config, prompt_name_for,
                                        sidebar_settings, use_preset)
from scratchpad_lab.ui.state import (PLAY_ACTIVE, PLAY_JOB, PLAY_PRICES_BY_MODEL, PLAY_RUNS, PLAY_SHOWN,
                                     PLAY_START_ERROR, PRESENTER, init_session, play_picker_key, shown_play_index)
from scratchpad_lab.ui.review_panel import review_on, review_panel, review_switch
from scratchpad_lab.ui.store_view import autosave_switch, not_stored_note, show_message, store_finished
from scratchpad_lab.ui.style import PAGE_CSS

if TYPE_CHECKING:
    from scratchpad_lab.engine.tasks import Run
# The first page (no run yet) draws the settings, the Run button and the sample picker only: the runner
# (the agent, the observers, the tokenizer), the run view, the cards and the loss panel are imported
# where a run is started or shown, so the first page does without them (bench/live_latency.py).

IDLE_STOP_S = 120.0  # a run nobody has looked at for this long belongs to a closed tab
VIEW_KEY = "live"    # the run slot's containers: live_status, live_scratchpad, live_triggers, live_diff


def _collect_finished(run: Run) -> None:
    """Move a finished live run into this tab's runs and show it, and store it (unless the setting is off;
    a store that fails leaves a message, and the run stays here)."""
    runs = st.session_state[PLAY_RUNS]
    if run.record is not None and all(r is not run.record for r in runs):
        runs.append(run.record)
        st.session_state[PLAY_SHOWN] = len(runs) - 1
        store_finished(run.record, keys=config_from_state()[1])
    st.session_state[PLAY_ACTIVE] = None


def _controls(run: Optional[Run]) -> None:
    """Stop and Pause/Resume, side by side; drawn disabled for a finished run so nothing moves."""
    done = run is None or run.finished
    st.button("Stop", key="play_stop", disabled=done, on_click=run.stop if not done else None)
    if run is not None and run.paused and not done:
        st.button("Resume", key="play_resume", on_click=run.resume)
    else:
        st.button("Pause", key="play_pause", disabled=done, on_click=run.pause if not done else None,
                  help="Uses the agent's own pause(): it stops before its next step.")


def _shown_record() -> Tuple[Optional[Any], str]:
    """The finished run on show in this tab, and its name; (None, "") before the first."""
    runs = st.session_state[PLAY_RUNS]
    index = shown_play_index(runs)
    if index is None:
        return None, ""
    return runs[index], runs[index].name or f"run {index + 1}"


def _draw_run_slot(run: Optional[Run]) -> None:
    """The run slot's drawing: the live run, or (no run going) the finished run on show. One fragment draws
    both, so a last refresh tick after a run ends redraws the finished run instead of clearing its status row.
    It reads the tab's runs when it draws, never what a page run captured when it defined the fragment: a
    refresh tick left over from before the run ended may run it with the definition of that older page run."""
    record, name = _shown_record() if run is None else (None, run.name)
    if run is None and record is None:
        return  # the first page: nothing to draw yet, and nothing of the run view imported
    from scratchpad_lab.ui.view import render_run_top  # lazy (see the imports); a look-up once imported
    prices = st.session_state.get(PLAY_PRICES_BY_MODEL)
    # One box per run, named after it: the live run and the same run finished share it (nothing moves at
    # the end), and another run gets a new one, so the browser never keeps a run's old status row
    # (Streamlit's browser side could leave a fragment's earlier elements on screen after a full rerun).
    with st.container(key=f"run_slot_{zlib.crc32(name.encode('utf-8'))}"):
        if run is None:
            end = [e for e in record.events if e.kind == "finish"]
            render_run_top(record.events, record.config, live=False, key=VIEW_KEY, prices=prices,
                           elapsed_s=float(end[-1].payload.elapsed_s) if end else 0.0,
                           controls=lambda: _controls(None), name=name)
            return
        review_panel(run)  # review mode only: the proposal waiting for accept, edit or reject
        render_run_top(run.log.snapshot(), run.config, live=not run.finished, elapsed_s=run.elapsed_s(),
                       key=VIEW_KEY, prices=prices, controls=lambda: _controls(run), name=run.name)


def _probe_model(config, keys):
    """With a summarizer endpoint in the settings, probes can be asked of that model too."""
    if config is None or config.summarizer.kind != "endpoint" or config.summarizer.endpoint is None:
        return None
    return lambda: EndpointLLM(config.summarizer.endpoint, keys.get("summarizer", ""))


def _start_run() -> None:
    from scratchpad_lab.engine.tasks import RunRequest, run as run_task
    config, keys, _ = config_from_state()  # the settings as they are now, even if changed with this click
    if config is None or live.busy(PLAY_JOB):
        return
    n = len(st.session_state[PLAY_RUNS]) + 1
    try:  # with the review switch on, every summarizer reply waits for a decision
        run = run_task(RunRequest(config, keys=keys, pace=True, idle_stop_s=IDLE_STOP_S, name=f"Run {n}",
                                  review=review_on()))
    except LabError as exc:  # e.g. a base URL refused in hosted mode: nothing started
        st.session_state[PLAY_START_ERROR] = exc.sentence
        return
    live.start(PLAY_JOB, run)


def _open_record(record) -> None:
    runs = st.session_state[PLAY_RUNS]
    runs.append(record)
    st.session_state[PLAY_SHOWN] = len(runs) - 1


def _scenario_text(config, scenario, folded: bool) -> None:
    real_agent = config is not None and config.agent_endpoint is not None
    task = (config.task if real_agent and config.task else None) or scenario.task
    # the description ends with DEMO_NOTICE (scenarios.py): said once, there
    if real_agent:
        note = (f"A real model ({config.agent_endpoint.label()}) decides the steps with the "
                "scenario's tools; each run takes its own path.")
    else:
        note = ("The agent is scripted (no LLM, no key): it follows a fixed plan of tool calls, "
                "then answers only from what is still in its scratchpad. The summarizer and the trims are the "
                "real packages at work.")
    box = st.expander(f"{scenario.title}: the scenario and the task") if folded else st.container()
    with box:
        st.markdown(f"**{scenario.title}**: {scenario.description}")
        st.text("Task given to the agent: " + task)
        st.caption(escape(note))  # it may quote the base URL the visitor typed


def _prompt_not_followed(container, config) -> None:
    """Beside Run: a custom or named prompt that the chosen summarizer will not follow (it is no model)."""
    if config is None or config.follows_prompt or not config.summarizer.prompt:
        return
    named = prompt_name_for(config.summarizer.prompt)
    what = f"the prompt “{escape(named)}”" if named else "your summarizer prompt"  # a name may be a file's
    container.warning(f"The extractive summarizer does not follow prompts, so this run will not try {what}. "
                      "To try it, choose a model as the Summarizer in the sidebar.", icon=":material/info:")


# The preset the first screen suggests: it compresses often enough on a short scenario that the first run
# shows the sawtooth and what each summary drops (the package's defaults compress only now and then here).
FIRST_LOOK_PRESET = "Tight (2 / 2,000)"


def _first_look() -> None:
    """Before the first run, unless it is chosen already: suggest the preset that shows compression well."""
    if st.session_state.get(K_PRESET) == FIRST_LOOK_PRESET:
        return
    text, button = st.columns([5, 1], vertical_alignment="center")
    text.caption("The package's defaults (every 5 iterations / 15,000 chars) compress only now and then on a "
                 f"scenario this short. For a first look, the preset {FIRST_LOOK_PRESET} compresses every other "
                 "step, so the size chart's sawtooth and what each summary drops show at once.")
    button.button("Use it", key="play_first_look", on_click=use_preset, args=(FIRST_LOOK_PRESET,),
                  help=f"Sets the preset to {FIRST_LOOK_PRESET} (the two triggers and a 600-char summary budget).")


def page() -> None:
    init_session()
    st.html(PAGE_CSS)
    config, keys, problem = current_config()
    running = live.busy(PLAY_JOB)
    runs = st.session_state[PLAY_RUNS]

    head, run_col = st.columns([6, 1], vertical_alignment="center")
    head.title("Scratchpad Lab · Playground")
    # The run starts in the button's callback, before the page is drawn again, so the same render that
    # shows the run going also shows Run disabled (a double click cannot start a second run).
    run_col.button("Run", type="primary", key="play_run", disabled=running or config is None,
                   on_click=_start_run, width="stretch")
    config, keys, problem = sidebar_settings()
    st.session_state[PLAY_PRICES_BY_MODEL] = prices = price_table()
    running = live.busy(PLAY_JOB)
    if not running:
        _prompt_not_followed(head, config)
    scenario = get_scenario(st.session_state[K_SCENARIO])
    if not (st.session_state.get(PRESENTER) and (running or runs)):  # a presenter's screen keeps the live view
        _scenario_text(config, scenario, folded=running or bool(runs))
    if not running and not runs:
        _first_look()
    with st.sidebar:  # a run setting; in the main area it would push the live view down
        review_switch()
        autosave_switch()
    if problem:
        st.error(escape(f"Fix this setting to run: {problem}"))  # may quote what was typed
    if st.session_state.get(PLAY_START_ERROR):
        show_problem("The run could not start:", st.session_state.pop(PLAY_START_ERROR))

    live.show(PLAY_JOB, _draw_run_slot, on_end=_collect_finished,
              controls=False)  # its Stop and Pause are in the run's status row

    # The fragment above may have just taken a finished run in (its end seen by this very script run): the
    # picker and the run shown below read the runs as they are now, not as they were at the top of the page,
    # or a new picker would start on the previous run and keep it. The run on show has one rule
    # (shown_play_index: the picker's value), read by the run view above and by everything below alike.
    index = shown_play_index(runs)
    record = runs[index] if not live.busy(PLAY_JOB) and index is not None else None

    st.subheader("Runs in this tab")
    show_message()  # what the store said about the run that just ended (stored, removed, or could not store)
    sample_picker("play_sample", on_open=_open_record)
    if st.session_state.get("play_sample_error"):  # the message quotes the file: shown as text
        show_problem("That sample could not be opened:", st.session_state.pop("play_sample_error"))
    if not runs:
        st.text("No finished runs yet. Press Run, or open a recorded sample run.")
        return
    runs_table(runs_frame(runs, prices), key="play_runs_table")
    show_key = play_picker_key(len(runs))
    pick, down = st.columns([3, 1], vertical_alignment="bottom")
    # its choice is kept in PLAY_SHOWN too, so a visit to another page (which drops the widget) keeps it
    pick.selectbox("Show run", list(range(len(runs))), index=index, key=show_key,
                   format_func=lambda i: run_label(runs, i),
                   on_change=lambda: st.session_state.__setitem__(PLAY_SHOWN, st.session_state[show_key]))
    if record is not None:
        not_stored_note(record, key=f"play_store_again_{index}")
        from scratchpad_lab.ui.loss import loss_panel
        from scratchpad_lab.ui.view import render_cards
        with down:
            download_button(record, key=f"play_download_{index}", index=index)
        pin_picker(scratchpad_lines(record.events), key=f"play_pin_line_{index}", label="Pin a line of the scratchpad")
        render_cards(record.events, key=f"shown_{index}", prices=prices, pinnable=True)
        from scratchpad_lab.ui.what_if import what_if
        from scratchpad_lab.ui.store_view import stored_id
        what_if(record, key=f"play_fork_{index}", parent_id=stored_id(record), parent_name=record.name or f"run {index + 1}")
        loss_panel(record, key=f"loss_{index}", model_factory=_probe_model(config, keys))
