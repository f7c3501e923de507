"""The built-in model offered wherever a summarizer is chosen, without running it: where it is missing each place
says the one-line install; its calls are charged by the work limit at its measured speed; its threads are a
setting. (tests/test_builtin_model.py runs the real model.)"""
import pytest

from scratchpad_lab.engine.summarize import builtin_model
from scratchpad_lab.engine.summarize.builtin_model import GET_IT, PATH_ENV, THREADS_ENV
from scratchpad_lab.model.errors import LabError


@pytest.fixture
def no_model(monkeypatch, tmp_path):
    monkeypatch.setenv(PATH_ENV, str(tmp_path / "absent.gguf"))


def test_the_threads_default_to_one_whatever_the_cores_and_a_bad_setting_says_what_to_write(monkeypatch):
    """One thread everywhere: another count writes another summary of the same prompt (issue 45)."""
    monkeypatch.delenv(THREADS_ENV, raising=False)
    monkeypatch.setattr(builtin_model.os, "cpu_count", lambda: 4)
    assert builtin_model.default_threads() == 1
    monkeypatch.setattr(builtin_model.os, "cpu_count", lambda: 1)
    assert builtin_model.default_threads() == 1
    monkeypatch.setenv(THREADS_ENV, "2")
    with pytest.raises(LabError, match=r"whole number of threads from 1 to 1"):
        builtin_model.default_threads()
    monkeypatch.setattr(builtin_model.os, "cpu_count", lambda: 2)
    assert builtin_model.default_threads() == 2


def test_the_work_limit_charges_each_likely_call_at_the_measured_speed(monkeypatch):
    from scratchpad_lab.engine.limits import WorkLimitExceeded, check_work
    from scratchpad_lab.engine.studies.compare import Setting
    from scratchpad_lab.model.summarizer import SummarizerChoice

    from conftest import ROOT
    from scratchpad_lab.engine.files.loader import load_file

    record = load_file(ROOT / "sample_runs" / "support-ticket-defaults.json").item
    extractive = check_work(record, settings=[Setting(summarize_every=2)])
    builtin = check_work(record, settings=[Setting(summarize_every=2, summarizer=SummarizerChoice("builtin"))])
    assert extractive.builtin_s == 0 and builtin.builtin_s > 0 and builtin.model_calls == extractive.model_calls
    for name in ("prompt_tok_s", "generation_tok_s"):
        monkeypatch.setitem(builtin_model._SPEED, name, builtin_model._SPEED[name] / 10)
    slower = check_work(record, settings=[Setting(summarize_every=2, summarizer=SummarizerChoice("builtin"))], lifted=True)
    assert slower.builtin_s == pytest.approx(10 * builtin.builtin_s)  # the speed measured is the speed charged
    monkeypatch.setitem(builtin_model._SPEED, "generation_tok_s", 0.001)
    with pytest.raises(WorkLimitExceeded, match="of the built-in model's summaries at its measured speed"):
        check_work(record, settings=[Setting(summarize_every=2, summarizer=SummarizerChoice("builtin"))])


def test_a_compare_row_with_the_missing_built_in_model_says_how_to_get_it(no_model):
    from scratchpad_lab.engine.studies.settings_table import SUMMARIZER_CHOICES, parse_row
    from scratchpad_lab.model.config import ConfigError, RunConfig

    assert "builtin" in SUMMARIZER_CHOICES  # the sweep's and the table's choices
    with pytest.raises(ConfigError) as refused:
        parse_row({"summarize_every": "2", "max_scratchpad_chars": 4000, "summarizer": "builtin"},
                  RunConfig.build(scenario="support-ticket"))
    assert str(refused.value).endswith(f"Get it with: {GET_IT}") and "\n" not in str(refused.value)


def test_the_strategies_commands_take_the_built_in_model_and_refuse_it_missing_with_the_one_line(no_model, capsys):
    from scratchpad_lab.cli import main

    code = main(["strategies", "sample_runs/support-ticket-defaults.json", "--summarizer", "builtin", "--json"])
    assert code == 2 and GET_IT in capsys.readouterr().err
    code = main(["bench", "sample_runs", "--runs", "1", "--strategy", "autourgos-middleware", "--summarizer", "builtin"])
    assert code == 2 and GET_IT in capsys.readouterr().err


def test_a_lesson_may_pick_the_built_in_model(tmp_path):
    from scratchpad_lab.engine.run.lesson_runs import read_lesson

    source = (__import__("pathlib").Path(__file__).resolve().parents[1] / "src" / "scratchpad_lab" / "data" /
              "lessons" / "5-silent.toml").read_text(encoding="utf-8")
    path = tmp_path / "9-builtin.toml"
    path.write_text(source.replace('summarizer = "silent"', 'summarizer = "builtin"'), encoding="utf-8")
    assert read_lesson(path).settings["summarizer"] == "builtin"


def test_strategies_compare_and_the_benchmark_offer_it_and_say_the_one_line_where_it_is_missing(no_model):
    from streamlit.testing.v1 import AppTest

    from conftest import APP
    from scratchpad_lab.ui.markup import escape

    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("pages/strategies.py").run()
    at.radio(key="strat_summarizer").set_value("builtin").run()
    assert not at.exception and any(escape(GET_IT) in w.value for w in at.warning)
    assert not [b for b in at.button if b.key == "strat_run"]  # the page stops there: nothing can run
    at.switch_page("pages/benchmark.py").run()
    at.radio(key="bench_summarizer").set_value("builtin").run()
    assert not at.exception and any(escape(GET_IT) in w.value for w in at.warning)
    at.switch_page("pages/compare.py").run()
    at.selectbox(key="cmp_sweep_summarizer").set_value("builtin").run()
    assert not at.exception and any(escape(GET_IT) in w.value for w in at.warning)
    assert at.button(key="cmp_sweep_run").disabled


def test_a_run_over_its_wall_clock_names_the_setting_as_each_surface_spells_it():
    """Issue 45: the guide's built-in command hit the 300 s cap, and the sentence named `wall_clock_s` and "the
    pacing delay", neither of which the CLI has. It names the CLI's flag and the Playground's setting, both real."""
    from autourgos_agent import AgentTimeoutError

    from scratchpad_lab.cli import build_parser
    from scratchpad_lab.engine.run.observe import WallClockExceeded
    from scratchpad_lab.engine.run.runner import _explain
    from scratchpad_lab.model.config import RunConfig
    from scratchpad_lab.ui.sidebar_settings import LABELS
    from scratchpad_lab.ui.state import K_WALL

    config = RunConfig.build(scenario="support-ticket", summarizer="builtin")
    between = _explain(AgentTimeoutError(300.0), config)
    during = _explain(WallClockExceeded("the wall-clock cap of 300 s passed during a model call"), config)
    for outcome, sentence in (between, during):
        assert outcome == "timeout" and sentence.startswith("The run hit its wall-clock cap of 300 s")
        assert "--wall-clock SECONDS on the command line" in sentence and f"“{LABELS[K_WALL]}”" in sentence
        assert "wall_clock_s" not in sentence and "pacing delay" not in sentence
    assert "summarize less often" in between[1] and "summarize less often" in during[1]
    assert build_parser().parse_args(["run", "--wall-clock", "900"]).wall_clock == 900  # the flag it names is real
