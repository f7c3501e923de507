"""OpenAI-compatible endpoints for the agent and the summarizer, through autourgos-openaichat.

Streamlit-free. An `Endpoint` says where and what (provider preset or base URL, model, which
environment variable holds the key, limits); it never holds a key, so it can go into a run record.
The key is handed to `EndpointLLM` at run time only and lives nowhere else.

Safety and limits:
- every call has a timeout and a max_tokens; only failures that may pass (429, 5xx, a timeout, a
  dropped connection) are tried again, with backoff, and never past the run's deadline or its Stop;
  a refused connection, a redirect or a 4xx fails at once; after the same failure 3 times in a row
  an `EndpointLLM` fails at once for the rest of its run (a circuit breaker); a reply over
  `max_reply_bytes` is refused before the agent parses it (a compressed one is decoded only up to the
  cap, transport.py); a body that is not a chat completion (a web page served 200) is refused;
- the key rule: a key *variable* of the server (environment or st.secrets) is sent only to the base
  URL it belongs to (a preset's own host, or one the operator bound with SCRATCHPAD_LAB_KEY_HOSTS /
  [scratchpad_lab] key_hosts); in hosted mode only variables the operator allowed
  (SCRATCHPAD_LAB_ALLOWED_KEY_VARS / [scratchpad_lab] allowed_key_vars) are used at all. Any other URL
  gets the key the person typed, or a placeholder: never the server's own key;
- a base URL with a user name or password in it is refused; redirects are never followed;
- hosted mode (SCRATCHPAD_LAB_HOSTED=1) resolves the host once, refuses every special-purpose
  address (loopback, private, link-local, shared, reserved, multicast, metadata, and IPv4 addresses
  embedded in IPv6 forms), connects to exactly the address it checked (addresses.py), and tightens
  every limit.
Every failure a person will meet becomes one sentence that says what to do (`explain_error`).
"""
from __future__ import annotations

import os
import threading
import time
from typing import Any, Callable, Dict, Optional, Tuple
from urllib.parse import urlparse

from scratchpad_lab.engine.net.addresses import ascii_host, public_address
from scratchpad_lab.engine.net.transport import CallGuard, guarded, lab_transport
from scratchpad_lab.model.endpoint import (NO_KEY_PLACEHOLDER, PROVIDERS, USERINFO_MESSAGE, Endpoint, EndpointError, ReplyTooLarge,
                                            hosted_mode)
from scratchpad_lab.model.untrusted import clean_text

def _parse_base_url(url: str):
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise EndpointError(f"The base URL {_without_userinfo(url)!r} is not an http(s) URL; it should look like "
                            "https://api.example.com/v1 or http://localhost:11434/v1.")
    if parsed.username is not None or parsed.password is not None:
        raise EndpointError(USERINFO_MESSAGE)
    try:
        parsed.port
    except ValueError:
        raise EndpointError(f"The base URL {url!r} has a port that is not a number from 0 to 65535.") from None
    return parsed


def check_base_url(url: str) -> Optional[str]:
    """Refuse a base URL that cannot work, and in hosted mode one that points inside the network.
    Returns, in hosted mode, the one address the connection must use (resolved once, here)."""
    parsed = _parse_base_url(url)
    if not hosted_mode():
        return None
    if parsed.scheme != "https":
        raise EndpointError("In hosted mode only https base URLs are allowed.")
    try:
        return public_address(parsed.hostname, parsed.port or 443)
    except ValueError as exc:
        raise EndpointError(str(exc)) from None


def _without_userinfo(url: str) -> str:
    parsed = urlparse(url)
    if "@" not in parsed.netloc:
        return url
    return parsed._replace(netloc=parsed.netloc.rsplit("@", 1)[1]).geturl()




# ── the key rule ────────────────────────────────────────────────────────────
KEY_HOSTS_ENV = "SCRATCHPAD_LAB_KEY_HOSTS"            # "VAR=https://host/v1,OTHER=http://127.0.0.1:8000/v1"
ALLOWED_KEYS_ENV = "SCRATCHPAD_LAB_ALLOWED_KEY_VARS"  # hosted mode: "OPENAI_API_KEY,GROQ_API_KEY"
SECRETS_SECTION = "scratchpad_lab"                    # st.secrets: [scratchpad_lab] key_hosts / allowed_key_vars


def _section(secrets: Optional[dict]) -> dict:
    try:
        return dict((secrets or {}).get(SECRETS_SECTION) or {})
    except (TypeError, ValueError):
        return {}


def _origin(url: str):
    parsed = urlparse(url)
    try:
        port = parsed.port
    except ValueError:
        port = None
    return parsed.scheme, (parsed.hostname or "").lower(), port or {"http": 80, "https": 443}.get(parsed.scheme)


def key_bindings(secrets: Optional[dict] = None) -> Dict[str, str]:
    """{key variable: the base URL it belongs to}: each preset's own variable, plus the operator's."""
    bound = {p["key_env"]: p["base_url"] for p in PROVIDERS.values() if p["key_env"]}
    for pair in os.environ.get(KEY_HOSTS_ENV, "").split(","):
        name, _, url = pair.partition("=")
        if name.strip() and url.strip():
            bound[name.strip()] = url.strip()
    for name, url in dict(_section(secrets).get("key_hosts") or {}).items():
        bound[str(name)] = str(url)
    return bound


def allowed_key_vars(secrets: Optional[dict] = None) -> Optional[set]:
    """Hosted mode: the variables the operator allowed (none unless listed). Local mode: None (no list)."""
    if not hosted_mode():
        return None
    names = {n.strip() for n in os.environ.get(ALLOWED_KEYS_ENV, "").split(",") if n.strip()}
    listed = _section(secrets).get("allowed_key_vars") or []
    names.update(str(n) for n in ([listed] if isinstance(listed, str) else listed))
    return names


def key_var(endpoint: "Endpoint") -> str:
    """The server-side variable this endpoint would take its key from ('' for none)."""
    return endpoint.key_env or ("" if endpoint.is_custom_url else PROVIDERS[endpoint.provider]["key_env"])


def key_refusal(endpoint: "Endpoint", secrets: Optional[dict] = None, terminal: bool = False) -> Optional[str]:
    """Why the server's key variable will not be sent to this endpoint (None: it may be, or there is none).
    `terminal`: the remedy in the CLI's words (its flags), not the page's key field."""
    name = key_var(endpoint)
    if not name:
        return None
    home = key_bindings(secrets).get(name)
    if home is None or _origin(home) != _origin(endpoint.url):
        where = f"belongs to {_without_userinfo(home)}" if home else "is not bound to any base URL"
        remedy = ("Put the key in another variable and name it with --api-key-env NAME, or pass "
                  "--send-key-to-custom-url to send this one anyway (a local server needs no key)." if terminal else
                  "Type a key for this endpoint instead (or none for a local server).")
        return f"The server's key variable {name} {where}, so it is not sent to {endpoint.url}. {remedy}"
    allowed = allowed_key_vars(secrets)
    if allowed is not None and name not in allowed:
        return (f"In hosted mode the operator has not allowed the server's key variable {name}; type your own "
                "key for this endpoint.")
    return None


def resolve_key(endpoint: "Endpoint", typed_key: Optional[str] = None, secrets: Optional[dict] = None) -> str:
    """The key to send: typed in the page > the server's variable (st.secrets, then the environment)
    when the key rule allows it for this URL (`key_refusal`) > a placeholder. Never another server's key."""
    if typed_key:
        return typed_key
    name = key_var(endpoint)
    if name and key_refusal(endpoint, secrets) is None:
        if secrets and secrets.get(name):
            return str(secrets[name])
        if os.environ.get(name):
            return os.environ[name]
    return NO_KEY_PLACEHOLDER


def key_missing(endpoint: "Endpoint", key: str, field: str = "the API key field") -> Optional[str]:
    """What to do when a hosted API (its own base URL, which always asks for a key) has no key to send;
    None when there is one, or when the base URL is the visitor's own (a local server needs none)."""
    needed = PROVIDERS[endpoint.provider]["key_env"]
    if endpoint.is_custom_url or not needed or (key and key != NO_KEY_PLACEHOLDER):
        return None
    name = key_var(endpoint) or needed
    return (f"{PROVIDERS[endpoint.provider]['label']} needs an API key and none is set: type it in {field}, "
            f"or set {name} on the server.")


def _chat_model_class():
    """OpenAIChatModel whose HTTP client is the lab's transport (transport.py: no redirects, the pinned
    address in hosted mode, the whole-call deadline, Stop, the reply cap). Built lazily: openai is heavy."""
    import openai
    from autourgos_openaichat import OpenAIChatModel

    from autourgos_openaichat import OpenAIChatModelResponseError

    class _LabChatModel(OpenAIChatModel):
        pinned: Optional[str] = None  # set on the class built for one endpoint (see EndpointLLM)
        body_cap: int = 0

        def _do_sync_create(self, client, params):
            # openai hands back the body as a plain string when it is not JSON (a login page, a proxy's
            # error page served 200 as text/html), and the package would take that string as the
            # model's text: only a parsed completion (an object with choices) is a reply.
            raw = super()._do_sync_create(client, params)
            if isinstance(raw, (str, bytes)) or not hasattr(raw, "choices"):
                raise OpenAIChatModelResponseError("the reply is not a chat completion")
            return raw

        def _init_clients(self) -> None:  # the package's clients, on the lab's transport
            common = dict(api_key=self.api_key, base_url=self.base_url, timeout=self.timeout, max_retries=0)
            host = ascii_host(urlparse(self.base_url).hostname or "") if self.pinned else ""
            transport = lab_transport(self.timeout, self.body_cap, (host, self.pinned) if self.pinned else None)
            self._client = openai.OpenAI(
                http_client=openai.DefaultHttpxClient(follow_redirects=False, timeout=self.timeout,
                                                      transport=transport, trust_env=False), **common)
            # The lab only calls synchronously; the async client is never used, so it is pointed nowhere.
            self._async_client = openai.AsyncOpenAI(
                http_client=openai.DefaultAsyncHttpxClient(follow_redirects=False, timeout=self.timeout,
                                                           trust_env=False),
                **{**common, "base_url": "https://invalid.invalid/v1"})

    return _LabChatModel


def body_cap(max_reply_bytes: int) -> int:
    """Bytes a reply may take on the wire: the text cap, room for JSON escapes (a non-ASCII character
    is up to 3x its UTF-8 size as \\u escapes) and the completion's envelope."""
    return 4 * max_reply_bytes + 64_000


KEY_SHOWN_AS = "[key hidden]"


def scrub(text: str, key: Optional[str]) -> str:
    """`text` with the exact value of `key` replaced (a server may echo the key in its error body)."""
    if key and key != NO_KEY_PLACEHOLDER and len(key) >= 6 and key in text:
        return text.replace(key, KEY_SHOWN_AS)
    return text


BREAKER_AFTER = 3  # the same failure this many times in a row: the rest of the run's calls fail at once


class EndpointLLM:
    """An `.invoke(prompt)` model for the agent or the summarizer, with the lab's limits. The one
    endpoint client: the agent, the summarizer, Test connection, the prompt matrix and (as a LangChain
    chat model, strategies/summarizer.py) deepagents and LangMem all call through it.

    The runner may set `time_left` (a function giving the run's seconds left: no try runs past it) and
    `stop_event` (set: no further try starts, and a call in flight ends within `transport.POLL_S`)."""

    abandonable = True  # it blocks on the network: the observer runs it where a run can walk away

    def __init__(self, endpoint: Endpoint, api_key: str) -> None:
        self.endpoint = endpoint = endpoint.limited()
        pinned = check_base_url(endpoint.url)
        self.model_name = endpoint.label()
        self.last_usage: Dict[str, Any] = {}
        self.time_left: Optional[Callable[[], float]] = None
        self.stop_event: Optional[threading.Event] = None
        self.max_calls: Optional[int] = None  # a job's cap on its calls (engine/limits.py), None: no cap
        self.calls = 0
        self._key = api_key or NO_KEY_PLACEHOLDER
        self._failures: list = []   # the last consecutive failure messages
        self._broken: Optional[str] = None
        cls = _chat_model_class()
        cls.pinned, cls.body_cap = pinned, body_cap(endpoint.max_reply_bytes)
        self._model = cls(
            model=endpoint.model, api_key=self._key, base_url=endpoint.url,
            max_tokens=endpoint.max_tokens, timeout=endpoint.timeout_s,
            # One HTTP try per package call: the lab decides what is worth trying again (below).
            max_retries=1, structured_output=True,
            # The lab's own breaker (same failure 3 times in a row) replaces the package's.
            circuit_failure_threshold=1_000_000,
        )

    def __repr__(self) -> str:  # never the key
        return self._scrub(f"EndpointLLM({self.model_name!r})")

    def invoke(self, prompt: Any, *, max_tokens: Optional[int] = None, **_kwargs: Any) -> str:
        """The reply's text. `prompt` is a string, or a list of {"role", "content"} messages."""
        if self._broken:
            raise EndpointError(f"{self._broken} (not tried again: the same failure happened {BREAKER_AFTER} "
                                "times in a row in this run)")
        self.last_usage = {}
        if self.max_calls is not None and self.calls >= self.max_calls:
            raise EndpointError(self._scrub(f"{self.endpoint.label()}: this job has made its {self.max_calls:,} "
                                            "calls, the most one job may make; no more are sent."))
        self.calls += 1
        try:
            meta, latency = self._invoke_with_retries(prompt, max_tokens)
            text = meta.get("response") if isinstance(meta, dict) else meta
            text = "" if text is None else clean_text(str(text))  # a model's text is made safe where it enters
            size = len(text.encode("utf-8"))
            if size > self.endpoint.max_reply_bytes:
                raise self._too_large(f"a reply of {size:,} bytes")
        except EndpointError as exc:
            message = str(exc)
            self._failures = (self._failures + [message])[-BREAKER_AFTER:]
            if len(self._failures) == BREAKER_AFTER and len(set(self._failures)) == 1:
                self._broken = message
            raise
        self._failures = []
        if isinstance(meta, dict):
            self.last_usage = {"input_tokens": meta.get("input_tokens"), "output_tokens": meta.get("output_tokens"),
                               "latency_s": latency}
        return text

    def _too_large(self, what: str) -> ReplyTooLarge:
        return ReplyTooLarge(self._scrub(
            f"{self.endpoint.label()} sent {what}, over the {self.endpoint.max_reply_bytes:,}-byte cap; it was "
            "refused before the agent read it. Lower max_tokens or use another model."))

    def _scrub(self, text: str) -> str:
        return scrub(text, self._key)

    def _invoke_with_retries(self, prompt: Any, max_tokens: Optional[int]):
        tries = self.endpoint.retries
        label = self.endpoint.label()
        for attempt in range(tries):
            overrides: Dict[str, Any] = {}
            if max_tokens is not None:
                overrides["max_tokens"] = max_tokens
            timeout = self.endpoint.timeout_s
            left = self.time_left() if self.time_left else None
            if left is not None:
                if left <= 0:
                    raise EndpointError(self._scrub(f"{label}: no time left in the run for another try."))
                timeout = max(0.05, min(timeout, left))
                overrides["timeout"] = timeout
            if self.stop_event is not None and self.stop_event.is_set():
                raise EndpointError(self._scrub(f"{label}: the run was stopped before the call."))
            # The whole try (connect, send, every byte of the reply) is held to one deadline and to Stop.
            guard = CallGuard(timeout, body_cap(self.endpoint.max_reply_bytes), self.stop_event)
            started = time.perf_counter()
            try:
                with guarded(guard):
                    return self._model.invoke(prompt, **overrides), time.perf_counter() - started
            except Exception as exc:
                if guard.reason == "stopped":
                    raise EndpointError(self._scrub(f"{label}: the call was stopped.")) from None
                if guard.reason == "too_large":
                    what = (f"a compressed reply that decodes to more than {guard.max_bytes:,} bytes" if guard.decoded
                            else f"more than {guard.max_bytes:,} bytes")
                    raise self._too_large(what) from None
                if guard.reason == "encoding":
                    raise EndpointError(self._scrub(
                        f"{label} sent a reply compressed as {guard.encoding!r}, which the lab does not decode (it "
                        "asks for uncompressed replies and takes at most one layer of gzip or deflate); it was refused "
                        "unread. Turn that compression off on the server or its proxy, or use another endpoint.")) from None
                if guard.reason == "damaged":
                    raise EndpointError(self._scrub(
                        f"{label} sent a compressed reply that does not decompress; it was refused. Check that the "
                        "base URL points at a chat-completions API (…/v1), or turn compression off on its proxy.")) from None
                last = attempt == tries - 1
                if last or not worth_retrying(exc):
                    # Only the lab's own sentence goes on: the exception chain may carry the server's
                    # error body (which can echo a header or the key), so it is cut here.
                    raise EndpointError(self._scrub(explain_error(exc, self.endpoint, tries=attempt + 1))) from None
            wait = 0.5 * 2 ** attempt
            left = self.time_left() if self.time_left else None
            if left is not None:
                wait = min(wait, max(left, 0.0))
            if self.stop_event is not None:
                if self.stop_event.wait(wait):
                    raise EndpointError(self._scrub(f"{label}: the run was stopped between tries."))
            else:
                time.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover


def worth_retrying(exc: BaseException) -> bool:
    """Only what may pass by itself: a rate limit, a server error, a timeout, a dropped connection.
    Never a refused connection or unknown host, a redirect, a 4xx or a reply that is not a completion."""
    code = _status(exc)
    if code is not None:
        return code == 429 or code >= 500
    kinds = _kinds(exc)
    if "ConnectError" in kinds or "gaierror" in kinds or "ConnectionRefusedError" in kinds:
        return False
    return bool({"APITimeoutError", "TimeoutException", "RemoteProtocolError", "ReadError"} & kinds)


def check_connection(endpoint: Endpoint, api_key: str, timeout_s: float = 3.0) -> Tuple[bool, str]:
    """One minimal call (max_tokens=1, one try, a short timeout): (True, "OK ...") or (False, what is wrong)."""
    try:
        probe = EndpointLLM(endpoint.model_copy(update={"timeout_s": timeout_s, "retries": 1}), api_key)
        started = time.monotonic()
        probe.invoke("Reply with OK.", max_tokens=1)
    except EndpointError as exc:
        return False, str(exc)
    return True, f"OK: {endpoint.label()} answered in {time.monotonic() - started:.1f} s."


def _status(exc: BaseException) -> Optional[int]:
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        code = getattr(exc, "status_code", None)
        if isinstance(code, int):
            return code
        exc = exc.__cause__ or exc.__context__
    return None


def _kinds(exc: BaseException) -> set:
    names, seen = set(), set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        names.update(t.__name__ for t in type(exc).__mro__)
        exc = exc.__cause__ or exc.__context__
    return names


def explain_error(exc: BaseException, endpoint: Endpoint, tries: Optional[int] = None) -> str:
    """One sentence per failure a person will meet, saying what to change."""
    where = endpoint.label()
    tries = endpoint.retries if tries is None else tries
    code = _status(exc)
    kinds = _kinds(exc)
    if code == 401 or "AuthenticationError" in kinds:
        env = endpoint.key_env or PROVIDERS[endpoint.provider]["key_env"]
        hint = f" (or set {env})" if env else ""
        return f"{where} refused the key (401). Check the API key in the key field{hint}."
    if code == 403 or "PermissionDeniedError" in kinds:
        return f"{where} refused access (403). The key may lack access to model {endpoint.model!r}."
    if code == 404 or "NotFoundError" in kinds:
        return (f"{where} does not know model {endpoint.model!r} or the URL is wrong (404). Check the model "
                "name and that the base URL ends in /v1.")
    if code == 429 or "RateLimitError" in kinds:
        return (f"{where} kept rate-limiting the requests (429) after {tries} tries with backoff. "
                "Wait a minute, or use fewer iterations or another model.")
    if code is not None and 300 <= code < 400:
        return (f"{where} answered with a redirect ({code}); redirects are not followed (nor tried again). "
                "Use the final URL as the base URL.")
    if code is not None and code >= 500:
        return f"{where} had a server error ({code}) on every try. Try again later or use another endpoint."
    if "APITimeoutError" in kinds or "TimeoutException" in kinds or "OpenAIChatModelDeadlineExceededError" in kinds:
        return (f"{where} did not answer within {endpoint.timeout_s:g} s. Check that the server is up, or raise "
                "the per-call timeout (in the endpoint's settings) for a slow model.")
    if "APIConnectionError" in kinds or "ConnectError" in kinds or "ConnectionError" in kinds:
        return f"Cannot reach {endpoint.url}. Check the base URL and that the server is running."
    if {"JSONDecodeError", "APIResponseValidationError", "ValidationError", "OpenAIChatModelResponseError",
            "AttributeError", "KeyError", "TypeError"} & kinds:
        return (f"{where} sent a reply that is not an OpenAI-compatible chat completion. Check that the base "
                "URL points at a chat-completions API (…/v1).")
    if code == 400 or "BadRequestError" in kinds:
        return f"{where} rejected the request (400): the model may not support this prompt or max_tokens."
    return f"{where} failed: {type(exc).__name__}. Check the endpoint settings."
