"""What a strategy did to one trajectory, and the row the CLI and the page show for it.

Streamlit-free. Every strategy leaves the lab's own events (`events.py`): one `iteration` event per
model call with the context it sent (`tokens`, and `scratchpad` for the scratchpad strategies), one
`compression` event per summarization (before, after, prompt, response, tokens, plus `dropped` and
`files` for the message strategies) and `trim` events; so the existing views, `quality.py` and the
figures row (`figures.py`) read them like any run. What cannot be an event field cheaply (the messages sent at every step) is kept
here as message lists, rendered on demand.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Tuple

from scratchpad_lab.model.events import Event, RunLog
from scratchpad_lab.analysis.figures import figures, kinds_recoverable
from scratchpad_lab.analysis.kept import answer_facts_kept, facts_at_answer, facts_recoverable, probes_answerable
from scratchpad_lab.analysis.metrics import model_ids, of_kind
from scratchpad_lab.analysis.pricing import cost_usd
from scratchpad_lab.engine.run.tokens import TokenCounter
from scratchpad_lab.engine.strategies.messages import MessageCounter, render_all

ROW_KEYS = ("strategy", "settings", "compressions", "summarizer_calls", "summarizer_tokens_in",
            "summarizer_tokens_out", "peak_context_tokens", "mean_context_tokens", "context_tokens_saved",
            "facts_retained", "trim_facts_retained", "offloaded_files",
            # comparable across strategies: each against the no-compression baseline of its own form (so a run
            # that cut nothing reads exactly 1.0 and saves 0), whether it cut anything, what the last call kept
            "cut_nothing", "baseline_peak_tokens", "baseline_mean_tokens", "peak_share", "mean_share", "saved_share",
            "facts_at_answer", "facts_recoverable", "answer_facts_kept", "probes_answerable", "summarizer_cost_usd", "price_model",
            # the figures row's facts kept per kind (fact_kinds.py) and its health counts (health.py)
            "kept_by_kind", "recoverable_by_kind", "health")
# A run given pins adds these (none without, so a run without pins gives the row it gave before pins): the figures
# row's pin figures (analysis/pin_checks.py's rule), and what "pass pins to the summarizer" is for this strategy (True or
# False, or why it does nothing here: registry.pins_switch).
PIN_KEYS = ("pins", "pins_met", "pins_kept", "pins_lost", "pins_to_summarizer")


def message_run_log(task: str, name: str, settings: Dict[str, Any], label: str, summarizer_model_id: str) -> RunLog:
    """A message strategy's run log, opened with its `run_start`: the strategy and its resolved settings
    stand as the run's config (the autourgos strategies run the lab's own `Run`, which opens its own)."""
    log = RunLog()
    log.emit("run_start", task=task, config={"strategy": name, **settings}, mode="strategy", label=label,
             summarizer_model_id=summarizer_model_id)
    return log


def start_message_run(trace: Any, spec: Any, summarizer: Any, counter: Optional[TokenCounter] = None,
                      input_limit: Optional[str] = None) -> tuple:
    """What a strategy over chat messages starts from: (its resolved settings, the message token counter,
    the recorded summarizer chat model, its calls, the run log opened with run_start).
    `input_limit` names the setting that caps the summarizer's input, if the strategy has one."""
    from scratchpad_lab.engine.strategies.chat_summarizer import recorded_chat_model

    settings = spec.resolved()
    count = counter or TokenCounter(None)
    model, calls = recorded_chat_model(summarizer, count, settings.get(input_limit) if input_limit else None)
    log = message_run_log(trace.task, spec.name, settings, spec.title(), summarizer.model_id)
    return settings, MessageCounter(count), model, calls, log


def failed_summarizer_call(log: Any, iteration: int, messages: List[Any], calls: Any, calls_before: int,
                           tokens: Any, summarizer: Any, trigger: str) -> Optional[Dict[str, Any]]:
    """When a package's summarizer call raised (the packages let it): that call, logged as a compression that
    cut nothing (the messages before and after are the same) with the call's error, and returned; None when
    the exception did not come from a summarizer call (the caller re-raises it)."""
    from scratchpad_lab.engine.strategies.messages import render_all
    from scratchpad_lab.model.compression import compression_data

    call = calls.calls[-1] if len(calls.calls) > calls_before else {}
    if not call.get("error"):
        return None
    text, count = render_all(messages), tokens(messages)
    log.emit("compression", iteration, **compression_data(
        reason="size", trigger=trigger, before=text, after=text, before_tokens=count, after_tokens=count,
        prompt=call.get("prompt", ""), model=summarizer.label, latency_s=call.get("latency_s", 0.0),
        tokens_in=call.get("tokens_in", 0), tokens_out=call.get("tokens_out", 0), error=call["error"]))
    return call


def sent_entry(message: Any) -> Dict[str, Any]:
    """One message a call sent, as `--details` gives it: its kind, its text, and an AI message's tool calls."""
    from scratchpad_lab.engine.strategies.messages import content_text

    out: Dict[str, Any] = {"kind": getattr(message, "type", ""), "text": content_text(message)}
    calls = getattr(message, "tool_calls", None)
    if calls:
        out["calls"] = [{"name": c.get("name"), "args": c.get("args", {})} for c in calls]
    return out


@dataclass
class Quirk:
    iteration: int
    kind: str        # "langmem-tail" | "deepagents-offload" | "trim-dropped-summary" | "deepagents-tool-offload"
    text: str


@dataclass
class StrategyResult:
    name: str
    settings: Dict[str, Any]
    label: str
    events: List[Event]
    baseline_tokens: List[int]                  # per model call, the no-compression baseline of its own form
    files: Dict[str, str] = field(default_factory=dict)   # offloaded path -> content
    quirks: List[Quirk] = field(default_factory=list)
    sent_messages: Optional[List[List[Any]]] = None       # message strategies: what each call sent
    summarizer_model: str = ""
    error: Optional[str] = None
    config: Any = None                          # the autourgos strategies: the RunConfig their replay ran with
    # The autourgos middleware: its replay as the run it made (What if... forks it, engine/run/forking.py), without the
    # run's copy of the trajectory, so a result shipped between processes weighs what it weighed before (its
    # events are this result's own list); StrategiesOutcome.run_of gives it back its trajectory.
    run: Any = field(default=None, repr=False, compare=False)
    pins_to_summarizer: bool = False            # the job's "pass pins to the summarizer" switch (engine.with_pins)
    # Set by the engine: the facts of its form's no-compression run (analysis/kept.py), the task, the scenario.
    facts_of_trajectory: Optional[Callable[[], FrozenSet[str]]] = field(default=None, repr=False, compare=False)
    task: str = ""
    scenario: Optional[str] = None
    seen_as: str = ""   # how it saw the run, in a line (messages.seen_as; set by the engine)
    # a message strategy: the run's no-compression peak by its package's own count (units.own_peak; set by the engine)
    own_peak_tokens: Optional[int] = None
    _last: Optional[Tuple[Optional[float], Optional[float], Optional[float], list]] = field(
        default=None, repr=False, compare=False)

    @property
    def last_context(self) -> str:
        """What the last model call was sent, as one text: the scratchpad strategies' prompt carries the task
        beside the scratchpad, so it is put in front of it (a message strategy's task is its first message,
        or was summarized away)."""
        calls = len(self.sent_tokens)
        text = self.sent_text(calls) if calls else ""
        return text if self.sent_messages is not None else f"{self.task}\n\n{text}"

    def kept_at_answer(self) -> Tuple[Optional[float], Optional[float], Optional[float], list]:
        """(facts at the answer, answer facts kept, probes answerable, the probes) for the last call
        (analysis/kept.py); read once."""
        if self._last is None:
            text = self.last_context
            probes, each = probes_answerable(self.scenario, text)
            self._last = (facts_at_answer(self.fact_pool, text), answer_facts_kept(self.scenario, text), probes, each)
        return self._last

    @property
    def fact_pool(self) -> FrozenSet[str]:
        """The facts of what the last call of its form's no-compression run was sent (analysis/kept.py), worked
        out once per trajectory and form at the first row."""
        return self.facts_of_trajectory() if self.facts_of_trajectory is not None else frozenset()

    @property
    def sent_tokens(self) -> List[int]:
        return [int(e.payload.tokens) for e in of_kind(self.events, "iteration")]

    def sent_text(self, iteration: int) -> str:
        """What the model was sent at this iteration (1-based), as plain text."""
        if self.sent_messages is not None:
            if 1 <= iteration <= len(self.sent_messages):
                return render_all(self.sent_messages[iteration - 1])
            return ""
        for e in of_kind(self.events, "iteration"):
            if e.iteration == iteration:
                return str(e.payload.scratchpad)
        return ""

    def named_files(self, iteration: int) -> str:
        """The text of the files this strategy wrote (deepagents' history and large results) whose path what this
        call was sent names: what the agent could read back (recoverable), joined; "" when it wrote none."""
        if not self.files:
            return ""
        text = self.sent_text(iteration)
        return "\n\n".join(content for path, content in sorted(self.files.items()) if path in text)

    def cut_nothing(self, f: Any = None) -> bool:
        """Whether this run did nothing: no compression, no trim, no file offloaded, and every call sent exactly
        as many tokens as its form's no-compression run (so no tool result was cut or cleared either). The one
        rule for "did nothing": such a run reads 100 % of its baseline, gets no ★ on the Strategies table and
        is left off the recommender's front. `f`: its figures row, when the caller has it."""
        f = f or figures(self.events)
        return (not f.compressions and not f.trims and not self.files and not self.error
                and self.sent_tokens == list(self.baseline_tokens))

    def row(self, price_model: Optional[str] = None) -> Dict[str, Any]:
        """The row `strategies --json` prints: compressions, summarizer calls, sizes and facts kept from the
        run's figures row (figures.figures, the same as a Compare or sweep row's); savings and shares against
        the no-compression baseline of its own form, and whether it cut anything at all; what the last call
        kept (analysis/kept.py); the summarizer's tokens priced at `price_model` (default: the summarizer's own
        model; the offline one is free)."""
        f = figures(self.events)
        sent = self.sent_tokens
        base = self.baseline_tokens
        base_peak, base_mean = max(base, default=0), (sum(base) / len(base) if base else 0.0)
        at_answer, answer_kept, probes, _ = self.kept_at_answer()
        priced = price_model or model_ids(self.events)[1]
        cost = cost_usd(priced, f.summarizer_tokens_in, f.summarizer_tokens_out)
        if cost is None and f.summarizer_tokens_in + f.summarizer_tokens_out == 0:
            cost = 0.0  # nothing summarized costs nothing, whatever the model
        saved = sum(b - s for b, s in zip(base, sent))
        return {
            "strategy": self.name,
            "settings": dict(self.settings),
            "compressions": f.compressions,
            "summarizer_calls": f.summarizer_calls,
            "summarizer_tokens_in": f.summarizer_tokens_in,
            "summarizer_tokens_out": f.summarizer_tokens_out,
            "peak_context_tokens": f.peak_tokens,
            "mean_context_tokens": f.mean_tokens,
            "context_tokens_saved": saved,
            "facts_retained": f.facts_retained,
            "trim_facts_retained": f.trim_facts_retained,
            "offloaded_files": len(self.files),
            "cut_nothing": self.cut_nothing(f),
            "baseline_peak_tokens": base_peak,
            "baseline_mean_tokens": round(base_mean, 2),
            "peak_share": round(f.peak_tokens / base_peak, 4) if base_peak else None,
            "mean_share": round(f.mean_tokens / base_mean, 4) if base_mean else None,
            "saved_share": round(saved / sum(base), 4) if sum(base) else None,
            "facts_at_answer": at_answer,
            # the facts missing from the last call's context that sit in a file it names (deepagents' offload)
            "facts_recoverable": facts_recoverable(self.fact_pool, self.last_context,
                                                   self.named_files(len(sent))) if sent else None,
            "answer_facts_kept": answer_kept,
            "probes_answerable": probes,
            "summarizer_cost_usd": None if cost is None else round(cost, 6),
            "price_model": priced,
            "kept_by_kind": f.kept_by_kind,
            # each kind's share that its compressions dropped into a file the context names (deepagents)
            "recoverable_by_kind": kinds_recoverable(self.events, self.files),
            "health": dict(f.health),
            **(self.pin_fields(f) if f.pins else {}),
        }

    def pin_fields(self, f: Any = None) -> Dict[str, Any]:
        """The row's pin fields (PIN_KEYS): pins given, met by a compression, kept, the lost ones, and the switch."""
        from scratchpad_lab.engine.strategies.registry import pins_switch

        f = f or figures(self.events)
        return {"pins": f.pins, "pins_met": f.pins_met, "pins_kept": f.pins_kept, "pins_lost": list(f.pins_lost),
                "pins_to_summarizer": pins_switch(self.name, self.pins_to_summarizer)}

    def details(self) -> Dict[str, Any]:
        """What `strategies --json --details` adds: every compression (when, what was summarized and kept,
        tokens in and out, the summary text, the files written), every trim, every offload of a tool result
        (by whichever rule made it), and each model call's context tokens."""
        sent_ids = [[getattr(m, "id", None) for m in call] for call in self.sent_messages] \
            if self.sent_messages is not None else None
        compressions = []
        for e in of_kind(self.events, "compression"):
            d = e.data
            kept = sent_ids[e.iteration - 1] if sent_ids is not None and 1 <= (e.iteration or 0) <= len(sent_ids) else None
            compressions.append({
                "iteration": e.iteration, "reason": d.get("reason"), "trigger": d.get("trigger"),
                "status": d.get("status"), "summarizer_called": d.get("summarizer_called", True),
                "summarized": d.get("dropped"), "kept": kept,
                "before_tokens": d.get("before_tokens"), "after_tokens": d.get("after_tokens"),
                "tokens_in": d.get("tokens_in"), "tokens_out": d.get("tokens_out"),
                "summary": d.get("response"), "files": d.get("files", []), "file_path": d.get("file_path"),
                "cutoff_index": d.get("cutoff_index"), "error": d.get("error")})
        trims = [{"iteration": e.iteration, "before_chars": e.payload.before_chars,
                  "after_chars": e.payload.after_chars} for e in of_kind(self.events, "trim")]
        offloads = [{"iteration": e.iteration, "position": e.payload.position, "tool": e.payload.tool,
                     "result_chars": e.payload.result_chars, "offloaded_to": e.payload.offloaded_to,
                     "offloaded_by": e.payload.offloaded_by, "offloaded_at": e.payload.offloaded_at}
                    for e in of_kind(self.events, "tool_call") if e.payload.offloaded_to]
        calls = [{"iteration": e.iteration, "context_tokens": int(e.payload.tokens),
                  "baseline_tokens": self.baseline_tokens[i] if i < len(self.baseline_tokens) else None,
                  "messages": e.payload.messages,
                  **({"sent": [sent_entry(m) for m in self.sent_messages[i]]}
                     if self.sent_messages is not None and i < len(self.sent_messages) else {})}
                 for i, e in enumerate(of_kind(self.events, "iteration"))]
        return {"seen_as": self.seen_as, "compressions": compressions, "trims": trims, "offloads": offloads,
                "files": sorted(self.files),
                "model_calls": calls, "quirks": [{"iteration": q.iteration, "kind": q.kind, "text": q.text}
                                                 for q in self.quirks], "error": self.error}

    def why_no_compression(self) -> Optional[str]:
        """When this run never compressed (nor, without a summarizer, trimmed): the sentence saying why, its
        rule set against the trajectory's peak ("with these settings deepagents summarizes at 170,000 tokens
        ...; this trajectory peaks at about 9,400 tokens by that count")."""
        from scratchpad_lab.engine.strategies.registry import strategy

        f = figures(self.events)
        if f.compressions or (self.summarizer_model == "none" and f.trims) or self.error:
            return None
        entry = strategy(self.name)
        if entry.fires is None:
            return None
        rules = entry.fires(self.settings)
        iterations = of_kind(self.events, "iteration")
        peak_chars = max([int(e.payload.before_chars or e.payload.chars) for e in iterations] + [0])
        tokens = (f"{self.own_peak_tokens:,} tokens by that count" if self.own_peak_tokens is not None
                  else f"about {-(-peak_chars // 4):,} tokens by that count")
        peaks = {"chars": f"{peak_chars:,} chars", "tokens": tokens,
                 "messages": f"{max([int(e.payload.messages) for e in iterations] + [0]):,} messages"}
        units = {unit for _, unit, _ in rules}
        said = list(dict.fromkeys(peaks[unit] for _, unit, _ in rules if unit in peaks))
        sentence = f"With these settings {entry.title} " + " or ".join(phrase for phrase, _, _ in rules)
        facts = ([f"has {len(iterations):,} model calls"] if "iterations" in units else []) + \
            ([f"peaks at {' and '.join(said)}"] if said else [])
        return sentence + (f"; this trajectory {' and '.join(facts)}." if facts else ".")
