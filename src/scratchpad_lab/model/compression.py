"""The `compression` event's data: one constructor every emitter uses.

Streamlit-free, the bottom of the data layer (beside `payloads.CompressionData`, which says what the
fields are). The middleware's observer, the agent's built-in summarizer, deepagents, LangMem and the
prompt lab all build their compression events here, so the sizes are measured one way and `status`
has one meaning everywhere:

  ok     the summary replaced what is sent (the scratchpad, or the conversation): a compression happened
  empty  the summarizer replied nothing and nothing was replaced
  error  the summarizer raised (or could not be called) and nothing was replaced

A strategy that cuts whatever its summarizer replied (deepagents and LangMem drop the old messages even
for an empty summary) compressed: its status is ok, and `response` and `error` still say what the
summarizer did.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, get_args

from scratchpad_lab.model.payloads import CompressionData

REASONS = get_args(CompressionData.model_fields["reason"].annotation)   # ("periodic", "size")
# The prompt lab fires the package's middleware once on a snapshot, on purpose (summarize_every=1):
# no trigger of a run fired, and its events say so in `trigger`.
FORCED_BY_PROMPT_LAB = "prompt lab: fired once on purpose on this snapshot (summarize_every=1)"


def compression_status(before: str, after: str, error: Optional[str] = None) -> str:
    """ok when what is sent changed, else error (the summarizer raised) or empty (it replied nothing)."""
    if after != before:
        return "ok"
    return "error" if error else "empty"


def compression_data(*, reason: str, before: str, after: str, before_tokens: int, after_tokens: int,
                     prompt: str = "", response: str = "", model: str = "", latency_s: float = 0.0,
                     tokens_in: int = 0, tokens_out: int = 0, error: Optional[str] = None,
                     **extra: Any) -> Dict[str, Any]:
    """The data of one `compression` event (what `RunLog.emit("compression", iteration, **data)` takes).
    `extra` carries an emitter's own fields (`trigger`, `review`, `dropped`, `summarizer_called`...);
    the status and the sizes in chars are worked out here."""
    if reason not in REASONS:
        raise ValueError(f"a compression's reason is one of {REASONS}, not {reason!r}")
    return {"reason": reason, "status": compression_status(before, after, error), "before": before,
            "after": after, "prompt": prompt, "response": response, "model": model, "latency_s": latency_s,
            "tokens_in": tokens_in, "tokens_out": tokens_out, "before_chars": len(before),
            "after_chars": len(after), "before_tokens": before_tokens, "after_tokens": after_tokens,
            "error": error, **extra}
