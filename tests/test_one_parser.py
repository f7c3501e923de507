"""One parser each for "off" and for a probe, read by widgets and argparse alike, and no two classes in src/
sharing a name (issue 28, item 3).

`summarize_every` off is written "off", "none" or nothing, in any case; every place a person types it (a
command's flag, a settings-table cell, a strategy setting, a recommender grid, a file, the Playground's
picker, the sweep's picker) reads it through model.config.parse_every / is_off_word and refuses anything
else with the same sentence. A probe is QUESTION = ANSWER on the Prompt lab page and on the command line.
"""
from __future__ import annotations

import argparse
import ast
from collections import defaultdict
from pathlib import Path

import pytest

from scratchpad_lab.analysis.probes import ProbeError, ProbeQuestion, parse_probe
from scratchpad_lab.model.config import ConfigError, RunConfig, parse_every

SRC = Path(__file__).resolve().parents[1] / "src" / "scratchpad_lab"
OFF = ["off", "none", "", "Off", "NONE", " None ", "oFf"]


def _cli(value):
    from scratchpad_lab.cli import _summarize_every
    return _summarize_every(value)


def _table(value):
    from scratchpad_lab.engine.studies.settings_table import parse_row
    return parse_row({"summarize_every": value, "max_scratchpad_chars": 4000}, RunConfig.build()).summarize_every


def _strategy(value):
    from scratchpad_lab.engine.strategies import parse_spec
    return parse_spec(f"autourgos-middleware:summarize_every={value}").resolved()["summarize_every"]


def _grid(value):
    from scratchpad_lab.engine.studies.recommender import parse_grid
    return parse_grid(f"autourgos-middleware:summarize_every={value}|4")[1]["summarize_every"][0]


def _file(value):
    from scratchpad_lab.model.datafile import run_setting
    return run_setting("lesson.toml", "settings.summarize_every", "summarize_every", value)


@pytest.mark.parametrize("spelling", OFF)
def test_off_none_and_empty_in_any_case_are_off_everywhere(spelling):
    assert parse_every(spelling) is None
    assert _cli(spelling) is None
    assert _table(spelling) is None
    if spelling.strip():  # a strategy setting, a grid value and a file need a word: empty there is no value
        assert _strategy(spelling) is None
        assert _grid(spelling) is None
        assert _file(spelling) is None


def test_a_number_is_a_number_everywhere():
    assert parse_every("3") == _cli(" 3 ") == _table("3") == _table(3.0) == _strategy("3") == 3


def test_anything_else_is_refused_with_one_sentence_naming_the_field_and_the_words():
    with pytest.raises(ConfigError) as direct:
        parse_every("often")
    words = "must be off or a whole number of iterations (allowed: 1 to 1,000; off, none or empty, in any case"
    assert str(direct.value).startswith("summarize_every " + words)
    with pytest.raises(argparse.ArgumentTypeError) as flag:
        _cli("often")
    assert str(flag.value).startswith("--summarize-every " + words)
    with pytest.raises(ConfigError) as table:
        _table("often")
    assert str(table.value) == str(direct.value)
    for bad in ("3.5", "nan", True):
        with pytest.raises(ConfigError):
            parse_every(bad)


def test_the_widgets_read_the_same_parser():
    """The Playground's picker and the sweep's picker hand their chosen word to parse_every, no rule of their own."""
    for module in ("ui/sidebar_settings.py", "ui/compare_page.py"):
        text = (SRC / module).read_text(encoding="utf-8")
        assert "parse_every(" in text, module
        assert '== "off"' not in text, module


def test_a_probe_is_question_equals_answer_on_the_page_and_the_command_line():
    assert parse_probe(" Which order? = A-1001 ") == ProbeQuestion("Which order?", "A-1001")
    assert parse_probe("What is 2+2? = x=4") == ProbeQuestion("What is 2+2?", "x=4")  # the first "=" splits
    assert parse_probe("   ") is None
    for bad in ("no equals sign", "= answer only", "question only ="):
        with pytest.raises(ProbeError, match="should read QUESTION = ANSWER"):
            parse_probe(bad)
    for module in ("ui/prompt_lab_page.py", "cli/prompt_lab.py"):
        assert "parse_probe(" in (SRC / module).read_text(encoding="utf-8"), module


def test_no_two_classes_in_src_share_a_name():
    where = defaultdict(list)
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                where[node.name].append(f"{path.relative_to(SRC)}:{node.lineno}")
    shared = {name: places for name, places in where.items() if len(places) > 1}
    assert shared == {}, f"classes that share a name: {shared}"
