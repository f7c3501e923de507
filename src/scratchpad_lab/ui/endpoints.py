"""Endpoint settings (agent and summarizer) and the editable price table.

Keys typed here stay in this tab's memory for the run that uses them: they are never put in a
RunConfig, a record, a download, a log or the page (the field is a password field).
"""
from __future__ import annotations

from typing import Dict, Optional, Tuple

import streamlit as st
from pydantic import ValidationError

from scratchpad_lab.model.config import explain_validation_error
from scratchpad_lab.analysis.pricing import DEFAULT_PRICES
from scratchpad_lab.engine.providers import check_connection, key_refusal, resolve_key
from scratchpad_lab.model.endpoint import PROVIDERS, Endpoint, hosted_mode
from scratchpad_lab.ui.markup import escape
from scratchpad_lab.ui.state import PLAY_PRICE_ROWS


def _secrets() -> dict:
    try:
        return dict(st.secrets)
    except Exception:  # no secrets.toml: that is the usual case, not an error
        return {}


def endpoint_widgets(container, prefix: str, what: str) -> Tuple[Optional[Endpoint], str, Optional[str]]:
    """Provider, base URL, model and key for one endpoint. Returns (endpoint, key, problem)."""
    names = list(PROVIDERS)
    provider = container.selectbox(f"{what} provider", names, key=f"{prefix}_provider",
                                   format_func=lambda n: PROVIDERS[n]["label"],
                                   help="A hosted API or a local server (Ollama, LM Studio, vLLM, llama.cpp).")
    preset = PROVIDERS[provider]
    container.text_input(f"{what} base URL", key=f"{prefix}_base_url_{provider}", value=preset["base_url"],
                         help="The OpenAI-compatible API root, ending in /v1.")
    container.text_input(f"{what} model", key=f"{prefix}_model_{provider}", value=preset["model"],
                         help="The model name the server knows, e.g. gpt-4o-mini or llama3.2.")
    container.text_input(f"{what} key variable", key=f"{prefix}_key_env_{provider}", value=preset["key_env"],
                         help="Name of the environment variable (or st.secrets entry) holding the key.")
    container.text_input(f"{what} API key", key=f"{prefix}_key", type="password",
                         help="Optional: used for this tab's runs only, never saved or shown. Local "
                              "servers usually need none.")
    if hosted_mode():
        container.caption("Hosted mode: only public https endpoints; tighter limits.")
    endpoint, key, problem = endpoint_from_state(prefix, what)
    if endpoint is not None and not st.session_state.get(f"{prefix}_key"):
        refusal = key_refusal(endpoint, _secrets())
        if refusal:
            container.caption(escape(refusal))  # quotes the URL the visitor typed
    if container.button("Test connection", key=f"{prefix}_test", disabled=endpoint is None,
                        help="One tiny call (1 token, 3 s at most) to check the URL, the model and the key."):
        ok, message = check_connection(endpoint, key)
        (container.success if ok else container.error)(escape(message))
    return endpoint, key, problem


def endpoint_from_state(prefix: str, what: str) -> Tuple[Optional[Endpoint], str, Optional[str]]:
    """The endpoint the widgets hold now (also readable from a callback, before they are drawn again)."""
    state = st.session_state
    provider = state.get(f"{prefix}_provider", "custom")
    preset = PROVIDERS.get(provider, PROVIDERS["custom"])
    base_url = str(state.get(f"{prefix}_base_url_{provider}", preset["base_url"]) or "")
    model = str(state.get(f"{prefix}_model_{provider}", preset["model"]) or "")
    key_env = str(state.get(f"{prefix}_key_env_{provider}", preset["key_env"]) or "")
    typed = str(state.get(f"{prefix}_key", "") or "")
    if not model.strip():
        return None, "", f"{what}: enter a model name."
    if provider == "custom" and not base_url.strip():
        return None, "", f"{what}: enter the base URL of the server."
    try:
        endpoint = Endpoint(provider=provider, base_url="" if base_url.rstrip("/") == preset["base_url"] else base_url,
                            model=model.strip(), key_env=key_env.strip())
    except ValidationError as exc:
        return None, "", f"{what}: {explain_validation_error(exc)}"
    return endpoint, resolve_key(endpoint, typed, _secrets()), None


def price_table() -> Dict[str, tuple]:
    """The editable price table (USD per 1M tokens); returns {model prefix: (input, output)}.
    The editor (a data frame: pandas and pyarrow, ~1 s to import) is drawn only once asked for, so
    the first page does without them; until then the defaults, or the last edit, apply."""
    with st.sidebar.expander("Prices (USD per 1M tokens)"):
        st.caption("Used for every cost shown; edit or add rows. The offline agent and summarizer cost nothing.")
        if not st.toggle("Edit prices", key="play_prices_edit") and PLAY_PRICE_ROWS not in st.session_state:
            st.text("\n".join(f"{m}: {p[0]:g} in / {p[1]:g} out" for m, p in DEFAULT_PRICES.items()))
            return dict(DEFAULT_PRICES)
        import pandas as pd  # lazy: see the docstring
        if PLAY_PRICE_ROWS not in st.session_state:
            st.session_state[PLAY_PRICE_ROWS] = pd.DataFrame(
                [{"model": m, "input $/1M": p[0], "output $/1M": p[1]} for m, p in DEFAULT_PRICES.items()])
        edited = st.data_editor(st.session_state[PLAY_PRICE_ROWS], num_rows="dynamic", key="play_prices_editor",
                                hide_index=True)
    table = {}
    for row in edited.to_dict("records"):
        try:
            if row.get("model"):
                table[str(row["model"])] = (max(float(row["input $/1M"]), 0.0), max(float(row["output $/1M"]), 0.0))
        except (TypeError, ValueError):
            continue  # a half-typed row: ignored until it is a number
    return table
