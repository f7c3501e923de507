"""Running the packages: the real autourgos agent with its middleware, observed and recorded.

Its modules: runner (a run as a job), observe (what the agent and its middleware did, as events), recorder (a trace of a live agent), replay (a recorded trajectory fed back), standins (the scripted and replayed models), forking (What if...), review (a person's verdict on a summary), reply (the agent's reply format), tokens (the one token counter: o200k), lesson_runs (the lessons' runs and checks).

Streamlit-free. Nothing is imported here until it is asked for: each public name below (what modules outside the wing
use) comes from its module on first use, so the first page does without the heavy ones; static tools
read the same names from the imports under TYPE_CHECKING.
"""
from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scratchpad_lab.engine.run.forking import (ForkPoint, TRIGGERS, compression_iterations, hold, origin,
        own_model, points_of, reuse, triggers_of)
    from scratchpad_lab.engine.run.lesson_runs import (DEFAULT_PACE_S, LESSONS_DIR_ENV, Lesson, all_lessons,
        catalogue, find_moment, lesson, probe_flips, read_lesson)
    from scratchpad_lab.engine.run.observe import ObservedSummarizer, RunObserver
    from scratchpad_lab.engine.run.recorder import TraceRecorder
    from scratchpad_lab.engine.run.replay import (Replay, recorded_trajectory, replay_source, replay_with_defaults,
        summarizer_notice)
    from scratchpad_lab.engine.run.reply import REPLY_FORMAT, build_reply, parse_seconds, read_reply
    from scratchpad_lab.engine.run.review import ReviewGate, replay_reviews
    from scratchpad_lab.engine.run.runner import Run, Source
    from scratchpad_lab.engine.run.tokens import TokenCounter

# each public name and the module of this wing it lives in
_HOMES = {"DEFAULT_PACE_S": "lesson_runs", "ForkPoint": "forking", "LESSONS_DIR_ENV": "lesson_runs",
          "Lesson": "lesson_runs", "ObservedSummarizer": "observe", "REPLY_FORMAT": "reply", "Replay": "replay",
          "ReviewGate": "review", "Run": "runner", "RunObserver": "observe", "Source": "runner",
          "TRIGGERS": "forking", "TokenCounter": "tokens", "TraceRecorder": "recorder", "all_lessons": "lesson_runs",
          "build_reply": "reply", "catalogue": "lesson_runs", "compression_iterations": "forking",
          "find_moment": "lesson_runs", "hold": "forking", "lesson": "lesson_runs", "origin": "forking",
          "own_model": "forking", "parse_seconds": "reply", "points_of": "forking", "probe_flips": "lesson_runs",
          "read_lesson": "lesson_runs", "read_reply": "reply", "recorded_trajectory": "replay",
          "replay_reviews": "review", "replay_source": "replay", "replay_with_defaults": "replay",
          "reuse": "forking", "summarizer_notice": "replay", "triggers_of": "forking"}
__all__ = ["DEFAULT_PACE_S", "ForkPoint", "LESSONS_DIR_ENV", "Lesson", "ObservedSummarizer", "REPLY_FORMAT",
           "Replay", "ReviewGate", "Run", "RunObserver", "Source", "TRIGGERS", "TokenCounter", "TraceRecorder",
           "all_lessons", "build_reply", "catalogue", "compression_iterations", "find_moment", "hold", "lesson",
           "origin", "own_model", "parse_seconds", "points_of", "probe_flips", "read_lesson", "read_reply",
           "recorded_trajectory", "replay_reviews", "replay_source", "replay_with_defaults", "reuse",
           "summarizer_notice", "triggers_of"]


def __getattr__(name: str) -> Any:
    """A public name of the wing, from its module on first use (the module's import is then Python's own)."""
    if name in _HOMES:
        return getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
