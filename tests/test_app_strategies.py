"""The Strategies page in AppTest: bad settings get one message naming them and keep the last result."""
from streamlit.testing.v1 import AppTest

TIMEOUT = 180


def _page() -> AppTest:
    at = AppTest.from_file("../pages/strategies.py", default_timeout=TIMEOUT)
    at.run()
    assert not at.exception
    return at


def test_a_run_shows_one_column_per_strategy_and_a_bad_setting_keeps_it():
    at = _page()
    at.multiselect(key="strat_pick").set_value(["trim-only", "langmem"]).run()
    at.button(key="strat_run").click().run()
    assert not at.exception and not at.error
    texts = [t.value for t in at.text]
    assert sum(1 for t in texts if t.startswith("compressions: ")) == 2
    before = [t for t in texts if t.startswith("mean context tokens: ")]

    at.number_input(key="strat_langmem_max_summary_tokens").set_value(5000).run()
    at.button(key="strat_run").click().run()
    assert len(at.error) == 1 and "max_summary_tokens" in at.error[0].value
    assert [t.value for t in at.text if t.value.startswith("mean context tokens: ")] == before


def test_one_strategy_is_not_a_comparison():
    at = _page()
    at.multiselect(key="strat_pick").set_value(["langmem"]).run()
    at.button(key="strat_run").click().run()
    assert len(at.error) == 1 and "at least two" in at.error[0].value
