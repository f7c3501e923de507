"""The one base class of every error a person using the lab can cause.

A setting out of range, a file that is not a run record, an endpoint that refuses the key, a wrong
command-line argument: each is raised as a `LabError` subclass whose message says what to change. The
pages (around `pg.run()` in app.py, through `ui.problems`) and the CLI (`cli.main`) each catch
`LabError` at one edge and show the message as one sentence; anything else is a bug and keeps its
traceback. The subclasses live beside the rules that raise them (RecordError in model/trace.py, ...;
ConfigError here, since the config and the summarizer choice both raise it) and keep a built-in base too (ValueError, RuntimeError,
KeyError) where callers catch that. tests/test_errors.py checks that every error class of the package
derives from LabError, apart from the few signals a run uses to end itself.
"""
from __future__ import annotations


class LabError(Exception):
    """An error the user can cause; its message says what to change."""

    def __str__(self) -> str:  # a KeyError would show its message quoted; a LabError's is a sentence
        return Exception.__str__(self)

    @property
    def sentence(self) -> str:
        """The message on one line, as the page and the CLI show it."""
        return " ".join(str(self).split("\n")).strip()


def one_of(value, names, what: str):
    """`value` if it is one of `names`; else the one sentence every pick-a-name check says (a ValueError, as
    a pydantic validator raises): "'x' is not a scenario; use one of a, b, c." """
    if value not in names:
        raise ValueError(f"{value!r} is not a {what}; use one of {', '.join(names)}.")
    return value


class ConfigError(LabError, ValueError):
    """A setting a user gave is out of range or malformed; the message says what to change."""


class UsageError(LabError):
    """A command-line argument or a value given in the wrong form; the message gives the right form."""


class UnknownName(LabError, KeyError):
    """A name or number the user gave (a scenario, a lesson) that the lab does not have; the message
    lists the ones it has."""


class ForkRefused(LabError, ValueError):
    """A fork that cannot be made (engine/tasks/fork_tasks.py, engine/run/forking.py): the sentence says what to
    change. Here, below both, so the run's forking code raises it without reaching up to the door."""
