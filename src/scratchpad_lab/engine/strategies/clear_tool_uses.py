"""`clear-tool-uses`: LangChain's `ContextEditingMiddleware(edits=[ClearToolUsesEdit(...)])`, driven with the
trajectory (observation masking: old tool results become a placeholder; no summarizer, no model call).

Streamlit-free; LangChain is imported only here, when this strategy runs.

How it is driven (the call a LangChain agent graph makes before each model call): a `ModelRequest` with the
conversation so far (the state's messages, the trace's tools) goes through the middleware's
`wrap_model_call`, whose handler records what would reach the model and answers with the trajectory's
recorded AIMessage. The recording's system prompt is the request's `system_message` (sent with every call, never
cleared); user turns are HumanMessages, which the edit never clears. The middleware edits a copy of the messages for that call only and never the state, so
every call clears again from the whole conversation (as in a real graph); the token count is the
package's default (`count_tokens_approximately`, no system prompt or tools). A call that clears a tool
result the previous call sent in full is a `compression` event (`summarizer_called` false) whose before
is those results in full and after the same messages as sent (the placeholder): what the clearing
threw away, kept per call so a long run's events grow linearly.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from scratchpad_lab.engine.jobs import StopFlag
from scratchpad_lab.engine.run.tokens import TokenCounter
from scratchpad_lab.model.compression import compression_data
from scratchpad_lab.model.trace import Trace
from scratchpad_lab.engine.strategies.deep_agents import tool_dicts
from scratchpad_lab.engine.strategies.messages import (MessageCounter, RecordedModel, content_text, render_all,
                                                    results_after, step_messages, system_message, with_system)
from scratchpad_lab.engine.strategies.result import Quirk, StrategyResult, message_run_log
from scratchpad_lab.engine.strategies.spec import StrategySpec
from scratchpad_lab.engine.strategies.chat_summarizer import BuiltSummarizer, extractive_chat_model

TRIGGER = "clear-tool-uses: conversation over its token trigger"


def build_middleware(s: Dict[str, Any]):
    from langchain.agents.middleware import ClearToolUsesEdit, ContextEditingMiddleware

    edit = ClearToolUsesEdit(trigger=s["trigger"], keep=s["keep"], clear_at_least=s["clear_at_least"],
                             exclude_tools=tuple(s["exclude_tools"] or ()), placeholder=s["placeholder"])
    return ContextEditingMiddleware(edits=[edit])


def run(trace: Trace, spec: StrategySpec, summarizer: BuiltSummarizer, baseline: List[int],
        counter: Optional[TokenCounter] = None, stop: Optional[StopFlag] = None) -> StrategyResult:
    from langchain.agents.middleware.types import ModelRequest

    s = spec.resolved()
    tokens = MessageCounter(counter or TokenCounter(None))
    log = message_run_log(trace.task, spec.name, s, spec.title(), "none")
    middleware = build_middleware(s)
    model = extractive_chat_model()  # the request's model: never called (the default count is approximate)
    tools = tool_dicts(trace)
    steps = step_messages(trace)
    system = system_message(trace)  # the agent's system prompt: on the request, never cleared, sent every call
    messages: List[Any] = list(steps[0])
    quirks: List[Quirk] = []
    sent_all: List[List[Any]] = []
    previous: set = set()
    placeholder = s["placeholder"]
    state_by_id: Dict[str, Any] = {m.id: m for m in messages}
    cleared_by_id: Dict[str, Any] = {}

    def canonical(message: Any) -> tuple:
        """(the message to keep for this copy, whether the middleware cleared it)."""
        fields = message.__dict__  # the copy's pydantic fields, read directly (one pass per call)
        if (fields.get("response_metadata") or {}).get("context_editing", {}).get("cleared"):
            found = cleared_by_id.get(message.id)
            if found is None or found.content != message.content or found.response_metadata != message.response_metadata:
                found = cleared_by_id[message.id] = message
            return found, True
        own = state_by_id[message.id]
        return (own if fields.get("content") is own.content else message), False

    for iteration in range(1, len(steps)):
        if stop is not None:  # between model calls: a stopped job ends here (engine/jobs.py)
            stop.check()
        handler = RecordedModel(steps[iteration][0])
        request = ModelRequest(model=model, messages=list(messages), system_message=system, tools=tools,
                               state={"messages": messages})
        middleware.wrap_model_call(request, handler)
        # The middleware sends copies of every message: each is kept as the state's own message, or, once
        # cleared, as the first copy of it cleared the same way, so the calls' lists share their messages
        # (memory linear in the steps) and the counter's running sums carry from one call to the next.
        sent: List[Any] = with_system(system, [])
        now: set = set()
        new: List[str] = []
        for message in handler.request.messages:
            kept, cleared = canonical(message)
            sent.append(kept)
            if cleared:
                now.add(kept.id)
                if kept.id not in previous:
                    new.append(kept.id)
        sent_all.append(sent)
        sent_tokens = tokens(sent)
        if new:
            # The results cleared at this call, in full and as sent: only what changed, so a run's events stay
            # linear in its steps (the whole conversation at every call would be quadratic).
            before = [state_by_id[i] for i in new]
            after = [cleared_by_id[i] for i in new]
            before_text, after_text = render_all(before), render_all(after)
            log.emit("compression", iteration, **compression_data(
                reason="size", trigger=TRIGGER, before=before_text, after=after_text, before_tokens=tokens(before),
                after_tokens=tokens(after), model="none", summarizer_called=False, dropped=new,
                cleared_count=len(now), placeholder=placeholder, files=[]))
        restored = len(previous) - (len(now) - len(new))  # cleared at the call before, sent in full now
        if restored:
            quirks.append(Quirk(iteration, "clear-tool-uses-restored",
                                f"{restored} tool result{'s' * (restored != 1)} cleared at the previous "
                                "call went back in full: the middleware clears a copy at each call and, with "
                                "clear_at_least set, stops once that many tokens are reclaimed from the oldest."))
        whole = with_system(system, messages)
        log.emit("iteration", iteration, before_chars=tokens.chars(whole), before_tokens=tokens(whole),
                 chars=tokens.chars(sent), tokens=sent_tokens, messages=len(sent), cleared=len(now))
        previous = now
        for position, tool_msg, args in results_after(steps[iteration]):
            log.emit("tool_call", iteration, position=position, tool=tool_msg.name,
                     input=args, result=content_text(tool_msg),
                     result_chars=len(content_text(tool_msg)), offloaded_to=None)
        messages.extend(steps[iteration])
        state_by_id.update((m.id, m) for m in steps[iteration])
    log.emit("finish", len(steps) - 1, outcome="answered", iterations=len(steps) - 1, elapsed_s=0.0)
    return StrategyResult(spec.name, s, spec.title(), log.snapshot(), baseline, quirks=quirks,
                          sent_messages=sent_all, summarizer_model="none")
