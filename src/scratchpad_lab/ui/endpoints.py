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
from scratchpad_lab.engine.tasks import check_connection, key_missing, key_refusal, resolve_key
from scratchpad_lab.model.endpoint import Endpoint, LIMITS, PROVIDERS, hosted_mode
from scratchpad_lab.ui.markup import escape
from scratchpad_lab.ui.state import ENDPOINTS_KEPT, PLAY_PRICE_ROWS, page_secrets


FIELDS = ("base_url", "model", "key_env")  # the text fields of an endpoint, one set per provider


def _kept(prefix: str) -> dict:
    """An endpoint's widget values, kept outside the widgets: Streamlit drops a widget's state when it is
    not drawn (its page left, or "endpoint" not chosen for a while), and the person's endpoint must not
    fall back to the OpenAI defaults then. The key typed stays in this tab's memory, as in the widget."""
    return st.session_state.setdefault(ENDPOINTS_KEPT, {}).setdefault(prefix, {})


def keep_endpoint(prefix: str, values: Dict[str, str]) -> None:
    """Set an endpoint's widgets from outside them (e.g. the prompt lab's model, taken to the playground):
    `values` by widget key. The widgets, wherever drawn next, start from these."""
    kept = _kept(prefix)
    kept.update(values)
    for key in values:
        st.session_state.pop(key, None)  # a widget not drawn in this script run: its next draw reads kept


def endpoint_values(prefix: str) -> Dict[str, str]:
    """The endpoint's values by widget key, as drawn or kept: to copy it to another endpoint's widgets."""
    provider = _value(prefix, f"{prefix}_provider", next(iter(PROVIDERS)))  # the select's own default
    out = {f"{prefix}_provider": provider, f"{prefix}_key": _value(prefix, f"{prefix}_key", ""),
           f"{prefix}_timeout": _value(prefix, f"{prefix}_timeout", Endpoint.model_fields["timeout_s"].default)}
    preset = PROVIDERS.get(provider, PROVIDERS["custom"])
    for field in FIELDS:
        out[f"{prefix}_{field}_{provider}"] = _value(prefix, f"{prefix}_{field}_{provider}", preset[field])
    return out


def _value(prefix: str, key: str, default):
    state = st.session_state
    return state[key] if key in state else _kept(prefix).get(key, default)


def endpoint_widgets(container, prefix: str, what: str) -> Tuple[Optional[Endpoint], str, Optional[str]]:
    """Provider, base URL, model and key for one endpoint. Returns (endpoint, key, problem)."""
    names = list(PROVIDERS)
    state = st.session_state
    for key, value in _kept(prefix).items():  # back from a page or a choice where these were not drawn
        state.setdefault(key, value)
    state.setdefault(f"{prefix}_provider", names[0])
    provider = container.selectbox(f"{what} provider", names, key=f"{prefix}_provider",
                                   format_func=lambda n: PROVIDERS[n]["label"],
                                   help="A hosted API or a local server (Ollama, LM Studio, vLLM, llama.cpp).")
    preset = PROVIDERS[provider]
    for field in FIELDS:  # a provider's own defaults, once; the widgets then hold what the person typed
        state.setdefault(f"{prefix}_{field}_{provider}", preset[field])
    container.text_input(f"{what} base URL", key=f"{prefix}_base_url_{provider}",
                         help="The OpenAI-compatible API root, ending in /v1.")
    container.text_input(f"{what} model", key=f"{prefix}_model_{provider}",
                         help="The model name the server knows, e.g. gpt-4o-mini or llama3.2.")
    container.text_input(f"{what} key variable", key=f"{prefix}_key_env_{provider}",
                         help="Name of the environment variable (or st.secrets entry) holding the key.")
    container.text_input(f"{what} API key", key=f"{prefix}_key", type="password",
                         help="Optional: used for this tab's runs only, never saved or shown. Local "
                              "servers usually need none.")
    lo, hi = Endpoint.bounds("timeout_s")
    state.setdefault(f"{prefix}_timeout", int(Endpoint.model_fields["timeout_s"].default))
    container.number_input(f"{what} per-call timeout (s)", min_value=int(lo), max_value=int(hi), step=10,
                           key=f"{prefix}_timeout",
                           help=f"How long one call may take before it fails ({int(lo)} to {int(hi)} s). Raise it for "
                                "a slow local model" + ("; hosted mode caps it at "
                                                        f"{int(LIMITS['timeout_s'][1])} s." if hosted_mode() else "."))
    _kept(prefix).update({k: state[k] for k in [f"{prefix}_provider", f"{prefix}_key", f"{prefix}_timeout"]
                          + [f"{prefix}_{field}_{provider}" for field in FIELDS]})
    if hosted_mode():
        container.caption("Hosted mode: only public https endpoints; tighter limits.")
    endpoint, key, problem = endpoint_from_state(prefix, what)
    if endpoint is not None and problem:  # e.g. a hosted API without a key: said here, next to the key field
        container.warning(escape(problem))
    if endpoint is not None and not st.session_state.get(f"{prefix}_key"):
        refusal = key_refusal(endpoint, page_secrets())
        if refusal:
            container.caption(escape(refusal))  # quotes the URL the visitor typed
    if container.button("Test connection", key=f"{prefix}_test", disabled=endpoint is None,
                        help="One tiny call (1 token, 3 s at most) to check the URL, the model and the key."):
        ok, message = check_connection(endpoint, key)
        (container.success if ok else container.error)(escape(message))
    return endpoint, key, problem


def endpoint_from_state(prefix: str, what: str) -> Tuple[Optional[Endpoint], str, Optional[str]]:
    """The endpoint the widgets hold now (also readable from a callback, before they are drawn again), with
    what to change when it cannot be called yet (the endpoint is returned too when only its key is missing)."""
    values = endpoint_values(prefix)
    provider = values[f"{prefix}_provider"]
    preset = PROVIDERS.get(provider, PROVIDERS["custom"])
    base_url = str(values[f"{prefix}_base_url_{provider}"] or "")
    model = str(values[f"{prefix}_model_{provider}"] or "")
    key_env = str(values[f"{prefix}_key_env_{provider}"] or "")
    typed = str(values[f"{prefix}_key"] or "")
    if not model.strip():
        return None, "", f"{what}: enter a model name."
    if provider == "custom" and not base_url.strip():
        return None, "", f"{what}: enter the base URL of the server."
    try:
        endpoint = Endpoint(provider=provider, base_url="" if base_url.rstrip("/") == preset["base_url"] else base_url,
                            model=model.strip(), key_env=key_env.strip(),
                            timeout_s=float(values[f"{prefix}_timeout"] or Endpoint.model_fields["timeout_s"].default))
    except ValidationError as exc:
        return None, "", f"{what}: {explain_validation_error(exc)}"
    key = resolve_key(endpoint, typed, page_secrets())
    missing = key_missing(endpoint, key, f"“{what} API key”")
    return endpoint, key, (f"{what}: {missing}" if missing else None)


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
