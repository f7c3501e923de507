"""`recorded-compaction`: the compaction the recording's own agent made (Claude Code's), replayed as it happened,
so it is measured exactly like every strategy: on the same session, at the same calls.

Streamlit-free; LangChain's message classes are imported only when it runs. No package runs here: what each model
call was sent is what the recording's agent sent. Before the first compaction, the whole conversation so far;
from the boundary on, the summary the agent wrote (as the user message it continues from) and the messages after
the boundary (a later compaction replaces that in turn). The compaction is one `compression` event at the first
call after the boundary: before, the conversation it replaced; after, what that call was sent; its summary as the
response; no summarizer call of the lab's (`summarizer_called` false: the recording's model wrote it). With
`use_summary=0` the compaction is left out (the session as if it had never compacted: exactly doing nothing). A
run that carries no compaction of its own is the whole conversation at every call.
"""
from __future__ import annotations

from typing import Any, List, Optional

from scratchpad_lab.engine.jobs import StopFlag
from scratchpad_lab.engine.run.tokens import TokenCounter
from scratchpad_lab.engine.strategies.chat_summarizer import BuiltSummarizer
from scratchpad_lab.engine.strategies.messages import (MessageCounter, content_text, render_all, results_after,
                                                       step_messages, system_message, with_system)
from scratchpad_lab.engine.strategies.result import StrategyResult, message_run_log
from scratchpad_lab.engine.strategies.spec import StrategySpec
from scratchpad_lab.model.compression import compression_data
from scratchpad_lab.model.trace import Trace, compaction_words as who

SUMMARY_ID = "recorded-summary-{n}"


def run(trace: Trace, spec: StrategySpec, summarizer: BuiltSummarizer, baseline: List[int],
        counter: Optional[TokenCounter] = None, stop: Optional[StopFlag] = None) -> StrategyResult:
    from langchain_core.messages import HumanMessage

    s = spec.resolved()
    tokens = MessageCounter(counter or TokenCounter(None))
    log = message_run_log(trace.task, spec.name, s, spec.title(), "recorded")
    steps = step_messages(trace)
    system = system_message(trace)
    compactions = list(trace.compactions) if s.get("use_summary") and trace.messages is not None else []
    # where each step's messages start in the recorded conversation: the boundaries are indices in it
    starts, at = [], len(steps[0])
    for step in steps[1:]:
        starts.append(at)
        at += len(step)
    messages: List[Any] = list(steps[0])   # everything recorded before the current call
    sent_all: List[List[Any]] = []
    applied = -1
    for iteration in range(1, len(steps)):
        if stop is not None:
            stop.check()
        index = starts[iteration - 1]  # this call's reply in the conversation
        active = max((k for k, c in enumerate(compactions) if c.at <= index), default=-1)
        if active >= 0:
            c = compactions[active]
            summary = HumanMessage(c.summary, id=SUMMARY_ID.format(n=active))
            since = messages[c.at:]
            sent = with_system(system, [summary, *since])
        else:
            sent = with_system(system, messages)
        if active > applied:  # the first call after a boundary: the compaction, as it happened
            before = with_system(system, messages[:compactions[active].at] if active >= 0 else messages)
            kept = {id(m) for m in sent}
            replaced = [m for m in before if id(m) not in kept]
            log.emit("compression", iteration, **compression_data(
                reason="size", trigger=f"{who(trace)}", before=render_all(before), after=render_all(sent),
                before_tokens=tokens(before), after_tokens=tokens(sent), response=compactions[active].summary,
                model=compactions[active].by or "the recording's agent", summarizer_called=False,
                dropped=[getattr(m, "id", "") for m in replaced], files=[]))
            applied = active
        sent_all.append(sent)
        whole = with_system(system, messages)
        log.emit("iteration", iteration, before_chars=tokens.chars(whole), before_tokens=tokens(whole),
                 chars=tokens.chars(sent), tokens=tokens(sent), messages=len(sent))
        for position, tool_msg, args in results_after(steps[iteration]):
            log.emit("tool_call", iteration, position=position, tool=tool_msg.name, input=args,
                     result=content_text(tool_msg), result_chars=len(content_text(tool_msg)), offloaded_to=None)
        messages.extend(steps[iteration])
    log.emit("finish", len(steps) - 1, outcome="answered", iterations=len(steps) - 1, elapsed_s=0.0)
    return StrategyResult(spec.name, s, spec.title(), log.snapshot(), baseline, sent_messages=sent_all,
                          summarizer_model="none")
