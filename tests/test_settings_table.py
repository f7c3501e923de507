"""The Compare settings table: every out-of-range or malformed cell is named with its allowed range, and
Compare stays disabled until it is fixed (issue 11 item 7, the Compare half)."""

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from conftest import APP
from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.engine.studies.settings_table import default_table, parse_table

GOOD = {"summarize_every": "5", "max_scratchpad_chars": 4000}


@pytest.mark.parametrize("row, says", [
    ({"summarize_every": "5", "max_scratchpad_chars": 50}, "max_scratchpad_chars = 50 is not allowed (allowed: 100 to 1,000,000)"),
    ({"summarize_every": "0", "max_scratchpad_chars": 4000}, "summarize_every = 0 is not allowed (allowed: 1 to 1,000"),
    ({"summarize_every": "5", "max_scratchpad_chars": 4000, "agent_trim_chars": 100}, "agent_trim_chars = 100 is not allowed (allowed: 200 to 1,000,000)"),
    ({"summarize_every": "often", "max_scratchpad_chars": 4000}, "summarize_every must be off or a whole number of iterations (allowed: 1 to 1,000"),
    ({"summarize_every": "5", "max_scratchpad_chars": "lots"}, "max_scratchpad_chars must be a whole number (allowed: 100 to 1,000,000)"),
    ({"summarize_every": "5", "max_scratchpad_chars": None}, "max_scratchpad_chars is empty: enter a number of chars (allowed: 100 to 1,000,000"),
    ({"summarize_every": "5", "max_scratchpad_chars": 4000, "summarizer": "gpt"}, "summarizer must be one of extractive, same-as-agent"),
])
def test_a_wrong_cell_is_named_with_its_allowed_range(row, says):
    settings, problems = parse_table(pd.DataFrame([GOOD, row]), RunConfig.build())
    assert problems == [f"Row 2: {says}"] or (len(problems) == 1 and problems[0].startswith(f"Row 2: {says}"))


def test_the_default_table_is_two_valid_settings():
    settings, problems = parse_table(default_table(), RunConfig.build())
    assert problems == [] and [s.max_scratchpad_chars for s in settings] == [15_000, 2_000]


def test_on_the_page_an_out_of_range_value_disables_compare_until_fixed(monkeypatch):
    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    at = AppTest.from_file(APP, default_timeout=60).run()
    at = at.switch_page("pages/compare.py").run()
    current = len(at.data_editor(key="cmp_settings").value)
    at.session_state["cmp_settings"] = {"edited_rows": {}, "deleted_rows": list(range(current)),
                                        "added_rows": [GOOD, {"summarize_every": "2", "max_scratchpad_chars": 50}]}
    at.run()
    assert not at.exception
    assert [e.value for e in at.error] == ["Some settings need fixing before you can compare:"]
    said = " ".join(t.value for t in at.text)
    assert "Row 2: Compress when over (chars) = 50 is not allowed (allowed: 100 to 1,000,000)" in said
    assert "max_scratchpad_chars" not in said  # the column's heading, as the table above shows it
    assert at.button(key="cmp_run").disabled
    at.session_state["cmp_settings"] = {"edited_rows": {"1": {"max_scratchpad_chars": 2000}}, "deleted_rows": [],
                                        "added_rows": []}
    at.run()
    assert not at.error and not at.button(key="cmp_run").disabled
