"""Offline stand-ins for the agent's LLM: a scripted scenario policy and a trace replayer.

Streamlit-free. Both speak the agent's JSON step format, so the real agent loop, the real middleware
and the real trim all run exactly as they would with a model.

- `ScriptedPolicyLLM` follows a scenario's fixed plan of tool calls, then answers from what is *still
  in the context it was sent* (the scratchpad after compression and trimming), so a compression that
  lost a fact visibly costs a correct answer.
- `ReplayLLM` returns a trace's recorded responses in order; `replay_tools` answers each action of a
  step with the trace's observation for that position.

Neither is a real model: asked to summarize (the package's "same as agent" fallback), they use the
extractive summarizer, and the UI says so.
"""
from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

from scratchpad_lab.model.errors import LabError
from scratchpad_lab.engine.summarize.extractive import ExtractiveSummarizer
from scratchpad_lab.analysis.facts import expected_in
from scratchpad_lab.model.scenarios import Scenario
from scratchpad_lab.model.trace import Trace

# The last fixed line of the agent's prompt before the context (autourgos_agent.prompt.LOGIC_PROMPT).
_CONTEXT_ANCHOR = 'explaining your reasoning for this step.\n\n'


class TraceExhausted(LabError, RuntimeError):
    """The trace ran out of steps before the agent gave a final answer."""


def context_from_prompt(prompt: Any, task: str) -> str:
    """The scratchpad part of the agent's prompt: what the model actually sees as its context."""
    text = prompt if isinstance(prompt, str) else "\n".join(str(m.get("content", "")) for m in prompt)
    start = text.find(_CONTEXT_ANCHOR)
    start = 0 if start < 0 else start + len(_CONTEXT_ANCHOR)
    context_at = text.find("Context: ", start)
    if context_at >= 0:
        start = context_at + len("Context: ")
    tail = "\nQuestion: " + task
    end = len(text) - len(tail) if text.endswith(tail) else len(text)
    context = text[start:end]
    return "" if context == "None" else context


def compose_answer(scenario: Scenario, context: str) -> str:
    """The scripted agent's final answer: each expected fact it can still find in its context."""
    known = [f for f in scenario.expected_facts if expected_in(context, f.value)]
    lost = [f for f in scenario.expected_facts if not expected_in(context, f.value)]
    lines = [scenario.answer_intro]
    lines += [f"- {f.label}: {f.value}" for f in known]
    if lost:
        lines.append("No longer in my notes: " + ", ".join(f.label for f in lost) + ".")
    return "\n".join(lines)


class _StandIn:
    """What both stand-ins share: the next step to give, and the extractive summarizer they use when the
    middleware falls back to the agent's LLM ("same as agent")."""

    def __init__(self, summarizer: Optional[ExtractiveSummarizer] = None) -> None:
        self._next = 0
        self._summarizer = summarizer or ExtractiveSummarizer()

    def summarize(self, **kwargs: Any) -> str:
        return self._summarizer.summarize(**kwargs)


class ScriptedPolicyLLM(_StandIn):
    model_name = "scripted agent (offline)"

    def __init__(self, scenario: Scenario, summarizer: Optional[ExtractiveSummarizer] = None) -> None:
        super().__init__(summarizer)
        self.scenario = scenario

    def invoke(self, prompt: Any, **_kwargs: Any) -> str:
        plan = self.scenario.plan
        if self._next < len(plan):
            step = plan[self._next]
            self._next += 1
            return json.dumps({"thought": step.thought, "actions": list(step.actions), "final_answer": None})
        answer = compose_answer(self.scenario, context_from_prompt(prompt, self.scenario.task))
        return json.dumps({"thought": "I have finished the plan; answering from my notes.",
                           "actions": [], "final_answer": answer})


class ReplayLLM(_StandIn):
    model_name = "replay of a recorded trace"

    def __init__(self, trace: Trace, summarizer: Optional[ExtractiveSummarizer] = None) -> None:
        super().__init__(summarizer)
        self.trace = trace

    def invoke(self, prompt: Any, **_kwargs: Any) -> str:
        if self._next >= len(self.trace.steps):
            raise TraceExhausted(
                f"the trace has {len(self.trace.steps)} steps and its last step gave no final answer; "
                "add a final step whose response has a final_answer.")
        response = self.trace.steps[self._next].response
        self._next += 1
        return response


def replay_tools(trace: Trace, observer) -> List[Dict[str, Any]]:
    """Tool dicts whose results come from the trace, matched by the action's position in its step."""

    def make(name: str):
        def replayed(*_args: Any, **_kwargs: Any) -> str:
            index = observer.iteration - 1
            position = observer.current_position
            steps = trace.steps
            if 0 <= index < len(steps) and position is not None and position < len(steps[index].observations):
                return steps[index].observations[position]
            return (f"[replay] the trace has no observation for action {0 if position is None else position + 1}"
                    f" of step {index + 1} ({name}).")

        replayed.__name__ = name
        return replayed

    tools = []
    for tool in trace.tools:
        parameters = tool.parameters or {"type": "object", "properties": {}}
        tools.append({"name": tool.name, "description": tool.description or f"{tool.name} (replayed)",
                      "parameters": parameters, "func": make(tool.name)})
    return tools
