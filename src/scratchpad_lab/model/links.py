"""Links that open a moment: `?sample=support-ticket-tight&step=6`, `?sample=...&card=4`, `?lesson=2`, and a
stored run: `?run=<id>&step=6` (the id is the store's: 22 URL-safe characters, 128 random bits).

Streamlit-free, so hostile links can be tested without a browser. A link is parsed into a LinkTarget of
validated values only (a known sample's file name, an int step, a lesson number); anything else is
dropped with a note in our own words. Nothing from the URL is ever put into a note, a heading or HTML:
a parameter that is not understood is described, never quoted.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Union
from urllib.parse import urlencode

KNOWN = ("sample", "run", "step", "card", "lesson")
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,99}$")
_RUN_ID = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
_INT = re.compile(r"^[0-9]{1,6}$")
MAX_VALUE_CHARS = 200


@dataclass
class LinkTarget:
    """What a link asks to open; every field is validated. `notes` say what was ignored."""

    page: Optional[str] = None          # "runs" | "lessons" | None (the default page)
    sample: Optional[str] = None        # a sample run's file name, e.g. "support-ticket-tight.json"
    run: Optional[str] = None           # a stored run's id (whether the store has it is for the page to find)
    step: Optional[int] = None          # the iteration to show
    card: Optional[int] = None          # the iteration of the compression card to show
    lesson: Optional[int] = None        # a lesson number
    notes: List[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return self.page is None


def _one(value: Union[str, Sequence[str], None]) -> Optional[str]:
    if value is None:
        return None
    if not isinstance(value, str):
        value = list(value)
        if len(value) != 1:
            return None
        value = value[0]
    return value if isinstance(value, str) and len(value) <= MAX_VALUE_CHARS else None


def _int(value: Optional[str]) -> Optional[int]:
    return int(value) if value is not None and _INT.match(value) else None


def parse_link(params: Mapping[str, Union[str, Sequence[str]]], sample_names: Iterable[str],
               lesson_numbers: Iterable[int]) -> LinkTarget:
    """Read query parameters into a LinkTarget. `sample_names` are the shipped samples' file names."""
    target = LinkTarget()
    if not params:
        return target
    samples = {name[:-5] if name.endswith(".json") else name: name for name in sample_names}
    lessons = set(lesson_numbers)
    if any(key not in KNOWN for key in params):
        target.notes.append("The link had parameters this app does not use; they were ignored.")
    raw = {key: _one(params.get(key)) for key in KNOWN if key in params}
    if "lesson" in raw:
        number = _int(raw["lesson"])
        if number in lessons:
            target.page, target.lesson = "lessons", number
        else:
            target.notes.append(f"The link's lesson is not one of the lessons (1 to {max(lessons)}); "
                                "the default page opened instead.")
        if "sample" in raw or "run" in raw or "step" in raw or "card" in raw:
            target.notes.append("A link opens a lesson or a run, not both; the run part was ignored.")
        return target
    if "run" in raw:
        if "sample" in raw:
            target.notes.append("A link opens a stored run or a sample run, not both; the sample part was ignored.")
        if not raw["run"] or not _RUN_ID.match(raw["run"]):
            target.notes.append("The link's run is not a stored run's id (it may have been cut short); the default "
                                "page opened instead.")
            return target
        target.page, target.run = "runs", raw["run"]
    elif "sample" not in raw:
        if raw:
            target.notes.append("The link gives a step or a card but no sample run; the default page opened.")
        return target
    else:
        name = raw["sample"]
        key = name[:-5] if name and name.endswith(".json") else name
        if not name or not _NAME.match(name) or key not in samples:
            target.notes.append("The link's sample is not one of the recorded sample runs; the default page opened "
                                "instead. The Runs page lists the samples.")
            return target
        target.page, target.sample = "runs", samples[key]
    for which in ("step", "card"):
        if which in raw:
            value = _int(raw[which])
            if value is None or value < 1:
                target.notes.append(f"The link's {which} is not a whole number of 1 or more; it was ignored.")
            else:
                setattr(target, which, value)
    return target


def check_iteration(target: LinkTarget, iterations: Sequence[int], compression_iterations: Sequence[int]) -> None:
    """Drop a step or card the opened run does not have, with a note (the numbers are ours: validated ints)."""
    if target.step is not None and target.step not in iterations:
        target.notes.append(f"That run has no step {target.step} (it has {min(iterations)} to {max(iterations)}); "
                            "it opened at its end." if iterations else "That run has no steps.")
        target.step = None
    if target.card is not None:
        if target.card in compression_iterations:
            target.step = target.step or target.card
        else:
            target.notes.append(f"That run has no compression card at iteration {target.card}.")
            target.card = None


def link_query(*, sample: Optional[str] = None, step: Optional[int] = None, card: Optional[int] = None,
               lesson: Optional[int] = None, run: Optional[str] = None) -> str:
    """The query string (with its `?`) that opens this moment; empty for the default page."""
    values: Dict[str, Union[int, str]] = {}
    if lesson is not None:
        values["lesson"] = int(lesson)
    elif (run and _RUN_ID.match(run)) or sample:
        if run and _RUN_ID.match(run):
            values["run"] = run
        elif sample:
            values["sample"] = sample[:-5] if sample.endswith(".json") else sample
        if card is not None:
            values["card"] = int(card)
        elif step is not None:
            values["step"] = int(step)
    return "?" + urlencode(values) if values else ""


def base_url(url: Optional[str]) -> str:
    """The app's root URL from the browser's current URL (drops the page path and the query)."""
    if not url:
        return "http://localhost:8501/"
    match = re.match(r"^(https?://[^/?#]+)", url)
    return (match.group(1) if match else "http://localhost:8501") + "/"
