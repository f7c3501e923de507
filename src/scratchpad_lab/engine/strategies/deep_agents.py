"""`deepagents`: the real deepagents summarization and filesystem middleware, driven with the trajectory.

Streamlit-free; deepagents, LangChain and LangGraph are imported only here, when this strategy runs.

How it is driven (the calls a LangChain agent graph makes, made here one step at a time so every step
of the trajectory is a model call, including steps without tool calls, which would end a graph run):
- before each model call, a `ModelRequest` (the conversation so far as state messages, the state with
  the middleware's private summarization event, the trace's tools plus the filesystem tools) goes
  through `FilesystemMiddleware.wrap_model_call`, then the summarization middleware's
  `wrap_model_call`, then a handler that records what would reach the model and answers with the
  trajectory's recorded AIMessage. A state update the middleware returns (its summarization event,
  replaced messages) is applied with LangGraph's own `add_messages` reducer;
- after each model call, each tool result goes through `FilesystemMiddleware.wrap_tool_call`, which
  moves one over 4 x `tool_token_limit_before_evict` characters to `/large_tool_results/...`.
The backend is deepagents' `FilesystemBackend` over a temporary directory (virtual paths), so every
offloaded file is kept and read back. Settings not given keep the package's defaults: the middleware
is built by `create_summarization_middleware` (defaults from `compute_summarization_defaults`: with a
profile `max_input_tokens`, trigger 85% / keep 10%; without, 170,000 tokens / last 6 messages); a
setting given replaces only that part. With "pass pins to the summarizer" the pins are asked for at the end of
deepagents' own summary prompt (DEEPAGENTS_DEFAULT_SUMMARY_PROMPT), through its `summary_prompt` parameter.
"""
from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional

from scratchpad_lab.engine.jobs import StopFlag
from scratchpad_lab.engine.run.tokens import TokenCounter
from scratchpad_lab.model.compression import compression_data
from scratchpad_lab.model.pins import NO_PINS, Pinned
from scratchpad_lab.model.trace import Trace
from scratchpad_lab.engine.strategies.messages import (RecordedModel, content_text, render_all, step_messages,
                                                    system_message, with_system)
from scratchpad_lab.engine.strategies.result import Quirk, StrategyResult, failed_summarizer_call, start_message_run
from scratchpad_lab.engine.strategies.spec import StrategySpec
from scratchpad_lab.engine.strategies.chat_summarizer import BuiltSummarizer


TRIGGER = "deepagents: context over its token trigger"


def _same(a: Any, b: Any) -> bool:
    return (a is b) or (getattr(a, "id", None) == getattr(b, "id", None) and a.content == b.content
                        and getattr(a, "tool_calls", None) == getattr(b, "tool_calls", None))


def offload_text(kept: int, moved: int, path: Optional[str], previews: int = 0) -> str:
    """What a summarization did, in words; `previews` of the `kept` messages are previews of offloaded tool
    results (a file's path and a few lines), not the messages verbatim."""
    if kept and previews >= kept:
        how = f"kept the newest {kept} message{'s' * (kept != 1)}, as previews of files"
    elif previews:
        how = (f"kept the newest {kept} messages ({kept - previews} verbatim, {previews} as "
               f"preview{'s' * (previews != 1)} of files)")
    else:
        how = f"kept the newest {kept} message{'s' * (kept != 1)} verbatim"
    if moved == 0:
        return ("deepagents summarized again but moved no new message: its keep cut stepped back to keep a tool "
                f"call with its results, so only the previous summary was re-summarized (it {how}).")
    return (f"deepagents {how} and moved the {moved} older one{'s' * (moved != 1)} to {path}; the model sees "
            f"only a summary of {'them' if moved != 1 else 'it'}.")


def session_id(trace: Trace) -> str:
    """deepagents names its history file after a random id per conversation (`session_<uuid4 hex>`), and the
    path enters the summary message, so two runs of the same settings would differ: the lab gives it an id
    derived from the trajectory instead, the same for every run of it."""
    text = json.dumps(trace.to_dict(), sort_keys=True, ensure_ascii=False)
    return "session_" + hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def tool_quirk(iteration: int, tool: str, chars: int, offloaded: Optional[str], reply: str) -> Quirk:
    """What deepagents did with a tool result it changed: moved it to a file, or (no file: e.g. a second
    write_file to the same path in one step) answered the call itself instead of the recorded result."""
    if offloaded:
        return Quirk(iteration, "deepagents-tool-offload",
                     f"A {chars:,}-character tool result went to {offloaded}; the model sees a short preview of it.")
    said = " ".join(reply.split())
    said = said if len(said) <= 160 else said[:157] + "..."
    return Quirk(iteration, "deepagents-tool-answered",
                 f"deepagents answered this {tool} call itself (“{said}”); the model sees that instead of the "
                 f"recorded {chars:,}-character result.")


def build_middleware(model: Any, backend: Any, s: Dict[str, Any], pins: Pinned = NO_PINS):
    """(filesystem middleware, summarization middleware) with the package's defaults, overridden
    only where a setting is given; with the pins sent, its own prompt asking for them (`summary_prompt`)."""
    from deepagents.middleware.filesystem import FilesystemMiddleware
    from deepagents.middleware.summarization import (DEEPAGENTS_DEFAULT_SUMMARY_PROMPT, SummarizationMiddleware,
                                                     compute_summarization_defaults,
                                                     create_summarization_middleware)

    fs = FilesystemMiddleware(backend=backend, tool_token_limit_before_evict=s.get("tool_token_limit_before_evict"))
    triggers = [(kind, s[f"trigger_{kind}"]) for kind in ("tokens", "fraction", "messages")
                if s.get(f"trigger_{kind}") is not None]
    keep = next(((kind, s[f"keep_{kind}"]) for kind in ("messages", "tokens", "fraction")
                 if s.get(f"keep_{kind}") is not None), None)
    max_length = s.get("truncate_max_length")
    prompt = {"summary_prompt": pins.prompt(DEEPAGENTS_DEFAULT_SUMMARY_PROMPT)} if pins.asked else {}
    if not triggers and keep is None and max_length in (None, 2000):
        return fs, create_summarization_middleware(model, backend, **prompt)
    d = compute_summarization_defaults(model)
    truncate = dict(d["truncate_args_settings"])
    if max_length is not None:
        truncate["max_length"] = max_length
    summ = SummarizationMiddleware(
        model=model, backend=backend,
        trigger=(triggers[0] if len(triggers) == 1 else triggers) if triggers else d["trigger"],
        keep=keep or d["keep"], trim_tokens_to_summarize=None,  # as create_summarization_middleware passes
        truncate_args_settings=truncate, **prompt)
    return fs, summ


def tool_dicts(trace: Trace) -> List[Dict[str, Any]]:
    """The agent's tools as a LangChain agent holds them ({"name", "description", "parameters"}: what deepagents
    counts of a tool, as it counts a real agent's BaseTool; an OpenAI `{"type": "function", ...}` wrapper would add
    its own characters to every count). A recorded conversation's agent has no `user` tool: that tool exists only
    for the autourgos scratchpad's mapping of later user turns."""
    from scratchpad_lab.engine.importers.chat import USER_TOOL_DESCRIPTION

    own = [t for t in trace.tools if trace.messages is None or t.description != USER_TOOL_DESCRIPTION]
    return [{"name": t.name, "description": t.description or t.name,
             "parameters": t.parameters or {"type": "object", "properties": {}}} for t in own]


class _Files:
    """The backend's files as {virtual path: text}, read again only when a file's size or time changed:
    the offloaded conversation history is appended to at every summary and grows to the whole
    conversation, so reading every file at every step made a long trace's replay quadratic."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._known: Dict[Path, tuple] = {}

    def __call__(self) -> Dict[str, str]:
        out = {}
        for path in sorted(self.root.rglob("*")):
            if path.is_file():
                stat = path.stat()
                known = self._known.get(path)
                if known is None or known[0] != (stat.st_size, stat.st_mtime_ns):
                    known = self._known[path] = ((stat.st_size, stat.st_mtime_ns),
                                                 path.read_text(encoding="utf-8", errors="replace"))
                out["/" + path.relative_to(self.root).as_posix()] = known[1]
        return out


def run(trace: Trace, spec: StrategySpec, summarizer: BuiltSummarizer, baseline: List[int],
        counter: Optional[TokenCounter] = None, stop: Optional[StopFlag] = None,
        pins: Pinned = NO_PINS) -> StrategyResult:
    from deepagents.backends.filesystem import FilesystemBackend
    from deepagents.middleware.summarization import SUMMARIZATION_SESSION_ID_KEY as SESSION_KEY
    from langchain.agents.middleware.types import ExtendedModelResponse, ModelRequest
    from langgraph.graph.message import add_messages
    from langgraph.prebuilt.tool_node import ToolCallRequest
    from langgraph.types import Command

    s, tokens, model, calls, log = start_message_run(trace, spec, summarizer, counter,
                                                    input_limit="max_input_tokens")
    quirks: List[Quirk] = []
    error: Optional[str] = None
    sent_all: List[List[Any]] = []
    error: Optional[str] = None
    with tempfile.TemporaryDirectory(prefix="scratchpad-lab-deepagents-") as tmp:
        root = Path(tmp)
        _files = _Files(root)
        backend = FilesystemBackend(root_dir=root, virtual_mode=True)
        fs, summ = build_middleware(model, backend, s, pins)
        tools = [*fs.tools, *tool_dicts(trace)]
        steps = step_messages(trace)
        system = system_message(trace)  # the agent's system prompt: the request's system message at every call
        # a fixed id derived from the trajectory (session_id): the history file's name, and so the figures, are
        # the same for every replay of it
        state: Dict[str, Any] = {"messages": list(steps[0]), SESSION_KEY: session_id(trace)}
        original = {m.id: content_text(m) for step in steps for m in step}
        tool_events: Dict[str, Any] = {}  # tool message id -> its tool_call event (amended if offloaded later)
        seen_files: Dict[str, str] = {}

        def apply(update: Dict[str, Any]) -> None:
            for key, value in update.items():
                state[key] = add_messages(state["messages"], value) if key == "messages" else value

        for iteration in range(1, len(steps)):
            if stop is not None:  # between model calls: a stopped job ends here (engine/jobs.py)
                stop.check()
            handler = RecordedModel(steps[iteration][0])
            request = ModelRequest(model=model, messages=list(state["messages"]), system_message=system,
                                   tools=tools, state=state)
            effective = summ._get_effective_messages(request)
            event_before = state.get("_summarization_event")
            calls_before = len(calls.calls)
            try:
                out = fs.wrap_model_call(request, lambda r: summ.wrap_model_call(r, handler))
            except Exception as exc:  # its summarizer model failed (deepagents lets it raise): stop here, say why
                if failed_summarizer_call(log, iteration, with_system(system, effective), calls, calls_before, tokens,
                                          summarizer, TRIGGER) is None:
                    raise
                error = f"The summarizer failed at step {iteration}, so deepagents stopped: {exc}"
                log.emit("error", iteration, error_type=type(exc).__name__, message=error)
                break
            update = dict(out.command.update or {}) if isinstance(out, ExtendedModelResponse) and out.command else {}
            if update:
                apply(update)
            # What the model is sent, counted as every message strategy's: the agent's system prompt and the
            # messages (deepagents' own filesystem instructions and tools, added to every call, are not counted)
            sent = with_system(system, handler.request.messages)
            sent_all.append(sent)
            sent_tokens = tokens(sent)
            effective = with_system(system, effective)
            before_tokens = tokens(effective)
            event = state.get("_summarization_event")
            files_now = _files()
            new_files = sorted(p for p, text in files_now.items() if seen_files.get(p) != text)
            seen_files = files_now
            # After summarizing, a context still over budget has its trailing tool results clipped
            # (deepagents' _clip_overflow_tail): each goes to a file and the state keeps a preview.
            for m in update.get("messages", None) or []:
                if getattr(m, "type", "") != "tool" or content_text(m) == original.get(m.id, content_text(m)):
                    continue
                path = next((p for p in new_files if p in content_text(m)), None)
                told = tool_events.get(m.id)
                if told is not None:
                    told.amend(offloaded_to=path, offloaded_by="overflow clip", offloaded_at=iteration,
                               result=content_text(m))
                quirks.append(Quirk(iteration, "deepagents-clip-offload",
                                    f"After summarizing, the context was still over its budget: deepagents moved a "
                                    f"{len(original.get(m.id, '')):,}-character tool result to {path}; the model "
                                    "sees a preview of it."))
            if event is not None and event is not event_before:
                kept_ids = {getattr(m, "id", None) for m in sent}
                dropped = [m for m in effective if getattr(m, "id", None) not in kept_ids]
                call = calls.calls[-1] if len(calls.calls) > calls_before else {}
                before_text, after_text = render_all(effective), render_all(sent)
                log.emit("compression", iteration, **compression_data(
                    reason="size", trigger=TRIGGER,
                    before=before_text, after=after_text, before_tokens=before_tokens, after_tokens=sent_tokens,
                    prompt=call.get("prompt", ""), response=call.get("response", content_text(event["summary_message"])),
                    model=summarizer.label, latency_s=call.get("latency_s", 0.0),
                    tokens_in=call.get("tokens_in", 0), tokens_out=call.get("tokens_out", 0),
                    error=call.get("error"), summarizer_called=bool(call),
                    dropped=[getattr(m, "id", "") for m in dropped], files=new_files,
                    file_path=event.get("file_path"), cutoff_index=event.get("cutoff_index")))
                own = len(sent) - (system is not None) - 1  # the messages kept after its summary message
                previews = sum(1 for m in sent[len(sent) - own:] if getattr(m, "type", "") == "tool"
                               and content_text(m) != original.get(m.id, content_text(m)))
                quirks.append(Quirk(iteration, "deepagents-offload", offload_text(own, len(dropped),
                                                                                  event.get("file_path"), previews)))
            elif len(sent) != len(effective) or not all(_same(a, b) for a, b in zip(sent, effective)):
                before_text, after_text = render_all(effective), render_all(sent)
                log.emit("trim", iteration, before_chars=len(before_text), after_chars=len(after_text),
                         before=before_text, after=after_text,
                         what="deepagents shortened old messages (tool-call arguments or a large human message)")
            log.emit("iteration", iteration, before_chars=tokens.chars(effective), before_tokens=before_tokens,
                     chars=tokens.chars(sent),
                     tokens=sent_tokens, messages=len(sent))
            # The step's tool results, through the filesystem middleware's eviction.
            ai = steps[iteration][0]
            state["messages"] = add_messages(state["messages"], [ai])
            calls_by_id = {c["id"]: c for c in ai.tool_calls}
            position = -1
            for tool_msg in steps[iteration][1:]:
                if getattr(tool_msg, "type", "") != "tool":  # a user turn after the results: the next turn's input
                    state["messages"] = add_messages(state["messages"], [tool_msg])
                    continue
                position += 1
                call = calls_by_id[tool_msg.tool_call_id]
                call_req = ToolCallRequest(tool_call=call, tool=None, state=state, runtime=None)
                result = fs.wrap_tool_call(call_req, lambda r, m=tool_msg: m)
                if isinstance(result, Command):
                    update = dict(result.update or {})
                    result = (update.pop("messages", None) or [tool_msg])[-1]
                    apply(update)
                state["messages"] = add_messages(state["messages"], [result])
                offloaded = None
                if content_text(result) != content_text(tool_msg):
                    files_now = _files()
                    offloaded = next((p for p in sorted(files_now) if p not in seen_files), None)
                    seen_files = files_now
                    quirks.append(tool_quirk(iteration, tool_msg.name, len(content_text(tool_msg)), offloaded,
                                             content_text(result)))
                tool_events[tool_msg.id] = log.emit(
                    "tool_call", iteration, position=position, tool=tool_msg.name,
                    input=call.get("args", {}), result=content_text(result),
                    result_chars=len(content_text(tool_msg)), offloaded_to=offloaded,
                    offloaded_by="tool result eviction" if offloaded else None)
        files = _files()
    log.emit("finish", len(sent_all), outcome="error" if error else "answered", iterations=len(sent_all),
             elapsed_s=0.0)
    return StrategyResult(spec.name, s, spec.title(), log.snapshot(), baseline, files=files, quirks=quirks,
                          sent_messages=sent_all, summarizer_model=summarizer.label, error=error)
