"""Strategy names and their settings, in each package's own words: parsing, ranges, defaults, help.

Streamlit-free. One table (`STRATEGIES`) is the home of every strategy's settings: the CLI parses
`NAME[:key=value,...]` against it, the page builds its widgets from it, and the engine reads the
defaults from it. A setting left out keeps the package's own default (`None` means exactly that:
the package decides, e.g. deepagents' profile-dependent trigger and keep).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from scratchpad_lab.model.errors import LabError
from scratchpad_lab.model.config import RunConfig, field_bounds

NAMES = ("autourgos-middleware", "autourgos-builtin", "trim-only", "deepagents", "langmem")
MIN_STRATEGIES, MAX_STRATEGIES = 1, 5


class StrategyError(LabError, ValueError):
    """A strategy name, key or value a user gave is wrong; the message names it."""


@dataclass(frozen=True)
class Knob:
    key: str
    kind: str                  # "int" | "int_or_none" | "fraction"
    default: Any
    low: float
    high: float
    help: str


def _int(key, default, low, high, help_text, none_ok=False):
    return Knob(key, "int_or_none" if none_ok else "int", default, low, high, help_text)


def _run_knob(key, help_text, field=None):
    """An autourgos setting: its default and range are RunConfig's (their one home)."""
    field = field or key
    low, high = field_bounds(field)
    return _int(key, RunConfig.model_fields[field].default, low, high, help_text, none_ok=field == "summarize_every")


STRATEGIES: Dict[str, Dict[str, Any]] = {
    "autourgos-middleware": {
        "title": "autourgos middleware",
        "about": "AutoSummarizeMiddleware replaces the whole scratchpad with a summary every N steps, or "
                 "when it is over a size cap and has grown; the agent's own trim still runs after each step.",
        "knobs": [
            _run_knob("summarize_every", "Summarize every N iterations (none = only the size trigger)."),
            _run_knob("max_scratchpad_chars",
                      "Also summarize when the scratchpad is longer than this many characters and has grown."),
            _run_knob("agent_trim_chars",
                      "The agent's own hard trim: after each step it keeps only the last N characters."),
        ],
    },
    "autourgos-builtin": {
        "title": "autourgos built-in",
        "about": "The agent's own summarizer (Agent(summarize_every=..., summarizer_llm=...)), no middleware: "
                 "one number, max_scratchpad_chars, is both its size trigger and its hard trim.",
        "knobs": [
            _run_knob("summarize_every", "Summarize every N iterations (none = only the size trigger)."),
            _run_knob("max_scratchpad_chars",
                      "Both the size trigger and the agent's hard trim (the package shares one value).",
                      field="agent_trim_chars"),
        ],
    },
    "trim-only": {
        "title": "trim only",
        "about": "No summarizer at all: the agent keeps the last N characters of its scratchpad and marks the "
                 "cut [...earlier steps trimmed...].",
        "knobs": [
            _run_knob("agent_trim_chars", "Keep only the last N characters after each step."),
        ],
    },
    "deepagents": {
        "title": "deepagents",
        "about": "deepagents' summarization middleware: when the conversation passes a trigger it writes the "
                 "older messages to a file, keeps the newest verbatim and puts a summary in front; its "
                 "filesystem middleware moves tool results over 80,000 characters to files.",
        "knobs": [
            _int("max_input_tokens", None, 1_000, 10_000_000,
                 "The model profile's input window. Set: triggers default to 85% and keep to 10% of it; "
                 "unset: 170,000 tokens and the last 6 messages.", none_ok=True),
            _int("trigger_tokens", None, 100, 10_000_000, "Summarize when the conversation reaches this many tokens.",
                 none_ok=True),
            Knob("trigger_fraction", "fraction", None, 0.01, 1.0,
                 "Summarize at this share of max_input_tokens (needs max_input_tokens)."),
            _int("trigger_messages", None, 2, 100_000, "Summarize when the conversation has this many messages.",
                 none_ok=True),
            _int("keep_messages", None, 1, 100_000, "Keep this many newest messages verbatim.", none_ok=True),
            _int("keep_tokens", None, 10, 10_000_000, "Keep the newest messages that fit in this many tokens.",
                 none_ok=True),
            Knob("keep_fraction", "fraction", None, 0.01, 1.0,
                 "Keep the newest messages that fit in this share of max_input_tokens."),
            _int("tool_token_limit_before_evict", 20_000, 100, 10_000_000,
                 "Move a tool result longer than 4x this many characters to a file.", none_ok=True),
            _int("truncate_max_length", 2_000, 10, 1_000_000,
                 "Old write_file/edit_file arguments longer than this are cut (its arg truncation)."),
        ],
    },
    "langmem": {
        "title": "LangMem",
        "about": "LangMem's summarize_messages before each model call: once the messages pass a budget, the "
                 "oldest are folded into a running summary and the rest are sent verbatim.",
        "knobs": [
            _int("max_tokens", 4_000, 50, 10_000_000,
                 "Token budget for the messages sent (required by LangMem; 4,000 is about the autourgos "
                 "default of 15,000 characters)."),
            _int("max_summary_tokens", 256, 10, 1_000_000,
                 "Room LangMem plans for the summary (it is not sent to the model as a limit)."),
            _int("max_tokens_before_summary", None, 50, 10_000_000,
                 "Summarize once the messages pass this many tokens (unset: max_tokens).", none_ok=True),
        ],
    },
}


def knobs(name: str) -> List[Knob]:
    return list(STRATEGIES[name]["knobs"])


def defaults(name: str) -> Dict[str, Any]:
    return {k.key: k.default for k in knobs(name)}


@dataclass
class StrategySpec:
    """One column: a strategy and the settings given for it (others keep their defaults)."""

    name: str
    settings: Dict[str, Any] = field(default_factory=dict)
    label: str = ""

    def resolved(self) -> Dict[str, Any]:
        return {**defaults(self.name), **self.settings}

    def title(self) -> str:
        return self.label or self.name


def check_value(name: str, knob: Knob, value: Any) -> Any:
    if value is None:
        if knob.kind == "int":
            raise StrategyError(f"{name}: {knob.key} needs a value ({knob.low:,} to {knob.high:,}).")
        return None
    if knob.kind == "fraction":
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise StrategyError(f"{name}: {knob.key}={value!r} is not a number; use a share like 0.85.") from None
        if not knob.low <= number <= knob.high:
            raise StrategyError(f"{name}: {knob.key}={value} is out of range ({knob.low} to {knob.high}).")
        return number
    if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
        raise StrategyError(f"{name}: {knob.key}={value!r} is not a whole number.")
    try:
        number = int(value)
    except (TypeError, ValueError):
        allowed = " or none" if knob.kind == "int_or_none" else ""
        raise StrategyError(f"{name}: {knob.key}={value!r} is not a whole number{allowed}.") from None
    if not knob.low <= number <= knob.high:
        raise StrategyError(f"{name}: {knob.key}={number} is out of range ({int(knob.low):,} to {int(knob.high):,}).")
    return number


def make_spec(name: str, settings: Optional[Dict[str, Any]] = None, label: str = "") -> StrategySpec:
    """A checked spec; StrategyError names an unknown strategy, key or bad value."""
    if name not in STRATEGIES:
        raise StrategyError(f"unknown strategy {name!r}; use one of {', '.join(NAMES)}.")
    table = {k.key: k for k in knobs(name)}
    checked: Dict[str, Any] = {}
    for key, value in (settings or {}).items():
        if key not in table:
            raise StrategyError(f"{name}: unknown key {key!r}; its keys are {', '.join(table)}.")
        checked[key] = check_value(name, table[key], value)
    _check_combination(name, {**defaults(name), **checked})
    return StrategySpec(name, checked, label)


def _check_combination(name: str, s: Dict[str, Any]) -> None:
    if name == "deepagents":
        keeps = [k for k in ("keep_messages", "keep_tokens", "keep_fraction") if s.get(k) is not None]
        if len(keeps) > 1:
            raise StrategyError(f"deepagents: give one of keep_messages, keep_tokens, keep_fraction, not {', '.join(keeps)}.")
        uses_fraction = [k for k in ("trigger_fraction", "keep_fraction") if s.get(k) is not None]
        if uses_fraction and s.get("max_input_tokens") is None:
            raise StrategyError(f"deepagents: {uses_fraction[0]} is a share of max_input_tokens; set max_input_tokens too.")
    if name == "langmem":
        if s["max_summary_tokens"] >= s["max_tokens"]:
            raise StrategyError("langmem: max_summary_tokens must be smaller than max_tokens (LangMem refuses it).")


def parse_spec(text: str) -> StrategySpec:
    """`NAME[:key=value,...]`, as the CLI takes it."""
    name, _, rest = text.strip().partition(":")
    name = name.strip()
    settings: Dict[str, Any] = {}
    if name not in STRATEGIES:
        raise StrategyError(f"unknown strategy {name!r}; use one of {', '.join(NAMES)}.")
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise StrategyError(f"{name}: {part!r} is not key=value.")
        value = value.strip()
        settings[key.strip()] = None if value.lower() in ("none", "off") else value
    return make_spec(name, settings)
