"""RunConfig: one validated object describing a run.

Streamlit-free so the CLI and unit tests can build and validate runs without a browser.
Field names follow the packages where they are the packages' own knobs:
`summarize_every` and `max_scratchpad_chars` are AutoSummarizeMiddleware's triggers;
`agent_trim_chars` is the agent's own `max_scratchpad_chars` (its hard trim), which is a
different knob and is named differently on purpose.
"""
from __future__ import annotations

import re
import string
from typing import Any, List, Optional, Sequence

from autourgos_summarizer import middleware as _summarizer_middleware
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from scratchpad_lab.model.endpoint import Endpoint
from scratchpad_lab.model.errors import ConfigError as ConfigError
from scratchpad_lab.model.pins import check_pins, with_pins
from scratchpad_lab.model.summarizer import BUILTIN_MODEL_ID as BUILTIN_MODEL_ID
from scratchpad_lab.model.summarizer import FLAT_NAMES, SummarizerChoice, values_of
from scratchpad_lab.model.summarizer import SummarizerKind as SummarizerKind

# The package's own prompt, read (never mutated) so "default" means exactly what the package sends.
PACKAGE_PROMPT: str = _summarizer_middleware._SUMMARIZE_PROMPT
PROMPT_PLACEHOLDERS = ("query", "iteration", "scratchpad")
# Every prompt the package formats starts with this fixed text (how a summary request is recognised).
PACKAGE_PROMPT_HEAD: str = PACKAGE_PROMPT.split("{", 1)[0]


def _package_prompt_regex() -> "re.Pattern":
    """The package's prompt with its placeholders as named groups, built from PACKAGE_PROMPT itself."""
    pattern, seen = [r"\A"], set()
    shapes = {"query": r".*?", "iteration": r"\d+", "scratchpad": r".*"}
    for literal, field, _spec, _conv in string.Formatter().parse(PACKAGE_PROMPT):
        pattern.append(re.escape(literal))
        if field is not None:
            pattern.append(f"(?P={field})" if field in seen else f"(?P<{field}>{shapes[field]})")
            seen.add(field)
    return re.compile("".join(pattern) + r"\Z", re.S)


_PACKAGE_PROMPT_RE = _package_prompt_regex()


def package_prompt_fields(prompt: str) -> Optional[dict]:
    """{query, iteration, scratchpad} read back from a prompt the package formatted, else None."""
    m = _PACKAGE_PROMPT_RE.match(prompt)
    if not m:
        return None
    return {"query": m.group("query"), "iteration": int(m.group("iteration")), "scratchpad": m.group("scratchpad")}

# Seconds per scripted step while a lesson runs: slow enough to follow. Here rather than in lessons.py so
# the session defaults (ui/state.py) do not import the lessons and the analysis they need.
DEFAULT_PACE_S = 0.6


MAX_PROMPT_CHARS = 20_000  # one limit for a summarizer prompt everywhere (pages, --prompt-file, loaded records)


def prompt_too_long(template: str) -> Optional[str]:
    """The sentence for a prompt over MAX_PROMPT_CHARS (None when it fits)."""
    if len(template) <= MAX_PROMPT_CHARS:
        return None
    return f"The prompt is {len(template):,} characters; the limit is {MAX_PROMPT_CHARS:,}. Shorten it."


def validate_prompt_template(template: str) -> str:
    """Check a summarizer prompt template; return it or raise ConfigError saying what to fix. The one rule
    for a prompt: the Playground, Compare, the CLI and the Prompt lab (promptlab.check_prompt) all apply it,
    and its sentences call it "the summarizer prompt", as the pages do (never the field's raw name).

    The package formats its prompt with str.format(query=, iteration=, scratchpad=), so a template
    must be valid for str.format with exactly those names and must contain {scratchpad}. It is sent
    at every compression, so it is held to MAX_PROMPT_CHARS.
    """
    if not template.strip():
        raise ConfigError("The summarizer prompt is empty: write a prompt that contains {scratchpad}.")
    too_long = prompt_too_long(template)
    if too_long:
        raise ConfigError(too_long)
    try:
        parts = [(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(template) if f is not None]
    except ValueError as exc:
        raise ConfigError(
            f"The summarizer prompt is not a valid template ({exc}). Write a literal brace as {{{{ or }}}}."
        ) from None
    fields = [f for f, _, _ in parts]
    unknown = sorted({f for f in fields if f not in PROMPT_PLACEHOLDERS})
    if unknown:
        shown = ", ".join("{" + f + "}" if f else "{}" for f in unknown)
        raise ConfigError(
            f"The summarizer prompt uses unknown placeholder(s) {shown}; the allowed ones are "
            "{query}, {iteration} and {scratchpad} (write a literal brace as {{ or }})."
        )
    fancy = [f for f, spec, conv in parts if spec or conv]
    if fancy:
        raise ConfigError(
            f"The summarizer prompt formats {{{fancy[0]}}} with a conversion or format spec; write the "
            "placeholders plainly as {query}, {iteration} and {scratchpad}.")
    if "scratchpad" not in fields:
        raise ConfigError("The summarizer prompt must contain {scratchpad}, where the scratchpad text goes.")
    return template


def summarizer_follows_prompt(summarizer: str, real_agent: bool) -> bool:
    """Whether a summarizer choice follows its prompt: a model endpoint, or the agent's own model."""
    return summarizer in ("endpoint", "builtin") or (summarizer == "same-as-agent" and real_agent)


class RunConfig(BaseModel):
    """Everything that defines one run. Secrets never live here."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    scenario: Optional[str] = Field("support-ticket", description="built-in scenario name")
    task: Optional[str] = Field(None, max_length=4000, description="free task (with a real agent model)")
    summarize_every: Optional[int] = Field(5, ge=1, le=1000)
    max_scratchpad_chars: int = Field(15_000, ge=100, le=1_000_000)
    agent_trim_chars: int = Field(15_000, ge=200, le=1_000_000)
    max_tool_output_chars: int = Field(5_000, ge=100, le=200_000)
    max_iterations: int = Field(30, ge=1, le=500)
    # Who writes the summaries, one object (model/summarizer.py): its kind, the offline budget, the endpoint (a model
    # for the summarizer, used with kind "endpoint"; never a key) and a custom prompt. Settings written flat
    # (summarizer="endpoint", summarizer_prompt=..., a run@1/run@2 file) fold into it (_one_summarizer).
    summarizer: SummarizerChoice = Field(default_factory=SummarizerChoice, description="who writes the summaries")
    # The name a person gave the prompt (prompt lab's "Use this prompt in the playground"): shown in
    # run labels, the runs table and Compare rows; it never changes what is sent.
    prompt_name: Optional[str] = Field(None, max_length=80)
    wall_clock_s: float = Field(300.0, ge=1.0, le=3600.0)
    step_delay_s: float = Field(0.0, ge=0.0, le=10.0)
    # A real model for the agent (None: the scenario's scripted agent). An endpoint names where a key comes from,
    # never the key.
    agent_endpoint: Optional[Endpoint] = None
    # Text that must survive compression (model/pins.py): every compression is checked against it; with
    # pins_to_summarizer, a summarizer that follows a prompt is also asked to keep it, in its prompt.
    pins: List[str] = Field(default_factory=list, description="text that must survive compression")
    pins_to_summarizer: bool = False

    @model_validator(mode="before")
    @classmethod
    def _one_summarizer(cls, values: Any) -> Any:
        """The summarizer written flat (a run@1/run@2 file; a preset, a lesson, a CLI flag, a Compare row:
        summarizer="endpoint", summarizer_endpoint=..., summarizer_prompt=..., extractive_budget_chars=...) folds
        into the one choice, over the choice given beside it; a file never carries a key."""
        if not isinstance(values, dict):
            return values
        given = values.get("summarizer")
        if isinstance(given, dict) and "key" in given:
            raise ValueError("A run's settings never hold a key: remove summarizer.key (give the key in the "
                             "environment or the page's key box).")
        flat = {name: values[name] for name in FLAT_NAMES if name != "summarizer" and name in values}
        if not flat and not isinstance(given, str):
            return values
        values = {k: v for k, v in values.items() if k not in flat}
        if isinstance(given, SummarizerChoice):
            fields = values_of(given)
        elif isinstance(given, dict):
            fields = dict(given)
        elif given is None:
            fields = {}
        else:
            fields = {"kind": given}
        for name, value in flat.items():
            fields[FLAT_NAMES[name]] = value
        values["summarizer"] = fields
        return values

    @field_validator("summarizer")
    @classmethod
    def _check_summarizer(cls, value: SummarizerChoice) -> SummarizerChoice:
        """The prompt held to the one prompt rule (the package's own prompt is no custom one), and no key kept."""
        prompt = value.prompt
        if prompt is not None:
            prompt = None if prompt == PACKAGE_PROMPT else validate_prompt_template(prompt)
        if prompt != value.prompt or value.key is not None:
            value = SummarizerChoice(value.kind, value.budget_chars, value.endpoint, prompt)
        return value

    @field_validator("pins")
    @classmethod
    def _check_pins(cls, value: List[str]) -> List[str]:
        return check_pins(value)

    @model_validator(mode="after")
    def _pins_fit_the_prompt(self) -> "RunConfig":
        too_long = prompt_too_long(self.prompt_template) if self.pins_to_summarizer and self.pins else None
        if too_long:
            raise ValueError("With its pins, " + too_long[0].lower() + too_long[1:-len("Shorten it.")]
                             + "Remove a pin or shorten the prompt.")
        return self

    @model_validator(mode="after")
    def _task_present(self) -> "RunConfig":
        if self.scenario is None and self.agent_endpoint is not None and not (self.task or "").strip():
            raise ValueError("task is empty: write the task for the agent's model, or pick a scenario.")
        return self

    @property
    def agent_model_id(self) -> str:
        return self.agent_endpoint.model if self.agent_endpoint else "scripted"

    @property
    def summarizer_model_id(self) -> str:
        if self.summarizer.kind == "same-as-agent":
            return self.agent_model_id if self.agent_endpoint else "extractive"
        return self.summarizer.model_id

    @property
    def follows_prompt(self) -> bool:
        """Does this run's summarizer follow a prompt? Only a model does: the offline extractive summarizer
        (also what "same as agent" is with the scripted agent) keeps salient lines whatever it is asked."""
        return summarizer_follows_prompt(self.summarizer.kind, self.agent_endpoint is not None)

    @property
    def prompt_template(self) -> str:
        """The template the summarizer is sent: the custom one, else the package's own; with
        pins_to_summarizer, the pins asked for at its end (model/pins.with_pins)."""
        template = self.summarizer.prompt or PACKAGE_PROMPT
        return with_pins(template, self.pins) if self.pins_to_summarizer and self.pins else template

    @classmethod
    def build(cls, **values) -> "RunConfig":
        """Validate values into a RunConfig, raising ConfigError with a sentence per bad field."""
        try:
            return cls(**values)
        except ValidationError as exc:
            raise ConfigError(explain_validation_error(exc)) from None

    @classmethod
    def from_file(cls, values: dict) -> "RunConfig":
        """A config read from a file, with strict types as the published schema says (no "2" for 2, no
        true for 1): a file is data, not something typed into a box, so nothing is converted."""
        try:
            return cls.model_validate(values, strict=True)
        except ValidationError as exc:
            raise ConfigError(explain_validation_error(exc)) from None

    def replace(self, **changes) -> "RunConfig":
        """A copy with some fields changed, validated the same way as build()."""
        values = {**self.model_dump(), **changes}
        if isinstance(changes.get("summarizer"), str):  # a kind alone: the choice's other fields stay
            values["summarizer"] = {**values_of(self.summarizer), "kind": changes["summarizer"]}
        return RunConfig.build(**values)


def field_definition(name: str) -> Any:
    """A setting's pydantic field (None for no setting): a RunConfig field's, or for a summarizer setting's flat
    name (extractive_budget_chars, summarizer_prompt, ...) its choice's."""
    if name in FLAT_NAMES:
        return SummarizerChoice.model_fields[FLAT_NAMES[name]]
    return RunConfig.model_fields.get(name)


def _field(name: str) -> Any:
    found = field_definition(name)
    if found is None:
        raise KeyError(name)
    return found


def setting_value(config: RunConfig, name: str) -> Any:
    """A setting's value by its flat name, as presets, lessons and tables write settings (extractive_budget_chars
    is config.summarizer.budget_chars; summarizer is its kind)."""
    if name in FLAT_NAMES:
        return getattr(config.summarizer, FLAT_NAMES[name])
    return getattr(config, name)


def field_bounds(name: str) -> tuple:
    """(lowest, highest) a RunConfig field allows: the one home of every setting's range."""
    lo = hi = None
    for meta in _field(name).metadata:
        lo = getattr(meta, "ge", lo)
        hi = getattr(meta, "le", hi)
    return lo, hi


def largest(name: str) -> int:
    """The largest value a RunConfig field allows. As max_scratchpad_chars it is "no size trigger" (the
    agent's trim keeps the scratchpad below it), as agent_trim_chars "nothing is trimmed"."""
    return field_bounds(name)[1]


def field_default(name: str):
    """The default of a RunConfig field: the one home of every setting's default."""
    return _field(name).default


def every_text(summarize_every: Optional[int]) -> str:
    """summarize_every as every page and the CLI write it: the number, or "off" (no periodic trigger)."""
    return "off" if summarize_every is None else str(summarize_every)


def triggers_text(summarize_every: Optional[int], max_scratchpad_chars: int) -> str:
    """The middleware's two triggers in a few words, as a Compare column, a sweep cell and the runs table name them:
    "every 5 / 15,000", or "off / 2,000" with no periodic trigger."""
    every = "off" if summarize_every is None else f"every {summarize_every}"
    return f"{every} / {max_scratchpad_chars:,}"


# How a person writes "turned off" (a trigger, or a strategy setting left to its package): any case, with
# spaces around. Widgets, flags, settings tables, strategy settings, grids and files all read it here.
OFF_WORDS = ("off", "none")


def is_off_word(value: Any) -> bool:
    """`value` is one of OFF_WORDS, in any case ("Off", " NONE ")."""
    return isinstance(value, str) and value.strip().lower() in OFF_WORDS


def parse_every(value: Any, field: str = "summarize_every") -> Optional[int]:
    """summarize_every as a person gives it anywhere (a widget, a flag, a table cell, a file): a whole
    number, or off, none or nothing at all (any case) for no periodic trigger. ConfigError names `field`
    and the accepted words; the range is RunConfig's to check."""
    if value is None or is_off_word(value) or (isinstance(value, str) and not value.strip()):
        return None
    number: Optional[float] = None
    if not isinstance(value, bool):
        try:
            number = float(value.strip() if isinstance(value, str) else value)
        except (TypeError, ValueError):
            number = None
    if number is None or not number.is_integer():  # also nan and inf
        lo, hi = field_bounds("summarize_every")
        raise ConfigError(f"{field} must be off or a whole number of iterations (allowed: {lo:,} to {hi:,}; off, "
                          f"none or empty, in any case, turn the periodic trigger off), not {value!r}.")
    return int(number)


# A summarizer field as a file writes it (summarizer.budget_chars), and as every message names it.
_FILE_NAMES = {f"summarizer.{field}": flat for flat, field in FLAT_NAMES.items()}


def allowed_range(name: str) -> str:
    """The allowed range of a RunConfig field, in words ("" for a field without one)."""
    name = _FILE_NAMES.get(name, name)
    if name not in RunConfig.model_fields and name not in FLAT_NAMES:
        return ""
    lo, hi = field_bounds(name)
    if lo is None and hi is None:
        return ""
    text = f"allowed: {lo:,} to {hi:,}" if isinstance(lo, int) else f"allowed: {lo} to {hi}"
    if name == "summarize_every":
        text += ", or off for no periodic trigger"  # the word every help text uses ("none" is read too)
    return text


_TYPE_WORDS = {"int_type": "a whole number", "float_type": "a number", "string_type": "text",
               "bool_type": "true or false"}


def explain_validation_error(exc: ValidationError) -> str:
    """Turn pydantic's error list into sentences naming the field and the allowed range."""
    parts = []
    for err in exc.errors():
        name = ".".join(str(p) for p in err.get("loc", ())) or "config"
        name = _FILE_NAMES.get(name, name)
        if err.get("type") == "value_error":
            msg = str(err.get("ctx", {}).get("error", err.get("msg")))
            parts.append(msg)
            continue
        if err.get("type") == "extra_forbidden":
            parts.append(f"{name} is not a setting Scratchpad Lab knows.")
            continue
        got = err.get("input")
        rng = allowed_range(name)
        if err.get("type") in _TYPE_WORDS:
            parts.append(f"{name} = {got!r} must be {_TYPE_WORDS[err['type']]}"
                         + (f" ({rng})." if rng else "."))
            continue
        parts.append(f"{name} = {got!r} is not allowed ({rng or err.get('msg')}).")
    return " ".join(parts)


# The sections a summary template asks for, read from its `Name: ...` lines, else the package's three.
DEFAULT_SECTIONS = ("Key findings", "Tool results", "Current status")
_SECTION_RE = re.compile(r"^\s*([A-Z][A-Za-z /&-]{2,40}):\s*\.\.\.\s*$", re.M)


def sections_from_template(template: Optional[str]) -> Sequence[str]:
    if not template:
        return DEFAULT_SECTIONS
    found = [m.group(1).strip() for m in _SECTION_RE.finditer(template)]
    return tuple(dict.fromkeys(found)) or DEFAULT_SECTIONS
