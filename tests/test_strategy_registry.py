"""The strategy registry is the one list: a strategy registered once (one module, one entry) is offered by
the CLI (help, errors, --strategy) and the Strategies page (picker, caption), parsed with its settings
and run by the engine; none of them keeps a list of its own."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import rerun_until
from streamlit.testing.v1 import AppTest

from scratchpad_lab.cli import main
from scratchpad_lab.engine.strategies import STRATEGIES, Knob, Strategy, StrategyError, make_spec, names, register
from scratchpad_lab.engine.strategies.registry import COST_KINDS, WorkCost
from synthetic import synthetic_trace

SHIPPED = ["autourgos-middleware", "autourgos-builtin", "trim-only", "deepagents", "langmem", "clear-tool-uses",
           "langchain-summarization", "recorded-compaction"]
TAIL = Strategy("tail-trim", "tail trim (test)", "The agent's trim at keep_chars; registered by a test.",
                "strategy_tail_trim", "scratchpad",
                knobs=(Knob("keep_chars", "int", 3_000, 200, 1_000_000, "Keep the last N characters."),),
                cost=lambda s: WorkCost("scratchpad", int(s["keep_chars"]), trims_kept=True, summarizes=False),
                colour="#123456", no_prompt="not a summarizer")


@pytest.fixture
def tail_trim():
    register(TAIL)
    yield TAIL
    STRATEGIES.pop(TAIL.name)


@pytest.fixture
def trace_file(tmp_path):
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(synthetic_trace(steps=12, seed=2, max_observation_chars=3000).to_dict()))
    return str(path)


def test_the_shipped_strategies_are_the_registry_in_order():
    assert names() == SHIPPED


def test_a_name_registered_twice_is_refused():
    with pytest.raises(ValueError, match="already registered"):
        register(STRATEGIES["langmem"])


def test_a_registered_strategy_is_in_the_cli_help_and_its_errors(tail_trim, trace_file, capsys):
    with pytest.raises(SystemExit):
        main(["strategies", "--help"])
    assert "tail-trim" in re.sub(r"-\s+", "-", capsys.readouterr().out)  # argparse may wrap a name at its hyphen
    assert main(["strategies", trace_file, "--strategy", "nope"]) == 2
    assert "tail-trim" in capsys.readouterr().err


def test_a_registered_strategy_runs_from_the_cli_with_its_own_settings(tail_trim, trace_file, capsys):
    argv = ["strategies", trace_file, "--json", "--strategy", "trim-only:agent_trim_chars=2000",
            "--strategy", "tail-trim:keep_chars=2000"]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["strategy"] for r in rows] == ["trim-only", "tail-trim"]
    same = ("peak_context_tokens", "mean_context_tokens", "context_tokens_saved")
    assert [rows[1][k] for k in same] == [rows[0][k] for k in same]  # the same trim, so the same figures
    assert main(["strategies", trace_file, "--strategy", "tail-trim:keep_chars=5"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "keep_chars" in err


def test_a_strategys_rule_across_its_settings_is_its_entrys_check(tail_trim):
    def keep_even(settings):
        if settings["keep_chars"] % 2:
            raise StrategyError("tail-trim: keep_chars must be even.")
    STRATEGIES[TAIL.name] = Strategy(**{**TAIL.__dict__, "check": keep_even})
    assert make_spec("tail-trim", {"keep_chars": 2000}).resolved() == {"keep_chars": 2000}
    with pytest.raises(StrategyError, match="must be even"):
        make_spec("tail-trim", {"keep_chars": 2001})


def test_a_registered_strategy_is_offered_on_the_strategies_page(tail_trim):
    at = AppTest.from_file("../pages/strategies.py", default_timeout=180).run()
    assert not at.exception
    picker = at.multiselect(key="strat_pick")
    assert "tail trim (test)" in picker.options and len(picker.options) == len(SHIPPED) + 1
    assert any("tail trim (test)" in c.value for c in at.caption)
    picker.set_value(["trim-only", "tail-trim"]).run()
    rerun_until(at.button(key="strat_run").click().run())  # the strategies run as a job
    assert not at.exception and not at.error
    assert sum(1 for t in at.text if t.value.startswith("tail trim (test): ")) == 1


def test_reading_the_registry_imports_no_langchain_package():
    code = ("import sys; from scratchpad_lab.engine.strategies.registry import names, strategy; "
            "[strategy(n).knobs for n in names()]; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('langchain_core', 'langchain', 'langgraph', "
            "'deepagents', 'langmem')))")
    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


# ── everything about a strategy is in its entry: cost, colour, imports (issue 28, item 5) ─────────────

def test_a_strategy_registered_without_a_cost_is_refused_and_listed_nowhere():
    free = Strategy("free-lunch", "free (test)", "No cost given.", "strategy_tail_trim", "scratchpad")
    with pytest.raises(ValueError, match="no cost"):
        register(free)
    assert "free-lunch" not in names()


def test_a_strategy_that_says_neither_its_prompt_nor_why_it_takes_none_is_refused():
    from dataclasses import replace

    for silent in (replace(TAIL, name="mute", no_prompt=""), replace(TAIL, name="both", prompt_parameter="p")):
        with pytest.raises(ValueError, match="prompt_parameter= .* or no_prompt="):
            register(silent)
        assert silent.name not in names()


def test_every_registered_strategy_has_a_cost_a_colour_and_its_imports():
    colours = set()
    for name in names():
        entry = STRATEGIES[name]
        cost = entry.cost(make_spec(name, {}).resolved())
        assert isinstance(cost, WorkCost) and cost.kind in COST_KINDS and cost.window_chars > 0, name
        assert re.fullmatch(r"#[0-9a-f]{6}", entry.colour), name
        colours.add(entry.colour)
        assert isinstance(entry.imports, tuple) and all(isinstance(m, str) and m for m in entry.imports), name
        # a message strategy's run imports LangChain: named, so it is loaded where Stop can reach it
        assert bool(entry.imports) == (entry.context == "messages"), name
    assert len(colours) == len(names())  # one colour each


def test_a_strategy_registered_in_a_test_is_costed_by_the_work_limit_and_drawn_in_its_colour(tail_trim):
    from scratchpad_lab.engine import limits
    from scratchpad_lab.ui.strategies_chart import colour

    trace = synthetic_trace(steps=200, seed=4, max_observation_chars=2000)
    baseline, tail, trim = limits.strategy_replays([make_spec("tail-trim", {"keep_chars": 2_000}),
                                                    make_spec("trim-only", {"agent_trim_chars": 2_000})])
    assert baseline.label == "no compression"  # the scratchpad form's baseline replay, once
    assert (tail.kind, tail.window_chars, tail.summarizes) == ("scratchpad", 2_000, False)
    assert limits.estimate(trace, [tail]) == limits.estimate(trace, [trim])  # the same work as the same trim
    assert limits.estimate(trace, [tail]).cpu_s > 0
    heavy = Strategy(**{**TAIL.__dict__, "name": "tail-heavy",
                        "cost": lambda s: WorkCost("clear-tool-uses", 10_000_000, keeps_text=False)})
    register(heavy)
    try:
        assert limits.estimate(trace, limits.strategy_replays([make_spec("tail-heavy", {})])).cpu_s > \
            limits.estimate(trace, [tail]).cpu_s
    finally:
        STRATEGIES.pop("tail-heavy")
    assert colour("tail-trim") == "#123456"
