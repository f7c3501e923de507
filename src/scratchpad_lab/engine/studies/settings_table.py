"""The Compare page's settings table (one row per setting) read into validated `compare.Setting`s.

Streamlit-free, so the rules are unit-tested without a browser: a row is checked against the run's own
config with RunConfig's ranges, and each wrong cell gets a sentence naming the row, the setting and
the allowed range. The page shows the sentences and keeps Compare disabled while there are any.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import pandas as pd

from scratchpad_lab.engine.studies.compare import MAX_SETTINGS, Setting
from scratchpad_lab.model.config import (ConfigError, RunConfig, allowed_range, every_text, field_default, largest,
                                         parse_every)
from scratchpad_lab.engine.studies.promptlab import check_prompt

COLUMNS = ["summarize_every", "max_scratchpad_chars", "agent_trim_chars", "summarizer", "custom prompt"]
# silent: the named stand-in that replies nothing, to compare what a failing summarizer costs; builtin: the
# lab's own small model on this CPU (engine/summarize/builtin_model.py; where it is missing, the row says how to get it)
SUMMARIZER_CHOICES = ["extractive", "same-as-agent", "silent", "builtin"]
COMPARE_SUMMARIZERS = SUMMARIZER_CHOICES + ["endpoint"]  # "endpoint": the summarizer model set above the table


def default_table() -> pd.DataFrame:
    return pd.DataFrame({
        "summarize_every": [every_text(field_default("summarize_every")), "2"],
        "max_scratchpad_chars": [field_default("max_scratchpad_chars"), 2_000],
        "agent_trim_chars": pd.Series([None, None], dtype="Int64"),
        "summarizer": ["extractive", "extractive"], "custom prompt": pd.Series([None, None], dtype="object")})


def _blank(value) -> bool:
    return value is None or (not isinstance(value, str) and pd.isna(value)) or str(value).strip() == ""


def _whole(value, name: str) -> int:
    try:
        number = float(str(value).replace(",", "").strip())
    except ValueError:
        number = float("nan")
    if not number.is_integer():  # also nan and inf
        raise ConfigError(f"{name} must be a whole number ({allowed_range(name)}).")
    return int(number)


def parse_row(row: Dict, base: RunConfig, endpoint=None, versions: Optional[Dict[str, str]] = None) -> Setting:
    """One table row as a Setting, validated against the run's config; ConfigError says what to change.
    `endpoint` is the summarizer model for rows whose summarizer is "endpoint"; a custom prompt that is
    the name of one of `versions` (the Prompt lab's prompt versions) is that version, under its name."""
    every = row.get("summarize_every")
    every = None if _blank(every) else parse_every(every)  # an empty cell (pandas: NaN) is off, as "" is
    if _blank(row.get("max_scratchpad_chars")):
        raise ConfigError(f"max_scratchpad_chars is empty: enter a number of chars "
                          f"({allowed_range('max_scratchpad_chars')}; {largest('max_scratchpad_chars'):,}: the size "
                          "trigger never fires).")
    cap = _whole(row["max_scratchpad_chars"], "max_scratchpad_chars")
    trim = None if _blank(row.get("agent_trim_chars")) else _whole(row["agent_trim_chars"], "agent_trim_chars")
    summarizer = None if _blank(row.get("summarizer")) else str(row["summarizer"])
    if summarizer is not None and summarizer not in COMPARE_SUMMARIZERS:
        raise ConfigError(f"summarizer must be one of {', '.join(COMPARE_SUMMARIZERS)}.")
    prompt = None if _blank(row.get("custom prompt")) else str(row["custom prompt"])
    prompt_name = None
    if prompt is not None and prompt.strip() in (versions or {}):
        prompt_name = prompt.strip()
        prompt = check_prompt(versions[prompt_name]).template or versions[prompt_name]
    if summarizer == "endpoint" and endpoint is None:
        raise ConfigError("summarizer is endpoint: set the summarizer model above the table first.")
    if summarizer == "builtin":
        from scratchpad_lab.engine.summarize.builtin_model import missing
        gap = missing()
        if gap:
            raise ConfigError(gap)
    chosen = None
    if summarizer is not None or prompt is not None:  # the run's own summarizer, with what the row changes
        chosen = base.summarizer.but(**({"kind": summarizer} if summarizer else {}),
                                     **({"endpoint": endpoint} if summarizer == "endpoint" else {}),
                                     **({"prompt": prompt} if prompt is not None else {}))
    setting = Setting(summarize_every=every, max_scratchpad_chars=cap, agent_trim_chars=trim,
                      summarizer=chosen, prompt_name=prompt_name)
    base.replace(**setting.changes())  # ConfigError naming the setting and its range
    return setting


def parse_table(table: pd.DataFrame, base: RunConfig, endpoint=None,
                versions: Optional[Dict[str, str]] = None) -> Tuple[List[Setting], List[str]]:
    """(settings, problems): one problem per wrong row ("Row 2: ..."), and one if there are not 2 to 6."""
    settings, problems = [], []
    for number, row in enumerate(table.to_dict("records"), start=1):
        if all(_blank(row.get(c)) for c in COLUMNS):
            continue  # a row added and left empty
        try:
            settings.append(parse_row(row, base, endpoint, versions))
        except ConfigError as exc:
            problems.append(f"Row {number}: {exc}")
    if not problems and not 2 <= len(settings) <= MAX_SETTINGS:
        problems.append(f"Define 2 to {MAX_SETTINGS} settings to compare; the table has {len(settings)}.")
    return settings, problems
