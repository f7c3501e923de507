"""Pins on the Playground (issue 34 item 2), through the real app with AppTest and the scripted agent: a typed pin
that a compression lost is flagged in the status row and on its card; a lost fact and a line of the scratchpad
are pinned with one click; with "Pass pins to the summarizer" on and a scripted model the same run keeps the pin,
and the page shows both runs' counts; a pin that is markup stays text.
"""
from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from conftest import APP, active_run, ok, rerun_until
from fake_openai import FakeOpenAI, keeps_pins
from inert_html import html_texts

from scratchpad_lab.ui.state import K_PINS, K_PINS_OPEN

ROOT = Path(__file__).resolve().parents[1]
TIGHT = ROOT / "sample_runs" / "support-ticket-tight.json"
PAYLOAD = "<img src=x onerror=alert(1)>"


def _open(monkeypatch, samples=None) -> AppTest:
    if samples is None:
        monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    else:
        monkeypatch.setenv("SCRATCHPAD_LAB_SAMPLES", str(samples))
    return ok(AppTest.from_file(APP, default_timeout=60).run())


def _run(at: AppTest) -> None:
    ok(at.button(key="play_run").click().run())
    rerun_until(at, lambda a: active_run(a) is None, what="the run", wait_on=active_run)
    ok(at)


def _badges(at: AppTest) -> list:
    return [str(m.value) for m in at.markdown if "-badge[" in str(m.value)]


def _pins_open(at: AppTest) -> AppTest:
    """The person opens the sidebar's Pins (folded, its box and switch are not drawn)."""
    at.session_state[K_PINS_OPEN] = True
    return at.run()


def _setup(at: AppTest, pins: str) -> None:
    _pins_open(at)
    at.sidebar.selectbox(key="play_preset").set_value("Tight (2 / 2,000)").run()
    at.sidebar.select_slider(key="play_pacing").set_value("instant").run()
    at.sidebar.text_area(key=K_PINS).input(pins).run()


def test_a_lost_pin_is_flagged_in_the_status_row_and_on_its_card_and_a_lost_fact_is_pinned_in_one_click(monkeypatch):
    at = _open(monkeypatch)
    _setup(at, "A-1001\nnot in this run")
    _run(at)
    badges = _badges(at)
    assert ":red-badge[0 of 1 pin kept]" in badges  # the status row, kept to one line: its help says the rest
    assert any(m.proto.help.startswith("0 of 1 pin kept (1 never compressed).") for m in at.markdown
               if "-badge[" in str(m.value))
    assert any(e.label == "Pins: 2 must survive" for e in at.sidebar.expander)  # folded or open, it counts them
    assert any("lost 1 of 1 pin]" in b for b in badges)                  # the card that lost it
    assert any("Pins lost:" in t and "A-1001" in t for t in html_texts(at))
    # pin a fact a card lost: it joins the pins in the sidebar
    card = next(s for s in at.selectbox if s.label == "Pin a fact it lost")
    fact = next(o for o in card.options if o != "A-1001")
    card.set_value(fact).run()
    at.button(key=card.key.removesuffix("_pick") + "_pin").click().run()
    assert _pins_open(at).sidebar.text_area(key=K_PINS).value.splitlines() == ["A-1001", "not in this run", fact]
    # and a line of the scratchpad
    line = at.selectbox(key="play_pin_line_0_pick")
    line.set_value(line.options[1]).run()
    ok(at.button(key="play_pin_line_0_pin").click().run())
    assert _pins_open(at).sidebar.text_area(key=K_PINS).value.splitlines()[-1] == line.options[1]


def test_with_the_switch_on_a_scripted_model_keeps_the_pin_it_lost_and_the_page_shows_both(monkeypatch):
    with FakeOpenAI() as server:
        server.default = ("ok", keeps_pins)
        at = _open(monkeypatch)
        _setup(at, "A-1001")
        at.sidebar.selectbox(key="play_summarizer").set_value("endpoint").run()
        at.sidebar.selectbox(key="play_sum_ep_provider").set_value("custom").run()
        at.sidebar.text_input(key="play_sum_ep_base_url_custom").set_value(server.url)
        at.sidebar.text_input(key="play_sum_ep_model_custom").set_value("scripted")
        ok(at.run())
        _run(at)
        assert ":red-badge[0 of 1 pin kept]" in _badges(at)
        ok(_pins_open(at).sidebar.toggle(key="play_pins_to_summarizer").set_value(True).run())
        _run(at)
        assert ":green-badge[1 of 1 pin kept]" in _badges(at)
        table = next(d.value for d in at.dataframe if "pins kept" in d.value.columns)
        assert list(table["pins kept"]) == ["0 of 1 pin kept", "1 of 1 pin kept"]  # both runs, side by side


def test_a_pin_that_is_markup_stays_text_on_the_card_and_in_the_sidebar(monkeypatch, tmp_path):
    raw = json.loads(TIGHT.read_text(encoding="utf-8"))
    raw["config"]["pins"] = [PAYLOAD]
    first = next(e for e in raw["events"] if e["kind"] == "compression" and e["data"]["status"] == "ok")
    first["data"]["before"] = PAYLOAD + "\n" + first["data"]["before"]
    (tmp_path / "hostile.json").write_text(json.dumps(raw), encoding="utf-8")
    at = _open(monkeypatch, tmp_path)
    at.selectbox(key="play_sample_pick").set_value("hostile.json").run()
    ok(at.button(key="play_sample_open").click().run())
    texts = html_texts(at)  # each checked to be our inert elements around text
    assert any("Pins lost:" in t and PAYLOAD in t for t in texts)
    assert not any("onerror" in str(m.value) for m in at.markdown)
