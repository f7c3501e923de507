"""The figures row: what a run's events add up to, the one home of every figure a page or command shows.

Streamlit-free; computed from the events alone, so a live run, a finished run, a loaded file, a Compare
or sweep row, a Strategies row and the CLI give the same figures, and read them the same way:

- compressions: the times a summary replaced what is sent (a `compression` event with status ok, see
  model/compression.py). A summarizer call that replied nothing or raised left the scratchpad as it was:
  it is a summarizer call, not a compression.
- summarizer_calls: every call to the summarizer, whatever it returned (a strategy that cut without
  calling it, `summarizer_called` false, made a compression but no call).
- failed calls (`failed_call`, the one rule every banner, heading, warning, sentence and chart reads): a
  summarizer call that replaced nothing because of the summarizer: it replied nothing (status empty) or
  raised (status error). A proposal the person rejected in review, or a review the Stop ended, also
  replaced nothing, but that was the person's decision (`your_decision`), never a failure.
- facts kept (facts_retained): of the facts in the scratchpad before each compression, the share still
  in it after, over the run's compressions. None when nothing was compressed, read as "no compression
  happened": a failed summarizer call compressed nothing, so it never counts as keeping everything.
- facts kept through trims (trim_facts_retained): the same share over the trims that recorded their text
  (the Strategies replays record them; the trim-only strategy has no other cut). A separate figure, so
  facts kept reads the same for a run on every page whether or not its trims were recorded.
- kept by kind (kept_by_kind): facts kept per kind (fact_kinds.py: ids, amounts, dates, paths and URLs, names,
  commands and code, the user's own lines), over the same compressions; only the kinds that had facts. Its
  counts (kinds_before, kinds_kept) are the sums the share is read from; facts kept is unchanged by it.
- health: {check: compressions that failed it} for health.py's five checks (grew the context, fires again,
  dropped the user's newest message, wrote facts not in its input, cost more than it saved).
- pins: the run's pins (analysis/pin_checks.py: the one rule of a pin kept): pins given, met by a compression, kept
  by every compression that met them, and the lost ones (pins_lost); "2 of 3 pins kept" (pins_kept_text). A
  run without pins has 0 and an empty list, and every other figure as before.
- sizes are "as sent": the scratchpad the agent's LLM received at an iteration (after compression);
  peak_* is the largest of those, the one meaning of "peak" everywhere.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from scratchpad_lab.analysis import health as health_checks
from scratchpad_lab.analysis.fact_kinds import kept_by_kind_text, kind_loss, shares, user_turns
from scratchpad_lab.analysis.facts import retention
from scratchpad_lab.analysis import pin_checks
from scratchpad_lab.analysis.metrics import answer_score, final_answer, model_ids, of_kind
from scratchpad_lab.analysis.pricing import cost_usd
from scratchpad_lab.analysis.quality import expected_values
from scratchpad_lab.model.events import Event

NO_COMPRESSION = "no compression happened"
# Facts kept by kind where nothing was summarized or cleared but a hard trim cut (the trim-only strategy, a cap that
# only trimmed): the trim dropped the oldest text whole, and what it dropped shows in the recall and facts figures.
TRIM_ONLY = "nothing summarized or cleared: the hard trim cut the oldest text (its loss is in the recall and facts figures)"
NO_FACTS = "no facts to keep"   # something was compressed, but it held no facts
NO_TRIM = "no trim"             # facts kept through trims, when no trim recorded its text
# How each figure is named on a page and in the CLI's lines (the JSON rows use the field names).
LABELS = {"compressions": "compressions", "summarizer_calls": "summarizer calls",
          "facts_retained": "facts kept",
          "trim_facts_retained": "facts kept through trims",
          "answer_score": "answer score", "peak_tokens": "peak context tokens",
          "mean_tokens": "mean context tokens", "kept_by_kind": "facts kept by kind",
          "health": "compressions with a problem", "pins": "pins kept"}


def percent(share: float) -> str:
    """A share (0 to 1) as every page and the CLI print it: a whole percentage."""
    return f"{share:.0%}"


def percent_or(share: Optional[float], none: str) -> str:
    """A share as a percentage, or `none` (our words for why there is none) when there is none."""
    return none if share is None else percent(share)


def facts_kept_text(share: Optional[float], compressed: bool) -> str:
    """A facts-kept share as it reads everywhere: a percentage; "no compression happened" when nothing was
    compressed, whatever the share says; "no facts to keep" when what was compressed held none."""
    if not compressed:
        return NO_COMPRESSION
    return percent_or(share, NO_FACTS)


def kinds_kept_text(kept: Dict[str, float], compressed: bool, runs: Optional[Dict[str, int]] = None,
                    recoverable: Optional[Dict[str, float]] = None, *, cut: bool = False,
                    compresses_by: str = "summary") -> str:
    """Facts kept by kind as it reads everywhere (a Strategies or Compare cell, a recommended point, a benchmark
    setting): "ids 80%, amounts 50%" (fact_kinds.kept_by_kind_text, with the runs each share is a mean over when
    given, and each kind's share recoverable from a file the context names: "ids 60% (+35% in a named file)");
    "no compression happened" when nothing was compressed, as facts kept reads then, or TRIM_ONLY when a hard trim
    still `cut`. A strategy that compresses by clearing (registry `compresses_by`) says its shares are of the tool
    results it cleared, so "ids 0%" never reads as the whole context's loss beside a high argument recall."""
    if not compressed:
        return TRIM_ONLY if cut else NO_COMPRESSION
    text = kept_by_kind_text(kept, runs, recoverable)
    if compresses_by == "clearing":
        return f"of the tool results it cleared: {text} (a placeholder stands for each; the rest stays whole)"
    return text


# A review verdict that leaves the scratchpad as it was: the person's decision, not the summarizer's failure.
YOUR_DECISIONS = ("rejected", "abandoned")


def _field(c: Any, name: str) -> Any:
    """A compression's field, from its event data (a payload) or its card (a dict)."""
    return c.get(name) if isinstance(c, dict) else getattr(c, name, None)


def your_decision(c: Any) -> bool:
    """This compression replaced nothing because the person rejected the proposal (or stopped the run while
    it waited for review)."""
    return _field(c, "status") not in (None, "ok") and _field(c, "review") in YOUR_DECISIONS


def failed_call(c: Any) -> bool:
    """The one rule of a failed summarizer call: the summarizer was called and replaced nothing of its own
    doing: it replied nothing (empty) or raised (error). A rejection in review is the person's decision."""
    called = _field(c, "summarizer_called")
    return (called is None or bool(called)) and _field(c, "status") in ("empty", "error") and not your_decision(c)


def compression_counts(events: Sequence[Event]) -> Tuple[int, int, int]:
    """(compressions, summarizer calls, failed calls): cheap, for views redrawn while a run goes (no
    facts read). A failed call is `failed_call`'s."""
    comps = of_kind(events, "compression")
    return (sum(1 for e in comps if e.payload.status == "ok"),
            sum(1 for e in comps if e.payload.summarizer_called),
            sum(1 for e in comps if failed_call(e.payload)))


def failed_call_events(events: Sequence[Event]) -> list:
    """The compression events whose summarizer call failed (`failed_call`), in order."""
    return [e for e in of_kind(events, "compression") if failed_call(e.payload)]


def facts_over_compressions(events: Sequence[Event]) -> Tuple[int, int]:
    """(facts before, facts kept) summed over the run's compressions (status ok): the one facts-kept rule,
    read per compression as the cards read it (facts.retention). A summarizer call that replaced nothing
    is left out: it kept the scratchpad, not its facts."""
    comps = [e for e in of_kind(events, "compression") if e.payload.status == "ok"]
    expected = expected_values(events) if comps else ()
    total = kept = 0
    for e in comps:
        r = retention(e.payload.before or "", e.payload.after or "", expected)
        total += len(r.before)
        kept += len(r.kept)
    return total, kept


def kinds_over_compressions(events: Sequence[Event]) -> Tuple[Dict[str, int], Dict[str, int]]:
    """({kind: facts before}, {kind: facts kept}) summed over the run's compressions (status ok), read per
    compression as the cards read it (fact_kinds.kind_loss), the user's lines as each compression could know them."""
    comps = [e for e in of_kind(events, "compression") if e.payload.status == "ok"]
    before: Dict[str, int] = {}
    kept: Dict[str, int] = {}
    if not comps:
        return before, kept
    expected, turns = expected_values(events), user_turns(events)
    for e in comps:
        at = int(e.iteration or 0)
        loss = kind_loss(e.payload.before or "", e.payload.after or "", expected, [t for i, t in turns if i <= at])
        for kind, n in loss.before.items():
            before[kind] = before.get(kind, 0) + n
        for kind, n in loss.kept.items():
            kept[kind] = kept.get(kind, 0) + n
    return before, kept


def kinds_recoverable(events: Sequence[Event], files: Dict[str, str]) -> Dict[str, float]:
    """{kind: share of its facts before the compressions that a compression dropped but a file its after-text names
    holds} (deepagents' history and large-result files: recoverable, neither kept nor lost), read per compression as
    kinds_over_compressions reads it; {} when the run wrote no file or none holds a dropped fact. `files`: {path:
    text} as the run left them (appended to, never rewritten, so a fact moved there by a compression is in them)."""
    comps = [e for e in of_kind(events, "compression") if e.payload.status == "ok"]
    if not files or not comps:
        return {}
    before: Dict[str, int] = {}
    found: Dict[str, int] = {}
    expected, turns = expected_values(events), user_turns(events)
    for e in comps:
        at = int(e.iteration or 0)
        said, after = [t for i, t in turns if i <= at], e.payload.after or ""
        loss = kind_loss(e.payload.before or "", after, expected, said)
        for kind, n in loss.before.items():
            before[kind] = before.get(kind, 0) + n
        named = "\n\n".join(text for path, text in sorted(files.items()) if path in after)
        if not named:
            continue
        with_files = kind_loss(e.payload.before or "", after + "\n\n" + named, expected, said)
        for kind, n in with_files.kept.items():
            gained = n - loss.kept.get(kind, 0)
            if gained > 0:
                found[kind] = found.get(kind, 0) + gained
    return {kind: share for kind, share in shares(before, found).items() if share}


def facts_over_trims(events: Sequence[Event]) -> Tuple[int, int]:
    """(facts before, facts kept) summed over the trims that carry their text."""
    trims = [e for e in of_kind(events, "trim") if e.payload.before is not None]
    expected = expected_values(events) if trims else ()
    total = kept = 0
    for e in trims:
        r = retention(str(e.payload.before), str(e.payload.after or ""), expected)
        total += len(r.before)
        kept += len(r.kept)
    return total, kept


def _share(kept: int, total: int) -> Optional[float]:
    return round(kept / total, 4) if total else None


@dataclass(frozen=True)
class Figures:
    """One run's figures: the row every page and command shows."""

    iterations: int
    compressions: int            # a summary replaced what is sent
    summarizer_calls: int        # every call to the summarizer, whatever it returned
    failed_calls: int            # failed_call: the summarizer raised or replied nothing (never your rejection)
    trims: int
    peak_chars: int              # the largest scratchpad sent, in chars
    peak_tokens: int             # ... and in tokens (the Compare rows' peak_context_tokens)
    mean_tokens: float
    context_tokens: int          # sum over iterations of the scratchpad tokens sent to the agent's LLM
    summarizer_tokens_in: int
    summarizer_tokens_out: int
    summarizer_latency_s: float
    facts_before: int            # facts in the scratchpad before each compression, summed
    facts_kept: int              # ... of those, still there after it
    trim_facts_before: int       # the same over the trims that recorded their text
    trim_facts_kept: int
    answer_score: Optional[float]
    outcome: Optional[str]
    agent_calls: int = 0
    agent_tokens_in: int = 0
    agent_tokens_out: int = 0
    agent_cost_usd: Optional[float] = None       # None: no price known for the model
    summarizer_cost_usd: Optional[float] = None
    kinds_before: Dict[str, int] = field(default_factory=dict)   # facts before each compression, per kind
    kinds_kept: Dict[str, int] = field(default_factory=dict)     # ... of those, still there after it
    health: Dict[str, int] = field(default_factory=dict)         # {check: compressions that failed it}
    pins: int = 0                # the run's pins (its config's)
    pins_met: int = 0            # ... held by the text some compression replaced
    pins_kept: int = 0           # ... of those, lost by none
    pins_lost: List[str] = field(default_factory=list)           # the pins some compression lost

    @property
    def facts_retained(self) -> Optional[float]:
        """Share of the facts kept over the compressions; None when none happened or they held no facts."""
        return _share(self.facts_kept, self.facts_before)

    @property
    def trim_facts_retained(self) -> Optional[float]:
        """Share of the facts kept over the trims that recorded their text; None when there were none."""
        return _share(self.trim_facts_kept, self.trim_facts_before)

    @property
    def kept_by_kind(self) -> Dict[str, float]:
        """{kind: share kept} over the compressions, for each kind that had facts (fact_kinds.KINDS order)."""
        return shares(self.kinds_before, self.kinds_kept)

    @property
    def facts_kept_text(self) -> str:
        return facts_kept_text(self.facts_retained, self.compressions > 0)

    @property
    def kinds_kept_text(self) -> str:
        return kinds_kept_text(self.kept_by_kind, self.compressions > 0)

    @property
    def pins_kept_text(self) -> str:
        """"2 of 3 pins kept" (pins.pins_text)."""
        return pin_checks.pins_text(self.pins, self.pins_met, self.pins_kept)

    @property
    def trim_facts_kept_text(self) -> str:
        return percent_or(self.trim_facts_retained, NO_TRIM)

    def to_dict(self) -> Dict[str, Any]:
        return {**asdict(self), "facts_retained": self.facts_retained, "trim_facts_retained": self.trim_facts_retained,
                "kept_by_kind": self.kept_by_kind}


def figures(events: Sequence[Event], scenario: Optional[str] = None, prices: Optional[dict] = None) -> Figures:
    iterations = of_kind(events, "iteration")
    calls = of_kind(events, "llm_call")
    agent_model, summarizer_model = model_ids(events)
    agent_in = sum(int(e.payload.tokens_in or 0) for e in calls)
    agent_out = sum(int(e.payload.tokens_out or 0) for e in calls)
    comps = of_kind(events, "compression")
    tokens = [e.payload.tokens for e in iterations]
    finish = of_kind(events, "finish")
    if scenario is None:
        starts = of_kind(events, "run_start")
        scenario = starts[0].payload.scenario if starts else None
    summarizer_in = sum(int(e.payload.tokens_in or 0) for e in comps)
    summarizer_out = sum(int(e.payload.tokens_out or 0) for e in comps)
    compressions, summarizer_calls, failed_calls = compression_counts(events)
    facts_before, facts_kept = facts_over_compressions(events)
    trim_facts_before, trim_facts_kept = facts_over_trims(events)
    kinds_before, kinds_kept = kinds_over_compressions(events)
    pins, pins_met, pins_lost = pin_checks.over_compressions(events)
    return Figures(
        agent_calls=len(calls), agent_tokens_in=agent_in, agent_tokens_out=agent_out,
        agent_cost_usd=cost_usd(agent_model, agent_in, agent_out, prices),
        summarizer_cost_usd=cost_usd(summarizer_model, summarizer_in, summarizer_out, prices),
        iterations=len(iterations),
        compressions=compressions,
        summarizer_calls=summarizer_calls,
        failed_calls=failed_calls,
        trims=len(of_kind(events, "trim")),
        peak_chars=max([e.payload.chars for e in iterations] + [0]),
        peak_tokens=max(tokens + [0]),
        mean_tokens=round(sum(tokens) / len(tokens), 2) if tokens else 0.0,
        context_tokens=sum(tokens),
        summarizer_tokens_in=summarizer_in,
        summarizer_tokens_out=summarizer_out,
        summarizer_latency_s=round(sum(float(e.payload.latency_s or 0) for e in comps), 4),
        facts_before=facts_before, facts_kept=facts_kept,
        trim_facts_before=trim_facts_before, trim_facts_kept=trim_facts_kept,
        answer_score=answer_score(final_answer(events), scenario),
        outcome=finish[-1].payload.outcome if finish else None,
        kinds_before=kinds_before, kinds_kept=kinds_kept, health=health_checks.counts(events),
        pins=len(pins), pins_met=len(pins_met), pins_kept=len(pins_met) - len(pins_lost), pins_lost=pins_lost,
    )
