"""Observation of the real agent and the real AutoSummarizeMiddleware, without re-implementing them.

Streamlit-free (it runs on the worker thread and in the CLI). How it sees what the packages do:

- the summarizer the middleware calls is wrapped: the wrapper records the scratchpad and the
  middleware's per-agent last-summarized length as the middleware saw them, the exact prompt sent,
  the raw reply, latency and tokens. It is also where a per-run custom prompt is applied: the package
  formats its module-global prompt, the wrapper checks that what it got is exactly that prompt for
  the current scratchpad, and sends this run's template instead. The global is never touched, so runs
  with different prompts can share a process. A fork (engine/run/forking.py) gives its parent's recorded reply
  back there, without a call, while the input is exactly the parent's (`recorded_summaries`);
- one hook registered *after* the middleware sees the scratchpad the agent will send, records the
  trigger check (what the package should have done, from the state it saw: when it did not call the
  summarizer it changed nothing, so the state is still there to read) and turns the summarizer call,
  if any, into a `compression` event with status ok / empty / error. (No hook before the
  middleware: the agent inspects every handler's signature on every event, so each handler costs.)
- `ObservedAgent` overrides the agent's trim and tool execution to record trims and to know which
  action of a step a tool call answers (by position, never by arrival order);
- the agent's own LLM is wrapped to time each call, to stop a run on request, and to pace scripted
  steps so a demo unfolds at a human pace (pacing is never counted as latency).
"""
from __future__ import annotations

import functools
import inspect
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from autourgos_agent import Agent

from scratchpad_lab.analysis import triggers
from scratchpad_lab.model.compression import compression_data
from scratchpad_lab.model.config import PACKAGE_PROMPT, PACKAGE_PROMPT_HEAD, RunConfig
from scratchpad_lab.model.events import RunLog
from scratchpad_lab.model.endpoint import EndpointError
from scratchpad_lab.engine.jobs import USER_STOP, StopFlag
from scratchpad_lab.engine.run.tokens import TokenCounter
from scratchpad_lab.model.untrusted import clean_json, clean_text


class RunStopped(Exception):
    """Raised inside the agent's LLM call when the user (or a closed tab) asked the run to stop."""


class WallClockExceeded(Exception):
    """Raised inside a model call still in flight when the run's wall-clock cap passes."""


class RecordedFailure(Exception):
    """A fork gives back a parent's summarizer call that failed: the middleware sees it fail the same way."""


def response_text(raw: Any) -> str:
    if hasattr(raw, "content"):
        raw = raw.content
    return "" if raw is None else str(raw)


class RunObserver:
    """Per-run observation state shared by the hooks and wrappers of one run."""

    def __init__(self, log: RunLog, config: RunConfig, middleware, counter: TokenCounter,
                 summarizer_counter: Optional[TokenCounter] = None, pace: bool = False,
                 stop: Optional[StopFlag] = None) -> None:
        self.log = log
        self.config = config
        self.middleware = middleware
        self.count = counter
        self.count_summary = summarizer_counter or counter
        self.pace = pace
        self.stop_event = stop if stop is not None else StopFlag()  # the run's job's flag (jobs.py)
        self.report: Optional[Callable[[int], None]] = None  # told each iteration as it starts (the job's progress)
        self.idle_check = None  # set by the runner: stops a run whose page went away
        self.started: Optional[float] = None  # time.monotonic() at the run's start, set by the runner
        self.agent: Optional[Agent] = None
        self.iteration = 0
        self.summarizer_call: Optional[Dict[str, Any]] = None
        self.pending_llm: Dict[str, Any] = {}
        self.step_actions: List[dict] = []
        self.claimed: set = set()
        self.tool_end_count = 0
        self.trace_steps: List[Dict[str, Any]] = []
        # review.ReviewGate (a person decides) or review.RecordedReviews (a replay): called with each
        # summarizer reply; returns (verdict, the reply the middleware gets instead).
        self.reviewer: Optional[Callable[[Dict[str, Any], Any, int], Tuple[str, str]]] = None
        self.skipped_at: set = set()  # iterations whose compression a fork skipped (engine/run/forking.py holds the lock)
        # engine/fork.ParentSummaries (a fork): called with (iteration, scratchpad, prompt) before the summarizer;
        # the parent's recorded call for exactly that input (its reply, model, tokens, time), else None.
        self.recorded_summaries: Optional[Callable[[int, str, str], Optional[Dict[str, Any]]]] = None
        self._claim_lock = threading.Lock()
        self._local = threading.local()
        self.post_hook = _PostMiddlewareHook(self)

    # ── stop ────────────────────────────────────────────────────────────────
    @property
    def stop_reason(self) -> Optional[str]:
        return getattr(self.stop_event, "reason", None)

    def request_stop(self, reason: str = USER_STOP) -> None:
        self.stop_event.request(reason)
        if self.agent is not None and self.agent.is_paused:
            self.agent.resume()

    def check_stop(self) -> None:
        if self.idle_check is not None:
            self.idle_check()
        if self.stop_event.is_set():
            raise RunStopped(self.stop_reason or "stopped")
        if self.time_left() <= 0:
            raise WallClockExceeded(f"the wall-clock cap of {self.config.wall_clock_s:g} s passed")

    def time_left(self) -> float:
        """Seconds left before the wall-clock cap, not counting time paused (as the agent counts it)."""
        if self.started is None:
            return float("inf")
        paused = getattr(self.agent, "_paused_duration", 0.0) or 0.0
        return self.config.wall_clock_s - (time.monotonic() - self.started - paused)

    def bounded(self, inner: Any, prompt: Any, *, waiting_for: str = "the model", iteration: Optional[int] = None,
                **kwargs: Any) -> Any:
        """`inner.invoke(prompt)`, abandoned at once when the run is stopped or its wall clock passes.
        A network model (marked `abandonable`) runs on its own thread so a stalled call cannot hold the
        run; the abandoned thread ends by itself (its tries are capped by the same deadline and stop).
        Offline models are called directly: they never block."""
        if not getattr(inner, "abandonable", False):
            return inner.invoke(prompt, **kwargs)
        # a network call can take long: the live status says what the run waits for (a call_start event)
        started = self.log.emit("call_start", self.iteration if iteration is None else iteration,
                                waiting_for=waiting_for, model=str(getattr(inner, "model_name", "") or ""))
        if getattr(inner, "is_builtin_model", False):  # its loading and its place in the process's queue, shown live
            inner.on_status = lambda text: started.amend(waiting_for=f"{waiting_for} ({text})" if text else waiting_for)
        box: Dict[str, Any] = {}
        done = threading.Event()

        def call() -> None:
            try:
                box["reply"] = inner.invoke(prompt, **kwargs)
            except BaseException as exc:  # handed to the run's thread below
                box["error"] = exc
            finally:
                done.set()

        threading.Thread(target=call, name="scratchpad-lab-call", daemon=True).start()
        while True:
            finished = done.wait(0.05)
            if finished and "error" not in box:
                return box["reply"]
            # A call that failed because its tries were cut short by Stop or the clock ends the run as that.
            if self.stop_event.is_set():
                raise RunStopped(self.stop_reason or "stopped")
            if self.time_left() <= 0:
                raise WallClockExceeded(f"the wall-clock cap of {self.config.wall_clock_s:g} s passed during a "
                                        "model call")
            if finished:
                raise box["error"]

    # ── trigger prediction (checked against what the package then does) ────
    def predict(self, iteration: int, scratchpad: str, last: Optional[int]) -> Dict[str, Any]:
        """What the middleware should have done, from the state it saw (scratchpad, last summary length)."""
        mw = self.middleware
        every, cap = mw.summarize_every, mw.max_scratchpad_chars
        chars = len(scratchpad)
        fires, reason = triggers.predict(iteration, chars, every, cap, last)
        predicted = bool(scratchpad) and fires
        return {
            "chars": chars, "summarize_every": every, "max_scratchpad_chars": cap,
            "periodic_due": triggers.periodic_due(iteration, every), "over_cap": chars > cap,
            "size_armed": triggers.size_armed(chars, last), "last_summarized_chars": last,
            "predicted": predicted, "predicted_reason": reason if predicted else None,
        }

    # ── the summarizer call, whoever makes it ───────────────────────────────
    def summarize_call(self, inner: Any, prompt: Any, model: str) -> Any:
        """The middleware is calling its summarizer: this happens inside the middleware's
        on_iteration_start, before the post-middleware hook, so the state read here is the state
        the middleware decided on (the package updates it only after the call returns)."""
        agent = self.agent
        scratchpad = agent.scratchpad
        query = agent.current_query
        iteration = self.iteration + 1  # the agent numbers iterations 1, 2, 3...; the hook after us sets it
        template = self.config.prompt_template
        call: Dict[str, Any] = {"prompt": prompt, "model": model, "response": "", "error": None,
                                "before": scratchpad, "last_before": self.middleware._get_last_summarized_length(agent)}
        self.summarizer_call = call
        started = time.perf_counter()
        try:
            expected = PACKAGE_PROMPT.format(query=query, iteration=iteration, scratchpad=scratchpad)
            if prompt == expected:
                call["prompt"] = sent = template.format(query=query, iteration=iteration, scratchpad=scratchpad)
            else:  # not the package prompt we know: send it untouched rather than guess
                sent = prompt
            recorded = (self.recorded_summaries(iteration, scratchpad, call["prompt"])
                        if self.recorded_summaries is not None else None)
            if recorded is not None:  # the parent's reply to exactly this input: no call is made
                call.update(recorded)
                if call["error"] is None:
                    return call["response"]
                raise RecordedFailure(call["error"])
            if hasattr(inner, "summarize"):
                reply = inner.summarize(scratchpad=scratchpad, query=query, iteration=iteration,
                                        template=template)
            else:
                reply = self.bounded(inner, sent, waiting_for="the summarizer", iteration=iteration)
        except RecordedFailure:  # the parent's call failed here, and the package sees it fail again
            raise
        except RunStopped:  # the person's Stop cut the call short: no failure of the summarizer's (see the hook)
            call["stopped"] = True
            raise
        except Exception as exc:
            call["latency_s"] = time.perf_counter() - started
            call["error"] = str(exc) if isinstance(exc, EndpointError) else f"{type(exc).__name__}: {exc}"
            raise
        call["latency_s"] = time.perf_counter() - started
        call["response"] = response_text(reply)
        usage = getattr(inner, "last_usage", None) or {}
        call["tokens_in"] = usage.get("input_tokens") or self.prompt_tokens(sent, scratchpad, self.count_summary)
        call["tokens_out"] = usage.get("output_tokens") or self.count_summary(call["response"])
        if self.reviewer is not None:
            self.log.emit("call_start", iteration, waiting_for="your review", model="")  # the person, now
            call["proposal"] = call["response"]
            try:
                call["review"], call["response"] = self.reviewer(call, agent, iteration)
            except Exception as exc:  # abandoned on Stop: the package sees a failed call, the run ends next step
                call["review"], call["response"], call["error"] = "abandoned", "", str(exc)
                raise
            reply = call["response"]
        return reply

    @staticmethod
    def prompt_tokens(prompt: str, scratchpad: str, count) -> int:
        """Tokens of a prompt that embeds the scratchpad, when the API reports none: its fixed part
        and the scratchpad are counted apart (the scratchpad is counted for the iteration anyway, and
        the fixed part is the same every step, so both are remembered). Exact up to a token or two at
        the seams; it saves encoding every prompt whole."""
        if scratchpad and scratchpad in prompt:
            return count(prompt.replace(scratchpad, "", 1)) + count(scratchpad)
        return count(prompt)

    # ── tool positions ──────────────────────────────────────────────────────
    def claim_position(self, tool_name: str, tool_input: Any) -> Optional[int]:
        """Which action of this step a tool call answers: by identity of the parsed input, else the
        first unclaimed action with the same tool and input."""
        with self._claim_lock:
            for by_identity in (True, False):
                for k, action in enumerate(self.step_actions):
                    if k in self.claimed or action.get("action", "") != tool_name:
                        continue
                    candidate = action.get("action_input", {})
                    if (candidate is tool_input) if by_identity else (candidate == tool_input):
                        self.claimed.add(k)
                        return k
        return None

    @property
    def current_position(self) -> Optional[int]:
        return getattr(self._local, "position", None)

    def record_raw_observation(self, position: Optional[int], text: str) -> None:
        if position is None or not self.trace_steps:
            return
        observations = self.trace_steps[-1].setdefault("_raw", {})
        observations[position] = text

    def wrap_tool(self, tool: dict) -> dict:
        """Wrap a tool's func so its raw (uncut) result is recorded for the trace."""
        func = tool["func"]
        name = tool["name"]

        @functools.wraps(func)
        def recorded(*args, **kwargs):
            position = self.current_position
            try:
                result = func(*args, **kwargs)
            except Exception as exc:
                self.record_raw_observation(position, f"Error executing '{name}': {exc}")
                raise
            if isinstance(result, str):
                result = clean_text(result)  # a tool's text enters the scratchpad here
            self.record_raw_observation(position, str(result))
            return result

        try:  # the agent binds each call's input to the tool's signature: read it once, not per call
            recorded.__signature__ = inspect.signature(func)
        except (TypeError, ValueError):  # not introspectable: the agent finds that out itself, as before
            pass
        return {**tool, "func": recorded}

    # ── trace ───────────────────────────────────────────────────────────────
    def finished_trace_steps(self) -> List[Dict[str, Any]]:
        steps = []
        for step in self.trace_steps:
            raw = step.get("_raw", {})
            observations = [raw.get(k, seen) for k, seen in enumerate(step["observations"])]
            steps.append({"response": step["response"], "observations": observations})
        return steps


def _presigned(method):
    """`method` as a plain function that carries its signature: the agent inspects every handler's
    signature on every event it fires (CallbackManager._accepts_agent_kwarg), and a function with
    `__signature__` set is answered at once instead of being introspected again."""
    def handler(*args: Any, **kwargs: Any) -> Any:
        return method(*args, **kwargs)

    handler.__signature__ = inspect.signature(method)
    handler.__name__ = method.__name__
    return handler


def presign_hooks(handler: Any, names: Optional[Tuple[str, ...]] = None) -> Any:
    """`handler` with each of its hook methods (`on_*`, or `names`) replaced, on the instance, by the
    presigned function calling it: the same method runs with the same arguments, and the agent's
    per-event signature check costs next to nothing. Coroutine hooks are left as they are (the agent
    tells them apart by their type). Returns the handler."""
    for name in names or tuple(n for n in dir(handler) if n.startswith("on_")):
        method = getattr(handler, name, None)
        if callable(method) and not inspect.iscoroutinefunction(method):
            setattr(handler, name, _presigned(method))
    return handler


class _PostMiddlewareHook:
    """Registered after the middleware. Not a CallbackHandler subclass on purpose: the agent fires
    every event at every handler that has a method for it, so this one has only the six it uses."""

    _HOOKS = ("on_iteration_start", "on_llm_end", "on_iteration", "on_tool_end", "on_agent_pause",
              "on_agent_resume")

    def __init__(self, obs: RunObserver) -> None:
        self.obs = obs
        presign_hooks(self, self._HOOKS)  # instance attributes: getattr(hook, name) is the presigned function

    def on_iteration_start(self, iteration: int, agent: Any = None, **kwargs: Any) -> None:
        obs = self.obs
        call, obs.summarizer_call = obs.summarizer_call, None
        if call is not None and call.get("stopped"):
            # Stopped during this iteration's summarizer call: the run ends before the iteration is sent (the agent
            # checks for Stop before its model call), so nothing of it is recorded: not a compression that failed,
            # not a trigger that did not fire. The run reads "stopped" at the iteration before.
            return
        after = agent.scratchpad
        fired = call is not None
        if fired:  # the state the middleware saw, taken when it called the summarizer
            before, last = call["before"], call["last_before"]
        else:  # the middleware changed nothing
            before, last = after, obs.middleware._get_last_summarized_length(agent)
        obs.iteration = iteration
        pred = obs.predict(iteration, before, last)
        reason = None
        if fired:  # the package called its summarizer: periodic when due, else it was the size trigger
            reason = "periodic" if pred["periodic_due"] else "size"
        skipped = {"skipped": True} if iteration in obs.skipped_at else {}  # only then: older events stay as they were
        obs.log.emit("trigger", iteration, **pred, fired=fired, reason=reason, **skipped)
        before_tokens = obs.count(before)
        after_tokens = obs.count(after)
        if fired:
            obs.log.emit("compression", iteration, **compression_data(
                reason=reason, before=before, after=after, before_tokens=before_tokens, after_tokens=after_tokens,
                prompt=call["prompt"], response=call["response"], model=call["model"],
                latency_s=round(call["latency_s"], 6), tokens_in=call.get("tokens_in", 0),
                tokens_out=call.get("tokens_out", 0), error=call.get("error"),
                **{k: call[k] for k in ("review", "proposal", "reused") if k in call}))
        obs.log.emit("iteration", iteration, before_chars=len(before), before_tokens=before_tokens,
                     chars=len(after), tokens=after_tokens, scratchpad=after)
        obs.trace_steps.append({"response": "", "observations": []})
        obs.tool_end_count = 0
        if obs.report is not None:
            obs.report(iteration)
        if obs.pace and obs.config.step_delay_s > 0:
            obs.stop_event.wait(obs.config.step_delay_s)

    def on_llm_end(self, response: Any, agent: Any = None, **kwargs: Any) -> None:
        obs = self.obs
        text = response_text(response)
        pending, obs.pending_llm = obs.pending_llm, {}
        if obs.trace_steps:
            obs.trace_steps[-1]["response"] = text
        obs.log.emit("llm_call", obs.iteration, response=text, latency_s=round(pending.get("latency_s", 0.0), 6),
                     tokens_in=kwargs.get("input_tokens") or pending.get("tokens_in", 0),
                     tokens_out=kwargs.get("output_tokens") or obs.count(text),
                     model=pending.get("model", ""))

    def on_iteration(self, iteration: int, thought: Optional[str], agent: Any = None, **kwargs: Any) -> None:
        if thought:
            self.obs.log.emit("thought", iteration, text=str(thought))

    def on_tool_end(self, tool_name: str, result: str, agent: Any = None, **kwargs: Any) -> None:
        obs = self.obs
        position = obs.tool_end_count  # fired in submission order, i.e. by position
        obs.tool_end_count += 1
        action = obs.step_actions[position] if position < len(obs.step_actions) else {}
        if obs.trace_steps:
            obs.trace_steps[-1]["observations"].append(result)
        obs.log.emit("tool_call", obs.iteration, position=position, tool=tool_name,
                     input=action.get("action_input", {}), result=result, result_chars=len(result))

    def on_agent_pause(self, iteration: int, reason: Optional[str], agent: Any = None, **kwargs: Any) -> None:
        self.obs.log.emit("pause", iteration, reason=reason or "")

    def on_agent_resume(self, iteration: int, paused_duration: float, agent: Any = None, **kwargs: Any) -> None:
        self.obs.log.emit("resume", iteration, paused_s=round(paused_duration, 3))


_PACKAGE_PROMPT_HEAD = PACKAGE_PROMPT_HEAD


class _Observed:
    """A model the run calls through its observer: the model itself, the observer, the model's name."""

    def __init__(self, inner: Any, obs: RunObserver, model: str) -> None:
        self.inner = inner
        self.obs = obs
        self.model = model


class ObservedLLM(_Observed):
    """Wraps the agent's LLM: timing, stop, and routing the package's fallback summarizer call."""

    def invoke(self, prompt: Any, **kwargs: Any) -> Any:
        obs = self.obs
        if isinstance(prompt, str) and prompt.startswith(_PACKAGE_PROMPT_HEAD):
            # The middleware fell back to agent.llm ("same as agent"): this is a summary request.
            return obs.summarize_call(self.inner, prompt, model=f"{self.model} (same as agent)")
        obs.check_stop()
        started = time.perf_counter()
        reply = obs.bounded(self.inner, prompt, waiting_for="the agent's model", **kwargs)
        latency = time.perf_counter() - started
        obs.check_stop()
        text = prompt if isinstance(prompt, str) else "\n".join(str(m.get("content", "")) for m in prompt)
        usage = getattr(self.inner, "last_usage", None) or {}
        tokens_in = usage.get("input_tokens") or obs.prompt_tokens(text, obs.agent.scratchpad, obs.count)
        obs.pending_llm = {"latency_s": latency, "model": self.model, "tokens_in": tokens_in}
        return reply


class ObservedSummarizer(_Observed):
    """The middleware's own `llm=`: every call goes through the observer."""

    def invoke(self, prompt: Any, **kwargs: Any) -> Any:
        return self.obs.summarize_call(self.inner, prompt, model=self.model)


class ObservedAgent(Agent):
    """The real Agent, with its trim and tool execution observed (each calls the package's own)."""

    def __init__(self, *args: Any, observer: RunObserver, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._observer = observer
        observer.agent = self

    def _parser(self, response: str):
        # The agent's own JSON decode turns a `\udfff` escape in a reply into a lone surrogate; what it
        # parsed is made safe here, where a model's (or a trace's) step enters the run, so no event,
        # page, file or CLI output meets one.
        thought, actions, final_answer = clean_json(list(super()._parser(response)))
        obs = self._observer
        with obs._claim_lock:
            obs.step_actions = list(actions)
            obs.claimed = set()
        return thought, actions, final_answer

    def _trim_scratchpad(self, scratchpad: str) -> str:
        trimmed = super()._trim_scratchpad(scratchpad)
        if trimmed != scratchpad:
            obs = self._observer
            obs.log.emit("trim", obs.iteration, before_chars=len(scratchpad), after_chars=len(trimmed))
        return trimmed

    def _execute_tool(self, tool_map: Dict[str, Any], tool_name: str, tool_input: Any) -> str:
        obs = self._observer
        obs._local.position = obs.claim_position(tool_name, tool_input)
        try:
            return super()._execute_tool(tool_map, tool_name, tool_input)
        finally:
            obs._local.position = None
