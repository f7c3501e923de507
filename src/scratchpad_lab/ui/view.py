"""The run view: one renderer for a live run, a finished run and a loaded file.

It reads only events (and the run's config), so what a person sees live is what they see again when
they open the run later. Untrusted text (scratchpad, tool results, answers) goes through st.code/st.text.
"""
from __future__ import annotations

from typing import Optional, Sequence

import streamlit as st

from ..config import RunConfig
from ..events import Event
from ..narrate import narrate, sentence_for
from ..metrics import RunSummary, final_answer, model_ids, summarize_run
from ..quality import annotate
from ..pricing import cost_usd
from ..triggers import trigger_state
from .cards import compression_card
from .charts import size_chart

OUTCOME_TEXT = {"answered": "answered", "stopped": "stopped", "timeout": "wall-clock cap",
                "max_iterations": "out of iterations", "error": "error"}


def status_line(events: Sequence[Event], config: RunConfig, elapsed_s: float, live: bool) -> None:
    state = trigger_state(events, config)
    finish = [e for e in events if e.kind == "finish"]
    cols = st.columns(4)
    cols[0].metric("iteration", f"{state.iteration} of {config.max_iterations}")
    cols[1].metric("elapsed", f"{elapsed_s:.1f} s")
    cols[2].metric("compressions", sum(1 for e in events if e.kind == "compression"))
    if finish:
        cols[3].metric("status", OUTCOME_TEXT.get(finish[-1].data.get("outcome"), "finished"))
    else:
        pauses = [e.kind for e in events if e.kind in ("pause", "resume")]
        paused = bool(pauses) and pauses[-1] == "pause"
        cols[3].metric("status", "paused" if paused else ("running" if live else "—"))


def scratchpad_panel(events: Sequence[Event], upto: Optional[int] = None) -> None:
    shown = [e for e in events if e.kind == "iteration" and (upto is None or e.iteration <= upto)]
    if not shown:
        st.text("The scratchpad is empty until the first step is done.")
        return
    last = shown[-1]
    st.text(f"Scratchpad sent at iteration {last.iteration}: {last.data.get('chars', 0):,} chars · "
            f"{last.data.get('tokens', 0):,} tokens")
    st.code(last.data.get("scratchpad", "") or "(empty)", language=None, height=380, wrap_lines=True)


def trigger_panel(events: Sequence[Event], config: RunConfig, upto: Optional[int] = None) -> None:
    s = trigger_state(events, config, upto)
    st.text("Compression triggers")
    if s.next_periodic is None:
        st.text("Periodic: off")
    else:
        st.text(f"Periodic: every {s.summarize_every} iterations · next at iteration {s.next_periodic} "
                f"(in {s.next_periodic - s.iteration})")
    st.progress(min(s.share_of_cap, 1.0),
                text=f"Size vs the middleware's cap: {s.chars:,} / {s.max_scratchpad_chars:,} chars "
                     f"({s.share_of_cap:.0%})")
    st.progress(min(s.share_of_trim, 1.0),
                text=f"Size vs the agent's hard trim: {s.chars:,} / {s.agent_trim_chars:,} chars "
                     f"({s.share_of_trim:.0%})")
    if s.size_armed:
        st.text("Size trigger: armed (the scratchpad has grown since the last summary)")
    else:
        st.text(f"Size trigger: disarmed until the scratchpad grows past {s.last_summarized_chars:,} chars")
    st.text("Why: " + (sentence_for(events, s.iteration) or "the first iteration has not started yet."))  # narrate.py
    if s.last_fired_iteration is None:
        st.text("Last fired: none yet")
    else:
        st.text(f"Last fired: {s.last_fired_reason} trigger at iteration {s.last_fired_iteration} "
                f"({s.last_fired_status})")


def timeline_frame(events: Sequence[Event]) -> pd.DataFrame:
    import pandas as pd  # lazy: the first page does without it
    rows = {}
    for e in events:
        if e.iteration is None:
            continue
        row = rows.setdefault(e.iteration, {"iteration": e.iteration, "chars sent": 0, "tools": "",
                                            "compression": "", "trim": ""})
        if e.kind == "iteration":
            row["chars sent"] = e.data.get("chars", 0)
        elif e.kind == "tool_call":
            row["tools"] = (row["tools"] + ", " if row["tools"] else "") + str(e.data.get("tool", ""))
        elif e.kind == "compression":
            row["compression"] = f"{e.data.get('reason')} · {e.data.get('status')} · " \
                                 f"{e.data.get('before_chars', 0):,}→{e.data.get('after_chars', 0):,}"
        elif e.kind == "trim":
            row["trim"] = f"{e.data.get('before_chars', 0):,}→{e.data.get('after_chars', 0):,}"
        elif e.kind == "final_answer":
            row["tools"] = "final answer"
    whys = narrate(events)  # one sentence per iteration: why it did or did not compress
    return pd.DataFrame([{**r, "why": whys.get(r["iteration"], "")} for r in rows.values()],
                        columns=["iteration", "chars sent", "tools", "compression", "trim", "why"])


def _money(value: Optional[float]) -> str:
    return "no price known" if value is None else f"${value:.4f}"


def _cost_line(s: RunSummary) -> str:
    return (f"Agent: {s.agent_calls} calls, {s.agent_tokens_in:,} tokens in / {s.agent_tokens_out:,} out, "
            f"{_money(s.agent_cost_usd)} · Summarizer: {s.summarizer_calls} calls, {s.summarizer_tokens_in:,} in / "
            f"{s.summarizer_tokens_out:,} out, {_money(s.summarizer_cost_usd)}")


def render_run(events: Sequence[Event], config: RunConfig, *, live: bool, elapsed_s: float = 0.0,
               key: str = "run", upto: Optional[int] = None,
               prices: Optional[dict] = None) -> None:
    status_line(events, config, elapsed_s, live)
    left, right = st.columns([3, 2])
    with left:
        scratchpad_panel(events, upto)
    with right:
        trigger_panel(events, config, upto)
    st.text("Timeline")
    st.dataframe(timeline_frame([e for e in events if upto is None or e.iteration is None or e.iteration <= upto]),
                 hide_index=True, height=200)
    unit = st.radio("Chart unit", ["chars", "tokens"], horizontal=True, key=f"{key}_unit")
    st.altair_chart(size_chart(events, config, unit, upto), width="stretch")
    cards = [{**c, "why": sentence_for(events, c["iteration"])} for c in annotate(events)
             if upto is None or c["iteration"] <= upto]
    st.subheader(f"Compressions ({len(cards)})")
    if not cards:
        st.text("No compression yet.")
    _, summarizer_model = model_ids(events)
    for i, c in enumerate(reversed(cards)):
        cost = cost_usd(summarizer_model, int(c.get("tokens_in") or 0), int(c.get("tokens_out") or 0), prices)
        compression_card(c, key=f"{key}_card_{i}", cost=cost)
    answer = final_answer(events)
    errors = [e for e in events if e.kind == "error"]
    if answer is not None:
        st.subheader("Final answer")
        summary = summarize_run(events, prices=prices)
        st.text(_cost_line(summary))
        if summary.answer_score is not None:
            st.text(f"Answer score: {summary.answer_score:.0%} of the expected facts "
                    "(the scripted agent answers only from what is still in its scratchpad)")
        st.code(answer, language=None, wrap_lines=True)
    for e in errors:  # the message may quote a server's words: shown as text, not markdown
        st.text("Run ended: " + str(e.data.get("message", "")))
