"""`langmem`: LangMem's running summary, `langmem.short_term.summarize_messages`, before each model call.

Streamlit-free; LangMem is imported only here, when this strategy runs.

Before model call k the conversation so far (everything recorded before the k-th reply; the system prompt
kept outside and sent in front of the result, as LangMem's guide does) and the running summary
from call k-1 go to `summarize_messages(messages, running_summary=..., model=..., max_tokens=...,
max_summary_tokens=..., max_tokens_before_summary=...)`, with LangMem's own default token counter;
what it returns is what the model is sent, and its running summary is kept for call k+1, exactly as
the LangMem docs use it. A new running summary is a compression; the summarizer call is recorded by a
callback handler, so the messages LangMem actually sent to be summarized can be compared with the
ones it marks as summarized (LangMem trims an over-budget span to its tail and still marks all of it).
With "pass pins to the summarizer" the pins are asked for at the end of LangMem's own two summary prompts, through
its `initial_summary_prompt` (the first summary) and `existing_summary_prompt` (extending the running one).
"""
from __future__ import annotations

import warnings
from typing import Any, Dict, List, Optional

from scratchpad_lab.engine.jobs import StopFlag
from scratchpad_lab.engine.run.tokens import TokenCounter
from scratchpad_lab.model.compression import compression_data
from scratchpad_lab.model.pins import NO_PINS, Pinned
from scratchpad_lab.model.trace import Trace
from scratchpad_lab.engine.strategies.messages import render_all, step_messages, system_message, with_system
from scratchpad_lab.engine.strategies.result import Quirk, StrategyResult, failed_summarizer_call, start_message_run
from scratchpad_lab.engine.strategies.spec import StrategySpec
from scratchpad_lab.engine.strategies.chat_summarizer import BuiltSummarizer


TRIGGER = "langmem: over max_tokens_before_summary"


def summarize_kwargs(s: Dict[str, Any], pins: Pinned = NO_PINS) -> Dict[str, Any]:
    out: Dict[str, Any] = {"max_tokens": s["max_tokens"], "max_summary_tokens": s["max_summary_tokens"]}
    if s.get("max_tokens_before_summary") is not None:
        out["max_tokens_before_summary"] = s["max_tokens_before_summary"]
    if pins.asked:
        out.update(pin_prompts(pins))
    return out


def pin_prompts(pins: Pinned) -> Dict[str, Any]:
    """LangMem's own initial and existing summary prompts, each with the pins asked for at the end of its
    instruction (the human message after the conversation); the conversation's place in them is unchanged."""
    from langchain_core.prompts import ChatPromptTemplate, HumanMessagePromptTemplate
    from langmem.short_term.summarization import DEFAULT_EXISTING_SUMMARY_PROMPT, DEFAULT_INITIAL_SUMMARY_PROMPT

    def asking(prompt: Any) -> Any:
        *head, ask = prompt.messages
        return ChatPromptTemplate.from_messages(
            [*head, HumanMessagePromptTemplate.from_template(pins.prompt(ask.prompt.template))])

    return {"initial_summary_prompt": asking(DEFAULT_INITIAL_SUMMARY_PROMPT),
            "existing_summary_prompt": asking(DEFAULT_EXISTING_SUMMARY_PROMPT)}


def run(trace: Trace, spec: StrategySpec, summarizer: BuiltSummarizer, baseline: List[int],
        counter: Optional[TokenCounter] = None, stop: Optional[StopFlag] = None,
        pins: Pinned = NO_PINS) -> StrategyResult:
    from langchain_core.messages import SystemMessage
    from langmem.short_term import summarize_messages

    s, tokens, model, calls, log = start_message_run(trace, spec, summarizer, counter)
    steps = step_messages(trace)
    system = system_message(trace)
    # LangMem's guide keeps the system prompt outside the summarized messages and sends it in front of the
    # result; its second real way is a leading SystemMessage, which it keeps out of the summary and takes off
    # max_tokens (the setting system_in_messages)
    inside = bool(s.get("system_in_messages")) and system is not None
    outside = None if inside else system
    messages: List[Any] = ([system] if inside else []) + list(steps[0])
    running = None
    quirks: List[Quirk] = []
    sent_all: List[List[Any]] = []
    error = None
    kwargs = summarize_kwargs(s, pins)
    start = 0  # messages before this one are all summarized: only the tail after it is read at each call
    for iteration in range(1, len(steps)):
        if stop is not None:  # between model calls: a stopped job ends here (engine/jobs.py)
            stop.check()
        done = running.summarized_message_ids if running else frozenset()
        while start < len(messages) and messages[start].id in done:
            start += 1
        before = ([SystemMessage(f"Summary of the conversation so far: {running.summary}")] if running else []) + \
            [m for m in messages[start:] if m.id not in done]
        if inside and start == 0 and running:  # its system message stays in front of the summary
            before = [messages[0], before[0]] + before[2:]
        before = with_system(outside, before)
        calls_before = len(calls.calls)
        try:
            with warnings.catch_warnings(record=True) as caught:  # its "failed to trim" warning becomes a quirk
                warnings.simplefilter("always")
                result = summarize_messages(messages, running_summary=running, model=model, **kwargs)
            fell_back = any("Failed to trim messages" in str(w.message) for w in caught)
        except Exception as exc:  # the run stops here, honestly, and says why
            # the summarizer model failed (LangMem lets it raise): a call that cut nothing
            if failed_summarizer_call(log, iteration, before, calls, calls_before, tokens, summarizer, TRIGGER):
                error = f"The summarizer failed at step {iteration}, so LangMem stopped: {exc}"
            elif isinstance(exc, ValueError):  # e.g. a message it cannot place
                error = f"LangMem refused the messages at step {iteration}: {exc}"
            else:
                raise
            log.emit("error", iteration, error_type=type(exc).__name__, message=error)
            break
        sent = with_system(outside, result.messages)
        sent_all.append(sent)
        sent_tokens = tokens(sent)
        if result.running_summary is not None and result.running_summary is not running:
            new_ids = set(result.running_summary.summarized_message_ids) - done
            call = calls.calls[-1] if len(calls.calls) > calls_before else {}
            received = {getattr(m, "id", None) for m in call.get("messages", [])}
            unseen = [m.id for m in messages[start:] if m.id in new_ids and m.id not in received]
            before_text, after_text = render_all(before), render_all(sent)
            log.emit("compression", iteration, **compression_data(
                reason="size", trigger=TRIGGER,
                before=before_text, after=after_text, before_tokens=tokens(before), after_tokens=sent_tokens,
                prompt=call.get("prompt", ""), response=call.get("response", result.running_summary.summary),
                model=summarizer.label, latency_s=call.get("latency_s", 0.0), tokens_in=call.get("tokens_in", 0),
                tokens_out=call.get("tokens_out", 0), error=call.get("error"), summarized=sorted(new_ids, key=_order),
                dropped=sorted(new_ids, key=_order), not_sent_to_summarizer=unseen, files=[]))
            if fell_back:
                quirks.append(Quirk(iteration, "langmem-over-budget",
                                    f"The {len(new_ids)} messages to summarize were over max_tokens; LangMem's trim to "
                                    "their tail must start on a human message and found none, so it sent them all "
                                    "to the summarizer anyway."))
            if unseen:
                quirks.append(Quirk(iteration, "langmem-tail",
                                    f"LangMem marked {len(new_ids)} messages as summarized but sent only the last "
                                    f"{len(new_ids) - len(unseen)} of them to the summarizer: {len(unseen)} were "
                                    "dropped unread."))
        log.emit("iteration", iteration, before_chars=tokens.chars(before), before_tokens=tokens(before),
                 chars=tokens.chars(sent), tokens=sent_tokens, messages=len(sent))
        running = result.running_summary
        messages.extend(steps[iteration])
    log.emit("finish", len(sent_all), outcome="error" if error else "answered", iterations=len(sent_all),
             elapsed_s=0.0)
    return StrategyResult(spec.name, s, spec.title(), log.snapshot(), baseline, quirks=quirks,
                          sent_messages=sent_all, summarizer_model=summarizer.label, error=error)


def _order(message_id: str) -> tuple:
    """task, ai-1, tool-1-0, ai-2, ... (a trace's steps) or m-0, m-1, ... (a recorded conversation) in order."""
    parts = message_id.split("-")
    if parts[0] == "task":
        return (0, 0, 0)
    if parts[0] == "m" and len(parts) == 2 and parts[1].isdigit():
        return (int(parts[1]), 0, 0)
    step = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
    return (step, 0 if parts[0] == "ai" else 1, int(parts[2]) if len(parts) > 2 and parts[2].isdigit() else 0)
