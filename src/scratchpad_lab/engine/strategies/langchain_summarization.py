"""`langchain-summarization`: LangChain's own `SummarizationMiddleware` (the class deepagents wraps),
driven with the trajectory.

Streamlit-free; LangChain and LangGraph are imported only here, when this strategy runs.

How it is driven (the calls a LangChain agent graph makes): before each model call the middleware's
`before_model(state, runtime)` sees the conversation so far; an update it returns (remove every message,
then the summary message and the kept ones) is applied with LangGraph's own `add_messages` reducer, and
what the state then holds is what the model is sent, behind the recording's system prompt (the agent's
`system_prompt`: never a state message, so never summarized away). The summary is written with the package's own
`DEFAULT_SUMMARY_PROMPT` by the one summarizer (recorded by a callback handler); the package's defaults
hold for every setting not given (trigger none: it never summarizes; keep the last 20 messages;
trim_tokens_to_summarize 4,000; its approximate token count). With "pass pins to the summarizer" the pins are
asked for at the end of that prompt, through the package's own `summary_prompt` parameter.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from scratchpad_lab.engine.jobs import StopFlag
from scratchpad_lab.engine.run.tokens import TokenCounter
from scratchpad_lab.model.compression import compression_data
from scratchpad_lab.model.pins import NO_PINS, Pinned
from scratchpad_lab.model.trace import Trace
from scratchpad_lab.engine.strategies.messages import (content_text, render_all, results_after, step_messages,
                                                    system_message, with_system)
from scratchpad_lab.engine.strategies.result import Quirk, StrategyResult, failed_summarizer_call, start_message_run
from scratchpad_lab.engine.strategies.spec import StrategySpec
from scratchpad_lab.engine.strategies.chat_summarizer import BuiltSummarizer

TRIGGER = "langchain-summarization: conversation over its trigger"
# What the package writes instead of a summary when the trim before summarizing leaves no message.
TOO_LONG = "Previous conversation was too long to summarize."


def triggers(s: Dict[str, Any]) -> List[tuple]:
    return [(kind, s[f"trigger_{kind}"]) for kind in ("tokens", "messages", "fraction")
            if s.get(f"trigger_{kind}") is not None]


def build_middleware(model: Any, s: Dict[str, Any], pins: Pinned = NO_PINS):
    """The package's SummarizationMiddleware with its defaults, overridden only where a setting is given; with
    the pins sent, its own prompt with the pins asked for at its end (`summary_prompt`)."""
    from langchain.agents.middleware import SummarizationMiddleware
    from langchain.agents.middleware.summarization import DEFAULT_SUMMARY_PROMPT

    kwargs: Dict[str, Any] = {"trim_tokens_to_summarize": s.get("trim_tokens_to_summarize")}
    if pins.asked:
        kwargs["summary_prompt"] = pins.prompt(DEFAULT_SUMMARY_PROMPT)
    found = triggers(s)
    if found:
        kwargs["trigger"] = found[0] if len(found) == 1 else found
    keep = next(((kind, s[f"keep_{kind}"]) for kind in ("messages", "tokens", "fraction")
                 if s.get(f"keep_{kind}") is not None), None)
    if keep is not None:
        kwargs["keep"] = keep
    return SummarizationMiddleware(model, **kwargs)


def run(trace: Trace, spec: StrategySpec, summarizer: BuiltSummarizer, baseline: List[int],
        counter: Optional[TokenCounter] = None, stop: Optional[StopFlag] = None,
        pins: Pinned = NO_PINS) -> StrategyResult:
    from langgraph.graph.message import add_messages

    s, tokens, model, calls, log = start_message_run(trace, spec, summarizer, counter,
                                                    input_limit="max_input_tokens")
    middleware = build_middleware(model, s, pins)
    steps = step_messages(trace)
    system = system_message(trace)  # the agent's system prompt: not a state message, sent with every call
    state: Dict[str, Any] = {"messages": list(steps[0])}
    quirks: List[Quirk] = []
    sent_all: List[List[Any]] = []
    error: Optional[str] = None
    for iteration in range(1, len(steps)):
        if stop is not None:  # between model calls: a stopped job ends here (engine/jobs.py)
            stop.check()
        before = list(state["messages"])
        calls_before = len(calls.calls)
        try:
            update = middleware.before_model(state, None)
        except Exception as exc:  # the summarizer failed (the package lets it raise): stop here and say why
            call = failed_summarizer_call(log, iteration, with_system(system, before), calls, calls_before, tokens,
                                          summarizer, TRIGGER)
            if call is None:
                raise
            error = f"LangChain's summarizer call failed at step {iteration}: {call['error']}"
            log.emit("error", iteration, error_type=type(exc).__name__, message=error)
            break
        if update:
            state["messages"] = add_messages(state["messages"], update["messages"])
        sent = with_system(system, state["messages"])
        sent_all.append(sent)
        sent_tokens = tokens(sent)
        if update:
            kept = {m.id for m in sent}
            dropped = [m.id for m in before if m.id not in kept]
            call = calls.calls[-1] if len(calls.calls) > calls_before else {}
            summary = content_text(state["messages"][0])
            before = with_system(system, before)
            before_text, after_text = render_all(before), render_all(sent)
            log.emit("compression", iteration, **compression_data(
                reason="size", trigger=TRIGGER, before=before_text, after=after_text, before_tokens=tokens(before),
                after_tokens=sent_tokens, prompt=call.get("prompt", ""), response=call.get("response", summary),
                model=summarizer.label, latency_s=call.get("latency_s", 0.0), tokens_in=call.get("tokens_in", 0),
                tokens_out=call.get("tokens_out", 0), error=call.get("error"), summarizer_called=bool(call),
                summarized=dropped, dropped=dropped, files=[]))
            if not call and TOO_LONG in summary:
                quirks.append(Quirk(iteration, "langchain-no-human-in-trim",
                                    f"LangChain replaced {len(dropped)} messages with \"{TOO_LONG}\": it trims what it "
                                    "summarizes to the newest trim_tokens_to_summarize tokens starting on a human "
                                    "message, found none, and called no summarizer (langchain-ai/langchain#39261)."))
        else:
            before = with_system(system, before)
        log.emit("iteration", iteration, before_chars=tokens.chars(before), before_tokens=tokens(before),
                 chars=tokens.chars(sent), tokens=sent_tokens, messages=len(sent))
        for position, tool_msg, args in results_after(steps[iteration]):
            log.emit("tool_call", iteration, position=position, tool=tool_msg.name,
                     input=args, result=content_text(tool_msg),
                     result_chars=len(content_text(tool_msg)), offloaded_to=None)
        state["messages"] = add_messages(state["messages"], steps[iteration])
    log.emit("finish", len(sent_all), outcome="error" if error else "answered", iterations=len(sent_all),
             elapsed_s=0.0)
    return StrategyResult(spec.name, s, spec.title(), log.snapshot(), baseline, quirks=quirks,
                          sent_messages=sent_all, summarizer_model=summarizer.label, error=error)
