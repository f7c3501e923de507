"""Pins on the Strategies replays (issue 34 item 2): every strategy's compressions are checked against the pins by
the one rule (analysis/pin_checks.py), each row gains the figures row's pin fields only when pins were given, and "pass
pins to the summarizer" reaches a package through its own prompt parameter: with a scripted model that keeps only
what it is asked (fake_openai.keeps_pins), the same strategy loses the pin with the switch off and keeps it on.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI, keeps_pins, prompt_of

from scratchpad_lab.cli import main
from scratchpad_lab.engine.strategies import ROW_KEYS, make_spec, run_strategies
from scratchpad_lab.engine.strategies.registry import NO_PROMPT_PARAMETER, NOT_A_SUMMARIZER, STRATEGIES, pins_switch
from scratchpad_lab.engine.strategies.result import PIN_KEYS
from scratchpad_lab.model.pins import ASK, MAX_PIN_CHARS, Pinned
from scratchpad_lab.model.records import load_record

ROOT = Path(__file__).resolve().parents[1]
TIGHT = ROOT / "sample_runs" / "support-ticket-tight.json"
PIN = "A-1001"   # the order id of the sample's ticket: in the conversation from its first tool results
# Settings under which each summarizes the sample's conversation (it peaks at about 2,500 tokens).
SUMMARIZING = {"langmem": {"max_tokens": 1500, "max_summary_tokens": 300},
               "langchain-summarization": {"trigger_tokens": 1500, "keep_messages": 4},
               "deepagents": {"trigger_tokens": 1500, "keep_messages": 4},
               "autourgos-middleware": {"summarize_every": 2}}


def _endpoint(server):
    from scratchpad_lab.engine.summarize.summarizers import build_summarizer
    from scratchpad_lab.model.endpoint import Endpoint
    from scratchpad_lab.model.summarizer import SummarizerChoice

    return build_summarizer(SummarizerChoice("endpoint", endpoint=Endpoint(base_url=server.url, model="scripted"),
                                             key="test-key"))


def _rows(names, pinned, server):
    specs = [make_spec(n, SUMMARIZING[n]) for n in names]
    return [r.row() for r in run_strategies(load_record(TIGHT), specs, _endpoint(server), pinned=pinned)]


def test_asking_keeps_the_pin_each_package_lost_without_through_its_own_prompt():
    names = ["langmem", "langchain-summarization", "deepagents", "autourgos-middleware"]
    with FakeOpenAI() as server:
        server.default = ("ok", keeps_pins)
        without = _rows(names, Pinned((PIN,), False), server)
        asked_before = len(server.requests)
        with_ = _rows(names, Pinned((PIN,), True), server)
        prompts = [prompt_of(json.loads(r["body"])) for r in server.requests]
    for off, on in zip(without, with_):
        assert off["summarizer_calls"] > 0 and on["summarizer_calls"] > 0, off["strategy"]
        assert (off["pins"], off["pins_met"], off["pins_kept"], off["pins_lost"]) == (1, 1, 0, [PIN]), off["strategy"]
        assert (on["pins_met"], on["pins_kept"], on["pins_lost"]) == (1, 1, []), on["strategy"]
        assert (off["pins_to_summarizer"], on["pins_to_summarizer"]) == (False, True)
    assert not any(ASK in p for p in prompts[:asked_before])     # off: no call asked for the pins
    asked = [p for p in prompts[asked_before:] if ASK in p]
    assert len(asked) == len(prompts) - asked_before == sum(r["summarizer_calls"] for r in with_)
    assert all(f"{ASK}\n- {PIN}" in p for p in asked)


def test_a_brace_in_a_pin_is_sent_as_written_in_a_package_s_own_prompt():
    from scratchpad_lab.engine.strategies.lang_mem import pin_prompts

    prompts = pin_prompts(Pinned((PIN, "use {braces}"), True))
    sent = prompts["existing_summary_prompt"].format_messages(messages=[], existing_summary="S")[-1].content
    assert sent.startswith("This is summary of the conversation so far: S")
    assert sent.endswith(f"{ASK}\n- {PIN}\n- use {{braces}}\n")
    assert prompts["initial_summary_prompt"].input_variables == []  # the conversation is still its only input


def test_every_strategy_names_its_prompt_or_why_the_switch_does_nothing():
    assert {n: pins_switch(n, True) for n in STRATEGIES} == {
        "autourgos-middleware": True, "autourgos-builtin": NO_PROMPT_PARAMETER, "trim-only": NOT_A_SUMMARIZER,
        "deepagents": True, "langmem": True, "clear-tool-uses": NOT_A_SUMMARIZER, "langchain-summarization": True,
        "recorded-compaction": "its summary is the recording's"}


def _cli(capsys, *argv):
    code = main(["strategies", str(TIGHT), *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_pin_adds_the_pin_fields_to_every_row_and_none_without(capsys):
    strategies = ["--strategy", "trim-only", "--strategy", "clear-tool-uses:trigger=500,keep=1",
                  "--strategy", "langmem:max_tokens=1500,max_summary_tokens=300"]
    code, out, err = _cli(capsys, *strategies, "--pin", PIN, "--pin", "not in this run", "--pins-to-summarizer",
                          "--json")
    assert code == 0, err
    rows = {r["strategy"]: r for r in json.loads(out)}
    for row in rows.values():
        assert tuple(row) == ROW_KEYS + PIN_KEYS + ("take_away",) and row["pins"] == 2
    assert rows["trim-only"]["pins_to_summarizer"] == rows["clear-tool-uses"]["pins_to_summarizer"] == NOT_A_SUMMARIZER
    assert rows["langmem"]["pins_to_summarizer"] is True
    assert rows["clear-tool-uses"]["pins_lost"] == [PIN]  # its placeholder replaced the tool results holding it
    code, out, _ = _cli(capsys, *strategies, "--json")
    assert code == 0 and all(tuple(r) == ROW_KEYS + ("take_away",) for r in json.loads(out))
    code, out, _ = _cli(capsys, *strategies[:4], "--pin", PIN)
    assert code == 0 and "pins 0 of 1 pin kept" in out and f"lost pins: {PIN}" in out


@pytest.mark.parametrize("pins, says", [
    ([" "], "Pin 1 is empty: write the text that must survive compression, or remove it."),
    (["x" * (MAX_PIN_CHARS + 1)], f"a pin may be at most {MAX_PIN_CHARS}"),
    ([f"pin {i}" for i in range(12)], "a summarizer prompt carries at most 10: remove 2."),
])
def test_cli_refuses_a_pin_over_a_limit_in_one_line_as_run_does(capsys, pins, says):
    code, _, err = _cli(capsys, "--strategy", "trim-only", *[a for p in pins for a in ("--pin", p)])
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("scratchpad-lab: error: ") and says in lines[0]
