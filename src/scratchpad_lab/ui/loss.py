"""What a finished run lost: facts still known by the step they came from, savings, probe questions.

The savings are measured against the same path replayed with compression off: that replay is a job, drawn
by the one live fragment (ui/live.py) with its progress and a Stop button, and kept for the tab once done.
Untrusted text (facts, answers, context lines) is shown in dataframes and st.text only.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

import streamlit as st

from scratchpad_lab.engine.jobs import Job
from scratchpad_lab.engine.tasks import CompressionOffRequest, compression_off
from scratchpad_lab.model.errors import LabError
from scratchpad_lab.analysis.probes import ProbeQuestion, run_probes, scenario_probes
from scratchpad_lab.analysis.quality import annotate, facts_by_step, savings
from scratchpad_lab.model.records import RunRecord
from scratchpad_lab.analysis.figures import figures
from scratchpad_lab.ui import live
from scratchpad_lab.ui.state import LOSS_COMPRESSION_OFF, LOSS_JOB, LOSS_USER_PROBES
from scratchpad_lab.ui.charts import LEVEL

BASELINE_ERRORS = (LabError, ValueError, KeyError)
STOPPED = "stopped"                  # in the cache: the replay was stopped by the user (offered again)
SUPERSEDED = "another run is shown"  # the reason the panel stops a replay of a run no longer shown


def _cache() -> Dict[int, Any]:
    return st.session_state.setdefault(LOSS_COMPRESSION_OFF, {})


def baseline_for_record(record: RunRecord) -> Optional[RunRecord]:
    """The same path with compression off, replayed once as a job and then kept for this tab; None while
    the replay is going (its live fragment shows it), when it was stopped, or when it could not be made."""
    cache = _cache()
    if id(record) in cache:
        baseline = cache[id(record)][1]
        return None if baseline is STOPPED else baseline
    job = live.current(LOSS_JOB)
    if live.busy(LOSS_JOB):
        if job.tag is not record:  # a replay of a run no longer on show: it ends within a second
            job.stop(SUPERSEDED)
        return None
    live.start(LOSS_JOB, compression_off(CompressionOffRequest(record)))
    return None


def _collect_baseline(job: Job) -> None:
    record = job.tag
    if job.stopped:
        if job.stop_flag.reason != SUPERSEDED:
            _cache()[id(record)] = (record, STOPPED)
        return
    _cache()[id(record)] = (record, job.result)  # None when it could not be made (said once)


def _forget(record: RunRecord) -> None:
    _cache().pop(id(record), None)


def facts_chart(record: RunRecord):
    import altair as alt  # lazy: the first page does without it
    import pandas as pd  # lazy: the first page does without it
    rows = facts_by_step(record.events)
    data = pd.DataFrame([{"step": r.step, "facts": r.seen - r.known, "state": "lost by the end"} for r in rows] +
                        [{"step": r.step, "facts": r.known, "state": "still in the context"} for r in rows])
    if data.empty:
        return None
    return alt.Chart(data).mark_bar().encode(
        x=alt.X("step:O", title="step the facts came from"), y=alt.Y("facts:Q", title="facts", axis=alt.Axis(**LEVEL)),
        color=alt.Color("state:N", scale=alt.Scale(domain=["still in the context", "lost by the end"],
                                                    range=["#2ca02c", "#d62728"])),
        tooltip=["step:O", "state:N", "facts:Q"]).properties(height=220)


def _probe_list(record: RunRecord) -> List[ProbeQuestion]:
    user = st.session_state.setdefault(LOSS_USER_PROBES, [])
    return scenario_probes(record.scenario) + [ProbeQuestion(q, a) for q, a in user]


LOSS_AUTO_STEPS = 400  # a longer run works out savings and facts by step when asked (a few seconds)


def loss_panel(record: RunRecord, key: str, model_factory: Optional[Callable[[], Any]] = None) -> None:
    """`model_factory`, when given, builds the summarizer model to ask probe questions with."""
    import pandas as pd  # lazy: the first page does without it
    st.subheader("What compression lost")
    steps = sum(1 for e in record.events if e.kind == "iteration")
    detailed = steps <= LOSS_AUTO_STEPS or st.toggle(
        "Work out tokens saved and facts by step", key=f"{key}_detailed",
        help=f"This run has {steps:,} steps: the figures replay it with compression off and read every tool "
             "result again, which takes a few seconds.")
    baseline = baseline_for_record(record) if detailed else None
    cols = st.columns(4)
    cols[0].metric("facts kept across compressions", figures(record.events, record.scenario).facts_kept_text)
    if baseline is not None:
        s = savings(record.events, baseline.events)
        cols[1].metric("summarizer tokens spent", f"{s.summarizer_tokens:,}")
        cols[2].metric("context tokens saved", f"{s.context_tokens_saved:,}",
                       help="Against the same path with compression off (same agent trim).")
        cols[3].metric("net tokens saved", f"{s.net_tokens_saved:,}")
        if s.summarizer_tokens:
            st.text("Compression paid for itself at iteration " + str(s.payback_iteration)
                    if s.payback_iteration else "Compression never paid for itself in this run.")
    elif detailed and _cache().get(id(record), (None, None))[1] is STOPPED:
        st.button("Work out tokens saved against compression off", key=f"{key}_baseline_again",
                  on_click=_forget, args=(record,))
    live.show(LOSS_JOB, on_end=_collect_baseline, errors=BASELINE_ERRORS,
              problem="Tokens saved could not be worked out: this run could not be replayed with compression off.")
    chart = facts_chart(record) if detailed else None
    if chart is not None:
        st.text("Facts still in the agent's context at the end, by the step whose tool results brought them in")
        st.altair_chart(chart, width="stretch")
    comps = [e for e in record.events if e.kind == "compression"]
    if not comps:
        return
    st.text("Probe questions: still answerable after a compression?")
    iterations = [e.iteration for e in comps]
    chosen = st.selectbox("Compression", iterations, key=f"{key}_probe_at",
                          format_func=lambda i: f"iteration {i}")
    with st.expander("Add your own probe"):
        q = st.text_input("Question", key=f"{key}_probe_q")
        a = st.text_input("Expected answer (as it appears in the tool results)", key=f"{key}_probe_a")
        if st.button("Add probe", key=f"{key}_probe_add") and q.strip() and a.strip():
            st.session_state[LOSS_USER_PROBES].append((q.strip(), a.strip()))
    probes = _probe_list(record)
    if not probes:
        st.text("No probes for this run: add one above.")
        return
    starts = [e for e in record.events if e.kind == "run_start"]
    c = annotate(starts + [next(e for e in comps if e.iteration == chosen)])[0]  # only the one asked about
    results = run_probes(c["before"], c["after"], probes)
    if model_factory is not None and st.button("Ask the summarizer model too", key=f"{key}_probe_llm"):
        try:
            results += run_probes(c["before"], c["after"], probes, llm=model_factory(), method="model")
        except Exception as exc:  # an endpoint failure: say so, keep the offline answers
            st.text(f"The model could not be asked: {exc}")
    st.dataframe(pd.DataFrame([{
        "question": r.question, "expected": r.expected, "method": r.method,
        "before": "answerable" if r.answerable_before else "not answerable", "answer before": r.answer_before,
        "after": "answerable" if r.answerable_after else "not answerable", "answer after": r.answer_after,
    } for r in results]), hide_index=True)
