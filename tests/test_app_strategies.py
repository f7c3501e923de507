"""The Strategies page in AppTest: bad settings get one message naming them and keep the last result.
The strategies run as a job: a test reruns the page until it has ended (conftest.rerun_until)."""
import html
from pathlib import Path

from streamlit.testing.v1 import AppTest

from scratchpad_lab.ui.markup import escape
from scratchpad_lab.ui.setting_words import label_words, sentence_words
from scratchpad_lab.ui.state import STRAT_REC_JOB, STRAT_RECOMMEND
from conftest import APP, live_job, rerun_until

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
    assert asked > 0 and calls[0] == f"summarizer calls: {asked}" and calls[1] == "summarizer calls: 0 ★"


def test_the_table_marks_each_rows_best_among_those_that_cut_and_says_why_a_strategy_never_compressed():
    at = _page()
    at.multiselect(key="strat_pick").set_value(["trim-only", "deepagents", "langmem"]).run()
    rerun_until(at.button(key="strat_run").click().run())  # a job: its table is drawn once it has ended
    assert not at.exception and not at.error
    table = next(d.value for d in at.dataframe if "peak context tokens" in d.value.index)
    assert table.loc["peak, % of no compression", "deepagents"] == "100%", "deepagents never fires at 170,000 tokens"
    assert table.loc["peak context tokens"].str.endswith("★").sum() == 1
    # deepagents cut nothing: its 100 % is doing nothing, not the best, so the ★ goes among those that cut
    assert table.loc["facts at the answer", "deepagents"] == "100%"
    assert not table["deepagents"].str.endswith("★").any()
    assert table.loc["facts at the answer", "trim only"].endswith("★")
    why = [i.value for i in at.info if i.value.startswith("With these settings deepagents")]
    assert why and "170,000 tokens" in why[0] and "this trajectory peaks at " in why[0]
    assert why[0].endswith(" tokens by that count."), why[0]  # deepagents' own count, not chars / 4


def test_a_verdict_names_the_strategy_to_use_and_what_was_sent_is_two_side_by_side():
    at = _page()
    at.multiselect(key="strat_pick").set_value(["autourgos-middleware", "trim-only", "deepagents", "langmem"]).run()
    rerun_until(at.button(key="strat_run").click().run())
    assert not at.exception and not at.error
    table = next(d.value for d in at.dataframe if "peak context tokens" in d.value.index)
    said = [html.unescape(m.value) for m in at.markdown if html.unescape(m.value).startswith("**Verdict: ")]
    assert len(said) == 1, [m.value for m in at.markdown]
    # the sentence names the table's ★ of facts at the answer and of the peak, and deepagents as doing nothing
    keeps = next(c for c in table.columns if table.loc["facts at the answer", c].endswith("★"))
    small = next(c for c in table.columns if table.loc["peak, % of no compression", c].endswith("★"))
    assert f"to keep the facts, {keeps} (" in said[0] or f"{keeps} keeps the most" in said[0], said[0]
    assert small in said[0] and "deepagents cut nothing here" in said[0], said[0]
    # what each strategy sent: two at a time, whichever two are picked
    sent = [t.value for t in at.text if t.value.endswith(" chars") and " tokens, " in t.value]
    assert [t.split(":")[0] for t in sent] == ["autourgos middleware", "trim only"], sent
    at.selectbox(key="strat_sent_a").set_value("langmem").run()
    at.selectbox(key="strat_sent_b_langmem").set_value("deepagents").run()
    sent = [t.value for t in at.text if t.value.endswith(" chars") and " tokens, " in t.value]
    assert [t.split(":")[0] for t in sent] == ["LangMem", "deepagents"], sent


def _strategies_in_app() -> AppTest:
    """The Strategies page inside the whole app (its page links need app.py's navigation)."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page("pages/strategies.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_recommend_shows_the_front_opens_a_point_as_a_run_and_applies_it_in_the_playground():
    from scratchpad_lab.ui.state import K_CAP, K_EVERY, K_TRIM

    at = _strategies_in_app()
    at.toggle(key="strat_rec_on").set_value(True).run()
    at.multiselect(key="strat_rec_pick").set_value(["trim-only", "clear-tool-uses", "autourgos-middleware"]).run()
    rerun_until(at.button(key="strat_rec_run").click().run())  # the search is a job
    assert not at.exception and not at.error
    front = next(d.value for d in at.dataframe if "why" in d.value.columns)
    assert len(front) >= 2 and all(w.startswith("keeps ") for w in front["why"])
    found = at.session_state["strat_recommend"][1]  # one pick per budget, each sentence on the page
    texts = [t.value for t in at.text]
    labels = [p.cli_arg() for p in found.points]  # said in words on the page (ui/setting_words.py)
    assert len(found.chosen) == 3 and all(sentence_words(c.sentence, labels) in texts for c in found.chosen)
    opener = at.selectbox(key="strat_rec_open")
    middleware = next(o for o in opener.options if o.lstrip("★ ").startswith("autourgos middleware ("))
    point = next(p for p in found.points if label_words(p.cli_arg()) == middleware.lstrip("★ "))
    rerun_until(opener.select(middleware).run())  # opening a point is a job too
    assert any(t.value.startswith("Periodic trigger") for t in at.text), "the run view's trigger panel is drawn"
    at.button(key="strat_rec_use").click().run()
    assert not at.exception, [e.value for e in at.exception]  # the link to the Playground is drawn
    every = point.settings["summarize_every"]
    assert at.session_state[K_EVERY] == ("off" if every is None else int(every))
    assert at.session_state[K_CAP] == int(point.settings["max_scratchpad_chars"])
    assert at.session_state[K_TRIM] == 15_000
    # Issue 30 item 13: the hand-off carries the trajectory's scenario, the preset reads Custom (unless the
    # settings are a preset's), and the message speaks the sidebar's words, not the CLI's syntax.
    from scratchpad_lab.ui.sidebar_settings import CUSTOM_PRESET, preset_label_for
    from scratchpad_lab.ui.state import K_BUDGET, K_PRESET, K_SCENARIO
    recorded = at.session_state["strat_source"].split(":", 1)[1]
    from scratchpad_lab.model.records import load_record
    scenario = load_record(Path(APP).parent / "sample_runs" / recorded).scenario
    assert at.session_state[K_SCENARIO] == scenario
    assert at.session_state[K_PRESET] == preset_label_for(at.session_state[K_EVERY], at.session_state[K_CAP],
                                                          at.session_state[K_BUDGET])
    [said] = [s.value for s in at.success]
    assert "summarize_every" not in said and "autourgos" not in said
    assert escape(f"runs the {scenario} scenario") in said and escape("Summarize every N iterations") in said
    at.switch_page("pages/playground.py").run()
    assert not at.exception
    assert at.sidebar.selectbox(key=K_SCENARIO).value == scenario
    preset = at.sidebar.selectbox(key=K_PRESET).value
    assert preset == CUSTOM_PRESET or preset.startswith(("Defaults", "Tight", "Size only", "Off"))
    if preset == CUSTOM_PRESET:
        assert at.sidebar.selectbox(key=K_EVERY).value == at.session_state[K_EVERY]


def test_a_wrong_grid_is_named_and_no_search_starts_until_it_is_fixed():
    at = _strategies_in_app()
    at.toggle(key="strat_rec_on").set_value(True).run()
    at.multiselect(key="strat_rec_pick").set_value(["trim-only"]).run()
    at.toggle(key="strat_rec_edit").set_value(True).run()
    at.text_input(key="strat_rec_grid_trim-only").set_value("agent_trim_char=4000").run()
    assert len(at.error) == 1 and escape("unknown key 'agent_trim_char'") in at.error[0].value
    assert escape("its keys are agent_trim_chars") in at.error[0].value  # says what to write instead
    assert at.button(key="strat_rec_run").disabled
    at.text_input(key="strat_rec_grid_trim-only").set_value("agent_trim_chars=4000|9000").run()
    assert not at.error and not at.button(key="strat_rec_run").disabled
    rerun_until(at.button(key="strat_rec_run").click().run())
    found = at.session_state[STRAT_RECOMMEND][1]
    assert [p.cli_arg() for p in found.points] == ["trim-only:agent_trim_chars=4000", "trim-only:agent_trim_chars=9000"]


def test_a_search_over_the_work_limit_is_refused_before_it_starts(monkeypatch):
    from scratchpad_lab.engine import limits

    at = _strategies_in_app()
    at.toggle(key="strat_rec_on").set_value(True).run()
    monkeypatch.setitem(limits.BUDGETS, "cpu_s", (1e-6, 1e-6))  # the one check (engine/limits.py) refuses any job
    at.button(key="strat_rec_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert [e.value for e in at.error] == ["The search could not run on this trajectory."]
    assert any("a job may take" in t.value for t in at.text)  # what it would cost, and what to change
    assert live_job(at, STRAT_REC_JOB) is None and STRAT_RECOMMEND not in at.session_state  # nothing started


def test_recommends_tables_give_each_points_kinds_problems_and_the_sidebars_pins_kept():
    """Issue 34: the front's table and the table of every point give each point's facts kept by kind, compressions
    with a problem and (the sidebar's Pins holding a pin) pins kept, in the words the Strategies table gives the
    same strategy, settings and pins."""
    from scratchpad_lab.analysis.figures import LABELS
    from scratchpad_lab.engine.strategies import make_spec, run_strategies
    from scratchpad_lab.model.pins import Pinned
    from scratchpad_lab.model.records import load_record
    from scratchpad_lab.ui.state import K_PINS, K_PINS_OPEN
    from scratchpad_lab.ui.strategies_page import table_texts

    at = _strategies_in_app()
    at.selectbox(key="strat_source").set_value("sample:support-ticket-tight.json").run()
    at.session_state[K_PINS_OPEN] = True  # the sidebar's Pins, opened
    at.run().sidebar.text_area(key=K_PINS).set_value("A-1001").run()
    at.toggle(key="strat_rec_on").set_value(True).run()
    at.multiselect(key="strat_rec_pick").set_value(["clear-tool-uses"]).run()
    at.toggle(key="strat_rec_edit").set_value(True).run()
    at.text_input(key="strat_rec_grid_clear-tool-uses").set_value("trigger=500|100000,keep=1").run()
    rerun_until(at.button(key="strat_rec_run").click().run())
    assert not at.exception and not at.error, [e.value for e in at.exception]
    words = [LABELS["kept_by_kind"], LABELS["health"], LABELS["pins"]]
    front = next(d.value for d in at.dataframe if "why" in d.value.columns)
    every = next(d.value for d in at.dataframe if "front" in d.value.columns and "why" not in d.value.columns)
    assert list(front.columns) == ["strategy", "settings", *words, "why"]
    assert list(every["settings"]) == ["Clear when over (tokens): 500; Newest tool results kept: 1",
                                       "Clear when over (tokens): 100,000; Newest tool results kept: 1"]
    assert list(front["settings"]) == ["Clear when over (tokens): 500; Newest tool results kept: 1"]
    found = at.session_state["strat_recommend"][1]
    assert "Every point was checked against the 1 pin of the sidebar's Pins, as Run strategies checks every " \
           "strategy." in [t.value for t in at.text]
    record = load_record(Path(APP).parent / "sample_runs" / "support-ticket-tight.json")
    for row, point in zip(every.to_dict("records"), found.points):
        spec = make_spec(point.strategy, point.settings)
        [column] = table_texts(run_strategies(record, [spec], pinned=Pinned(("A-1001",)))).values()
        assert [row[w] for w in words] == [column[w] for w in words], row["settings"]
    assert list(every[LABELS["pins"]]) == ["0 of 1 pin kept", "1 pin, none in a compressed scratchpad"]
    assert every[LABELS["kept_by_kind"]][1] == "no compression happened"
    assert front[LABELS["kept_by_kind"]][0].startswith("of the tool results it cleared: ids 0%")
