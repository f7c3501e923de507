"""Where a model lives: an endpoint (provider, base URL, model, limits), never a key.

Plain data at the bottom of the layers, so the run config, the CLI and the pages share one shape;
the calls themselves (and the address checks that resolve a host) live in engine/net/providers.py.
"""
from __future__ import annotations

import os
from typing import Dict
from urllib.parse import urlparse

from pydantic import BaseModel, ConfigDict, Field, field_validator

from scratchpad_lab.model.errors import LabError, one_of

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


class EndpointError(LabError, RuntimeError):
    """An endpoint call failed in a way a person can fix; the message says how."""


class ReplyTooLarge(EndpointError):
    pass


USERINFO_MESSAGE = ("The base URL has a user name or password in it (user:password@host); that is never "
                    "sent. Remove it and put the API key in the key field.")


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

    @classmethod
    def bounds(cls, name: str) -> tuple:
        """(lowest, highest) a field allows: the one home of an endpoint setting's range."""
        lo = hi = None
        for meta in cls.model_fields[name].metadata:
            lo = getattr(meta, "ge", lo)
            hi = getattr(meta, "le", hi)
        return lo, hi

    @field_validator("provider")
    @classmethod
    def _known_provider(cls, value: str) -> str:
        return one_of(value, PROVIDERS, "provider")

    @field_validator("base_url")
    @classmethod
    def _no_userinfo(cls, value: str) -> str:
        if "@" in urlparse(value).netloc:  # user:password@host: refused, and never echoed back
            raise ValueError(USERINFO_MESSAGE)
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


