"""Token prices and costs: per 1M input and output tokens, with defaults for common models.

Streamlit-free. The table is plain data the UI lets a person edit; costs are computed from recorded
token counts at display time, so changing a price re-prices every run without re-running it.
Prices are list prices in USD as published by the providers (late 2026); check yours.
"""
from __future__ import annotations

from typing import Dict, Optional, Tuple

# model name prefix -> (USD per 1M input tokens, USD per 1M output tokens); the longest prefix wins.
DEFAULT_PRICES: Dict[str, Tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-5-nano": (0.05, 0.40),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5": (1.25, 10.00),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
    "gpt-3.5-turbo": (0.50, 1.50),
    "llama-3.1-8b-instant": (0.05, 0.08),
    "llama-3.3-70b-versatile": (0.59, 0.79),
    "meta-llama/Llama-3.3-70B-Instruct-Turbo": (0.88, 0.88),
    "mistral-small-latest": (0.10, 0.30),
    "mistral-large-latest": (2.00, 6.00),
    "deepseek-chat": (0.27, 1.10),
    "deepseek-reasoner": (0.55, 2.19),
}
from scratchpad_lab.model.config import BUILTIN_MODEL_ID  # noqa: E402

# the lab's offline stand-ins and its own built-in model (on this CPU) cost nothing
FREE = {"scripted", "extractive", "replay", BUILTIN_MODEL_ID}


def price_for(model: Optional[str], table: Optional[Dict[str, Tuple[float, float]]] = None) -> Optional[Tuple[float, float]]:
    """(input, output) USD per 1M tokens for a model id, or None when the table has no price for it."""
    if not model:
        return None
    if model in FREE:
        return (0.0, 0.0)
    table = DEFAULT_PRICES if table is None else table
    name = model.split("/")[-1] if model not in table else model
    matches = [p for p in table if model.startswith(p) or name.startswith(p)]
    if not matches:
        return None
    return table[max(matches, key=len)]


def cost_usd(model: Optional[str], tokens_in: int, tokens_out: int,
             table: Optional[Dict[str, Tuple[float, float]]] = None) -> Optional[float]:
    price = price_for(model, table)
    if price is None:
        return None
    return (tokens_in * price[0] + tokens_out * price[1]) / 1_000_000
