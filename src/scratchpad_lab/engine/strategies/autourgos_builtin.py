"""`autourgos-builtin`: the agent's own summarizer, `Agent(summarize_every=..., max_scratchpad_chars=...,
summarizer_llm=...)`, with no summarizing middleware.

Streamlit-free. The trajectory is replayed by the lab's observed replay (`runner.Run`, whose
middleware is given triggers that never fire), and the agent's built-in summarizer is switched on by
setting the very attributes its constructor sets (`summarize_every`, `summarizer_llm`,
`MAX_SCRATCHPAD_CHARS`). How it is observed, never re-implemented: the agent calls its own
`_maybe_summarize(iteration)` after the iteration-start hooks; the instance's method is wrapped so
the wrapper sees the scratchpad before and after the agent's own call, and the summarizer is wrapped
to record the prompt it is sent and its reply. The wrapper then amends that iteration's `iteration`
event (emitted by the lab's hook just before) with what the agent will actually send, and adds a
`compression` event. The lab's `trigger` events describe the middleware, not the agent, so they are
left out of this strategy's events.
"""
from __future__ import annotations

import time
from typing import Any, Dict, List, Optional

from scratchpad_lab.engine.studies.compare import NEVER
from scratchpad_lab.model.compression import compression_data
from scratchpad_lab.engine.jobs import StopFlag
from scratchpad_lab.model.trace import Trace
from scratchpad_lab.engine.strategies.autourgos_middleware import base_config, keys_for, observed_run, trim_quirks
from scratchpad_lab.engine.strategies.result import StrategyResult
from scratchpad_lab.engine.strategies.spec import StrategySpec
from scratchpad_lab.engine.strategies.chat_summarizer import BuiltSummarizer


class _RecordingSummarizer:
    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls: List[Dict[str, Any]] = []

    def invoke(self, prompt: Any, **kwargs: Any) -> Any:
        call: Dict[str, Any] = {"prompt": str(prompt), "response": "", "error": None}
        self.calls.append(call)
        started = time.perf_counter()
        try:
            reply = self.inner.invoke(prompt)
        except Exception as exc:
            call["error"] = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            call["latency_s"] = round(time.perf_counter() - started, 6)
        call["response"] = str(getattr(reply, "content", reply) or "")
        call["usage"] = getattr(self.inner, "last_usage", None) or {}
        return reply


def run(trace: Trace, spec: StrategySpec, summarizer: BuiltSummarizer, baseline: List[int],
        stop: Optional[StopFlag] = None) -> StrategyResult:
    s = spec.resolved()
    config = base_config(summarizer).replace(**NEVER, agent_trim_chars=s["max_scratchpad_chars"],
                                               max_tool_output_chars=s["max_tool_output_chars"])
    lab_run = observed_run(config, trace, keys_for(summarizer), spec.name, stop=stop)
    agent, log, count = lab_run.agent, lab_run.log, lab_run.counter
    recorder = _RecordingSummarizer(summarizer.plain())
    agent.summarize_every = s["summarize_every"]        # what Agent(summarize_every=...) sets
    agent.summarizer_llm = recorder                      # what Agent(summarizer_llm=...) sets
    agent.MAX_SCRATCHPAD_CHARS = s["max_scratchpad_chars"]  # what Agent(max_scratchpad_chars=...) sets
    own = agent._maybe_summarize

    def observed(iteration: int) -> None:
        before, calls = agent.scratchpad, len(recorder.calls)
        last_before = agent._last_summarized_length
        own(iteration)
        if len(recorder.calls) == calls:
            return
        call, after = recorder.calls[-1], agent.scratchpad
        every = s["summarize_every"]
        reason = "periodic" if every and iteration % every == 0 else "size"
        usage = call.get("usage") or {}
        events = log.snapshot()
        for e in reversed(events):  # the lab's hook emitted this iteration's event just before
            if e.kind == "iteration" and e.iteration == iteration:
                e.amend(chars=len(after), tokens=count(after), scratchpad=after)
                break
        log.emit("compression", iteration, **compression_data(
            reason=reason, before=before, after=after, before_tokens=count(before), after_tokens=count(after),
            prompt=call["prompt"], response=call["response"], model=summarizer.label, latency_s=call["latency_s"],
            tokens_in=usage.get("input_tokens") or count(call["prompt"]),
            tokens_out=usage.get("output_tokens") or count(call["response"]), error=call["error"],
            last_summarized_chars=last_before))

    agent._maybe_summarize = observed
    record = lab_run.run()
    if stop is not None:
        stop.check()
    events = [e for e in record.events if e.kind != "trigger"]
    return StrategyResult(spec.name, s, spec.title(), events, baseline, quirks=trim_quirks(events),
                          summarizer_model=summarizer.label, error=record.error, config=record.config)
