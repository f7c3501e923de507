"""A strategy's settings as a user gives them: checked against the registry, parsed from the CLI's text.

Streamlit-free. The registry (`registry.py`) is the home of every strategy's settings: the CLI parses
`NAME[:key=value,...]` against it, the page builds its widgets from it, and the engine reads the
defaults from it. A setting left out keeps the package's own default (`None` means exactly that:
the package decides, e.g. deepagents' profile-dependent trigger and keep).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from scratchpad_lab.engine.strategies.registry import Knob, StrategyError, strategy
from scratchpad_lab.model.config import is_off_word

MIN_STRATEGIES, MAX_STRATEGIES = 1, 8  # every shipped strategy side by side, and one more


def knobs(name: str) -> List[Knob]:
    return list(strategy(name).knobs)


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
    if knob.kind == "names":
        return check_names(name, knob, value)
    if knob.kind == "text":
        if value is None:
            return knob.default
        if not isinstance(value, str):
            raise StrategyError(f"{name}: {knob.key}={value!r} is not text.")
        if not knob.low <= len(value) <= knob.high:
            raise StrategyError(f"{name}: {knob.key} must be {int(knob.low)} to {int(knob.high)} characters long.")
        return value
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


NAME_SEPARATORS = re.compile(r"[+\s]+")  # the CLI's `key=a+b`; commas already separate settings


def check_names(name: str, knob: Knob, value: Any) -> Tuple[str, ...]:
    """A tuple of tool names, from a list or from text (`search+fetch`)."""
    if value is None:
        return ()
    items = NAME_SEPARATORS.split(value) if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(i, str) for i in items):
        raise StrategyError(f"{name}: {knob.key}={value!r} is not a list of tool names.")
    names = tuple(dict.fromkeys(i.strip() for i in items if i.strip()))
    if len(names) > knob.high:
        raise StrategyError(f"{name}: {knob.key} takes at most {int(knob.high)} tool names, not {len(names)}.")
    long = [n for n in names if len(n) > 200]
    if long:
        raise StrategyError(f"{name}: {knob.key} has a tool name longer than 200 characters.")
    return names


def make_spec(name: str, settings: Optional[Dict[str, Any]] = None, label: str = "") -> StrategySpec:
    """A checked spec; StrategyError names an unknown strategy, key or bad value."""
    table = {k.key: k for k in knobs(name)}  # (strategy() names an unknown strategy)
    checked: Dict[str, Any] = {}
    for key, value in (settings or {}).items():
        if key not in table:
            raise StrategyError(f"{name}: unknown key {key!r}; its keys are {', '.join(table)}.")
        checked[key] = check_value(name, table[key], value)
    rule = strategy(name).check
    if rule is not None:
        rule({**defaults(name), **checked})
    return StrategySpec(name, checked, label)


def parse_spec(text: str) -> StrategySpec:
    """`NAME[:key=value,...]`, as the CLI takes it."""
    name, _, rest = text.strip().partition(":")
    name = name.strip()
    settings: Dict[str, Any] = {}
    strategy(name)  # an unknown name is named before its settings
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise StrategyError(f"{name}: {part!r} is not key=value.")
        value = value.strip()
        settings[key.strip()] = None if is_off_word(value) else value  # the package's own default
    return make_spec(name, settings)
