"""Numbers and words as a person reads them (issue 21): one figure reads the same in a sentence, a table
and a chart; the main screen speaks plainly (the packages' names are in the help icons); a hosted API
without a key says so before a run; the first screen suggests a preset that shows compression."""
from __future__ import annotations

import re

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from scratchpad_lab.ui.charts import heatmap
from scratchpad_lab.ui.playground import FIRST_LOOK_PRESET
from scratchpad_lab.model.presets import presets
from scratchpad_lab.ui.figure_tables import whole_percent
from conftest import APP

# Package names and their jargon, which the main screen leaves to the help icons.
JARGON = re.compile(r"summarize_every|max_scratchpad_chars|\bdisarmed\b|\barmed\b|hard trim")


def _app(monkeypatch) -> AppTest:
    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _open_sample(at: AppTest, name: str) -> AppTest:
    at.selectbox(key="play_sample_pick").set_value(name).run()
    at.button(key="play_sample_open").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("share", [0.125, 0.375, 0.2857, 0.5, 0.625, 0.995, 0.0, 1.0])
def test_a_share_in_a_table_cell_has_the_digits_of_its_sentence(share):
    assert f"{whole_percent(share)}%" == f"{share:.0%}"


def test_the_runs_table_answer_score_reads_as_the_view_says_it(monkeypatch):
    at = _open_sample(_app(monkeypatch), "support-ticket-defaults.json")
    sentence = [t.value for t in at.text if t.value.startswith("Answer score:")]
    assert len(sentence) == 1, sentence
    shown = re.match(r"Answer score: (\d+)%", sentence[0]).group(1)
    table = next(d.value for d in at.dataframe if "answer score" in d.value.columns)
    assert list(table["answer score"]) == [int(shown)], (table["answer score"], sentence)


def test_a_sweep_heatmap_writes_each_cell_as_the_tables_do():
    frame = pd.DataFrame([{"summarize_every": "2", "max_scratchpad_chars": 2000, "answer_score": 0.125,
                           "compressions": 1},
                          {"summarize_every": "2", "max_scratchpad_chars": 4000, "answer_score": 0.375,
                           "compressions": 1}])
    spec = heatmap(frame, "answer_score", "answer score", ".0%").to_dict()
    values = spec["datasets"][next(iter(spec["datasets"]))]
    assert [v["_label"] for v in values] == ["12%", "38%"]  # Vega would write 0.125 as "13%"


def test_the_main_screen_names_no_package_knob_and_says_invented_demo_material_once(monkeypatch):
    at = _open_sample(_app(monkeypatch), "support-ticket-tight.json")
    main = [t.value for t in at.main.text] + [m.value for m in at.main.markdown] + [c.value for c in at.main.caption]
    trigger_lines = [t for t in main if t.startswith(("Periodic trigger", "Size trigger", "Why:"))]
    assert len(trigger_lines) == 3, trigger_lines
    assert not [t for t in trigger_lines if JARGON.search(t)], trigger_lines
    assert sum(t.count("Invented demo material") for t in main) == 1, [t for t in main if "Invented" in t]
    # the package's names are one hover away, in the help
    helps = [t.help for t in at.main.text if t.value.startswith(("Periodic trigger", "Size trigger"))]
    assert "summarize_every" in helps[0] and "max_scratchpad_chars" in helps[1] and "armed" in helps[1]


def test_a_hosted_api_without_a_key_says_the_key_is_missing_and_run_waits(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    at = _app(monkeypatch)
    at.sidebar.selectbox(key="play_agent").set_value("endpoint").run()
    at.sidebar.selectbox(key="play_agent_ep_provider").set_value("openai").run()
    assert not at.exception
    said = "OpenAI needs an API key and none is set"
    assert any(said in e.value for e in at.main.error), [e.value for e in at.main.error]
    assert any(said in w.value for w in at.sidebar.warning)
    assert at.button(key="play_run").disabled
    at.sidebar.text_input(key="play_agent_ep_key").set_value("sk-typed").run()
    assert not any(said in e.value for e in at.main.error) and not at.button(key="play_run").disabled


def test_the_first_screen_suggests_the_preset_that_shows_compression(monkeypatch):
    assert FIRST_LOOK_PRESET in presets()
    at = _app(monkeypatch)
    assert any(FIRST_LOOK_PRESET in c.value for c in at.main.caption)
    at.button(key="play_first_look").click().run()
    assert at.sidebar.selectbox(key="play_preset").value == FIRST_LOOK_PRESET
    assert at.sidebar.selectbox(key="play_summarize_every").value == 2
    assert at.sidebar.number_input(key="play_max_scratchpad_chars").value == 2_000
    assert not any(FIRST_LOOK_PRESET in c.value for c in at.main.caption)  # said once, then out of the way
