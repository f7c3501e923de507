"""The endpoint client and its guards: every model call over a network goes through here.

Its modules: transport (the one client: redirects, the reply size cap, deadlines, Stop, the circuit breaker), providers (OpenAI-compatible providers and their keys), keys (where a key may come from), addresses (which hosts may be called).

Streamlit-free. Nothing is imported here until it is asked for: each public name below (what modules outside the wing
use) comes from its module on first use, so the first page does without the heavy ones; static tools
read the same names from the imports under TYPE_CHECKING.
"""
from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scratchpad_lab.engine.net.keys import cli_key, cli_keys, endpoint_for
    from scratchpad_lab.engine.net.providers import (EndpointLLM, check_connection, key_missing, key_refusal,
        resolve_key)

# each public name and the module of this wing it lives in
_HOMES = {"EndpointLLM": "providers", "check_connection": "providers", "cli_key": "keys", "cli_keys": "keys",
          "endpoint_for": "keys", "key_missing": "providers", "key_refusal": "providers", "resolve_key": "providers"}
__all__ = ["EndpointLLM", "check_connection", "cli_key", "cli_keys", "endpoint_for", "key_missing", "key_refusal",
           "resolve_key"]


def __getattr__(name: str) -> Any:
    """A public name of the wing, from its module on first use (the module's import is then Python's own)."""
    if name in _HOMES:
        return getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
