"""OpenAI-compatible endpoints for the agent and the summarizer, through autourgos-openaichat.

Streamlit-free. An `Endpoint` says where and what (provider preset or base URL, model, which
environment variable holds the key, limits); it never holds a key, so it can go into a run record.
The key is handed to `EndpointLLM` at run time only and lives nowhere else.

Safety and limits:
- every call has a timeout and a max_tokens; retries (429, 5xx, connection errors) are the wrapper's
  own bounded backoff; a reply over `max_reply_bytes` is refused before the agent parses it;
- with a custom base URL and no key, a placeholder is sent, never the server's own OPENAI_API_KEY;
- redirects are never followed;
- hosted mode (SCRATCHPAD_LAB_HOSTED=1) refuses base URLs that resolve to loopback, private,
  link-local or metadata addresses before any connection, and tightens every limit.
Every failure a person will meet becomes one sentence that says what to do (`explain_error`).
"""
from __future__ import annotations

import ipaddress
import os
import socket
import time
from typing import Any, Dict, Optional
from urllib.parse import urlparse

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .untrusted import clean_text

HOSTED_ENV = "SCRATCHPAD_LAB_HOSTED"
NO_KEY_PLACEHOLDER = "no-key"  # what a keyless local server gets instead of anybody's real key

PROVIDERS: Dict[str, Dict[str, str]] = {
    "openai": {"label": "OpenAI", "base_url": "https://api.openai.com/v1", "key_env": "OPENAI_API_KEY",
               "model": "gpt-4o-mini"},
    "groq": {"label": "Groq", "base_url": "https://api.groq.com/openai/v1", "key_env": "GROQ_API_KEY",
             "model": "llama-3.1-8b-instant"},
    "together": {"label": "Together AI", "base_url": "https://api.together.xyz/v1", "key_env": "TOGETHER_API_KEY",
                 "model": "meta-llama/Llama-3.3-70B-Instruct-Turbo"},
    "mistral": {"label": "Mistral AI", "base_url": "https://api.mistral.ai/v1", "key_env": "MISTRAL_API_KEY",
                "model": "mistral-small-latest"},
    "deepseek": {"label": "DeepSeek", "base_url": "https://api.deepseek.com/v1", "key_env": "DEEPSEEK_API_KEY",
                 "model": "deepseek-chat"},
    "ollama": {"label": "Ollama (local)", "base_url": "http://localhost:11434/v1", "key_env": "", "model": "llama3.2"},
    "lmstudio": {"label": "LM Studio (local)", "base_url": "http://localhost:1234/v1", "key_env": "",
                 "model": "local-model"},
    "vllm": {"label": "vLLM (local)", "base_url": "http://localhost:8000/v1", "key_env": "", "model": ""},
    "llamacpp": {"label": "llama.cpp server (local)", "base_url": "http://localhost:8080/v1", "key_env": "",
                 "model": "local"},
    "custom": {"label": "Custom base URL", "base_url": "", "key_env": "", "model": ""},
}

LIMITS = {  # local mode / hosted mode
    "timeout_s": (60.0, 30.0), "max_tokens": (1024, 512), "max_reply_bytes": (256_000, 64_000),
    "retries": (3, 2),
}


def hosted_mode() -> bool:
    return os.environ.get(HOSTED_ENV, "").strip().lower() in ("1", "true", "yes", "on")


class EndpointError(RuntimeError):
    """An endpoint call failed in a way a person can fix; the message says how."""


class ReplyTooLarge(EndpointError):
    pass


class Endpoint(BaseModel):
    """Where a model lives. Never holds a key."""

    model_config = ConfigDict(extra="forbid")

    provider: str = "custom"
    base_url: str = Field("", max_length=500)
    model: str = Field(..., min_length=1, max_length=200)
    key_env: str = Field("", max_length=100, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$|^$")
    timeout_s: float = Field(60.0, ge=1.0, le=600.0)
    max_tokens: int = Field(1024, ge=16, le=32_000)
    max_reply_bytes: int = Field(256_000, ge=1_000, le=2_000_000)
    retries: int = Field(3, ge=1, le=6)

    @field_validator("provider")
    @classmethod
    def _known_provider(cls, value: str) -> str:
        if value not in PROVIDERS:
            raise ValueError(f"provider {value!r} is unknown; use one of {', '.join(PROVIDERS)}")
        return value

    @property
    def url(self) -> str:
        return (self.base_url or PROVIDERS[self.provider]["base_url"]).rstrip("/")

    @property
    def is_custom_url(self) -> bool:
        return self.provider == "custom" or bool(self.base_url and self.base_url.rstrip("/") !=
                                                  PROVIDERS[self.provider]["base_url"])

    def label(self) -> str:
        return f"{self.model} @ {PROVIDERS[self.provider]['label'] if not self.is_custom_url else self.url}"

    def limited(self) -> "Endpoint":
        """This endpoint with hosted mode's tighter limits applied (a no-op in local mode)."""
        if not hosted_mode():
            return self
        return self.model_copy(update={k: min(getattr(self, k), hosted) for k, (_, hosted) in LIMITS.items()})


def check_base_url(url: str) -> str:
    """Refuse a base URL that cannot work, and in hosted mode one that points inside the network."""
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise EndpointError(f"The base URL {url!r} is not an http(s) URL; it should look like "
                            "https://api.example.com/v1 or http://localhost:11434/v1.")
    if not hosted_mode():
        return url
    if parsed.scheme != "https":
        raise EndpointError("In hosted mode only https base URLs are allowed.")
    try:
        infos = socket.getaddrinfo(parsed.hostname, parsed.port or 443, proto=socket.IPPROTO_TCP)
    except socket.gaierror:
        raise EndpointError(f"The host {parsed.hostname!r} cannot be resolved; check the base URL.") from None
    for info in infos:
        address = ipaddress.ip_address(info[4][0].split("%")[0])
        if (address.is_loopback or address.is_private or address.is_link_local or address.is_reserved
                or address.is_multicast or address.is_unspecified or str(address) == "169.254.169.254"):
            raise EndpointError(f"In hosted mode the base URL may not point at {address} (a local, private "
                                "or metadata address). Use a public endpoint.")
    return url


def resolve_key(endpoint: Endpoint, typed_key: Optional[str] = None, secrets: Optional[dict] = None) -> str:
    """The key to send: typed in the page > st.secrets > the named environment variable > the provider's
    usual variable (presets on their own URL only) > a placeholder. Never another server's key."""
    if typed_key:
        return typed_key
    names = [endpoint.key_env] if endpoint.key_env else []
    if not endpoint.is_custom_url and PROVIDERS[endpoint.provider]["key_env"]:
        names.append(PROVIDERS[endpoint.provider]["key_env"])
    for name in names:
        if secrets and secrets.get(name):
            return str(secrets[name])
        if os.environ.get(name):
            return os.environ[name]
    return NO_KEY_PLACEHOLDER


def _chat_model_class():
    """OpenAIChatModel whose HTTP clients never follow redirects (built lazily: openai is heavy)."""
    import openai
    from autourgos_openaichat import OpenAIChatModel

    class _NoRedirectChatModel(OpenAIChatModel):
        def _init_clients(self) -> None:  # same clients as the package's, with redirects refused
            common = dict(api_key=self.api_key, base_url=self.base_url, timeout=self.timeout, max_retries=0)
            self._client = openai.OpenAI(
                http_client=openai.DefaultHttpxClient(follow_redirects=False, timeout=self.timeout), **common)
            self._async_client = openai.AsyncOpenAI(
                http_client=openai.DefaultAsyncHttpxClient(follow_redirects=False, timeout=self.timeout), **common)

    return _NoRedirectChatModel


class EndpointLLM:
    """An `.invoke(prompt)` model for the agent or the summarizer, with the lab's limits."""

    def __init__(self, endpoint: Endpoint, api_key: str) -> None:
        self.endpoint = endpoint = endpoint.limited()
        check_base_url(endpoint.url)
        self.model_name = endpoint.label()
        self.last_usage: Dict[str, Any] = {}
        self._model = _chat_model_class()(
            model=endpoint.model, api_key=api_key or NO_KEY_PLACEHOLDER, base_url=endpoint.url,
            max_tokens=endpoint.max_tokens, timeout=endpoint.timeout_s, max_retries=endpoint.retries,
            backoff_factor=0.5, max_call_duration=endpoint.timeout_s * (endpoint.retries + 1),
            structured_output=True,
            # The run decides when to give up (one call's error ends it); no breaker across calls.
            circuit_failure_threshold=1_000_000,
        )

    def invoke(self, prompt: Any, **_kwargs: Any) -> str:
        self.last_usage = {}
        started = time.perf_counter()
        try:
            meta = self._model.invoke(prompt)
        except Exception as exc:
            raise EndpointError(explain_error(exc, self.endpoint)) from exc
        text = meta.get("response") if isinstance(meta, dict) else meta
        text = "" if text is None else clean_text(str(text))  # a model's text is made safe where it enters
        size = len(text.encode("utf-8"))
        if size > self.endpoint.max_reply_bytes:
            raise ReplyTooLarge(f"{self.endpoint.label()} sent a reply of {size:,} bytes, over the "
                                f"{self.endpoint.max_reply_bytes:,}-byte cap; it was refused before the agent read it. Lower "
                                "max_tokens or use another model.")
        if isinstance(meta, dict):
            self.last_usage = {"input_tokens": meta.get("input_tokens"), "output_tokens": meta.get("output_tokens"),
                               "latency_s": time.perf_counter() - started}
        return text


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


def explain_error(exc: BaseException, endpoint: Endpoint) -> str:
    """One sentence per failure a person will meet, saying what to change."""
    where = endpoint.label()
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
        return (f"{where} kept rate-limiting the requests (429) after {endpoint.retries} tries with backoff. "
                "Wait a minute, or use fewer iterations or another model.")
    if code is not None and 300 <= code < 400:
        return f"{where} answered with a redirect ({code}), which is not followed. Use the final URL."
    if code is not None and code >= 500:
        return f"{where} had a server error ({code}) on every try. Try again later or use another endpoint."
    if "APITimeoutError" in kinds or "TimeoutException" in kinds or "OpenAIChatModelDeadlineExceededError" in kinds:
        return (f"{where} did not answer within {endpoint.timeout_s:g} s. Check that the server is up, or raise "
                "the timeout for a slow local model.")
    if "APIConnectionError" in kinds or "ConnectError" in kinds or "ConnectionError" in kinds:
        return f"Cannot reach {endpoint.url}. Check the base URL and that the server is running."
    if {"JSONDecodeError", "APIResponseValidationError", "ValidationError", "OpenAIChatModelResponseError",
            "AttributeError", "KeyError", "TypeError"} & kinds:
        return (f"{where} sent a reply that is not an OpenAI-compatible chat completion. Check that the base "
                "URL points at a chat-completions API (…/v1).")
    if code == 400 or "BadRequestError" in kinds:
        return f"{where} rejected the request (400): the model may not support this prompt or max_tokens."
    return f"{where} failed: {type(exc).__name__}. Check the endpoint settings."
