"""The silent summarizer: a named stand-in for a summarizer that fails by replying nothing.

Streamlit-free. Real summarizer models do reply empty (a filter, a max_tokens of 0, a broken proxy);
the package then keeps the scratchpad and, while it stays over the cap, asks again every iteration.
This stand-in makes that failure happen offline, on purpose, so a lesson can show its cost. It is
never presented as a model: its name says what it is.
"""
from __future__ import annotations

from typing import Any


class SilentSummarizer:
    """Replies an empty string to every summary request (the package's `llm.invoke(prompt)`)."""

    model_name = "silent stand-in (always replies nothing)"

    def invoke(self, prompt: Any, **_kwargs: Any) -> str:
        return ""
