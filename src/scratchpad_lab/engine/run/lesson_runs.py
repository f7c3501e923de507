"""Guided lessons: a scenario, settings, a few lines of explanation, the moments to pause at, and an ending.

Streamlit-free, so the lessons can be checked without a browser. Each lesson is one TOML file: the shipped
ones in `data/lessons/`, and any an operator adds in the folder `SCRATCHPAD_LAB_LESSONS_DIR` names (shown
after the shipped ones). A file is checked by the schema below; a bad one gets one line naming the file,
the field and what to change (`DataFileError`), and a bad extra file never hides the other lessons.

A lesson never names a step number: each pause point names a *moment finder* (the functions marked
`@moment` below, with their arguments) that reads the run's own events and returns the iteration where
the moment happened (the first periodic compression, the first disarmed over-cap iteration, ...), or
None while it has not happened yet. So a lesson stays right when the packages or the scenarios change;
if a moment never comes, the page says so instead of pointing at the wrong step. The settings note is
made from the settings, so it cannot disagree with what runs.
"""
from __future__ import annotations

import inspect
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Callable, Dict, List, Literal, Optional, Sequence, Tuple, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

from scratchpad_lab.model.config import DEFAULT_PACE_S, ConfigError, RunConfig, field_bounds, setting_value  # noqa: F401 (DEFAULT_PACE_S: ui/lessons_page.py imports it from here)
from scratchpad_lab.model.datafile import DataFileError, check, read_toml, run_setting
from scratchpad_lab.model.errors import UnknownName, one_of
from scratchpad_lab.model.events import Event
from scratchpad_lab.model.presets import presets
from scratchpad_lab.model.scenarios import SCENARIOS
from scratchpad_lab.analysis.narrate import summary_cut_by_trim
from scratchpad_lab.analysis.probes import run_probes, scenario_probes
from scratchpad_lab.analysis.quality import annotate

Finder = Callable[[Sequence[Event]], Optional[int]]


# ── moment finders: where a moment happened, read from the events ──────────

@dataclass(frozen=True)
class MomentKind:
    """A finder a lesson file can name: `make` is the finder itself, or (takes_arguments) what builds one."""

    name: str
    make: Callable
    takes_arguments: bool
    shows_trim: bool  # the moment is a trim: the page also shows what the trim left
    about: str

    def parameters(self) -> List[str]:
        return list(inspect.signature(self.make).parameters) if self.takes_arguments else []


MOMENTS: Dict[str, MomentKind] = {}


def moment(takes_arguments: bool = False, shows_trim: bool = False):
    """Mark a finder as one a lesson file can name (`find = "<its name>"`)."""
    def register(fn):
        doc = (fn.__doc__ or "").strip().splitlines()
        MOMENTS[fn.__name__] = MomentKind(fn.__name__, fn, takes_arguments, shows_trim, doc[0] if doc else "")
        return fn
    return register


def _compressions(events: Sequence[Event]) -> List[Event]:
    return [e for e in events if e.kind == "compression" and e.iteration is not None]


def _triggers(events: Sequence[Event]) -> List[Event]:
    return [e for e in events if e.kind == "trigger" and e.iteration is not None]


@moment(takes_arguments=True)
def nth_compression(n: int, reason: Optional[str] = None, status: Optional[str] = None) -> Finder:
    """The iteration of the n-th (1-based) compression with this reason and status."""
    def find(events: Sequence[Event]) -> Optional[int]:
        found = [e.iteration for e in _compressions(events)
                 if (reason is None or e.payload.reason == reason)
                 and (status is None or e.payload.status == status)]
        return int(found[n - 1]) if len(found) >= n else None
    return find


@moment(takes_arguments=True)
def first_quiet_after(after: Finder) -> Finder:
    """The first iteration after `after`'s moment where the middleware checked and did nothing."""
    def find(events: Sequence[Event]) -> Optional[int]:
        start = after(events)
        if start is None:
            return None
        quiet = [e.iteration for e in _triggers(events)
                 if e.iteration > start and not e.payload.fired and e.payload.chars]
        return int(quiet[0]) if quiet else None
    return find


@moment()
def first_size_refire(events: Sequence[Event]) -> Optional[int]:
    """The first size-trigger compression after an earlier summary: the trigger re-armed by growth."""
    last = {e.iteration: e.payload.last_summarized_chars for e in _triggers(events)}
    for e in _compressions(events):
        if e.payload.reason == "size" and last.get(e.iteration) is not None:
            return int(e.iteration)
    return None


@moment()
def first_disarmed(events: Sequence[Event]) -> Optional[int]:
    """The first iteration over the cap where the size trigger was disarmed (not grown since the last summary)."""
    for e in _triggers(events):
        d = e.payload
        if d.over_cap and not d.size_armed and not d.fired:
            return int(e.iteration)
    return None


def _trim_iterations(events: Sequence[Event]) -> List[int]:
    started = {e.iteration for e in events if e.kind == "iteration"}
    # A trim is shown once the next iteration has started: its scratchpad is what the trim left.
    return [int(e.iteration) for e in events if e.kind == "trim" and e.iteration is not None
            and e.iteration + 1 in started]


@moment(shows_trim=True)
def first_trim(events: Sequence[Event]) -> Optional[int]:
    """The first iteration after which the agent's own trim cut the scratchpad."""
    found = _trim_iterations(events)
    return found[0] if found else None


@moment(shows_trim=True)
def first_trim_cutting_a_summary(events: Sequence[Event]) -> Optional[int]:
    """The first trim that cut away (the header of) a summary the middleware wrote."""
    for k in _trim_iterations(events):
        if summary_cut_by_trim(events, k) is not None:
            return k
    return None


@moment()
def first_lost_fact(events: Sequence[Event]) -> Optional[int]:
    """The first compression whose summary lost a fact (a number, id, date or name) that was in the scratchpad."""
    for c in annotate([e for e in events if e.kind in ("run_start", "compression")]):
        if c.get("status") == "ok" and c.get("facts_lost"):
            return int(c["iteration"])
    return None


def _scenario(events: Sequence[Event]) -> Optional[str]:
    starts = [e for e in events if e.kind == "run_start"]
    return starts[0].payload.scenario if starts else None


def probe_flips(events: Sequence[Event], iteration: int) -> List[str]:
    """The scenario's probe questions answerable before the compression at `iteration` and not after it."""
    probes = scenario_probes(_scenario(events))
    for e in _compressions(events):
        if e.iteration == iteration:
            results = run_probes(e.payload.before or "", e.payload.after or "", probes)
            return [r.question for r in results if r.answerable_before and not r.answerable_after]
    return []


@moment()
def first_probe_flip(events: Sequence[Event]) -> Optional[int]:
    """The first compression after which a probe question of the scenario is no longer answerable."""
    for e in _compressions(events):
        if e.payload.status == "ok" and probe_flips(events, int(e.iteration)):
            return int(e.iteration)
    return None


# ── lessons ────────────────────────────────────────────────────────────────

LESSONS_DIR = Path(__file__).resolve().parents[2] / "data" / "lessons"
LESSONS_DIR_ENV = "SCRATCHPAD_LAB_LESSONS_DIR"
MAX_LESSON_FILE_BYTES = 200_000
MAX_PAUSES = 10
# What a lesson may set: the run's compression and limits. Lessons run offline (no endpoint, no key).
LESSON_SETTINGS = ("summarize_every", "max_scratchpad_chars", "agent_trim_chars", "max_tool_output_chars",
                   "max_iterations", "summarizer", "extractive_budget_chars", "pins")
OFFLINE_SUMMARIZERS = ("extractive", "same-as-agent", "silent", "builtin")  # builtin: a model, on this CPU


@dataclass(frozen=True)
class PausePoint:
    name: str          # the moment, in a few words ("the first periodic compression")
    find: Finder
    callout: str       # "Look: ..." in our own words; the page adds the iteration's narration under it
    shows_trim: bool = False  # the moment is a trim: the page also shows what the trim left


@dataclass(frozen=True)
class Lesson:
    number: int        # its place on the Lessons page and in links (`?lesson=N`), 1-based
    slug: str          # its id: the file name without the number in front ("periodic")
    title: str
    scenario: str
    settings: Dict[str, object]
    explanation: str
    pauses: tuple
    question: str
    answer: str
    shown: str = ""      # the ending: what the lesson showed
    try_next: str = ""   # the ending: what to try next
    show_probes: bool = False  # each callout also lists the probe questions its compression made unanswerable
    source: str = ""     # the file it was read from
    origin: str = "shipped"  # "shipped", or "extra" (from the folder SCRATCHPAD_LAB_LESSONS_DIR names)

    def config(self, step_delay_s: float = DEFAULT_PACE_S) -> RunConfig:
        return RunConfig.build(scenario=self.scenario, step_delay_s=step_delay_s, **self.settings)

    @property
    def settings_note(self) -> str:
        return settings_note(self.config(), self.settings)


def settings_note(config: RunConfig, given: Dict[str, object]) -> str:
    """The lesson's settings in a few plain sentences, made from the settings themselves."""
    every, cap = config.summarize_every, config.max_scratchpad_chars
    top = field_bounds("max_scratchpad_chars")[1]
    if every is None and cap >= top:
        parts = [f"No periodic trigger and no size trigger (the cap is as high as it goes, {cap:,} chars): "
                 "the middleware never compresses."]
    elif every is None:
        parts = [f"No periodic trigger; the size trigger compresses when the scratchpad is over {cap:,} chars "
                 "and has grown since the last summary."]
    elif cap >= top:
        parts = [f"Summarize every {every} iterations; the size cap is set as high as it goes ({cap:,} chars), "
                 "so only the periodic trigger can fire."]
    else:
        parts = [f"Summarize every {every} iterations, and compress when over {cap:,} chars: the middleware "
                 f"compresses every {every} iterations, or when the scratchpad is over {cap:,} chars and has grown."]
    if config.summarizer.kind == "silent":
        parts.append("The summarizer is the silent stand-in: not a model, a stand-in built into the lab that "
                     "replies nothing, the way a broken endpoint or a filtered reply can.")
    else:
        parts.append(f"Summaries are extractive (offline, no model) and at most "
                     f"{config.summarizer.budget_chars:,} chars long.")
    if "agent_trim_chars" in given:
        parts.append(f"The agent's own trim keeps at most the last {config.agent_trim_chars:,} chars.")
    if "max_tool_output_chars" in given:
        parts.append(f"Tool results are cut at {config.max_tool_output_chars:,} chars.")
    if "max_iterations" in given:
        parts.append(f"The agent stops after {config.max_iterations} iterations.")
    if config.pins:
        n = len(config.pins)
        parts.append(f"It pins {n} text{'s' if n != 1 else ''} that must survive: every compression is checked "
                     f"against {'them' if n != 1 else 'it'}.")
    same = [p.name for p in presets().values() if set(given) <= set(p.settings)
            and all(setting_value(config, k) == v for k, v in p.settings.items())]
    if same:
        parts.insert(0, f"The {same[0]} preset.")
    return " ".join(parts)


# ── the lesson file: its schema ────────────────────────────────────────────

_MARKUP = re.compile(r"!\[|<\s*[A-Za-z/!]")


_LIST_ITEM = re.compile(r"\s*([-*+]|\d+[.)])\s")


def _prose(value: str) -> str:
    """Lesson text as the page shows it: lines wrapped in the file are joined (a blank line starts a new
    paragraph, a line starting `- ` a new list item); no images or HTML."""
    if _MARKUP.search(value):
        raise ValueError("lesson text is shown as markdown without images or HTML; remove the image "
                         "(![...]) or the tag (<...>) and say it in words.")
    paragraphs = []
    for block in re.split(r"\n\s*\n", value.strip()):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        text = lines[0] if lines else ""
        for line in lines[1:]:
            text += ("\n" if _LIST_ITEM.match(line) else " ") + line
        paragraphs.append(text)
    return "\n\n".join(paragraphs)


Line = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=160)]
# lesson text: at most 4,000 chars, joined as the page shows it (_prose) wherever a lesson file holds it
Prose = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=4_000), AfterValidator(_prose)]


class _LessonModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Moment(_LessonModel):
    find: str
    n: Optional[int] = Field(None, ge=1, le=1_000)
    reason: Optional[Literal["periodic", "size"]] = None
    status: Optional[Literal["ok", "empty", "error"]] = None
    after: Optional["_Moment"] = None

    @model_validator(mode="after")
    def _takes_what_it_is_given(self) -> "_Moment":
        kind = MOMENTS.get(self.find)
        if kind is None:
            raise ValueError(f"find = {self.find!r} is not a moment finder; use one of {', '.join(MOMENTS)}.")
        given = [k for k in ("n", "reason", "status", "after") if getattr(self, k) is not None]
        takes = kind.parameters()
        extra = [k for k in given if k not in takes]
        if extra:
            what = f"it takes {', '.join(takes)}" if takes else "it takes no arguments"
            raise ValueError(f"{self.find} does not take {', '.join(extra)} ({what}); remove it.")
        needed = [k for k, p in inspect.signature(kind.make).parameters.items()
                  if kind.takes_arguments and p.default is p.empty and k not in given]
        if needed:
            raise ValueError(f"{self.find} needs {needed[0]}; add it (e.g. {_example(needed[0])}).")
        return self

    def finder(self) -> Finder:
        kind = MOMENTS[self.find]
        if not kind.takes_arguments:
            return kind.make
        args = {k: getattr(self, k) for k in kind.parameters() if getattr(self, k) is not None}
        if self.after is not None:
            args["after"] = self.after.finder()
        return kind.make(**args)

    def shows_trim(self) -> bool:
        return MOMENTS[self.find].shows_trim


def _example(param: str) -> str:
    return {"n": "n = 1", "after": 'after = { find = "nth_compression", n = 1 }'}.get(param, f"{param} = ...")


class _Pause(_LessonModel):
    name: Line
    moment: _Moment
    callout: Prose


class _Ending(_LessonModel):
    shown: Prose
    question: Prose
    answer: Prose
    try_next: Prose


class _LessonFile(_LessonModel):
    title: Line
    scenario: str
    explanation: Prose
    show_probes: bool = False
    settings: Dict[str, Any] = {}
    pauses: List[_Pause] = Field(min_length=1, max_length=MAX_PAUSES)
    ending: _Ending

    @field_validator("scenario")
    @classmethod
    def _known_scenario(cls, value: str) -> str:
        return one_of(value, SCENARIOS, "scenario")


def _slug(path: Path) -> str:
    return re.sub(r"^\d+[-_ ]*", "", path.stem) or path.stem


def read_lesson(path: Union[str, Path], number: int = 0, origin: str = "shipped") -> Lesson:
    """One lesson file, checked; DataFileError names the file, the field and what to change."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError:
        size = 0  # read_toml says why it cannot be read
    if size > MAX_LESSON_FILE_BYTES:
        raise DataFileError(path, "", f"is {size:,} bytes; a lesson file may be at most "
                                      f"{MAX_LESSON_FILE_BYTES:,}. Shorten it.")
    raw = check(_LessonFile, read_toml(path), path)
    settings: Dict[str, object] = {}
    for name, value in raw.settings.items():
        if name not in LESSON_SETTINGS:
            raise DataFileError(path, f"settings.{name}", f"is not a setting a lesson can change; use "
                                                         f"{', '.join(LESSON_SETTINGS)}.")
        if name == "summarizer" and value not in OFFLINE_SUMMARIZERS:
            raise DataFileError(path, "settings.summarizer", f"{value!r} is not an offline summarizer (a "
                                f"lesson runs offline); use one of {', '.join(OFFLINE_SUMMARIZERS)}.")
        settings[name] = run_setting(path, f"settings.{name}", name, value)
    try:
        RunConfig.build(scenario=raw.scenario, **settings)
    except ConfigError as exc:
        raise DataFileError(path, "settings", f"{exc} Change it.") from None
    pauses = tuple(PausePoint(p.name, p.moment.finder(), p.callout, p.moment.shows_trim()) for p in raw.pauses)
    e = raw.ending
    return Lesson(number, _slug(path), raw.title, raw.scenario, settings, raw.explanation, pauses,
                  e.question, e.answer, e.shown, e.try_next, raw.show_probes, str(path), origin)


def _read_folder(folder: Path, first: int, origin: str) -> Tuple[List[Lesson], List[str]]:
    lessons, problems = [], []
    for path in sorted(folder.glob("*.toml")):
        try:
            lessons.append(read_lesson(path, first + len(lessons), origin))
        except DataFileError as exc:
            problems.append(str(exc))
    return lessons, problems


def _shipped() -> Tuple[Lesson, ...]:
    lessons, problems = _read_folder(LESSONS_DIR, 1, "shipped")
    if problems:  # ours: a test reads every shipped lesson, so this is a packaging fault, not a user's
        raise DataFileError(LESSONS_DIR, "", "a shipped lesson is broken: " + problems[0])
    return tuple(lessons)


LESSONS: Tuple[Lesson, ...] = _shipped()


@dataclass(frozen=True)
class Catalogue:
    """Every lesson the Lessons page offers, and the extra files that could not be read (one line each)."""

    lessons: Tuple[Lesson, ...]
    problems: Tuple[str, ...] = ()
    extra_dir: Optional[str] = None


_read: Dict[tuple, Catalogue] = {}


def _fingerprint(folder: Path) -> tuple:
    try:
        return tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in sorted(folder.glob("*.toml")))
    except OSError:
        return ()


def catalogue() -> Catalogue:
    """The shipped lessons, then the extra ones (re-read when a file in the extra folder changes)."""
    extra = os.environ.get(LESSONS_DIR_ENV, "").strip()
    if not extra:
        return Catalogue(LESSONS)
    folder = Path(extra).expanduser()
    if not folder.is_dir():
        return Catalogue(LESSONS, (f"{LESSONS_DIR_ENV}={extra}: no such folder; point it at a folder of "
                                   "lesson files (*.toml).",), extra)
    key = (str(folder.resolve()), _fingerprint(folder))
    found = _read.get(key)
    if found is None:  # (sessions share this; a race reads the folder twice, never a half-made catalogue)
        lessons, problems = _read_folder(folder, len(LESSONS) + 1, "extra")
        found = Catalogue(LESSONS + tuple(lessons), tuple(problems), extra)
        _read.clear()
        _read[key] = found
    return found


def all_lessons() -> Tuple[Lesson, ...]:
    return catalogue().lessons


def lesson(number: int) -> Lesson:
    """The lesson numbered `number` (1-based); UnknownName (a KeyError) for any other."""
    lessons = all_lessons()
    for item in lessons:
        if item.number == number:
            return item
    raise UnknownName(f"There is no lesson {number}; the lessons are 1 to {len(lessons)}.")


@dataclass
class Moment:
    """Where a pause point was found: the iteration of the moment (the run is shown as it was then)."""

    point: PausePoint
    iteration: int

    @property
    def show_upto(self) -> int:
        return self.iteration


def find_moment(item: Lesson, index: int, events: Sequence[Event]) -> Optional[Moment]:
    point = item.pauses[index]
    found = point.find(events)
    return None if found is None else Moment(point, found)
