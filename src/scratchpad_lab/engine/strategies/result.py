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
from typing import Any, Dict, List, Optional

from scratchpad_lab.model.events import Event, RunLog
from scratchpad_lab.analysis.figures import figures
from scratchpad_lab.analysis.metrics import of_kind
from scratchpad_lab.engine.tokens import TokenCounter
from scratchpad_lab.engine.strategies.messages import MessageCounter, render_all

ROW_KEYS = ("strategy", "settings", "compressions", "summarizer_calls", "summarizer_tokens_in",
            "summarizer_tokens_out", "peak_context_tokens", "mean_context_tokens", "context_tokens_saved",
            "facts_retained", "trim_facts_retained", "offloaded_files")


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
    from scratchpad_lab.engine.strategies.summarizer import recorded_chat_model

    settings = spec.resolved()
    count = counter or TokenCounter(None)
    model, calls = recorded_chat_model(summarizer, count, settings.get(input_limit) if input_limit else None)
    log = message_run_log(trace.task, spec.name, settings, spec.title(), summarizer.model_id)
    return settings, MessageCounter(count), model, calls, log


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
    baseline_tokens: List[int]                  # per model call, the same representation with nothing cut
    files: Dict[str, str] = field(default_factory=dict)   # offloaded path -> content
    quirks: List[Quirk] = field(default_factory=list)
    sent_messages: Optional[List[List[Any]]] = None       # message strategies: what each call sent
    summarizer_model: str = ""
    error: Optional[str] = None

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

    def row(self) -> Dict[str, Any]:
        """The row `strategies --json` prints: compressions, summarizer calls, sizes and facts kept from the
        run's figures row (figures.figures, the same as a Compare or sweep row's), savings against this
        strategy's own baseline."""
        f = figures(self.events)
        sent = self.sent_tokens
        return {
            "strategy": self.name,
            "settings": dict(self.settings),
            "compressions": f.compressions,
            "summarizer_calls": f.summarizer_calls,
            "summarizer_tokens_in": f.summarizer_tokens_in,
            "summarizer_tokens_out": f.summarizer_tokens_out,
            "peak_context_tokens": f.peak_tokens,
            "mean_context_tokens": f.mean_tokens,
            "context_tokens_saved": sum(b - s for b, s in zip(self.baseline_tokens, sent)),
            "facts_retained": f.facts_retained,
            "trim_facts_retained": f.trim_facts_retained,
            "offloaded_files": len(self.files),
        }
