"""The bare packages running a trace, with none of the lab's observation: the reference.

Test and benchmark support, not shipped. Used two ways: tests check that the lab's observed replay gives exactly what the bare
`Agent` + `AutoSummarizeMiddleware` give on the same trace (compression iterations, the scratchpad
before each, trims, final answer), and `bench/replay.py` times the lab against it.

To stay independent of the lab's position matching, the bare run executes a step's tool calls on
one worker (`max_tool_workers=1`), so the k-th call to start is the k-th action of the step.
"""
from __future__ import annotations

import threading
from typing import Any, Dict, List, Optional, Tuple

from autourgos_agent import Agent, CallbackHandler
from autourgos_summarizer import AutoSummarizeMiddleware

from scratchpad_lab.model.trace import Trace


class _TraceLLM:
    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.next = 0

    def invoke(self, prompt: Any, **_kwargs: Any) -> str:
        response = self.trace.steps[self.next].response
        self.next += 1
        return response


def trace_llm_and_tools(trace: Trace) -> Tuple[_TraceLLM, List[Dict[str, Any]]]:
    """A bare agent's LLM that answers with the trace's steps in order, and the trace's tools, each answering
    with the recorded observation of its position in the current step (count the calls per step)."""
    llm = _TraceLLM(trace)
    counters: Dict[int, int] = {}
    lock = threading.Lock()

    def make(name: str):
        def replayed(*_args: Any, **_kwargs: Any) -> str:
            index = llm.next - 1
            with lock:
                position = counters.get(index, 0)
                counters[index] = position + 1
            observations = trace.steps[index].observations
            return observations[position] if position < len(observations) else ""
        return replayed

    tools = [{"name": t.name, "description": t.description or t.name,
              "parameters": t.parameters or {"type": "object", "properties": {}}, "func": make(t.name)}
             for t in trace.tools]
    return llm, tools


class _Recorder(CallbackHandler):
    """Registered before and after the middleware; records what the package did, as plain data."""

    def __init__(self, shared: Dict[str, Any], after: bool) -> None:
        self.shared = shared
        self.after = after

    def on_iteration_start(self, iteration: int, agent: Any = None, **kwargs: Any) -> None:
        if not self.after:
            self.shared["iteration"] = iteration
            self.shared["before"] = agent.scratchpad
            self.shared["calls_before"] = self.shared["summarizer_calls"]
            return
        if self.shared["summarizer_calls"] != self.shared["calls_before"]:
            self.shared["compressions"].append(
                {"iteration": iteration, "before": self.shared["before"], "after": agent.scratchpad})


class _CountingSummarizer:
    def __init__(self, inner: Any, shared: Optional[Dict[str, Any]]) -> None:
        self.inner = inner
        self.shared = shared

    def invoke(self, prompt: Any, **_kwargs: Any) -> Any:
        if self.shared is not None:
            self.shared["summarizer_calls"] += 1
        return self.inner.invoke(prompt)


class _TrimRecordingAgent(Agent):
    def __init__(self, *args: Any, shared: Dict[str, Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shared = shared

    def _trim_scratchpad(self, scratchpad: str) -> str:
        trimmed = super()._trim_scratchpad(scratchpad)
        if trimmed != scratchpad:
            self._shared["trims"].append({"iteration": self._shared["iteration"], "before_chars": len(scratchpad),
                                          "after_chars": len(trimmed)})
        return trimmed


def bare_replay(trace: Trace, summarizer_llm: Any, *, summarize_every: Optional[int] = 5,
                max_scratchpad_chars: int = 15000, agent_trim_chars: int = 15000,
                max_tool_output_chars: int = 5000, max_iterations: int = 500,
                record: bool = True) -> Dict[str, Any]:
    """Replay `trace` through the bare packages; with record=False nothing at all is observed."""
    shared: Dict[str, Any] = {"iteration": 0, "before": "", "calls_before": 0, "summarizer_calls": 0,
                              "compressions": [], "trims": []}
    llm, tools = trace_llm_and_tools(trace)
    middleware = AutoSummarizeMiddleware(summarize_every=summarize_every, max_scratchpad_chars=max_scratchpad_chars,
                                         llm=_CountingSummarizer(summarizer_llm, shared if record else None))
    handlers: List[Any] = [_Recorder(shared, False), middleware, _Recorder(shared, True)] if record else [middleware]
    kwargs = dict(llm=llm, middleware=handlers, tools=tools, max_iterations=max_iterations,
                  max_scratchpad_chars=agent_trim_chars, max_tool_output_chars=max_tool_output_chars,
                  max_tool_workers=1)
    agent = _TrimRecordingAgent(shared=shared, **kwargs) if record else Agent(**kwargs)
    answer = agent.invoke(trace.task)
    return {"final_answer": answer, "compressions": shared["compressions"], "trims": shared["trims"],
            "iterations": llm.next}


def graph_replay(trace: Trace, middleware: List[Any], recursion_limit: int = 100_000,
                 keep: bool = True, profile: Optional[Dict[str, Any]] = None) -> List[List[Any]]:
    """The trace through LangChain's own agent graph (`create_agent`) with `middleware`, the packages driven
    directly: a fake model answers with the trace's AI messages in order, a middleware answers each tool call
    with its recorded result, and an innermost middleware records the messages of every model request (what
    the model is sent). The trace's steps must all call tools but the last (a reply without tool calls ends a
    graph run). Returns one message list per model call (keep=False: empty lists, so a benchmark's memory is
    the packages' own). `profile` is the agent model's (deepagents reads its input budget there; the lab runs
    deepagents as create_deep_agent does, with one model for the agent and its summaries)."""
    from langchain.agents import create_agent
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import HumanMessage, ToolMessage
    from langchain_core.tools import StructuredTool

    from scratchpad_lab.engine.strategies.messages import step_messages

    steps = step_messages(trace)
    replies = iter([s[0] for s in steps[1:]])
    results = {m.tool_call_id: m for s in steps[1:] for m in s[1:]}
    sent: List[List[Any]] = []

    class Replay(GenericFakeChatModel):
        def bind_tools(self, tools, **kwargs):
            return self

    class Results(AgentMiddleware):
        def wrap_tool_call(self, request, handler):
            m = results[request.tool_call["id"]]
            return ToolMessage(m.content, tool_call_id=m.tool_call_id, name=m.name, id=m.id)

    class Watch(AgentMiddleware):
        def wrap_model_call(self, request, handler):
            sent.append(list(request.messages) if keep else [])
            return handler(request)

    tools = [StructuredTool.from_function(lambda **kw: "", name=t.name, description=t.description or t.name,
                                          args_schema={"type": "object", "properties": {}}) for t in trace.tools]
    model = Replay(messages=replies)
    if profile is not None:
        model.profile = dict(profile)
    agent = create_agent(model, tools=tools, middleware=[*middleware, Results(), Watch()])
    agent.invoke({"messages": [HumanMessage(trace.task, id="task")]}, {"recursion_limit": recursion_limit})
    return sent
