"""Guided lessons: a scenario, settings, a few lines of explanation, the moments to pause at, and a question.

Streamlit-free, so the lessons can be checked without a browser. A lesson never names a step number: each
pause point is a finder that reads the run's own events and returns the iteration where the moment
happened (the first periodic compression, the first disarmed over-cap iteration, ...), or None while it
has not happened yet. So a lesson stays right when the packages or the scenarios change; if a moment
never comes, the page says so instead of pointing at the wrong step.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence

from scratchpad_lab.model.config import DEFAULT_PACE_S, RunConfig  # noqa: F401 (DEFAULT_PACE_S: ui/lessons_page.py imports it from here)
from scratchpad_lab.model.errors import UnknownName
from scratchpad_lab.model.events import Event
from scratchpad_lab.analysis.narrate import summary_cut_by_trim
from scratchpad_lab.analysis.probes import run_probes, scenario_probes
from scratchpad_lab.analysis.quality import annotate

Finder = Callable[[Sequence[Event]], Optional[int]]


# ── finders: where a moment happened, read from the events ─────────────────

def _compressions(events: Sequence[Event]) -> List[Event]:
    return [e for e in events if e.kind == "compression" and e.iteration is not None]


def _triggers(events: Sequence[Event]) -> List[Event]:
    return [e for e in events if e.kind == "trigger" and e.iteration is not None]


def nth_compression(n: int, reason: Optional[str] = None, status: Optional[str] = None) -> Finder:
    """The iteration of the n-th (1-based) compression with this reason and status."""
    def find(events: Sequence[Event]) -> Optional[int]:
        found = [e.iteration for e in _compressions(events)
                 if (reason is None or e.payload.reason == reason)
                 and (status is None or e.payload.status == status)]
        return int(found[n - 1]) if len(found) >= n else None
    return find


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


def first_size_refire(events: Sequence[Event]) -> Optional[int]:
    """The first size-trigger compression after an earlier summary: the trigger re-armed by growth."""
    last = {e.iteration: e.payload.last_summarized_chars for e in _triggers(events)}
    for e in _compressions(events):
        if e.payload.reason == "size" and last.get(e.iteration) is not None:
            return int(e.iteration)
    return None


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


def first_trim(events: Sequence[Event]) -> Optional[int]:
    found = _trim_iterations(events)
    return found[0] if found else None


def first_trim_cutting_a_summary(events: Sequence[Event]) -> Optional[int]:
    for k in _trim_iterations(events):
        if summary_cut_by_trim(events, k) is not None:
            return k
    return None


def first_lost_fact(events: Sequence[Event]) -> Optional[int]:
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


def first_probe_flip(events: Sequence[Event]) -> Optional[int]:
    for e in _compressions(events):
        if e.payload.status == "ok" and probe_flips(events, int(e.iteration)):
            return int(e.iteration)
    return None


# ── lessons ────────────────────────────────────────────────────────────────

@dataclass(frozen=True)
class PausePoint:
    name: str          # the moment, in a few words ("the first periodic compression")
    find: Finder
    callout: str       # "Look: ..." in our own words; the page adds the iteration's narration under it
    shows_trim: bool = False  # the moment is a trim: the page also shows what the trim left


@dataclass(frozen=True)
class Lesson:
    number: int
    slug: str
    title: str
    scenario: str
    settings: Dict[str, object]
    explanation: str
    pauses: tuple
    question: str
    answer: str
    settings_note: str = ""
    extra: Dict[str, object] = field(default_factory=dict)

    def config(self, step_delay_s: float = DEFAULT_PACE_S) -> RunConfig:
        return RunConfig.build(scenario=self.scenario, step_delay_s=step_delay_s, **self.settings)


LESSONS: tuple = (
    Lesson(
        number=1, slug="periodic", title="The periodic trigger",
        scenario="support-ticket",
        settings={"summarize_every": 3, "max_scratchpad_chars": 1_000_000, "extractive_budget_chars": 900},
        settings_note="summarize_every = 3; the size cap is set as high as it goes (1,000,000 chars), so only the "
                      "periodic trigger can fire.",
        explanation="The middleware's periodic trigger fires at every iteration that is a multiple of "
                    "`summarize_every`, however small or large the scratchpad is. Watch the trigger panel count "
                    "down to the next periodic iteration, and the scratchpad being replaced by a summary there.",
        pauses=(
            PausePoint("the first periodic compression", nth_compression(1, reason="periodic"),
                       "Look: the scratchpad was far under the size cap, yet it was summarized. The periodic "
                       "trigger does not look at the size at all, only at the iteration number."),
            PausePoint("the next iteration where nothing is due", first_quiet_after(nth_compression(1, "periodic")),
                       "Look: right after a summary, nothing happens. The scratchpad grows again, step by step, "
                       "until the next multiple of summarize_every."),
            PausePoint("the second periodic compression", nth_compression(2, reason="periodic"),
                       "Look: again a multiple of summarize_every, so again a summary, whether or not there was "
                       "much new to compress."),
        ),
        question="With summarize_every = 3, a run of 14 iterations: how many times is the summarizer called, and "
                 "does it matter how large each step's tool result was?",
        answer="Four times (iterations 3, 6, 9 and 12): the periodic trigger counts iterations only. A step with a "
               "huge tool result is not summarized any sooner; that is what the size trigger is for.",
    ),
    Lesson(
        number=2, slug="size", title="The size trigger and re-arming",
        scenario="support-ticket",
        settings={"summarize_every": None, "max_scratchpad_chars": 1_000, "extractive_budget_chars": 1_500,
                  "agent_trim_chars": 1_200},
        settings_note="No periodic trigger; the size cap is 1,000 chars. Summaries may be up to 1,500 chars, longer "
                      "than the cap, and the agent's own trim keeps at most the last 1,200 chars.",
        explanation="The size trigger fires when the scratchpad is over `max_scratchpad_chars`, but only if it has "
                    "grown since the last summary: the package remembers how long the scratchpad was right after "
                    "it summarized, so a summary that is itself over the cap does not set off a summary of the "
                    "summary at every iteration. Here a summary is longer than the cap, and the agent's own trim "
                    "keeps the scratchpad shorter than that summary.",
        pauses=(
            PausePoint("the first size-triggered compression", nth_compression(1, reason="size"),
                       "Look: the scratchpad went over the cap and no summary had been written yet, so the size "
                       "trigger fired."),
            PausePoint("the size trigger re-armed by growth", first_size_refire,
                       "Look: after a summary the trigger re-arms only once the scratchpad is longer than that "
                       "summary was. It grew past it, so it fired again."),
            PausePoint("the first over-cap iteration with the trigger disarmed", first_disarmed,
                       "Look: the size trigger is armed only by growth, and nothing happens although the scratchpad "
                       "is over the cap: the last summary was longer than what the agent's trim now keeps, so the "
                       "scratchpad has not grown past it. The agent's blunt trim does the cutting from here on."),
        ),
        question="The scratchpad is over the cap at every iteration from the second on. Why does the summarizer stop "
                 "being called?",
        answer="The size trigger needs the scratchpad to be over the cap and longer than it was right after the "
               "last summary. That summary was longer than the 1,200 chars the agent's trim keeps, so the "
               "scratchpad never grows past it again: the trigger stays disarmed, and only the trim cuts.",
    ),
    Lesson(
        number=3, slug="trim", title="The agent's blunt trim",
        scenario="log-triage",
        settings={"summarize_every": 4, "max_scratchpad_chars": 1_000_000, "extractive_budget_chars": 1_200,
                  "agent_trim_chars": 2_500},
        settings_note="The agent's own trim keeps the last 2,500 chars; the middleware summarizes every 4 "
                      "iterations and has no size trigger to speak of (1,000,000 chars).",
        explanation="Apart from the middleware, the agent itself cuts its scratchpad after every step to its own "
                    "`max_scratchpad_chars` (here `agent_trim_chars` = 2,500): it keeps the last chars and puts "
                    "`[...earlier steps trimmed...]` in front. No summary, no choice of what matters: the oldest "
                    "text goes, and that can be the summary the middleware just wrote.",
        pauses=(
            PausePoint("the first trim", first_trim,
                       "Look: a large log result pushed the scratchpad over the agent's limit, and the agent cut "
                       "everything but the last 2,500 chars. Nothing was summarized: the oldest steps are gone.",
                       shows_trim=True),
            PausePoint("the first trim that cut a summary", first_trim_cutting_a_summary,
                       "Look: the summary sits at the top of the scratchpad, the oldest place, and the trim cuts "
                       "from the top. The summary's header is gone from what the agent is sent.",
                       shows_trim=True),
        ),
        question="Which survives the agent's trim better: a fact from the first step, or a fact from the last step? "
                 "And does a summary protect the first one?",
        answer="The last step's fact: the trim keeps the tail. A summary helps only while it stays under the trim "
               "limit; a big tool result after it pushes the summary (which sits at the top) into the part cut.",
    ),
    Lesson(
        number=4, slug="loss", title="What a summary loses",
        scenario="support-ticket",
        settings={"summarize_every": 2, "max_scratchpad_chars": 2_000, "extractive_budget_chars": 600},
        settings_note="The Tight preset: every 2 iterations or over 2,000 chars, with 600-char summaries.",
        explanation="A summary is shorter than what it replaces, so something goes. Each compression card lists "
                    "the facts (numbers, identifiers, dates, names) that were in the scratchpad before and are "
                    "missing after, and marks them « » in the before text. A probe question (from the scenario) "
                    "asks whether a question is still answerable from what the agent is sent.",
        pauses=(
            PausePoint("the first compression that lost a fact", first_lost_fact,
                       "Look at the card of this compression: the facts in « » were in the scratchpad and are "
                       "not in the summary. The agent cannot use them any more."),
            PausePoint("the first probe question that stops being answerable", first_probe_flip,
                       "Look: before this compression the probe question below could be answered from the "
                       "scratchpad; after it, it cannot."),
        ),
        question="The scripted agent answers only from what is still in its scratchpad. Why does its final answer "
                 "say some facts are 'no longer in my notes'?",
        answer="Tight 600-char summaries could not keep every fact; each compression dropped some, and the trim or "
               "the next summary never brings them back. The answer score counts the expected facts that are "
               "missing from the final answer.",
        extra={"probes": True},
    ),
    Lesson(
        number=5, slug="silent", title="A summarizer that fails",
        scenario="support-ticket",
        settings={"summarize_every": None, "max_scratchpad_chars": 2_000, "summarizer": "silent",
                  "agent_trim_chars": 6_000},
        settings_note="The summarizer is the silent stand-in: not a model, a stand-in built into the lab that "
                      "replies nothing, the way a broken endpoint or a filtered reply can. Size trigger at 2,000 "
                      "chars, no periodic trigger, the agent's trim at 6,000.",
        explanation="When the summarizer replies nothing (or raises), the package keeps the scratchpad as it was "
                    "and does not remember a summary length. So the size trigger stays armed, and as long as the "
                    "scratchpad is over the cap it calls the summarizer again at every iteration: each call costs "
                    "time (and with a real model, tokens) and changes nothing.",
        pauses=(
            PausePoint("the first empty reply", nth_compression(1, status="empty"),
                       "Look: the size trigger fired and the summarizer was called, but it replied nothing. The "
                       "card is marked empty, and the scratchpad is the same before and after."),
            PausePoint("the next empty reply", nth_compression(2, status="empty"),
                       "Look: the very next iteration, the same call again: still over the cap, still armed (no "
                       "summary length was recorded), still nothing back. A wasted call per iteration."),
        ),
        question="If the summarizer replies nothing, what keeps the scratchpad from growing without end, and what "
                 "does each iteration cost meanwhile?",
        answer="Only the agent's own hard trim (here 6,000 chars). Meanwhile every iteration over the cap makes one "
               "summarizer call that is thrown away: with a real model, that is latency and tokens for nothing.",
    ),
)


def lesson(number: int) -> Lesson:
    """The lesson numbered `number` (1-based); UnknownName (a KeyError) for any other."""
    for item in LESSONS:
        if item.number == number:
            return item
    raise UnknownName(f"There is no lesson {number}; the lessons are 1 to {len(LESSONS)}.")


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
