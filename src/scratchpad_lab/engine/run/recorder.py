"""TraceRecorder: middleware that writes the exact trace of a real autourgos-agent run, for replay here.

    from scratchpad_lab.record import TraceRecorder
    agent = Agent(llm=my_llm, tools=[...], middleware=[TraceRecorder("run.trace.json")])
    agent.invoke("...")          # run.trace.json now holds the run, step for step

Streamlit-free, and it changes nothing of the run. What it records, per iteration: the raw text the
agent's LLM returned (on_llm_end: the same text the agent parses), and each tool's raw result *before*
the agent cuts it to max_tool_output_chars (each tool's function is wrapped for the run and put back
after; a result the wrapper did not see, such as a denial or a timeout, is the text the agent got). The
tools are recorded with their names, descriptions and parameters, the task is the query. It reads
nothing else of the agent: no model settings, no keys (a key in the agent's LLM object never reaches
the file). The file is written when the run ends, however it ends, and replaced atomically.

Only the agent's prompt mode has a trace (tool_calling_mode="native" sends messages, not a scratchpad):
in native mode the recorder writes nothing and logs a warning.
"""
from __future__ import annotations

import functools
import inspect
import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from autourgos_agent import CallbackHandler

from scratchpad_lab.engine.files.loader import trace_json
from scratchpad_lab.model.schemas import MAX_STEP_RESPONSE_CHARS
from scratchpad_lab.model.trace import Trace, TraceStep, TraceTool

logger = logging.getLogger(__name__)
_TRUNCATED = "... [truncated]"  # what the agent appends when it cuts a tool result (base.py _execute_tool)


def _tool_name(tool: Any) -> Optional[str]:
    return tool.get("name") if isinstance(tool, dict) else getattr(tool, "name", None)


class TraceRecorder(CallbackHandler):
    """Writes `path` (a scratchpad-lab trace) at the end of each run of the agent it is attached to."""

    def __init__(self, path: Union[str, Path]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._reset()

    def _reset(self) -> None:
        self.task = ""
        self.tools: Dict[str, TraceTool] = {}
        self.steps: List[Dict[str, Any]] = []
        self._starts: List[Tuple[str, Any]] = []     # this step's actions as the agent started them
        self._raw: List[Tuple[str, Any, str]] = []   # (tool, input, raw result) seen by the wrappers
        self._claimed: set = set()
        self._wrapped: List[Tuple[Any, str, Callable[..., Any]]] = []  # (tool, key, original func)
        self._active = False

    # ── the run ────────────────────────────────────────────────────────────
    def on_agent_start(self, query: str, agent: Any = None, **kwargs: Any) -> None:
        self._reset()
        if getattr(agent, "tool_calling_mode", "prompt") != "prompt":
            logger.warning("TraceRecorder: tool_calling_mode=%r has no scratchpad trace; nothing is recorded.",
                           getattr(agent, "tool_calling_mode", None))
            return
        self._active = True
        self.task = str(query)
        self._take_tools(agent)

    def on_iteration_start(self, iteration: int, agent: Any = None, **kwargs: Any) -> None:
        if not self._active:
            return
        self._take_tools(agent)  # a tool added mid-run (a toolbox) is recorded and wrapped from its first step
        with self._lock:
            self.steps.append({"response": "", "observations": []})
            self._starts, self._raw, self._claimed = [], [], set()

    def on_llm_end(self, response: Any, agent: Any = None, **kwargs: Any) -> None:
        if self._active and self.steps:
            text = getattr(response, "content", response)
            self.steps[-1]["response"] = "" if text is None else str(text)

    def on_tool_start(self, tool_name: str, tool_input: Any, agent: Any = None, **kwargs: Any) -> None:
        if self._active:
            with self._lock:
                self._starts.append((tool_name, tool_input))

    def on_tool_end(self, tool_name: str, result: str, agent: Any = None, **kwargs: Any) -> None:
        if not self._active or not self.steps:
            return
        cap = getattr(agent, "MAX_TOOL_OUTPUT_CHARS", 5000)
        with self._lock:
            position = len(self.steps[-1]["observations"])
            tool_input = self._starts[position][1] if position < len(self._starts) else None
            self.steps[-1]["observations"].append(self._uncut(tool_name, tool_input, str(result), cap))

    def on_agent_end(self, result: str, agent: Any = None, **kwargs: Any) -> None:
        self._finish()

    def on_agent_error(self, error: Exception, agent: Any = None, **kwargs: Any) -> None:
        self._finish()

    # ── tools ──────────────────────────────────────────────────────────────
    def _take_tools(self, agent: Any) -> None:
        for tool in list(getattr(agent, "tools", []) or []):
            name = _tool_name(tool)
            if not isinstance(name, str) or name in self.tools:
                continue
            get = tool.get if isinstance(tool, dict) else lambda key, default=None: getattr(tool, key, default)
            params = get("parameters", None)
            self.tools[name] = TraceTool(name, str(get("description", "") or ""),
                                         params if isinstance(params, dict) else {})
            self._wrap(tool, name)

    def _wrap(self, tool: Any, name: str) -> None:
        for key in ("func", "function"):
            func = tool.get(key) if isinstance(tool, dict) else getattr(tool, key, None)
            if callable(func):
                break
        else:
            return
        recorder = self

        if inspect.iscoroutinefunction(func):
            @functools.wraps(func)
            async def recorded(*args: Any, **kw: Any) -> Any:
                try:
                    result = await func(*args, **kw)
                except Exception as exc:
                    recorder._saw(name, args, kw, f"Error executing '{name}': {exc}")
                    raise
                recorder._saw(name, args, kw, str(result))
                return result
        else:
            @functools.wraps(func)
            def recorded(*args: Any, **kw: Any) -> Any:
                try:
                    result = func(*args, **kw)
                except Exception as exc:
                    recorder._saw(name, args, kw, f"Error executing '{name}': {exc}")
                    raise
                recorder._saw(name, args, kw, str(result))
                return result

        if isinstance(tool, dict):
            tool[key] = recorded
        else:
            setattr(tool, key, recorded)
        self._wrapped.append((tool, key, func))

    def _saw(self, name: str, args: tuple, kwargs: dict, raw: str) -> None:
        tool_input = kwargs if kwargs or not args else args[0]
        with self._lock:
            self._raw.append((name, tool_input, raw))

    def _uncut(self, name: str, tool_input: Any, result: str, cap: int) -> str:
        """The raw result the wrapper saw for this call (the one the agent's cut turns into `result`)."""
        for k, (seen_name, seen_input, raw) in enumerate(self._raw):
            if k in self._claimed or seen_name != name or seen_input != tool_input:
                continue
            if (raw if len(raw) <= cap else raw[:cap] + _TRUNCATED) == result:
                self._claimed.add(k)
                return raw
        return result

    def _restore(self) -> None:
        for tool, key, func in self._wrapped:
            if isinstance(tool, dict):
                tool[key] = func
            else:
                setattr(tool, key, func)
        self._wrapped = []

    # ── the file ───────────────────────────────────────────────────────────
    def trace(self) -> Optional[Trace]:
        """The trace of the last run (None before a run, or in native mode)."""
        if not self.steps:
            return None
        return Trace(task=self.task, tools=list(self.tools.values()),
                     steps=[TraceStep(s["response"], list(s["observations"])) for s in self.steps])

    def _finish(self) -> None:
        self._restore()
        if not self._active:
            return
        self._active = False
        trace = self.trace()
        if trace is None:
            return
        for number, step in enumerate(trace.steps, start=1):
            if len(step.response) > MAX_STEP_RESPONSE_CHARS:
                logger.warning("TraceRecorder: step %d's response is %d characters; the lab loads steps of at most "
                               "%d, so this trace will be refused until that step is shortened.", number,
                               len(step.response), MAX_STEP_RESPONSE_CHARS)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=self.path.name, suffix=".part", dir=self.path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(trace_json(trace))
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
