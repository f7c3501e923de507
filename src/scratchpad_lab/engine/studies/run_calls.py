"""A trajectory's recorded tool calls and what it learned, and a strategy run's argument recall
(analysis/arguments.py holds the measure; this module feeds it from a Trace and a StrategyResult).

Streamlit-free. The calls are the step actions as the real agent's parser reads them (engine/run/reply.py), step k
made by model call k. A transcript's user turns are the imported `user` tool's results (importers/chat.py):
they are learned like any tool result, and the agent's replies to the person are not tool calls, so they
are never a target. The text that never counts is what every run is given whatever it compresses: the
recording's system prompt and the trace's task (an imported transcript's opening user message).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional, Sequence, Tuple

from scratchpad_lab.analysis.arguments import Learned, ToolCall, gold_targets, recall
from scratchpad_lab.model.trace import Trace

MAX_LOSSES_KEPT = 12   # a run's lost values kept per cell (the worst calls first)


@dataclass(frozen=True)
class RunCalls:
    """What argument recall reads of one trajectory, worked out once per run."""

    calls: Tuple[ToolCall, ...]
    learned: Tuple[Learned, ...]
    given: str
    last_iteration: int
    gold: Tuple[ToolCall, ...] = ()
    has_gold: bool = False

    def to_dict(self) -> Dict[str, Any]:
        return {"gold": [[c.tool, c.arguments] for c in self.gold] if self.has_gold else None}


def _user_tools(trace: Trace) -> set:
    from scratchpad_lab.engine.importers.chat import USER_TOOL_DESCRIPTION
    return {t.name for t in trace.tools if t.description == USER_TOOL_DESCRIPTION}


def run_calls(trace: Trace, gold: Optional[Sequence[Any]] = None) -> RunCalls:
    """The trajectory's tool calls (not its replies to the person), what each step brought in, and the gold
    actions ({"name", "kwargs"} or (name, kwargs)) placed at the call they are read at."""
    from scratchpad_lab.engine.run.reply import read_reply

    people = _user_tools(trace)
    calls, learned = [], []
    for iteration, step in enumerate(trace.steps, start=1):
        for action in read_reply(step.response).actions:
            name = str(action.get("action", "")) if isinstance(action, dict) else ""
            if name and name not in people:
                calls.append(ToolCall(iteration, name, action.get("action_input", {})))
        learned.extend(Learned(iteration, text) for text in step.observations if text)
    pairs = []
    for item in gold or []:
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            pairs.append((item["name"], item.get("kwargs", item.get("arguments", {}))))
        elif isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], str):
            pairs.append((item[0], item[1]))
    last = max(1, len(trace.steps))
    given = "\n\n".join(t for t in (trace.system, trace.task) if t)
    return RunCalls(tuple(calls), tuple(learned), given, last,
                    tuple(gold_targets(pairs, calls, last)), gold is not None)


def argument_figures(run: RunCalls, sent, recoverable=None) -> Dict[str, Any]:
    """The argument measures of one strategy run: `sent(iteration)` is what that model call was sent
    (StrategyResult.sent_text); `recoverable(iteration)` the files that context names (StrategyResult.named_files):
    a value there is recoverable, counted apart from kept and lost."""
    cache: Dict[int, str] = {}

    def context(iteration: int) -> str:
        if iteration not in cache:
            cache[iteration] = sent(iteration)
        return cache[iteration]

    args = recall(run.calls, run.learned, run.given, context, recoverable)
    gold = recall(run.gold, run.learned, run.given, context, recoverable) if run.has_gold else None
    losses = sorted(args.losses(), key=lambda c: -len(c["lost"]))[:MAX_LOSSES_KEPT]
    return {"argument_recall": args.share, "arguments_needed": args.needed, "arguments_lost": losses,
            "argument_recoverable": args.recoverable_share,
            "gold_argument_recall": gold.share if gold else None,
            "gold_arguments_needed": gold.needed if gold else None,
            "gold_arguments_lost": sorted(gold.losses(), key=lambda c: -len(c["lost"]))[:MAX_LOSSES_KEPT] if gold else []}


def no_compression_sent(trace: Trace):
    """What doing nothing sends before model call k: the system prompt, and everything recorded before the k-th
    reply in full, as messages."""
    from scratchpad_lab.engine.strategies.messages import render_all, step_parts, system_part

    parts = step_parts(trace)
    head = [system_part(trace)] if trace.system else []

    def sent(iteration: int) -> str:
        return render_all(head + [m for step in parts[:iteration] for m in step])
    return sent


def measure_for(run: RunCalls):
    """The hook a search's point runs after its strategy (engine/studies/recommender.py): its argument figures."""
    def measure(result: Any) -> Dict[str, Any]:
        return argument_figures(run, result.sent_text, result.named_files)
    return measure
