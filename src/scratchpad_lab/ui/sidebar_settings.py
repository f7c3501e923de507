"""The run settings in the sidebar: widgets with one-line help each, presets, and validation.

Returns a validated RunConfig, or shows what to change and returns None (no run can start).
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import streamlit as st

from scratchpad_lab.model.summarizer import BUILTIN_SPEED, SummarizerChoice
from scratchpad_lab.model.config import (ConfigError, PACKAGE_PROMPT, RunConfig, field_bounds, parse_every,
                                         summarizer_follows_prompt, validate_prompt_template)
from scratchpad_lab.model.presets import presets
from scratchpad_lab.model.scenarios import list_scenarios
from scratchpad_lab.engine.tasks import BUILTIN_LABEL
from scratchpad_lab.ui.builtin_notice import builtin_ready
from scratchpad_lab.ui.pins_box import pins_from_state, pins_to_summarizer, set_pins, sidebar_pins
from scratchpad_lab.ui.endpoints import endpoint_from_state, endpoint_widgets
from scratchpad_lab.ui.state import (K_AGENT, K_BUDGET, K_CAP, K_EVERY, K_MAX_IT, K_PACE, K_PRESET, K_PROMPT,  # noqa: F401
                    K_SCENARIO, K_SUMMARIZER, K_TASK, K_TOOL_CAP, K_TRIM, K_WALL, PLAY_PROMPT_NAME, K_ADVANCED)

PLAY_SUMMARIZER_EP = "play_sum_ep"  # the widget prefix of the playground's summarizer endpoint
EVERY_CHOICES = ["off", 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 25, 30]
PACING = {"instant": 0.0, "fast (0.1 s/step)": 0.1, "demo (0.5 s/step)": 0.5, "slow (1 s/step)": 1.0}

# A setting's plain label, by its RunConfig field: the sidebar's words, and every page that shows a setting
# (the Compare page's sweep) uses them, never the field's raw name.
SETTING_LABELS = {"summarize_every": "Summarize every N iterations", "max_scratchpad_chars": "Compress when over (chars)",
                  "agent_trim_chars": "Agent's own limit (chars)",
                  "extractive_budget_chars": "Extractive summary budget (chars)",
                  "max_tool_output_chars": "Tool result cap (chars)", "max_iterations": "Max iterations",
                  "wall_clock_s": "Run's wall clock (s)"}
# number settings: the label on screen and the RunConfig field whose range applies
FIELDS = {K_CAP: "max_scratchpad_chars", K_TRIM: "agent_trim_chars", K_BUDGET: "extractive_budget_chars",
          K_TOOL_CAP: "max_tool_output_chars", K_MAX_IT: "max_iterations", K_WALL: "wall_clock_s"}
LABELS = {key: SETTING_LABELS[field] for key, field in FIELDS.items()}
AGENTS = {"scripted": "Scripted (offline, no key)", "endpoint": "A model endpoint (OpenAI-compatible)"}

SUMMARIZERS = {
    "extractive": "Extractive (offline, no LLM)",
    "same-as-agent": "Same as agent (the package's fallback to agent.llm)",
    "endpoint": "A model endpoint (OpenAI-compatible)",
    "builtin": BUILTIN_LABEL[0].upper() + BUILTIN_LABEL[1:],
}


def _defaults() -> None:
    d = RunConfig()  # the widgets start from RunConfig's own defaults (one home for them)
    st.session_state.setdefault(K_SCENARIO, d.scenario)
    st.session_state.setdefault(K_PRESET, next(iter(presets())))
    st.session_state.setdefault(K_EVERY, d.summarize_every)
    st.session_state.setdefault(K_CAP, d.max_scratchpad_chars)
    st.session_state.setdefault(K_TRIM, d.agent_trim_chars)
    st.session_state.setdefault(K_SUMMARIZER, d.summarizer.kind)
    st.session_state.setdefault(K_PROMPT, PACKAGE_PROMPT)
    st.session_state.setdefault(K_BUDGET, d.summarizer.budget_chars)
    st.session_state.setdefault(K_TOOL_CAP, d.max_tool_output_chars)
    st.session_state.setdefault(K_MAX_IT, d.max_iterations)
    st.session_state.setdefault(K_WALL, int(d.wall_clock_s))
    st.session_state.setdefault(K_PACE, "demo (0.5 s/step)")
    st.session_state.setdefault(K_AGENT, "scripted")


CUSTOM_PRESET = "Custom (your settings)"  # the preset picker's entry when the settings are no preset's


def preset_label_for(every: Any, cap: Any, budget: Any) -> str:
    """The preset whose settings these are (its sidebar label), else CUSTOM_PRESET."""
    for label, p in presets().items():
        want = p.settings
        if (("off" if want["summarize_every"] is None else want["summarize_every"]), want["max_scratchpad_chars"],
                want["extractive_budget_chars"]) == (every, cap, budget):
            return label
    return CUSTOM_PRESET


def _apply_preset() -> None:
    if st.session_state[K_PRESET] not in presets():  # "Custom": the settings stay as they are
        return
    preset = presets()[st.session_state[K_PRESET]]
    chosen = preset.settings
    if preset.pins:  # a preset's pins go in the box; one without leaves the person's pins alone
        set_pins(preset.pins)
    st.session_state[K_EVERY] = "off" if chosen["summarize_every"] is None else chosen["summarize_every"]
    st.session_state[K_CAP] = chosen["max_scratchpad_chars"]
    st.session_state[K_BUDGET] = chosen["extractive_budget_chars"]


def _match_preset() -> None:
    """A trigger or the summary budget changed by hand: the preset picker names the preset these settings are, or
    reads Custom (it kept the last preset's name, which no longer said what would run)."""
    s = st.session_state
    s[K_PRESET] = preset_label_for(s.get(K_EVERY), s.get(K_CAP), s.get(K_BUDGET))


def use_preset(name: str) -> None:
    """Choose a preset as if picked in the sidebar (a button's callback)."""
    st.session_state[K_PRESET] = name
    _apply_preset()


def _reset_prompt() -> None:
    st.session_state[K_PROMPT] = PACKAGE_PROMPT


def current_config() -> Tuple[Optional[RunConfig], Dict[str, str], Optional[str]]:
    """The run the settings describe, before their widgets are drawn (the same as sidebar_settings returns)."""
    _defaults()
    return config_from_state()


def sidebar_settings() -> Tuple[Optional[RunConfig], Dict[str, str], Optional[str]]:
    """Draw the settings; return (config, keys, None) or (None, {}, what to change)."""
    _defaults()
    sb = st.sidebar
    sb.header("Run settings")
    scenarios = {s.name: s for s in list_scenarios()}
    sb.selectbox("Agent", list(AGENTS), key=K_AGENT, format_func=AGENTS.get,
                 help="Who decides the steps: the scenario's scripted policy, or a real model.")
    real_agent = st.session_state[K_AGENT] == "endpoint"
    sb.selectbox("Tools from scenario" if real_agent else "Scenario", list(scenarios), key=K_SCENARIO,
                 format_func=lambda n: scenarios[n].title,
                 help="A built-in offline task with deterministic tools over invented demo data.")
    # With a model in the run, the run's wall clock sits with the model's settings (by its per-call timeout):
    # the last model expander drawn holds it; without one, Advanced does.
    models = [m for m, on in (("agent", real_agent), ("summarizer", st.session_state[K_SUMMARIZER] == "endpoint"))
              if on]
    if real_agent:
        with sb.expander("Agent model", expanded=True):
            endpoint_widgets(st, "play_agent_ep", "Agent")
            st.text_area("Task for the model", key=K_TASK, height=120,
                         placeholder=scenarios[st.session_state[K_SCENARIO]].task,
                         help="Empty: the scenario's own task. The scenario's tools stay available.")
            if models[-1] == "agent":
                _wall_clock()
    sb.selectbox("Preset", list(presets()) + [CUSTOM_PRESET], key=K_PRESET, on_change=_apply_preset,
                 help="Fills in the two middleware triggers below: summarize every N iterations / compress "
                      "when over N chars.\n\n" + "\n".join(f"- **{p.name}**: {p.description}"
                                                             for p in presets().values())
                      + f"\n- **{CUSTOM_PRESET}**: settings that are no preset's (e.g. from Recommend).")
    sb.selectbox(SETTING_LABELS["summarize_every"], EVERY_CHOICES, key=K_EVERY, on_change=_match_preset,
                 help="Middleware's periodic trigger: compress at iterations N, 2N, 3N… (off: never).")
    sb.number_input(LABELS[K_CAP], step=500, key=K_CAP, on_change=_match_preset,
                    help="Middleware's size trigger (max_scratchpad_chars): compress when the scratchpad is "
                         "longer than this and has grown since the last summary.")
    _range_message(sb, K_CAP)
    sb.number_input(LABELS[K_TRIM], step=500, key=K_TRIM,
                    help="Not the middleware: after every step the agent cuts its scratchpad to its last N "
                         "chars (its own max_scratchpad_chars), dropping the oldest text.")
    _range_message(sb, K_TRIM)
    sb.selectbox("Summarizer", list(SUMMARIZERS), key=K_SUMMARIZER, format_func=SUMMARIZERS.get,
                 help="Who writes the summary. Extractive keeps the salient lines under a budget; no LLM. "
                      "'Same as agent' with the scripted agent also summarizes extractively (it is no model). "
                      "The built-in model is a real 135M-parameter model on this CPU: it follows your prompt, "
                      "slowly and weakly.")
    if st.session_state[K_SUMMARIZER] == "builtin":
        if builtin_ready(sb, fetch=True):
            sb.caption(f"The first summary loads the model (a few seconds); then {BUILTIN_SPEED}, "
                       "one summary at a time.")
    if st.session_state[K_SUMMARIZER] == "endpoint":
        with sb.expander("Summarizer model", expanded=True):
            endpoint_widgets(st, PLAY_SUMMARIZER_EP, "Summarizer")
            _wall_clock()
    sidebar_pins(summarizer_follows_prompt(st.session_state[K_SUMMARIZER], real_agent))
    sb.select_slider("Pacing", list(PACING), key=K_PACE,
                     help="Waits between scripted steps so a demo unfolds at a human pace; never counted as "
                          "model latency.")
    # Drawn only while open (a lazy expander): the first page does without its widgets (bench/live_latency.py);
    # their values live on in session state (state.PLAY_SETTINGS), so a closed expander changes no setting.
    advanced = sb.expander("Advanced", key=K_ADVANCED, on_change="rerun")
    if advanced.open:
        _advanced(advanced, models)
    if range_problems():  # also said right under the widget; here so it shows with Advanced folded
        sb.error("Run is off until every setting is in its range.")
    return config_from_state()


def _advanced(box, models) -> None:
    with box:
        st.text_area("Summarizer prompt template", key=K_PROMPT, height=220,
                     help="Sent to the summarizer. Must contain {scratchpad}; may use {query} and {iteration}.")
        st.button("Reset to the package's prompt", on_click=_reset_prompt, key="play_reset_prompt")
        st.number_input(LABELS[K_BUDGET], step=100, key=K_BUDGET, on_change=_match_preset,
                        help="The longest summary the extractive summarizer may write.")
        _range_message(st, K_BUDGET)
        st.number_input(LABELS[K_TOOL_CAP], step=500, key=K_TOOL_CAP,
                        help="The agent cuts every tool result to this many chars before it enters the scratchpad.")
        _range_message(st, K_TOOL_CAP)
        st.number_input(LABELS[K_MAX_IT], step=1, key=K_MAX_IT,
                        help="The agent stops after this many steps without an answer.")
        _range_message(st, K_MAX_IT)
        if not models:
            _wall_clock()


def _wall_clock() -> None:
    st.number_input(LABELS[K_WALL], step=10, key=K_WALL,
                    help="The whole run's time limit: a run that takes longer is ended cleanly, keeping what it "
                         "recorded. Time waiting for you (pause, review) does not count.")
    _range_message(st, K_WALL)


def range_problem(key: str) -> Optional[str]:
    """What is wrong with a number setting's value, naming the setting as the page does and the range
    RunConfig allows (config.py is the one home of the ranges); None when it is fine."""
    value = st.session_state.get(key)
    lo, hi = field_bounds(FIELDS[key])
    allowed = f"allowed: {_num(lo)} to {_num(hi)}"
    if value is None:
        return f"{LABELS[key]} is empty: enter a number ({allowed})."
    if value < lo:
        return f"{LABELS[key]} is {_num(value)}: the minimum is {_num(lo)} ({allowed})."
    if value > hi:
        return f"{LABELS[key]} is {_num(value)}: the maximum is {_num(hi)} ({allowed})."
    return None


def _num(value) -> str:
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,}"


def range_problems() -> list:
    return [p for p in (range_problem(k) for k in FIELDS) if p]


def _range_message(container, key: str) -> None:
    problem = range_problem(key)
    if problem:
        container.error(problem)


def config_from_state() -> Tuple[Optional[RunConfig], Dict[str, str], Optional[str]]:
    """The run the settings describe now: (config, keys, None) or (None, {}, what to change).
    Reads session state only, so a button callback sees settings changed in the same interaction,
    and a number out of its range is refused, never replaced by another value."""
    s = st.session_state
    problems, keys = range_problems(), {}
    agent_endpoint = summarizer_endpoint = None
    if s.get(K_AGENT) == "endpoint":
        agent_endpoint, keys["agent"], problem = endpoint_from_state("play_agent_ep", "Agent")
        problems += [problem] if problem else []
    if s.get(K_SUMMARIZER) == "endpoint":
        summarizer_endpoint, keys["summarizer"], problem = endpoint_from_state(PLAY_SUMMARIZER_EP, "Summarizer")
        problems += [problem] if problem else []
    if problems:
        return None, {}, " ".join(problems)
    config, problem = read_config(agent_endpoint, summarizer_endpoint)
    return config, (keys if config else {}), problem


def prompt_name_for(prompt: str) -> Optional[str]:
    """The name the prompt lab gave this prompt, while the text is still the one it named."""
    named = st.session_state.get(PLAY_PROMPT_NAME)
    return named[0] if named and named[1] == prompt and prompt != PACKAGE_PROMPT else None


def read_config(agent_endpoint=None, summarizer_endpoint=None) -> Tuple[Optional[RunConfig], Optional[str]]:
    s = st.session_state
    try:
        prompt = s[K_PROMPT]
        if prompt != PACKAGE_PROMPT:
            validate_prompt_template(prompt)
        every = s[K_EVERY]
        summarizer = SummarizerChoice(s[K_SUMMARIZER], int(s[K_BUDGET]), summarizer_endpoint,
                                      None if prompt == PACKAGE_PROMPT else prompt)
        config = RunConfig.build(
            scenario=s[K_SCENARIO], summarize_every=parse_every(every),
            max_scratchpad_chars=int(s[K_CAP]), agent_trim_chars=int(s[K_TRIM]),
            max_tool_output_chars=int(s[K_TOOL_CAP]), max_iterations=int(s[K_MAX_IT]),
            summarizer=summarizer, wall_clock_s=float(s[K_WALL]),
            step_delay_s=0.0 if agent_endpoint else PACING[s[K_PACE]], agent_endpoint=agent_endpoint,
            task=(s.get(K_TASK) or None) if agent_endpoint else None,
            pins=pins_from_state(), pins_to_summarizer=pins_to_summarizer(),  # ui/pins_box.py
            # a run is credited to a named prompt only when its summarizer follows prompts
            prompt_name=prompt_name_for(prompt) if summarizer_follows_prompt(s[K_SUMMARIZER], bool(agent_endpoint))
            else None,
        )
    except ConfigError as exc:
        return None, str(exc)
    return config, None
