"""One summarizer for every strategy: the offline extractive one, an endpoint model, or the built-in model.

Streamlit-free. The autourgos strategies call it as the lab already does (`.invoke(prompt)`); the
LangChain strategies get it as a chat model: the extractive summarizer exposed as a `BaseChatModel`
(its `bind_tools` returns itself, which deepagents needs), or, for an endpoint, the lab's own endpoint
client (providers.EndpointLLM) exposed the same way (`EndpointChatModel`): so deepagents and LangMem
get the lab's pinned address, refused redirects, reply cap, retries, circuit breaker, deadline, Stop and
error sentences, exactly as the autourgos strategies do; never LangChain's own HTTP client. The built-in model
(engine/builtin_model.BuiltinLLM, the same `.invoke` and errors as the endpoint client) is exposed the same way,
so deepagents and LangMem summarize with it through the process's one model and its queue. The
messages go out as LangChain's OpenAI conversion writes them (`convert_to_openai_messages`). Every call a LangChain strategy makes is recorded by a callback handler
(`SummarizerCalls`): the messages sent, the reply, latency and tokens. LangChain is imported lazily.
"""
from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

from scratchpad_lab.engine.summarize.extractive import ExtractiveSummarizer
from scratchpad_lab.engine.net.providers import EndpointLLM, resolve_key
from scratchpad_lab.model.config import BUILTIN_MODEL_ID, field_default
from scratchpad_lab.model.endpoint import Endpoint, EndpointError
from scratchpad_lab.model.summarizer import SummarizerChoice
from scratchpad_lab.engine.run.tokens import TokenCounter
from scratchpad_lab.engine.strategies.messages import content_text, render_all

# deepagents and LangChain send the conversation inside a <messages> block of one prompt message.
_MESSAGES_BLOCK = re.compile(r"<messages>\s*(?:Messages to summarize:\s*)?(.*)</messages>", re.S)


@dataclass
class BuiltSummarizer:
    """The summarizer a job built from the person's SummarizerChoice (model/summarizer.py: the choice; this: the
    built thing, engine/summarize/summarizers.build_summarizer): extractive (offline), endpoint or builtin; the
    key is used for this run only and stored nowhere.
    Every strategy of one job shares one endpoint client (`client()`), so its circuit breaker spans
    the job; a job sets `stop_event` (Stop: no new call, a call in flight ends) and `time_left`
    (a function giving the job's seconds left) before it starts."""

    kind: str = "extractive"
    extractive_budget_chars: int = field_default("extractive_budget_chars")
    endpoint: Optional[Endpoint] = None
    api_key: Optional[str] = field(default=None, repr=False)
    store: Optional["SummaryStore"] = field(default=None, repr=False, compare=False)  # a search's reuse
    stop_event: Optional[threading.Event] = field(default=None, repr=False, compare=False)
    time_left: Optional[Callable[[], float]] = field(default=None, repr=False, compare=False)
    on_status: Optional[Callable[[str], None]] = field(default=None, repr=False, compare=False)  # built-in: its queue
    # on a Ray worker: the job's one client, held by an actor (engine/ray_cluster.HostedClient),
    # which got the key in memory by one direct call, never in a task's arguments
    hosted: Any = field(default=None, repr=False, compare=False)
    _client: Any = field(default=None, init=False, repr=False, compare=False)
    _job_left: Any = field(default=None, init=False, repr=False, compare=False)

    @property
    def model_id(self) -> str:
        if self.kind == "builtin":
            return BUILTIN_MODEL_ID
        return self.endpoint.model if self.kind == "endpoint" and self.endpoint else "extractive"

    @property
    def label(self) -> str:
        if self.kind == "builtin":
            from scratchpad_lab.engine.summarize.builtin_model import BuiltinLLM
            return BuiltinLLM.model_name
        return f"{self.endpoint.model} (endpoint)" if self.kind == "endpoint" and self.endpoint else \
            ExtractiveSummarizer.model_name

    @property
    def calls_a_model(self) -> bool:
        """Each summary is a model call (an endpoint's, or the built-in model's on this CPU): the job runs its
        points in this process (a worker process never calls a model) and counts those calls."""
        return self.kind in ("endpoint", "builtin")

    def key(self) -> str:
        if self.hosted is not None:
            from scratchpad_lab.model.endpoint import NO_KEY_PLACEHOLDER
            return NO_KEY_PLACEHOLDER  # the host holds the key; this process never reads one
        return self.api_key or resolve_key(self.endpoint)

    @property
    def choice(self) -> SummarizerChoice:
        """The choice this was built from, without its key (what a replay's RunConfig holds)."""
        if self.kind == "endpoint":
            return SummarizerChoice("endpoint", self.extractive_budget_chars, self.endpoint)
        return SummarizerChoice("builtin" if self.kind == "builtin" else "extractive", self.extractive_budget_chars)

    def client(self) -> Any:
        """The job's one model client, endpoint or built-in (built once; raises EndpointError for a URL that may
        not be called, BuiltinModelMissing with the one-line install where the built-in model is not here); on a
        Ray worker, the job's one endpoint client held by an actor."""
        if self.hosted is not None:
            return self.hosted
        if self._client is None:
            from scratchpad_lab.engine.limits import budget
            if self.kind == "builtin":
                from scratchpad_lab.engine.summarize.builtin_model import build
                self._client = build()
            else:
                self._client = EndpointLLM(self.endpoint, self.key())
            self._client.max_calls = int(budget("model_calls"))  # what one job may make, whatever it estimated
            ends = time.monotonic() + budget("job_wall_s")       # and the job's deadline, unless it set its own
            self._job_left = lambda: ends - time.monotonic()
        self._client.stop_event, self._client.time_left = self.stop_event, self.time_left or self._job_left
        if self.kind == "builtin":
            self._client.on_status = self.on_status
        return self._client

    def plain(self) -> Any:
        llm = self.client() if self.calls_a_model else ExtractiveSummarizer(self.extractive_budget_chars)
        return ReusedReplies(llm, self.store) if self.store is not None else llm

    def chat_model(self, max_input_tokens: Optional[int] = None) -> Any:
        """A LangChain chat model; `max_input_tokens` becomes its profile (what deepagents reads)."""
        if self.calls_a_model:
            model = _endpoint_chat_class()(client=self.client())
        else:
            model = extractive_chat_model(self.extractive_budget_chars)
        if max_input_tokens is not None:
            model.profile = {**(model.profile or {}), "max_input_tokens": int(max_input_tokens)}
        return model


def conversation_text(messages: List[Any]) -> str:
    """What a summary request asks to summarize: the <messages> block of a one-prompt request
    (deepagents), else all the messages (LangMem sends the conversation itself)."""
    if len(messages) == 1:
        found = _MESSAGES_BLOCK.search(content_text(messages[0]))
        if found:
            return found.group(1).strip()
    return render_all(messages)


def extractive_chat_model(budget_chars: int = field_default("extractive_budget_chars")) -> Any:
    return _extractive_class()(budget_chars=budget_chars)


_CLASS: List[Any] = []


def _extractive_class():
    if _CLASS:
        return _CLASS[0]
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    class ExtractiveChatModel(BaseChatModel):
        """The lab's offline extractive summarizer as a LangChain chat model (no LLM, no network)."""

        budget_chars: int = field_default("extractive_budget_chars")

        @property
        def _llm_type(self) -> str:
            return "scratchpad-lab-extractive"

        def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
            text = conversation_text(list(messages))
            summary = ExtractiveSummarizer(self.budget_chars).summarize(
                scratchpad=text, query="", iteration=0, template=None)
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content=summary))])

        def bind_tools(self, tools, **kwargs):  # deepagents binds its tools; a summarizer needs none
            return self

    _CLASS.append(ExtractiveChatModel)
    return ExtractiveChatModel


def _endpoint_chat_class():
    if _ENDPOINT_CLASS:
        return _ENDPOINT_CLASS[0]
    from langchain_core.exceptions import ModelError
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessage, convert_to_openai_messages
    from langchain_core.outputs import ChatGeneration, ChatResult
    from pydantic import ConfigDict

    class SummarizerCallFailed(EndpointError, ModelError):
        """The lab's sentence for a failed summarizer call. Not retryable for LangChain: the endpoint
        client has already tried as often as is worth it (and its breaker decides the rest)."""

        is_retryable = False

    class EndpointChatModel(BaseChatModel):
        """The lab's endpoint client as a LangChain chat model (every limit of providers.EndpointLLM)."""

        model_config = ConfigDict(arbitrary_types_allowed=True)
        client: Any

        @property
        def _llm_type(self) -> str:
            return "scratchpad-lab-endpoint"

        def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
            try:
                text = self.client.invoke(convert_to_openai_messages(list(messages)))
            except EndpointError as exc:
                raise SummarizerCallFailed(str(exc)) from None
            usage = self.client.last_usage or {}
            tokens_in, tokens_out = int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
            extra = {"usage_metadata": {"input_tokens": tokens_in, "output_tokens": tokens_out,
                                        "total_tokens": tokens_in + tokens_out}} if usage else {}
            message = AIMessage(content=text, **extra)
            return ChatResult(generations=[ChatGeneration(message=message)])

        def bind_tools(self, tools, **kwargs):  # deepagents binds its tools; a summarizer needs none
            return self

    _ENDPOINT_CLASS.append(EndpointChatModel)
    return EndpointChatModel


_ENDPOINT_CLASS: List[Any] = []


def recorded_chat_model(summarizer: "BuiltSummarizer", counter: TokenCounter,
                        max_input_tokens: Optional[int] = None):
    """(model, calls): the LangChain chat model a message-based strategy summarizes with, every call it
    makes recorded in `calls.calls`."""
    model = summarizer.chat_model(max_input_tokens)
    calls = call_recorder(counter)
    model.callbacks = [calls]
    if summarizer.store is not None:
        model.cache = summarizer.store.langchain_cache()
    return model, calls


def call_recorder(counter: TokenCounter):
    """A LangChain callback handler that records every chat-model call it sees."""
    from langchain_core.callbacks import BaseCallbackHandler

    class SummarizerCalls(BaseCallbackHandler):
        def __init__(self) -> None:
            self.calls: List[Dict[str, Any]] = []
            self._open: Dict[Any, Dict[str, Any]] = {}

        def on_chat_model_start(self, serialized, messages, *, run_id, **kwargs) -> None:
            sent = list(messages[0]) if messages else []
            call = {"messages": sent, "prompt": render_all(sent), "response": "", "error": None,
                    "started": time.perf_counter()}
            self._open[run_id] = call

        def on_llm_end(self, response, *, run_id, **kwargs) -> None:
            call = self._open.pop(run_id, None)
            if call is None:
                return
            generation = response.generations[0][0] if response.generations and response.generations[0] else None
            message = getattr(generation, "message", None)
            call["response"] = content_text(message) if message is not None else str(getattr(generation, "text", ""))
            usage = getattr(message, "usage_metadata", None) or {}
            call["tokens_in"] = int(usage.get("input_tokens") or counter(call["prompt"]))
            call["tokens_out"] = int(usage.get("output_tokens") or counter(call["response"]))
            self._finish(call)

        def on_llm_error(self, error, *, run_id, **kwargs) -> None:
            call = self._open.pop(run_id, None)
            if call is not None:
                call["error"] = f"{type(error).__name__}: {error}"
                call["tokens_in"], call["tokens_out"] = counter(call["prompt"]), 0
                self._finish(call)

        def _finish(self, call: Dict[str, Any]) -> None:
            call["latency_s"] = round(time.perf_counter() - call.pop("started"), 6)
            self.calls.append(call)

    return SummarizerCalls()


class SummaryStore:
    """Summaries already written within one search (engine/studies/recommender.py), by what the summarizer was sent:
    a grid point that sends a summarizer exactly what an earlier point sent gets the same reply (and the same
    token counts) without a second call. Thread-safe; one store per search, never written to disk."""

    def __init__(self) -> None:
        self._replies: Dict[str, Any] = {}
        self._lock = threading.Lock()
        self.hits = 0

    def get(self, key: str) -> Any:
        with self._lock:
            found = self._replies.get(key)
            if found is not None:
                self.hits += 1
            return found

    def put(self, key: str, value: Any) -> None:
        with self._lock:
            self._replies[key] = value

    def langchain_cache(self) -> Any:
        """The store as a LangChain cache (a chat model's `cache`): a hit replays the generation, usage
        included, and the model's callbacks still see the call (so it is recorded like any other)."""
        from langchain_core.caches import BaseCache

        store = self

        class StoreCache(BaseCache):
            def lookup(self, prompt, llm_string):
                return store.get(f"lc:{llm_string}:{prompt}")

            def update(self, prompt, llm_string, return_val):
                store.put(f"lc:{llm_string}:{prompt}", return_val)

            def clear(self, **kwargs):
                pass

        return StoreCache()


class ReusedReplies:
    """A summarizer (`.invoke(prompt)`) whose replies come from a SummaryStore when the same prompt was sent
    before in the search; everything else is the inner summarizer's."""

    def __init__(self, inner: Any, store: SummaryStore) -> None:
        self.inner = inner
        self.store = store
        self.last_usage: Optional[Dict[str, Any]] = None

    def invoke(self, prompt: Any, **kwargs: Any) -> Any:
        key = f"plain:{getattr(self.inner, 'model_name', '')}:{prompt}"
        found = self.store.get(key)
        if found is not None:
            reply, self.last_usage = found
            return reply
        reply = self.inner.invoke(prompt, **kwargs)
        self.last_usage = getattr(self.inner, "last_usage", None)
        self.store.put(key, (reply, self.last_usage))
        return reply

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
