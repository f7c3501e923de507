"""Pins on the Strategies page (issue 34 item 2), in AppTest: the page shows the Playground's pins box (one set of
pins for both pages), the table gains "pins kept" and "pins to summarizer" rows only when pins were given, a lost
pin is named in its column as text, and with a scripted model the switch turns LangMem's lost pin into a kept one.
The strategies run as a job: a test reruns the page until it has ended (conftest.rerun_until)."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from conftest import ok, rerun_until
from fake_openai import FakeOpenAI, keeps_pins

from scratchpad_lab.ui.state import K_PINS, K_PINS_OPEN, K_PINS_TO_SUMMARIZER

PAYLOAD = "<img src=x onerror=alert(1)>"


def _page() -> AppTest:
    at = ok(AppTest.from_file("../pages/strategies.py", default_timeout=120).run())
    return ok(at.selectbox(key="strat_source").set_value("sample:support-ticket-tight.json").run())


def _run(at: AppTest):
    rerun_until(ok(at.button(key="strat_run").click().run()))
    assert not at.exception and not at.error
    return next(d.value for d in at.dataframe if "peak context tokens" in d.value.index)


def test_pins_from_the_box_are_checked_for_every_strategy_and_a_lost_one_is_named_as_text():
    at = _page()
    at.multiselect(key="strat_pick").set_value(["trim-only", "clear-tool-uses"]).run()
    at.number_input(key="strat_clear-tool-uses_trigger").set_value(500)
    at.number_input(key="strat_clear-tool-uses_keep").set_value(1).run()
    assert "pins kept" not in _run(at).index  # no pins: the table as before
    at.session_state[K_PINS_OPEN] = True  # the sidebar's Pins, opened (folded, its box is not drawn)
    at.run().sidebar.text_area(key=K_PINS).set_value(f"A-1001\n{PAYLOAD}").run()
    table = _run(at)
    assert table.loc["pins kept", "LangChain clear tool uses"] == "0 of 1 pin kept (1 never compressed)"
    assert table.loc["pins kept", "trim only"] == "2 pins, none in a compressed scratchpad"
    assert set(table.loc["pins to summarizer"]) == {"not a summarizer"}
    assert "pins lost: A-1001" in [t.value for t in at.text]
    assert not any(PAYLOAD in str(m.value) for m in at.markdown)  # the pin is never markup


def test_passing_pins_to_a_scripted_model_turns_langmem_s_lost_pin_into_a_kept_one():
    at = _page()
    with FakeOpenAI() as fake:
        fake.default = ("ok", keeps_pins)
        at.radio(key="strat_summarizer").set_value("endpoint").run()
        at.selectbox(key="strat_sum_ep_provider").set_value("custom").run()
        at.text_input(key="strat_sum_ep_base_url_custom").set_value(fake.url)
        at.text_input(key="strat_sum_ep_model_custom").set_value("scripted").run()
        at.multiselect(key="strat_pick").set_value(["trim-only", "langmem"]).run()
        at.number_input(key="strat_langmem_max_tokens").set_value(1500)
        at.number_input(key="strat_langmem_max_summary_tokens").set_value(300)
        at.session_state[K_PINS_OPEN] = True
        at.run().sidebar.text_area(key=K_PINS).set_value("A-1001").run()
        off = _run(at)
        at.session_state[K_PINS_OPEN] = True
        at.run().sidebar.toggle(key=K_PINS_TO_SUMMARIZER).set_value(True).run()
        on = _run(at)
    assert (off.loc["pins kept", "LangMem"], off.loc["pins to summarizer", "LangMem"]) == ("0 of 1 pin kept", "off")
    assert (on.loc["pins kept", "LangMem"], on.loc["pins to summarizer", "LangMem"]) == ("1 of 1 pin kept", "on")
    assert on.loc["pins to summarizer", "trim only"] == "not a summarizer"
