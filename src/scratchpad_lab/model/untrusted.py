"""Text from outside the lab (uploaded files, model replies) made safe once, where it enters.

Streamlit-free. JSON may carry a lone surrogate (the escape `\\udfff` with no partner); Python keeps it
in a str, and then every later UTF-8 encode (writing --out, printing --json, sending a page) fails.
So the loaders and the model client pass what they read through here, and nothing downstream has to
think about it: each lone surrogate becomes U+FFFD, the replacement character.
"""
from __future__ import annotations

import re
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # in a Python str every surrogate is a lone one
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # how JSON text spells one
REPLACEMENT = "\ufffd"


def clean_text(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD (the same object when there is none)."""
    return _LONE_SURROGATE.sub(REPLACEMENT, text) if _LONE_SURROGATE.search(text) else text


def may_hold_surrogates(json_text: str) -> bool:
    """Whether decoding this JSON text can yield a lone surrogate (cheap; no false negatives)."""
    # The substring and ASCII tests run at memory speed and settle almost every file (a 7.7 MB trace:
    # milliseconds instead of ~0.1 s of regex scanning); the patterns decide the rest.
    if "\\u" in json_text and _SURROGATE_ESCAPE.search(json_text):
        return True
    return not json_text.isascii() and _LONE_SURROGATE.search(json_text) is not None


def clean_json(value: Any) -> Any:
    """A decoded JSON value with every string (keys included) passed through clean_text."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return [clean_json(v) for v in value]
    if isinstance(value, dict):
        return {clean_text(k): clean_json(v) for k, v in value.items()}
    return value
