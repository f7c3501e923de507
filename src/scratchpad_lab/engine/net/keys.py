"""The key rule for a terminal: which key each endpoint of a command gets, and endpoints from flags.

The CLI user owns the environment, so this rule allows two things the page never does (see cli_key);
it lives in the engine so every command (run, replay, sweep, strategies, prompt-lab) uses this one copy.
"""
from __future__ import annotations

import os
import sys
from typing import Any, Dict, Optional

from pydantic import ValidationError

from scratchpad_lab.engine.net.providers import key_bindings, key_refusal, key_var, resolve_key
from scratchpad_lab.model.config import ConfigError, RunConfig, explain_validation_error
from scratchpad_lab.model.endpoint import NO_KEY_PLACEHOLDER, PROVIDERS, Endpoint


def endpoint_for(model: str, base_url: Optional[str], key_env: str, timeout_s: Optional[float] = None) -> Endpoint:
    """An Endpoint from CLI flags: a preset when the URL is a provider's own (or absent: OpenAI); `timeout_s`
    (--timeout) is the per-call timeout, within the bounds the page's field has (Endpoint.timeout_s)."""
    url = (base_url or "").rstrip("/")
    provider = "openai" if not url else next(
        (name for name, p in PROVIDERS.items() if p["base_url"] and p["base_url"] == url), "custom")
    try:
        return Endpoint(provider=provider, base_url=url if provider == "custom" else "", model=model,
                        key_env=key_env or "",
                        **({} if timeout_s is None else {"timeout_s": timeout_s}))
    except ValidationError as exc:
        raise ConfigError(explain_validation_error(exc)) from None


def cli_keys(config: RunConfig, given: Dict[str, Any]) -> Dict[str, str]:
    """Keys for the run's endpoints under the key rule (see cli_key)."""
    return {role: cli_key(endpoint, given, role) for role, endpoint in
            (("agent", config.agent_endpoint), ("summarizer", config.summarizer.endpoint)) if endpoint is not None}


def cli_key(endpoint: Endpoint, given: Dict[str, Any], role: str) -> str:
    """The key for one endpoint under the key rule (providers.key_refusal). The CLI user owns the
    environment, so two things the page never allows are allowed here: a variable that belongs to no
    provider, named with --api-key-env, goes to the URLs given on the same command line; a provider's
    own variable goes to another URL only with --send-key-to-custom-url. Otherwise the endpoint gets
    no key and stderr says why."""
    name, refusal = key_var(endpoint), key_refusal(endpoint, terminal=True)
    if refusal is None or not name:
        return resolve_key(endpoint)
    if given.get("api_key_env") == name and (given.get("send_key_to_custom_url") or name not in key_bindings()):
        return os.environ.get(name) or NO_KEY_PLACEHOLDER
    print(f"scratchpad-lab: note: {role}: {refusal}", file=sys.stderr)
    return NO_KEY_PLACEHOLDER
