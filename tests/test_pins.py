"""Pins (issue 34 item 2): text a person says must survive compression.

The rule of a pin kept (analysis/pin_checks.py) on hand-built text whose answer is known; the limits (model/pins.py)
as one-line refusals; a run's pins through the figures row, the cards' annotation, `run --json` and `replay
--json`; "pass pins to the summarizer" through the prompt a scripted model reads (the same run loses the pin
without it and keeps it with it); and the pins travelling with the run file and the stored run.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI, keeps_pins, prompt_of

from scratchpad_lab.analysis import pin_checks as pin_rule
from scratchpad_lab.analysis.figures import figures
from scratchpad_lab.analysis.quality import annotate
from scratchpad_lab.cli import main
from scratchpad_lab.model.config import ConfigError, RunConfig
from scratchpad_lab.model.events import Event
from scratchpad_lab.model.pins import ASK, MAX_PIN_CHARS, MAX_PINS
from scratchpad_lab.model.records import RunRecord, load_record

ROOT = Path(__file__).resolve().parents[1]
TIGHT = ROOT / "sample_runs" / "support-ticket-tight.json"


def _events(pins, cuts):
    """A run of hand-built compressions: (before, after, status) each, with `pins` in its config."""
    config = RunConfig(pins=list(pins)).model_dump()
    out = [Event("run_start", 0.0, None, {"config": config, "task": "t", "scenario": None})]
    for n, (before, after, status) in enumerate(cuts, start=1):
        out.append(Event("compression", float(n), 2 * n, {"reason": "periodic", "status": status, "before": before,
                                                           "after": after, "before_chars": len(before),
                                                           "after_chars": len(after), "summarizer_called": True}))
    return out


# ── the rule ──────────────────────────────────────────────────────────────

def test_a_pin_is_held_as_a_whole_whitespace_and_case_aside():
    assert pin_rule.holds("Refund   order\nA-1001 today", "refund order a-1001")
    assert not pin_rule.holds("order A-10012", "A-1001")  # inside a longer id: not this pin
    assert not pin_rule.holds("order A-1001", "order B-1001")


def test_a_compression_lost_the_pins_it_held_and_did_not_write():
    held, lost = pin_rule.check("A-1001 and do not refund", "A-1001 kept", ["A-1001", "do not refund", "absent"])
    assert held == ["A-1001", "do not refund"] and lost == ["do not refund"]


def test_the_run_counts_pins_met_kept_and_never_compressed():
    events = _events(["A-1001", "never refund", "not in the run"], [
        ("A-1001 never refund", "A-1001", "ok"),          # loses "never refund"
        ("A-1001 never refund", "never refund", "empty"),  # replaced nothing: checks nothing
        ("A-1001 x", "A-1001", "ok"),
    ])
    f = figures(events)
    assert (f.pins, f.pins_met, f.pins_kept, f.pins_lost) == (3, 2, 1, ["never refund"])
    assert f.pins_kept_text == "1 of 2 pins kept (1 never compressed)"
    cards = annotate(events)
    assert [c["pins_lost"] for c in cards] == [["never refund"], [], []]
    assert [c["pins_held"] for c in cards] == [["A-1001", "never refund"], [], ["A-1001"]]


def test_a_pin_lost_once_is_lost_though_a_later_step_reads_it_again():
    f = figures(_events(["A-1001"], [("A-1001", "gone", "ok"), ("A-1001 again", "A-1001 again", "ok")]))
    assert (f.pins_met, f.pins_kept, f.pins_lost) == (1, 0, ["A-1001"])
    assert f.pins_kept_text == "0 of 1 pin kept"


def test_a_run_without_pins_has_empty_pin_figures_and_says_no_pins():
    f = figures(_events([], [("A-1001", "gone", "ok")]))
    assert (f.pins, f.pins_met, f.pins_kept, f.pins_lost) == (0, 0, 0, [])
    assert f.pins_kept_text == "no pins"
    assert figures(_events(["x"], [])).pins_kept_text == "1 pin, none in a compressed scratchpad"


# ── the limits: one line, naming the limit ───────────────────────────────────

@pytest.mark.parametrize("pins, says", [
    (["A-1001", "  "], "Pin 2 is empty"),
    (["x" * (MAX_PIN_CHARS + 1)], f"a pin may be at most {MAX_PIN_CHARS}"),
    ([f"pin {i}" for i in range(MAX_PINS + 2)], f"carries at most {MAX_PINS}: remove 2"),
])
def test_an_empty_pin_a_long_pin_or_too_many_are_refused_with_the_limit_named(pins, says):
    with pytest.raises(ConfigError) as raised:
        RunConfig.build(pins=pins)
    assert says in raised.value.sentence and "\n" not in raised.value.sentence


def test_pins_that_push_the_prompt_over_its_limit_are_refused_only_when_they_are_sent():
    prompt = "{scratchpad}" + "z" * 19_900
    RunConfig.build(summarizer_prompt=prompt, pins=["y" * 150])  # not sent: the prompt is unchanged
    with pytest.raises(ConfigError, match="With its pins, the prompt is .* the limit is 20,000. Remove a pin"):
        RunConfig.build(summarizer_prompt=prompt, pins=["y" * 150], pins_to_summarizer=True)


def test_the_prompt_asks_for_the_pins_verbatim_and_a_brace_in_a_pin_is_sent_as_written():
    config = RunConfig.build(pins=["A-1001", "use {braces}"], pins_to_summarizer=True)
    sent = config.prompt_template.format(query="q", iteration=3, scratchpad="s")
    assert sent.endswith(f"{ASK}\n- A-1001\n- use {{braces}}\n")
    assert RunConfig.build(pins=["A-1001"]).prompt_template == RunConfig().prompt_template  # switch off: as before


# ── the CLI: --pin, --json, and the switch with a scripted model ──────────────

def _cli_json(capsys, *argv):
    code = main([*argv, "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def test_run_pin_flags_a_lost_pin_in_the_figures_and_on_its_compression(capsys):
    got = _cli_json(capsys, "run", "--preset", "tight", "--pin", "A-1001", "--pin", "not in this run")
    f = got["figures"]
    assert (f["pins"], f["pins_met"], f["pins_kept"], f["pins_lost"]) == (2, 1, 0, ["A-1001"])
    losing = [c for c in got["compressions"] if c["pins_lost"]]
    assert [c["pins_lost"] for c in losing] == [["A-1001"]] and "A-1001" in losing[0]["before"]
    assert "A-1001" not in losing[0]["after"]


def test_run_refuses_an_empty_pin_in_one_line(capsys):
    assert main(["run", "--pin", " "]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["scratchpad-lab: error: Pin 1 is empty: write the text that must survive compression, or "
                   "remove it."]


def test_passing_pins_to_a_scripted_model_keeps_the_pin_it_lost_without(capsys):
    with FakeOpenAI() as server:
        server.default = ("ok", keeps_pins)
        model = ["--summarizer-model", "scripted", "--summarizer-base-url", server.url]
        without = _cli_json(capsys, "run", "--preset", "tight", "--pin", "A-1001", *model)
        with_ = _cli_json(capsys, "run", "--preset", "tight", "--pin", "A-1001", "--pins-to-summarizer", *model)
        prompts = [prompt_of(json.loads(r["body"])) for r in server.requests]
    assert without["figures"]["pins_lost"] == ["A-1001"]
    assert (with_["figures"]["pins_met"], with_["figures"]["pins_kept"]) == (1, 1)
    assert with_["figures"]["pins_lost"] == []
    asked = [p for p in prompts if ASK in p]
    assert asked and len(asked) == with_["figures"]["summarizer_calls"]  # every call of the second run, none of the first


def test_replay_takes_pins_and_keeps_a_file_s_own_pins_when_none_are_given(capsys, tmp_path):
    first = tmp_path / "pinned.json"
    assert main(["replay", str(TIGHT), "--pin", "A-1001", "--out", str(first)]) in (0, 1)
    capsys.readouterr()
    assert load_record(first).config.pins == ["A-1001"]
    again = _cli_json(capsys, "replay", str(first))
    assert again["figures"]["pins_lost"] == ["A-1001"]
    other = _cli_json(capsys, "replay", str(first), "--pin", "T-4870")
    assert (other["figures"]["pins"], other["figures"]["pins_lost"]) == (1, ["T-4870"])  # given pins replace the file's


# ── the pins travel with the run file and the stored run ──────────────────────

def _pinned_record() -> RunRecord:
    record = load_record(TIGHT)
    return RunRecord(config=record.config.replace(pins=["A-1001", "<img src=x onerror=alert(1)>"],
                                                  pins_to_summarizer=True),
                     events=record.events, outcome=record.outcome, final_answer=record.final_answer,
                     trace=record.trace, scenario=record.scenario, name="pinned")


def test_the_pins_survive_the_run_file_and_a_file_from_before_pins_still_loads(tmp_path):
    record = _pinned_record()
    path = record.save(tmp_path / "pinned.json")
    back = load_record(path)
    assert back.config.pins == ["A-1001", "<img src=x onerror=alert(1)>"] and back.config.pins_to_summarizer
    assert figures(back.events).pins_lost == figures(record.events).pins_lost == ["A-1001"]
    raw = json.loads(TIGHT.read_text(encoding="utf-8"))
    before_pins = {**raw, "config": {k: v for k, v in raw["config"].items() if k not in ("pins", "pins_to_summarizer")}}
    old = tmp_path / "before-pins.json"  # a file written before pins existed
    old.write_text(json.dumps(before_pins), encoding="utf-8")
    assert load_record(old).config.pins == []
    raw["config"]["pins"] = [""]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(Exception, match="Pin 1 is empty"):
        load_record(bad)


def test_the_pins_survive_the_store(lab_db):
    from scratchpad_lab.engine.store import Store

    store = Store(lab_db)
    saved = store.save_run(_pinned_record())
    back = store.load(saved.id)
    assert back.config.pins == ["A-1001", "<img src=x onerror=alert(1)>"]
    assert figures(back.events).pins_kept_text == "0 of 1 pin kept (1 never compressed)"


# ── lessons and presets carry pins ───────────────────────────────────────────

LESSON = (ROOT / "src" / "scratchpad_lab" / "data" / "lessons" / "1-periodic.toml").read_text(encoding="utf-8")


def test_a_lesson_carries_pins_into_its_run_and_its_note_and_an_empty_one_is_refused(tmp_path):
    from scratchpad_lab.engine.run.lesson_runs import read_lesson
    from scratchpad_lab.model.datafile import DataFileError

    path = tmp_path / "pinned.toml"
    path.write_text(LESSON.replace("[settings]\n", '[settings]\npins = ["A-1001", "  T-4870 "]\n'), encoding="utf-8")
    lesson = read_lesson(path)
    assert lesson.config().pins == ["A-1001", "T-4870"]
    assert "It pins 2 texts that must survive" in lesson.settings_note
    path.write_text(LESSON.replace("[settings]\n", '[settings]\npins = ["A-1001", ""]\n'), encoding="utf-8")
    with pytest.raises(DataFileError, match=r"settings\.pins.*Pin 2 is empty"):
        read_lesson(path)


def test_a_preset_carries_pins_to_the_cli_and_one_without_carries_none(tmp_path, capsys, monkeypatch):
    from scratchpad_lab.model import presets as preset_file

    path = tmp_path / "presets.toml"
    path.write_text('[[presets]]\nname = "Pinned"\ndescription = "Tight, keeping the order."\nsummarize_every = 2\n'
                    'max_scratchpad_chars = 2_000\nextractive_budget_chars = 600\npins = ["A-1001"]\n\n'
                    '[[presets]]\nname = "Plain"\ndescription = "No pins."\n', encoding="utf-8")
    loaded = preset_file.load_presets(path)
    assert [p.pins for p in loaded.values()] == [("A-1001",), ()]
    monkeypatch.setattr(preset_file, "presets", lambda: loaded)
    got = _cli_json(capsys, "run", "--preset", "pinned")
    assert (got["figures"]["pins"], got["figures"]["pins_lost"]) == (1, ["A-1001"])
    assert _cli_json(capsys, "run", "--preset", "plain")["figures"]["pins"] == 0
    path.write_text('[[presets]]\nname = "Bad"\ndescription = "x"\npins = ["' + "x" * 201 + '"]\n', encoding="utf-8")
    with pytest.raises(Exception, match=r"presets\[1\]\.pins.*at most 200"):
        preset_file.load_presets(path)
