"""The Benchmark page's "Re-decide the next call with a model" switch (engine/studies/decide.py, the CLI's
`bench --decide-with builtin|endpoint`; issue 33 item 5).

With the switch on, when the benchmark ends the page starts the door's `decide_next` on the same runs, strategies
and summarizer as a job of its own slot (BENCH_DECIDE_JOB), drawn by the one live fragment (ui/live.py) with its
progress and Stop; a stopped benchmark is not re-decided. The job checks the work limit once the dataset is read,
before any model call: a refusal is its one sentence, shown with ui/problems.show_problem. The result is the
agreement table, every row read against no compression of its own form. With the built-in model the page says
plainly that this checks the pipeline (a 135M model), not the strategies' quality; with an endpoint model it is
a real measure, priced where the lab knows the model's list price.

Where the built-in model is missing, the one-line notice (ui/builtin_notice.py). A model's name (an endpoint's
is what the person typed) is shown as text.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import pandas as pd
import streamlit as st

from scratchpad_lab.analysis.pricing import cost_usd
from scratchpad_lab.engine.tasks import DECIDE_CALLS_PER_RUN, DECIDE_MAX_TOKENS, DecideRequest, decide_next
from scratchpad_lab.model.errors import LabError
from scratchpad_lab.ui import live
from scratchpad_lab.ui.builtin_notice import builtin_ready
from scratchpad_lab.ui.endpoints import endpoint_widgets
from scratchpad_lab.ui.markup import escape
from scratchpad_lab.ui.problems import show_problem
from scratchpad_lab.ui.setting_words import label_words
from scratchpad_lab.ui.state import BENCH_DECIDE_JOB, BENCH_DECIDED

SWITCH = "Re-decide the next call with a model"
KINDS = {"builtin": "the built-in model (this CPU)", "endpoint": "a model endpoint"}
MOST_TOKENS = 1_024  # as the CLI's --decide-tokens
PROBLEM = "The next calls could not be re-decided."
BUILTIN_MEANS = ("With the built-in model (SmolLM2, 135M parameters) this is a check that the pipeline works, not a "
                 "measure of the strategies' quality: a model this small rarely picks the recorded call even when "
                 "nothing was cut.")
ENDPOINT_MEANS = ("With a model at an endpoint this is a real measure: how often the context each strategy sent still "
                  "leads the model to the call the agent made, read against no compression. Its tokens are counted and "
                  "priced where the lab knows the model's list price.")
ABOUT = ("At each recorded tool call (the first N of each run) the model is asked for the next call, given the task "
         "and the tail of what each row sent for it; tool: it named the recorded tool; args: the share of the "
         "recorded argument values it gave alike; vs none: against no compression of the same form, run by run; "
         "same: the decision no compression made; valid: a call of a known tool.")


def decide_inputs(summarizer_kind: str) -> Tuple[bool, Optional[Dict[str, Any]]]:
    """The switch and its widgets: (on, the DecideRequest's fields, None while it cannot run: the built-in model is
    missing or the endpoint is wrong)."""
    if not st.toggle(SWITCH, key="bench_decide", help=ABOUT):
        return False, None
    with st.container(border=True, key="bench_decide_box"):
        kind = st.radio("Decided by", list(KINDS), key="bench_decide_with", horizontal=True, format_func=KINDS.get)
        left, right = st.columns(2)
        calls = left.number_input("Recorded calls re-decided per run", 1, 50, DECIDE_CALLS_PER_RUN,
                                  key="bench_decide_calls")
        tokens = right.number_input("Each decision's reply cap (tokens)", 1, MOST_TOKENS, DECIDE_MAX_TOKENS,
                                    key="bench_decide_tokens",
                                    help="An answer cut short by the cap is not valid JSON: no valid call.")
        fields: Dict[str, Any] = {"calls_per_run": int(calls), "max_tokens": int(tokens)}
        if kind == "builtin":
            st.caption(BUILTIN_MEANS)
            # the summarizer picker offers the Fetch button when it is the built-in model too: once a page
            if not builtin_ready(fetch=summarizer_kind != "builtin"):
                return True, None
            return True, {**fields, "decide_with": "builtin"}
        endpoint, key, problem = endpoint_widgets(st.container(border=True), "bench_dec_ep", "Decider")
        st.caption(ENDPOINT_MEANS)
        if problem:
            st.error(escape(problem))
            return True, None
        return True, {**fields, "decide_with": "endpoint", "endpoint": endpoint, "key": key or None}


def start_after(benchmark_request: Any, fields: Optional[Dict[str, Any]], stopped: bool) -> None:
    """The benchmark ended: re-decide its runs and settings (unless it was stopped, or the switch was off)."""
    st.session_state[BENCH_DECIDED] = None
    if fields is None:
        return
    if stopped:
        st.session_state[BENCH_DECIDED] = "The benchmark was stopped, so its next calls were not re-decided."
        return
    live.start(BENCH_DECIDE_JOB, decide_next(DecideRequest(benchmark_request, **fields)))


def _collect(job: Any) -> None:
    if job.result is not None:
        st.session_state[BENCH_DECIDED] = job.result
    elif isinstance(job.error, LabError):  # the work limit's refusal, a dataset that cannot be read again
        st.session_state[BENCH_DECIDED] = job.error.sentence


def _pct(value: Optional[float]) -> Optional[float]:
    return None if value is None else round(100 * value, 1)


def agreement_frame(decided: Any) -> pd.DataFrame:
    """The agreement table as the page shows it (percentages and percentage points, 0.1 apart; each setting in
    words, ui/setting_words.py)."""
    return pd.DataFrame([{
        "row": label_words(r["setting"]), "runs": r["runs"], "tool %": _pct(r["tool_agreement"]),
        "tool vs none (pt)": _pct(r["tool_agreement_vs_none"]), "args %": _pct(r["arguments_agreement"]),
        "args vs none (pt)": _pct(r["arguments_agreement_vs_none"]),
        "same as no compression %": _pct(r["same_as_no_compression"]), "valid %": _pct(r["valid"]),
        "failed calls": r["failed_calls"]} for r in decided.rows])


def show(endpoint_model: Optional[str] = None) -> None:
    """The live view of the re-deciding job, then its table (or why there is none)."""
    live.show(BENCH_DECIDE_JOB, on_end=_collect, problem=PROBLEM, errors=(LabError,), say_end=False)
    decided = st.session_state.get(BENCH_DECIDED)
    if decided is None:
        return
    st.subheader("The next call, re-decided")
    if isinstance(decided, str):
        show_problem(PROBLEM, decided)
        return
    st.info(BUILTIN_MEANS if decided.constrained else ENDPOINT_MEANS, icon=":material/info:")
    how = ", constrained by a JSON schema of each run's tools" if decided.constrained else ""
    text = (f"Decided by {decided.model}: {decided.asked:,} model calls{how}, {decided.tokens_in:,} tokens in and "
            f"{decided.tokens_out:,} out")
    if not decided.constrained:
        price = cost_usd(endpoint_model, decided.tokens_in, decided.tokens_out)
        text += f", ${price:.4f} at list price" if price is not None else " (no list price known for this model)"
    st.text(text + ".")  # an endpoint model's name is what the person typed
    if decided.stopped:
        st.warning("Stopped: the table covers the calls re-decided before the stop.")
    st.caption(ABOUT)
    st.dataframe(agreement_frame(decided), hide_index=True, key="bench_decided_table", width="stretch")
