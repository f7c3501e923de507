"""The run view: one renderer for a live run, a finished run and a loaded file.

It reads only events (and the run's config), so what a person sees live is what they see again when
they open the run later. The top part is laid out to fit one screen (1280x800 and up): the status row
with its controls, the scratchpad's newest text and the trigger panel on the left, the newest
compression and the size chart under it on the right (presenter mode: three columns), each in a keyed
container (`<key>_status`, `<key>_scratchpad`, `<key>_triggers`, `<key>_diff`, `<key>_chart`); the
timeline (`<key>_timeline`) below. The compression's box has a fixed height and the trigger panel a
reserved one, so nothing moves while a run is live; the status row stays one line at 1280 px whatever appears in it
(the whole scratchpad opens from the scratchpad pane's own line), and a failed summarizer call's banner is drawn under
the live story, not above it. Untrusted text
(scratchpad, tool results, answers, error messages) goes through st.code/st.text, or st.markdown only
through `scratchpad_lab.ui.markup`.
"""
from __future__ import annotations

import textwrap
from collections import Counter
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Sequence, Tuple

import streamlit as st

from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.model.events import Event
from scratchpad_lab.ui.markup import escape
from scratchpad_lab.analysis.narrate import narrate, sentence_for, waiting_for
from scratchpad_lab.analysis.figures import (Figures, LABELS, NO_COMPRESSION, compression_counts, failed_call_events,
                                             figures, percent)
from scratchpad_lab.analysis.metrics import final_answer, model_ids
from scratchpad_lab.analysis import pin_checks
from scratchpad_lab.analysis.pricing import cost_usd
from scratchpad_lab.analysis.quality import annotate
from scratchpad_lab.analysis.triggers import periodic_due, trigger_state
from scratchpad_lab.ui.cards import compression_card
from scratchpad_lab.ui.charts import size_chart
from scratchpad_lab.ui.state import PRESENTER
from scratchpad_lab.ui.style import PAGE_CSS  # noqa: F401 (its home is style.py, which the first page imports alone)

if TYPE_CHECKING:  # pandas is imported where a table is built (the first page does without it)
    import pandas as pd

OUTCOME_TEXT = {"answered": "answered", "stopped": "stopped", "timeout": "wall-clock cap",
                "max_iterations": "out of iterations", "error": "error"}

# The one-screen layout (1280x800 with the sidebar open is the smallest it must fit)
# The scratchpad pane holds PANE_COLS chars a line at every width: its text grows with its column (style.PAGE_CSS),
# and its height with its text, so the newest text the page sends fills it, at 1280 px as at 1500 (issue 45 item 4).
PANE_ROWS = 7           # visual lines of the scratchpad pane
PANE_COLS = 43          # chars per visual line (style.PAGE_CSS sizes the text so that they fit)
PANE_HEIGHT = 200       # px of the scratchpad pane at its smallest (the page's style grows it with its text)
PRESENTER_PANE_ROWS = 4       # ... in presenter mode (bigger text, same screen, the folded timeline under it)
PRESENTER_PANE_HEIGHT = 146
DIFF_HEIGHT = 120       # px of the newest compression's text (in the live view)
DIFF_BOX = 282          # px of the newest compression's box: fixed, so what is under it never moves
CHART_HEIGHT = 200      # px of the size chart, its legend included
PRESENTER_CHART_HEIGHT = 224
TIMELINE_HEIGHT = 260



def _paused(events: Sequence[Event]) -> bool:
    pauses = [e.kind for e in events if e.kind in ("pause", "resume")]
    return bool(pauses) and pauses[-1] == "pause"


def status_line(events: Sequence[Event], config: RunConfig, elapsed_s: float, live: bool,
                controls: Optional[Callable[[], None]] = None, name: Optional[str] = None,
                status: Optional[str] = None, of: Optional[int] = None) -> None:
    """Iteration k of max, compressions, status and elapsed time, with the run's controls beside them.
    `status` says it instead of the events (a moment of a run: "paused" in a lesson, "in progress")."""
    given = status
    state = trigger_state(events, config)
    finish = [e for e in events if e.kind == "finish"]
    if finish:
        status = OUTCOME_TEXT.get(finish[-1].payload.outcome, "finished")
    else:
        status = given or ("paused" if _paused(events) else ("running" if live else "—"))
    waiting = waiting_for(events) if live and not finish and not given else None
    # One line at 1280 px whatever appears in it (summarizer calls, pins, a wait): a small gap, a long name cut
    # short by the page's style (style.PAGE_CSS), and a wait's detail (the built-in model loading) on the Why line.
    with st.container(horizontal=True, vertical_alignment="center", gap="small"):
        if name:  # a sample's name comes from its file name: escaped
            st.markdown(f"**{escape(name)}**", width="content")
        # of the run's cap: a replay's is its trace's steps, past the config's max_iterations (a session of 217
        # replies read "214 of 30"); `of` is the whole run's last iteration when the row shows an earlier moment
        cap = max([config.max_iterations, of or 0] + [int(e.iteration or 0) for e in events if e.kind == "iteration"])
        # while the summarizer works on the iteration that has just begun, the row names that iteration, as the
        # Why line does (its scratchpad is shown once the summarizer has replied)
        now = max(state.iteration, pending_iteration(events) or 0) if waiting is not None else state.iteration
        st.metric("iteration", f"{now} of {cap}", width="content")
        compressions, calls, _ = compression_counts(events)
        st.metric(LABELS["compressions"], compressions, width="content")
        # A summarizer call that replaced nothing: said beside, never counted in. Its place is held from the first
        # paint (an empty element takes no room), so when it appears mid-run nothing after it is drawn again: the
        # pins badge, Stop and Pause would otherwise vanish for a moment while the row's items shift one along.
        calls_slot = st.empty()
        if calls != compressions:
            calls_slot.metric(LABELS["summarizer_calls"], calls, width="content")
        if config.pins:  # analysis/pin_checks.py's count, in its words (numbers and ours only)
            pins, met, lost = pin_checks.over_compressions(events)
            color = "red" if lost else ("green" if met else "gray")
            whole = pin_checks.pins_text(len(pins), len(met), len(met) - len(lost))
            # the row says the pins compressions met ("0 of 1 pin kept"), or only how many there are; the whole
            # sentence (the pins never compressed too) is its help, so the row keeps one line
            short = pin_checks.pins_text(len(met), len(met), len(met) - len(lost)) if met else \
                f"{len(pins)} pin{'s' if len(pins) != 1 else ''}"
            st.markdown(f":{color}-badge[{short}]", width="content",
                        help=f"{whole}. Pins: text that must survive. A pin is kept when every compression that held "
                             "it wrote it again; a lost pin is flagged on its card.")
        if waiting is not None:  # a model call in flight: what the run waits for, and for how long
            st.metric(f"status: waiting for {wait_parts(waiting[0])[0]}", f"{max(0.0, elapsed_s - waiting[1]):.0f} s",
                      width="content")
        else:
            st.metric("status", status, width="content")
        st.metric("elapsed", f"{elapsed_s:.1f} s", width="content")
        if controls is not None:
            controls()


def wait_parts(waiting: str) -> Tuple[str, str]:
    """What a run waits for, and the detail the model gave ("the summarizer (loading the model…)": the built-in
    model's loading or its place in the queue, observe.bounded's words): the status row names the first, the Why
    line says the second, so the row keeps its width while the detail changes."""
    what, _, detail = waiting.partition(" (")
    return what, detail[:-1] if detail.endswith(")") else detail


def pending_iteration(events: Sequence[Event]) -> Optional[int]:
    """The iteration the summarizer (or your review) is working on, while a call for an iteration later than the
    last one sent is in flight: the middleware calls it as that iteration starts, before the iteration is sent."""
    if waiting_for(events) is None:
        return None
    start = next(e for e in reversed(events) if e.kind == "call_start")
    sent = max([int(e.iteration or 0) for e in events if e.kind == "iteration"] + [0])
    return int(start.iteration) if start.iteration is not None and int(start.iteration) > sent else None


def working_sentence(events: Sequence[Event], config: RunConfig) -> Optional[str]:
    """The Why line while the summarizer works on the iteration that has just begun (`pending_iteration`): which
    trigger fired there and what the run waits for, never the sentence of the iteration before."""
    k = pending_iteration(events)
    if k is None:
        return None
    what, detail = wait_parts(waiting_for(events)[0])
    if periodic_due(k, config.summarize_every):
        fired = f"{k} is a multiple of {config.summarize_every}, so the periodic trigger fired"
    else:
        fired = (f"the scratchpad is over the {config.max_scratchpad_chars:,} cap and has grown since the last "
                 "summary, so the size trigger fired")
    doing = "the proposed summary waits for your review" if what == "your review" else "the summarizer is at work"
    return f"Iteration {k}: {fired}; {doing}" + (f" ({detail})" if detail else "") + "."


def failure_summary(events: Sequence[Event]) -> Optional[Tuple[int, int, str]]:
    """(failed, summarizer calls, why) when summarizer calls failed (figures.failed_call: it raised or replied
    nothing; a proposal you rejected is your decision, not a failure)."""
    bad = [e.payload for e in failed_call_events(events)]
    if not bad:
        return None
    _, calls, _ = compression_counts(events)
    reasons = Counter(str(c.error or "").strip() or
                      ("the summarizer replied nothing" if c.status == "empty" else "no reason given") for c in bad)
    why, count = reasons.most_common(1)[0]
    if len(reasons) > 1:
        why += f" ({count} times; {len(reasons) - 1} other reason{'s' if len(reasons) > 2 else ''})"
    return len(bad), calls, why


def failure_banner(events: Sequence[Event]) -> None:
    """Said once per run, under the live story: how many summarizer calls failed and why (the why may quote a
    server, so it is escaped)."""
    summary = failure_summary(events)
    if summary is None:
        return
    failed, total, why = summary
    st.error(f"**{failed} of {total} summarizer calls failed**: {escape(why[:300])}. The package kept the "
             "scratchpad each time, so those calls compressed nothing: they are not counted as compressions, "
             f"and facts kept reads '{NO_COMPRESSION}' for them.")


def wrapped_rows(line: str, cols: int = PANE_COLS) -> int:
    """How many visual lines the pane draws `line` on: wrapped at spaces and after hyphens as the browser wraps a
    code block's text, a word longer than a line cut where the line ends."""
    return max(1, len(textwrap.wrap(line, cols, break_on_hyphens=True, drop_whitespace=True, replace_whitespace=False,
                                    expand_tabs=False)))


def scratchpad_tail(text: str, rows: int = PANE_ROWS, cols: int = PANE_COLS) -> Tuple[str, int]:
    """The newest part of the scratchpad that fills `rows` lines of `cols` chars (wrapped), with its first
    line kept when it is a package marker ("[Summarized up to step N]", the trim marker) and a line
    saying how many chars in between are not shown; the oldest line shown is cut at its start when only its end
    fits, so the pane is full to its last line. Returns (text to show, chars left out)."""
    lines = text.split("\n")
    head = lines[0] if lines and lines[0].startswith("[") and lines[0].rstrip().endswith("]") else None
    body = lines[1:] if head is not None else lines

    if sum(wrapped_rows(line, cols) for line in lines) <= rows:
        return text, 0
    budget = rows - 1 - (wrapped_rows(head, cols) if head is not None else 0)
    shown: List[str] = []
    for line in reversed(body):
        need = wrapped_rows(line, cols)
        if need > budget:
            if budget > 0:  # the end of this line fills the rows left
                end = line[-(budget * cols - 1):]
                while end and wrapped_rows("…" + end, cols) > budget:
                    end = end[cols // 2:]
                if end.strip():
                    shown.append("…" + end.lstrip())
            break
        shown.append(line)
        budget -= need
    shown.reverse()
    left_out = len(text) - len("\n".join(shown)) - (len(head) + 1 if head is not None else 0)
    marker = f"… {max(left_out, 0):,} earlier chars not shown"
    return "\n".join(([head] if head is not None else []) + [marker] + shown), left_out


def _pane_header(text: str, whole: Optional[str]) -> None:
    """The pane's one line: what it shows, and the whole scratchpad behind a button at its end (drawn disabled
    before the first step, so the line keeps its height). Here, not in the status row: the row stays one line."""
    with st.container(horizontal=True, vertical_alignment="center", gap="xsmall"):
        st.text(text, width="stretch")
        with st.popover(":material/open_in_full:", type="tertiary", disabled=whole is None,
                        help="The whole scratchpad, as it was sent at this iteration."):
            st.code(whole or "(empty)", language=None, wrap_lines=True, height=500)


def scratchpad_panel(events: Sequence[Event], upto: Optional[int] = None, height: int = PANE_HEIGHT,
                     rows: int = PANE_ROWS) -> None:
    shown = [e for e in events if e.kind == "iteration" and (upto is None or e.iteration <= upto)]
    if not shown:
        _pane_header("Scratchpad: empty until the first step is done.", None)
        st.code("", language=None, height=height)
        return
    last = shown[-1]
    sent = last.payload
    tail, _ = scratchpad_tail(str(sent.scratchpad or ""), rows)
    _pane_header(f"Scratchpad sent at iteration {last.iteration}: {sent.chars:,} chars · {sent.tokens:,} tokens",
                 str(sent.scratchpad or ""))
    st.code(tail or "(empty)", language=None, height=height, wrap_lines=True)


PERIODIC_HELP = ("The middleware's periodic trigger (summarize_every): it compresses at iterations N, 2N, 3N…, "
                 "whatever the size.")
SIZE_HELP = ("The middleware's size trigger (max_scratchpad_chars): it compresses when the scratchpad is over the "
             "cap and has grown since the last summary (the package calls it armed then). The agent's own limit "
             "is a different knob: after every step the agent itself cuts its scratchpad to its last N chars "
             "(the agent's max_scratchpad_chars), dropping the oldest text.")
FIRED_STATUS = {"ok": "", "empty": " (the summarizer replied nothing)", "error": " (the summarizer failed)"}
FIRED_REVIEW = {"rejected": " (you rejected it)", "abandoned": " (stopped during your review)"}


def trigger_panel(events: Sequence[Event], config: RunConfig, upto: Optional[int] = None, live: bool = False) -> None:
    s = trigger_state(events, config, upto)
    if s.next_periodic is None:
        periodic = "Periodic trigger: off"
    else:
        periodic = (f"Periodic trigger: every {s.summarize_every} · next at iteration {s.next_periodic} "
                    f"(in {s.next_periodic - s.iteration})")
    st.text(periodic, help=PERIODIC_HELP)
    st.progress(min(s.share_of_cap, 1.0),
                text=f"Size vs “compress when over”: {s.chars:,} / {s.max_scratchpad_chars:,} chars "
                     f"({percent(s.share_of_cap)})")
    st.progress(min(s.share_of_trim, 1.0),
                text=f"Size vs the agent's own limit: {s.chars:,} / {s.agent_trim_chars:,} chars "
                     f"({percent(s.share_of_trim)})")
    size = ("Size trigger: ready" if s.size_armed else
            f"Size trigger: waits for growth past {s.last_summarized_chars:,} chars")
    fired = ("last fired: not yet" if s.last_fired_iteration is None else
             f"last fired: {s.last_fired_reason} at {s.last_fired_iteration}"
             f"{FIRED_REVIEW.get(s.last_fired_review or '') or FIRED_STATUS.get(s.last_fired_status, '')}")
    st.text(f"{size} · {fired}", help=SIZE_HELP)
    working = working_sentence(events, config) if live and upto is None else None
    st.text("Why: " + (working or sentence_for(events, s.iteration) or  # narrate.py
                       "the first iteration has not started yet."))


def timeline_frame(events: Sequence[Event]) -> pd.DataFrame:
    import pandas as pd  # lazy: the first page does without it
    rows = {}
    for e in events:
        if e.iteration is None:
            continue
        row = rows.setdefault(e.iteration, {"iteration": e.iteration, "chars sent": 0, "tools": "",
                                            "compression": "", "trim": ""})
        if e.kind == "iteration":
            row["chars sent"] = e.payload.chars
        elif e.kind == "tool_call":
            row["tools"] = (row["tools"] + ", " if row["tools"] else "") + str(e.payload.tool)
        elif e.kind == "compression":
            p = e.payload
            outcome = {"rejected": "rejected by you", "abandoned": "stopped during review"}.get(p.review or "", p.status)
            row["compression"] = f"{p.reason} · {outcome} · {p.before_chars:,}→{p.after_chars:,}"
        elif e.kind == "trim":
            row["trim"] = f"{e.payload.before_chars:,}→{e.payload.after_chars:,}"
        elif e.kind == "final_answer":
            row["tools"] = "final answer"
    whys = narrate(events)  # one sentence per iteration: why it did or did not compress
    return pd.DataFrame([{**r, "why": whys.get(r["iteration"], "")} for r in rows.values()],
                        columns=["iteration", "chars sent", "tools", "compression", "trim", "why"])


# The timeline's columns in px: together they fit the table's width at 1280 px (916 px with the sidebar open), and
# Streamlit shares out what a wider window adds, so no column runs past the table's right edge at either size; a
# long "why" is cut inside its cell (the Why line and the cards say it whole).
TIMELINE_WIDTHS = {"iteration": 72, "chars sent": 84, "tools": 170, "compression": 215, "trim": 110, "why": 240}


def timeline_columns() -> dict:
    return {name: (st.column_config.NumberColumn(name, width=width, format="localized")
                   if name in ("iteration", "chars sent") else st.column_config.TextColumn(name, width=width))
            for name, width in TIMELINE_WIDTHS.items()}


def _money(value: Optional[float]) -> str:
    return "no price known" if value is None else f"${value:.4f}"


def _cost_line(s: Figures) -> str:
    return (f"Agent: {s.agent_calls} calls, {s.agent_tokens_in:,} tokens in / {s.agent_tokens_out:,} out, "
            f"{_money(s.agent_cost_usd)} · Summarizer: {s.summarizer_calls} calls, {s.summarizer_tokens_in:,} in / "
            f"{s.summarizer_tokens_out:,} out, {_money(s.summarizer_cost_usd)}")


CARDS_PER_PAGE = 10  # a long run has hundreds of compressions: only the cards on show are annotated and drawn


def annotated_cards(events: Sequence[Event], compressions: Sequence[Event]) -> List[Dict]:
    """The cards of the given compression events only (facts, flags, narration), in their order."""
    starts = [e for e in events if e.kind == "run_start"]
    return [{**c, "why": sentence_for(events, c["iteration"])} for c in annotate(starts + list(compressions), run=events)]


def newest_compression(events: Sequence[Event], key: str, upto: Optional[int] = None) -> None:
    comps = [e for e in events if e.kind == "compression" and (upto is None or e.iteration <= upto)]
    if not comps:
        st.markdown("**Newest compression**")
        st.text("No compression yet. The newest one appears here, the moment it happens: what it kept, "
                "what it dropped and what the summarizer wrote.")
        return
    # annotate only the newest: the live view redraws this twice a second
    newest = annotate([e for e in events if e.kind == "run_start"] + [comps[-1]], run=events)[0]
    compression_card(newest, key=f"{key}_newest", height=DIFF_HEIGHT, compact=True)


def as_of(events: Sequence[Event], upto: Optional[int]) -> List[Event]:
    """The run as it was once iteration `upto` had passed the middleware: its events up to then (all of
    them when `upto` is None). Everything the view shows, its status row included, reads these."""
    return list(events) if upto is None else [e for e in events if e.iteration is None or e.iteration <= upto]


def render_run_top(events: Sequence[Event], config: RunConfig, *, live: bool, elapsed_s: float = 0.0,
                   key: str = "run", upto: Optional[int] = None, show_chart: bool = True,
                   prices: Optional[dict] = None, controls: Optional[Callable[[], None]] = None,
                   name: Optional[str] = None, status: Optional[str] = None) -> None:
    """The one-screen part: status and controls, scratchpad, triggers, newest compression; then the
    size chart and the timeline. With `upto`, all of it as the run was at that iteration (a step of the
    Runs page, a lesson's pause): the status row, the final answer and the clock too."""
    later = upto is not None and any(e.iteration is not None and e.iteration > upto for e in events)
    whole = max([int(e.iteration or 0) for e in events if e.kind == "iteration"] + [0])
    if later:  # a moment before the end: its clock is the time of its last event, its status unfinished
        events = as_of(events, upto)
        elapsed_s = max((e.t for e in events), default=0.0)
        status = status or ("running" if live else "in progress")
    with st.container(key=f"{key}_status"):
        status_line(events, config, elapsed_s, live, controls, name, status, of=whole)
    shown = [e for e in events if upto is None or e.iteration is None or e.iteration <= upto]
    # The live story on one screen: the scratchpad and the triggers beside the newest compression and the
    # size chart (presenter mode: the same, wider without the sidebar, taller and in bigger text). The compression sits
    # in a box of fixed height, so the chart under it never moves while the run goes; the timeline follows.
    presenting = bool(st.session_state.get(PRESENTER))
    story, newest = st.columns([5, 6], gap="medium")
    with story:
        with st.container(key=f"{key}_scratchpad", gap="xsmall"):
            scratchpad_panel(events, upto, *((PRESENTER_PANE_HEIGHT, PRESENTER_PANE_ROWS) if presenting else
                                             (PANE_HEIGHT, PANE_ROWS)))
        with st.container(key=f"{key}_triggers", gap="xsmall"):
            trigger_panel(events, config, upto, live=live)
    with newest:
        with st.container(key=f"{key}_diff", height=DIFF_BOX, border=True):
            newest_compression(events, key, upto)
    if show_chart:
        height = PRESENTER_CHART_HEIGHT if presenting else CHART_HEIGHT
        with newest, st.container(key=f"{key}_chart", gap="xsmall"):
            unit = "chars" if presenting else st.radio(  # a presenter's chart is in chars: its row goes to the chart
                "Chart unit", ["chars", "tokens"], horizontal=True, key=f"{key}_unit", label_visibility="collapsed")
            st.altair_chart(size_chart(events, config, unit, upto, height=height, presenting=presenting),
                            width="stretch", height=height)
    # Under the live story, not above it: a banner that appears at the first failed call mid-run would push the
    # scratchpad, the triggers and the chart down while the presenter talks (issue 45 item 3)
    failure_banner(shown)
    with st.container(key=f"{key}_timeline"):
        if presenting:  # a projector's screen ends with the live story, not with a table cut at its edge
            with st.expander("Timeline"):
                st.dataframe(timeline_frame(shown), hide_index=True, height=TIMELINE_HEIGHT,
                             column_config=timeline_columns())
        else:
            st.text("Timeline")
            st.dataframe(timeline_frame(shown), hide_index=True, height=TIMELINE_HEIGHT,
                         column_config=timeline_columns())
    answer = final_answer(events)
    if answer is not None:
        st.subheader("Final answer")
        summary = figures(events, prices=prices)
        st.text(_cost_line(summary))
        if summary.answer_score is not None:
            st.text(f"Answer score: {percent(summary.answer_score)} of the expected facts "
                    "(the scripted agent answers only from what is still in its scratchpad)")
        st.code(answer, language=None, wrap_lines=True)
    for e in events:  # the message may quote a server's words: shown as text, not markdown
        if e.kind == "error":
            st.text("Run ended: " + str(e.payload.message))


def render_cards(events: Sequence[Event], key: str = "run", upto: Optional[int] = None,
                 prices: Optional[dict] = None, pinnable: bool = False) -> None:
    """Every compression, newest first, CARDS_PER_PAGE at a time (a page picker when there are more);
    `pinnable` (the Playground): each card's lost facts can be pinned."""
    comps = [e for e in events if e.kind == "compression" and (upto is None or e.iteration <= upto)]
    compressions, _, failed = compression_counts(comps)
    st.subheader(f"Compressions ({compressions})" + (f" and {failed} failed summarizer calls" if failed else ""))
    if not comps:
        st.text("No compression yet.")
        return
    pages = -(-len(comps) // CARDS_PER_PAGE)
    page = 1
    if pages > 1:
        page = int(st.number_input(f"Page of compression cards (1-{pages}, newest first)", min_value=1,
                                   max_value=pages, value=1, step=1, key=f"{key}_cards_page_{pages}", width=320))
    first = (page - 1) * CARDS_PER_PAGE
    shown = comps[::-1][first:first + CARDS_PER_PAGE]
    if pages > 1:
        st.caption(f"Compressions at iterations {shown[0].iteration} to {shown[-1].iteration} "
                   f"({first + 1}-{first + len(shown)} of {len(comps)}, newest first)")
    _, summarizer_model = model_ids(events)
    for i, c in enumerate(annotated_cards(events, shown), start=first):
        cost = cost_usd(summarizer_model, int(c.get("tokens_in") or 0), int(c.get("tokens_out") or 0), prices)
        compression_card(c, key=f"{key}_card_{i}", cost=cost, pinnable=pinnable)


def render_run(events: Sequence[Event], config: RunConfig, *, live: bool, elapsed_s: float = 0.0,
               key: str = "run", upto: Optional[int] = None, show_chart: bool = True,
               prices: Optional[dict] = None, controls: Optional[Callable[[], None]] = None,
               status: Optional[str] = None) -> None:
    render_run_top(events, config, live=live, elapsed_s=elapsed_s, key=key, upto=upto, show_chart=show_chart,
                   prices=prices, controls=controls, status=status)
    render_cards(events, key=key, upto=upto, prices=prices)
