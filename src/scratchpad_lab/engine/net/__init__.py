"""The endpoint client and its guards: every model call over a network goes through here.

Its modules: transport (the one client: redirects, the reply size cap, deadlines, Stop, the circuit breaker), providers (OpenAI-compatible providers and their keys), keys (where a key may come from), addresses (which hosts may be called).

Streamlit-free. Nothing is imported here: each module is imported where it is used (the first page
does without the heavy ones), so this face names the wing's modules.
"""

__all__ = ['addresses', 'keys', 'providers', 'transport']
