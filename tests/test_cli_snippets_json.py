"""The setting to take to an agent (engine/strategies/snippets.py) is in `--json` as it is in the text: `strategies`
carries it on every row, `recommend` and `bench` on every chosen point (`take_away`, cli/strategies.take_away_json).
Before, a person who piped `--json` into a script got the chosen points' sentences but not the figures or the code
the text printed under them.

Each command is run twice on the same input, as text and as `--json`, and the JSON's sentences and code, laid out
as the text lays them out, must be in the text; one JSON snippet is run with the real package (tests/test_snippets.py
runs every strategy's) and must build its object with the numbers its figures say.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import pytest

from scratchpad_lab.cli import main
from test_snippets import READ_BACK, built

ROOT = Path(__file__).resolve().parents[1]
TIGHT = str(ROOT / "sample_runs" / "support-ticket-tight.json")
pytestmark = pytest.mark.usefixtures("no_network")  # every CLI call here is offline (conftest)
KEYS = {"strategy", "settings", "figures", "sentences", "code", "why_none", "runs", "refused"}


def _both(capsys, argv: List[str]):
    """(the text, the JSON) the same command prints."""
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert main(argv + ["--json"]) == 0
    return text, json.loads(capsys.readouterr().out)


def _as_printed(take: dict) -> str:
    """The JSON's take-away laid out as the text prints it (TakeAway.text, indented four spaces)."""
    body = take["sentences"] + ([""] + take["code"].splitlines() if take["code"] else [take["why_none"]])
    return "\n".join("    " + line if line else "" for line in body)


def _numbers(take: dict) -> dict:
    return {f["key"]: f["value"] for f in take["figures"]}


def test_strategies_json_carries_each_rows_setting_and_code_as_the_text_prints_them(capsys):
    text, rows = _both(capsys, ["strategies", TIGHT, "--strategy", "clear-tool-uses:trigger=500,keep=1",
                                "--strategy", "trim-only"])
    assert [r["take_away"]["strategy"] for r in rows] == ["clear-tool-uses", "trim-only"]
    for row in rows:
        take = row["take_away"]
        assert set(take) == KEYS and take["code"] and take["why_none"] is None and take["runs"] == 1
        assert f"  {row['strategy']}:\n{_as_printed(take)}\n" in text
    cleared = rows[0]["take_away"]
    assert _numbers(cleared)["trigger"] == 500 and cleared["sentences"][0].startswith("trigger: 500 tokens, ")
    read = READ_BACK["clear-tool-uses"](built(cleared["code"]))  # the real package builds it, with those numbers
    read.pop("exclude_tools"), read.pop("placeholder")
    assert {k: v for k, v in read.items() if v is not None} == _numbers(cleared)


def test_recommend_json_gives_each_chosen_point_its_setting_and_code(capsys):
    text, found = _both(capsys, ["recommend", TIGHT, "--strategy", "clear-tool-uses", "--workers", "1",
                                 "--grid", "clear-tool-uses:trigger=500|100000,keep=1"])
    takes = _chosen(found["chosen"])
    assert takes, found["chosen"]
    for setting, take in takes:
        assert take["strategy"] == setting.split(":")[0] and take["code"]
        assert _as_printed(take) in text.split("\nChosen points")[1]


def test_bench_json_gives_each_chosen_point_its_setting_on_the_runs_peaks(capsys):
    text, result = _both(capsys, ["bench", str(ROOT / "sample_runs"), "--runs", "2", "--strategy", "langmem",
                                  "--workers", "1"])
    takes = _chosen(result["chosen"])
    assert takes, result["chosen"]
    for setting, take in takes:
        assert _as_printed(take) in text.split("Chosen points")[1]
        [share] = [f for f in take["figures"] if f["share"] is not None]  # langmem:max_tokens=N%: a share of each peak
        assert len(share["values"]) == len(share["peaks"]) == take["runs"] == 2
        assert share["values"] == [round(share["share"] * peak) for peak in share["peaks"]]


def _chosen(chosen: List[dict]) -> List[tuple]:
    """(setting, take_away) of each chosen point that has a setting; a budget no setting met has no take_away."""
    out = []
    for c in chosen:
        take: Optional[dict] = c["take_away"]
        assert (take is None) == (not c["setting"]), c
        if take is not None:
            out.append((c["setting"], take))
    return out
