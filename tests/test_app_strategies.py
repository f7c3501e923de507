"""The Strategies page in AppTest: bad settings get one message naming them and keep the last result.
The strategies run as a job: a test reruns the page until it has ended (conftest.rerun_until)."""
from streamlit.testing.v1 import AppTest

from scratchpad_lab.ui.markup import escape
from conftest import rerun_until

TIMEOUT = 180


def _page() -> AppTest:
    at = AppTest.from_file("../pages/strategies.py", default_timeout=TIMEOUT)
    at.run()
    assert not at.exception
    return at


def test_a_run_shows_one_column_per_strategy_and_a_bad_setting_keeps_it():
    at = _page()
    at.multiselect(key="strat_pick").set_value(["trim-only", "langmem"]).run()
    rerun_until(at.button(key="strat_run").click().run())
    assert not at.exception and not at.error
    texts = [t.value for t in at.text]
    assert sum(1 for t in texts if t.startswith("compressions: ")) == 2
    before = [t for t in texts if t.startswith("mean context tokens: ")]

    at.number_input(key="strat_langmem_max_summary_tokens").set_value(5000).run()
    at.button(key="strat_run").click().run()
    assert len(at.error) == 1 and escape("max_summary_tokens") in at.error[0].value
    assert [t.value for t in at.text if t.value.startswith("mean context tokens: ")] == before


def test_one_strategy_is_not_a_comparison():
    at = _page()
    at.multiselect(key="strat_pick").set_value(["langmem"]).run()
    at.button(key="strat_run").click().run()
    assert len(at.error) == 1 and "at least two" in at.error[0].value


def test_a_model_endpoint_can_write_every_strategys_summaries():
    from fake_openai import FakeOpenAI

    at = _page()
    with FakeOpenAI() as fake:
        fake.default = ("ok", "Summary: order A-1001, ticket T-5521.")
        at.radio(key="strat_summarizer").set_value("endpoint").run()
        at.selectbox(key="strat_sum_ep_provider").set_value("custom").run()
        at.text_input(key="strat_sum_ep_base_url_custom").set_value(fake.url)
        at.text_input(key="strat_sum_ep_model_custom").set_value("fake-model").run()
        at.multiselect(key="strat_pick").set_value(["autourgos-middleware", "trim-only"]).run()
        rerun_until(at.button(key="strat_run").click().run())
        assert not at.exception and not at.error
        asked = len(fake.requests)
    calls = [t.value for t in at.text if t.value.startswith("summarizer calls: ")]
    assert asked > 0 and calls[0] == f"summarizer calls: {asked}" and calls[1] == "summarizer calls: 0"
