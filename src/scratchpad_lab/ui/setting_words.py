"""A strategy's settings in the words a person reads: the one home for them on every page that shows a setting of a
strategy (the Strategies page's settings boxes, the Recommend view's points and sentences, the Benchmark's table,
sentences and worst runs), never the registry's key.

The keys (`summarize_every`, `trigger_fraction`, `keep`, ...) stay what the CLI, the stored results and the snippets
use: `--strategy NAME:key=value`, a `Point.cli_arg()`, a benchmark setting's label. Only what a page draws is put in
words here. The autourgos settings read as the Playground's sidebar says them (sidebar_settings.SETTING_LABELS, their
one home); every other strategy's read from KNOB_WORDS, by key, or by (strategy, key) where a strategy means
something else by a key another uses. It draws nothing: the words are tested without a page.
"""
from __future__ import annotations

from typing import Any, Dict, Iterable, Optional, Tuple

from scratchpad_lab.engine.strategies.registry import STRATEGIES
from scratchpad_lab.ui.sidebar_settings import SETTING_LABELS

# A knob's words, by key: one meaning wherever the key is used (deepagents and LangChain summarization share theirs).
KNOB_WORDS: Dict[str, str] = {
    "max_input_tokens": "Model's input window (tokens)",
    "trigger_tokens": "Summarize at (tokens)",
    "trigger_fraction": "Summarize at share of the input window",
    "trigger_messages": "Summarize at (messages)",
    "keep_messages": "Keep newest (messages)",
    "keep_tokens": "Keep newest (tokens)",
    "keep_fraction": "Keep newest (share of the input window)",
    "tool_token_limit_before_evict": "Move a tool result to a file over (tokens)",
    "truncate_max_length": "Cut old file arguments over (chars)",
    "max_tokens": "Messages budget (tokens)",
    "max_summary_tokens": "Room for the summary (tokens)",
    "max_tokens_before_summary": "Summarize when over (tokens)",
    "system_in_messages": "System prompt among the messages (1: yes)",
    "trigger": "Clear when over (tokens)",
    "keep": "Newest tool results kept",
    "clear_at_least": "Stop after reclaiming (tokens)",
    "exclude_tools": "Tools never cleared",
    "placeholder": "Text of a cleared result",
    "trim_tokens_to_summarize": "Send the summarizer at most (tokens)",
    "use_summary": "Replay the recorded compaction (1: yes)",
}
# Where a strategy means something else by a key (the built-in agent's one number is both trigger and trim).
OWN_WORDS: Dict[Tuple[str, str], str] = {
    ("autourgos-builtin", "max_scratchpad_chars"): "Compress and trim when over (chars)",
}
NO_COMPRESSION = "no compression"  # the benchmark's reference row: a label of no strategy, shown as it is


def knob_label(name: str, key: str) -> str:
    """The words for setting `key` of strategy `name` (the key itself only for one registered from outside the lab
    without words here)."""
    return OWN_WORDS.get((name, key)) or SETTING_LABELS.get(key) or KNOB_WORDS.get(key) or key


def value_text(key: str, value: Any) -> str:
    """A setting's value as a person reads it: numbers with thousands separators, "off" for no periodic trigger,
    "none" for a setting left to its package, a list of tool names joined by "+" (as the CLI takes them)."""
    if value is None or (isinstance(value, str) and value.strip().lower() == "none"):
        return "off" if key == "summarize_every" else "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return "+".join(str(v) for v in value) or "none"
    text = str(value)
    return f"{int(text):,}" if text.isdigit() else text


def settings_words(name: str, settings: Dict[str, Any]) -> str:
    """A strategy's settings in words, in their order: "Summarize every N iterations: 4; Compress when over
    (chars): 5,000" ("package defaults" when it has none)."""
    return "; ".join(f"{knob_label(name, k)}: {value_text(k, v)}" for k, v in settings.items()) or "package defaults"


def parse_label(label: str) -> Optional[Tuple[str, Dict[str, str]]]:
    """(strategy, {key: value text}) of a `--strategy` argument ("langmem:max_tokens=30%"), as Point.cli_arg and a
    benchmark's setting write it; None for anything else ("no compression", a strategy not registered). A comma
    inside a value (a placeholder's text) stays in that value."""
    name, _, rest = label.partition(":")
    if name not in STRATEGIES:
        return None
    settings: Dict[str, str] = {}
    last = None
    for piece in rest.split(",") if rest else []:
        key, equals, value = piece.partition("=")
        if equals and key.strip() and (last is None or key.strip().isidentifier()):
            last = key.strip()
            settings[last] = value
        elif last is not None:
            settings[last] += "," + piece
        else:
            return None
    return name, settings


def label_words(label: str) -> str:
    """A whole setting label in words: "trim only (Agent's own limit (chars): 4,000)"; a label that is not a
    registered strategy's (the benchmark's "no compression") as it is."""
    parsed = parse_label(label)
    if parsed is None:
        return label
    name, settings = parsed
    title = STRATEGIES[name].title
    return f"{title} ({settings_words(name, settings)})" if settings else title


def sentence_words(sentence: str, labels: Iterable[Optional[str]]) -> str:
    """`sentence` with each of `labels` in it written in words (the longest first, so one label inside another is
    not half-replaced): a recommender's or a benchmark's sentence names its points by their labels."""
    for label in sorted({lab for lab in labels if lab and parse_label(lab)}, key=len, reverse=True):
        sentence = sentence.replace(label, label_words(label))
    return sentence
