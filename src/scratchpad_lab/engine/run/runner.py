"""The runner: builds the real agent, tools, middleware and observers for one run, and runs it.

Streamlit-free: a `Run` is a job (engine/jobs.py): the page starts it on a worker thread (`start()`)
and only reads `run.log` and `run.progress()`; the CLI, the tests and the replays inside other jobs
call `run.run()` directly. One agent per run, owned by the thread that runs it.
A run stops on request (`stop()`, or its stop flag set by the job it runs in), at the wall-clock cap
(the agent's own max_execution_time), at max_iterations, and when no page has read its log for
`idle_stop_s` seconds (the tab was closed).
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable, Dict, Optional, Tuple

from autourgos_agent import (AgentLLMError, AgentMaxIterationsError, AgentParseError,
                             AgentTimeoutError)
from autourgos_summarizer import AutoSummarizeMiddleware

from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.model.events import RunLog
from scratchpad_lab.engine.summarize.extractive import ExtractiveSummarizer
from scratchpad_lab.engine.jobs import USER_STOP, Job, Report, StopFlag
from scratchpad_lab.engine.run.observe import (ObservedAgent, ObservedLLM, ObservedSummarizer, RunObserver, RunStopped,
                      WallClockExceeded, presign_hooks)
from scratchpad_lab.engine.net.providers import EndpointLLM, resolve_key
from scratchpad_lab.engine.run.reply import REPLY_FORMAT
from scratchpad_lab.model.endpoint import EndpointError
from scratchpad_lab.engine.run.standins import ReplayLLM, ScriptedPolicyLLM, TraceExhausted, replay_tools
from scratchpad_lab.model.records import RunRecord, package_versions
from scratchpad_lab.model.scenarios import Scenario, get_scenario
from scratchpad_lab.engine.summarize.summarizers import summarizer_llm
from scratchpad_lab.engine.run.tokens import TokenCounter
from scratchpad_lab.model.trace import MAX_STEP_RESPONSE_CHARS, Trace, TraceStep, TraceTool


@dataclass
class Source:
    """Where the agent's steps come from: a built-in scenario's scripted policy, or a recorded trace."""

    kind: str                               # "scenario" | "trace"
    scenario: Optional[Scenario] = None
    trace: Optional[Trace] = None
    label: str = ""

    @classmethod
    def for_scenario(cls, name: str) -> "Source":
        scenario = get_scenario(name)
        return cls("scenario", scenario=scenario, label=scenario.title)

    @classmethod
    def for_trace(cls, trace: Trace, label: str = "recorded trace") -> "Source":
        return cls("trace", trace=trace, label=label)

    @property
    def task(self) -> str:
        return self.scenario.task if self.scenario else self.trace.task


class Run(Job):
    """One run of the real agent under one RunConfig, as a job. Thread-safe controls; events in `self.log`."""

    def __init__(self, config: RunConfig, source: Optional[Source] = None, *, keys: Optional[Dict[str, str]] = None,
                 pace: bool = False, idle_stop_s: Optional[float] = None, name: str = "",
                 stop: Optional[StopFlag] = None, report: Optional[Report] = None) -> None:
        """`keys` ({"agent": ..., "summarizer": ...}) are used for this run's endpoint calls and kept
        nowhere else; without one, the endpoint's key comes from its environment variable.
        `stop`: the flag of the job this run is part of (a replay in Compare, Strategies...); set, the run
        ends as "stopped" at its next step. `report(iteration, total, text)`: told as each iteration starts.
        Raises EndpointError for an endpoint that must not be called (bad URL, hosted-mode refusal)."""
        super().__init__(name="scratchpad-lab-run", stop=stop)
        self.config = config
        self.source = source or Source.for_scenario(config.scenario or "support-ticket")
        self.name = name
        self.log = RunLog()
        self.idle_stop_s = idle_stop_s
        self.record: Optional[RunRecord] = None
        self._started = time.monotonic()
        self._on_done: Optional[Callable[["Run"], None]] = None
        self._outer_report = report

        keys = keys or {}
        self.counter = TokenCounter(config.agent_model_id)
        extractive = ExtractiveSummarizer(config.summarizer.budget_chars)
        self.middleware = AutoSummarizeMiddleware(
            summarize_every=config.summarize_every, max_scratchpad_chars=config.max_scratchpad_chars)
        self.observer = obs = RunObserver(self.log, config, self.middleware, self.counter,
                                          TokenCounter(config.summarizer_model_id), pace=pace, stop=self.stop_flag)
        self.task = self.source.task
        self.mode = "model" if config.agent_endpoint is not None else self.source.kind
        if config.agent_endpoint is not None:  # a real model decides; the scenario lends its tools
            endpoint = config.agent_endpoint
            key = keys.get("agent") or resolve_key(endpoint)
            # A step reply is capped where the agent's parser stays fast (the cap lives in schemas.py): as
            # many bytes on the wire as the cap has characters, which is never more text than the cap.
            inner = EndpointLLM(endpoint.model_copy(update={"max_reply_bytes": min(
                endpoint.max_reply_bytes, MAX_STEP_RESPONSE_CHARS)}), key)
            tools = list(self.source.scenario.tools) if self.source.scenario else []
            self.task = (config.task or "").strip() or self.source.task
        elif self.source.kind == "scenario":
            inner = ScriptedPolicyLLM(self.source.scenario, extractive)
            tools = list(self.source.scenario.tools)
        else:
            inner = ReplayLLM(self.source.trace, extractive)
            tools = replay_tools(self.source.trace, obs)
        self.agent_model_name = inner.model_name
        # the one builder (engine/summarize/summarizers.py); "same-as-agent" gives None: middleware.llm stays None and the
        # package falls back to agent.llm itself
        summarizer = summarizer_llm(config.summarizer.with_key(keys.get("summarizer")), extractive=extractive)
        if summarizer is not None:
            self.middleware.llm = ObservedSummarizer(summarizer, obs, model=summarizer.model_name)
        self.agent = ObservedAgent(
            llm=ObservedLLM(inner, obs, model=self.agent_model_name),
            # The middleware's hooks presigned: the agent inspects each handler's signature per event.
            middleware=[presign_hooks(self.middleware), obs.post_hook],
            tools=[obs.wrap_tool(t) for t in tools],
            # A replay runs the trace's steps (one more, so a trace without a final answer ends with the
            # replayer's own message); max_iterations bounds live (scripted or model) runs.
            max_iterations=len(self.source.trace.steps) + 1 if self.source.trace else config.max_iterations,
            max_execution_time=config.wall_clock_s,
            max_scratchpad_chars=config.agent_trim_chars,
            max_tool_output_chars=config.max_tool_output_chars,
            # a recording's system prompt is the agent's own (sent with every call), not part of its task
            system_prompt=self.source.trace.system if self.source.trace else "",
            # A replayed tool answers from the trace at once: one worker runs a step's calls in order
            # without handing each to a thread (the same results; live runs keep the package's default).
            **({"max_tool_workers": 1} if self.source.kind == "trace" else {}),
            observer=obs,
        )
        if idle_stop_s:
            obs.idle_check = self._idle_check
        self._steps = self.agent.max_iterations
        self.report(0, self._steps, "starting")
        obs.report = self._report_iteration
        # Network models stop trying at Stop and at the wall clock (the observer abandons a call in flight).
        self._endpoint_llms = [m for m in (inner, getattr(self.middleware.llm, "inner", None))
                               if isinstance(m, EndpointLLM) or getattr(m, "is_builtin_model", False)]
        for model in self._endpoint_llms:
            model.stop_event, model.time_left = obs.stop_event, obs.time_left

    # ── controls (any thread) ───────────────────────────────────────────────
    def start(self, on_done: Optional[Callable[["Run"], None]] = None) -> "Run":
        self._on_done = on_done
        super().start()
        if self.idle_stop_s:  # a paused run never reaches its next model call: watch it from outside
            threading.Thread(target=self._watch_idle, name="scratchpad-lab-watch", daemon=True).start()
        return self

    def work(self, report: Report, stop: StopFlag) -> RunRecord:
        record = self.run()
        if self._on_done:
            self._on_done(self)
        return record

    def _report_iteration(self, iteration: int) -> None:
        text = f"iteration {iteration} of at most {self._steps}"
        self.report(iteration, self._steps, text)
        if self._outer_report is not None:
            self._outer_report(iteration, self._steps, text)

    def _watch_idle(self) -> None:
        while self._thread.is_alive() and not self.observer.stop_event.wait(min(5.0, self.idle_stop_s)):
            self._idle_check()

    def stop(self, reason: str = USER_STOP) -> None:
        self.observer.request_stop(reason)  # also lets a paused agent go on to see it

    def pause(self) -> None:
        if not self.finished:
            self.agent.pause("paused from the page")

    def resume(self) -> None:
        self.agent.resume()

    @property
    def paused(self) -> bool:
        return self.agent.is_paused and not self.finished

    @property
    def finished(self) -> bool:
        return self.record is not None

    def elapsed_s(self) -> float:
        return time.monotonic() - self._started

    def _idle_check(self) -> None:
        if self.idle_stop_s and time.monotonic() - self.log.last_read > self.idle_stop_s:
            self.observer.request_stop(
                f"stopped because no page read this run for {self.idle_stop_s:.0f} s (the tab was closed)")

    # ── the run itself (worker thread, or the caller's thread) ─────────────
    def run(self) -> RunRecord:
        log, obs = self.log, self.observer
        self._started = time.monotonic()
        obs.started = self._started
        log.emit("run_start", task=self.task, config=self.config.model_dump(), mode=self.mode,
                 scenario=self.source.scenario.name if self.source.scenario else None,
                 tools=[{"name": t["name"], "description": t.get("description", "")} for t in self.agent.tools],
                 agent_model=self.agent_model_name, agent_model_id=self.config.agent_model_id,
                 summarizer_model_id=self.config.summarizer_model_id, label=self.source.label)
        final_answer, outcome, error = None, "answered", None
        try:
            final_answer = self.agent.invoke(self.task)
            log.emit("final_answer", obs.iteration, text=final_answer)
        except BaseException as exc:  # every way a run can end must leave a readable record
            outcome, error = _explain(exc, self.config, replaying=self.mode == "trace",
                                      iteration=obs.iteration)
            log.emit("error", obs.iteration, error_type=type(_root(exc)).__name__, message=error)
            if not isinstance(exc, Exception):
                raise
        finally:
            elapsed = time.monotonic() - self._started
            log.emit("finish", obs.iteration, outcome=outcome, iterations=obs.iteration,
                     elapsed_s=round(elapsed, 4))
            self.record = self._build_record(final_answer, outcome, error)
        return self.record

    def _build_record(self, final_answer: Optional[str], outcome: str, error: Optional[str]) -> RunRecord:
        obs = self.observer
        tools = [TraceTool(t["name"], t.get("description", ""), t.get("parameters", {}) or {})
                 for t in self.agent.tools]
        steps = [TraceStep(s["response"], s["observations"]) for s in obs.finished_trace_steps()]
        trace = Trace(task=self.task, tools=tools, steps=steps) if steps else None
        source = self.source.trace
        if trace is not None and source is not None:  # a replay keeps the recording's own shape
            trace.system = source.system
            if len(steps) == len(source.steps):
                trace.messages, trace.compactions = source.messages, list(source.compactions)
        return RunRecord(
            config=self.config, events=self.log.snapshot(), outcome=outcome,
            final_answer=final_answer, error=error, versions=package_versions(), trace=trace,
            mode=self.mode, scenario=self.source.scenario.name if self.source.scenario else None,
            name=self.name, label=self.source.label,
        )


def _root(exc: BaseException) -> BaseException:
    return exc.__cause__ if isinstance(exc, AgentLLMError) and exc.__cause__ is not None else exc


def _over_wall_clock(config: RunConfig, remedy: str, detail: str = "") -> Tuple[str, str]:
    from scratchpad_lab.engine.limits import over_wall_clock  # the sentence's one home, naming each surface's setting
    return "timeout", over_wall_clock(config.wall_clock_s, remedy, detail)


def _explain(exc: BaseException, config: RunConfig, replaying: bool = False, iteration: int = 0):
    """(outcome, one sentence a user can act on) for every way a run can end early. A replay calls no model,
    so what it says of a reply in the wrong format is about the trace's steps, never about a model."""
    root = _root(exc)
    if isinstance(root, RunStopped):
        return "stopped", f"The run was {root}."
    if isinstance(root, WallClockExceeded):  # the lab's cap, passed during a model call
        return _over_wall_clock(config, "make the model calls fewer or faster (summarize less often; for an endpoint, "
                                        "check that its server answers)", f" ({root})")
    if isinstance(root, EndpointError):
        return "error", f"The agent's model call failed: {root}"
    if isinstance(root, TraceExhausted):
        return "error", f"The replay ended early: {root}"
    if isinstance(exc, AgentTimeoutError):  # the agent's own check of the same cap, between steps
        return _over_wall_clock(config, "summarize less often (each summary is a model call with a model "
                                        "summarizer), or on a page choose a faster Pacing")
    if isinstance(exc, AgentMaxIterationsError):
        return "max_iterations", (f"The agent used all {config.max_iterations} iterations without a final "
                                  "answer; raise max_iterations.")
    if isinstance(exc, AgentParseError) and replaying:
        first = max(1, iteration - exc.attempts + 1)
        return "error", (f"Steps {first} to {iteration} of the trace are not in the agent's reply format "
                         f"({REPLY_FORMAT}), and the agent stops after {exc.attempts} such replies in a row. Fix "
                         "those steps' responses (the warnings name each step).")
    if isinstance(exc, AgentParseError):
        return "error", ("The agent's replies were not the JSON step format three times in a row; the model "
                         "may not follow the agent's prompt. Try a stronger model.")
    if isinstance(exc, AgentLLMError):
        return "error", f"The agent's model call failed: {type(root).__name__}: {root}"
    return "error", f"The run failed: {type(root).__name__}: {root}"
