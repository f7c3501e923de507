"""What if... on the Strategies page (issue 34, item 4), in AppTest: under the autourgos middleware's result the
Playground's control forks that strategy's own run, and the fork is drawn beside it (both series on the size chart,
both runs' figures from the fork point on, where they first differ, its own link), is stored and opens from that
link on the Runs page; a LangMem result says in one line why it is not forked, with no control; and a fork of a
run summarized by a model is summarized by that model again. The strategies and the fork are jobs: a test reruns
the page until they have ended (conftest.rerun_until)."""
from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from conftest import APP, ok, rerun_until
from scratchpad_lab.analysis.figures import figures
from scratchpad_lab.engine.strategies.registry import fork_note
from scratchpad_lab.engine.tasks import ForkRequest, fork
from scratchpad_lab.ui.state import FORK_RESULT, STRAT_RESULT

SOURCE = "sample:support-ticket-tight.json"
TITLE = "sample · support-ticket-tight.json"  # the Strategies page's name for that trajectory
TIMED = ("summarizer_latency_s",)


def _untimed(row):
    return {k: v for k, v in json.loads(json.dumps(row)).items() if k not in TIMED}


def _strategies(picked) -> AppTest:
    """The Strategies page in the whole app (a fork's link needs the app's address), the picked strategies run."""
    at = ok(AppTest.from_file(APP, default_timeout=180).run())
    ok(at.switch_page("pages/strategies.py").run())
    ok(at.selectbox(key="strat_source").set_value(SOURCE).run())
    at.multiselect(key="strat_pick").set_value(picked).run()
    rerun_until(ok(at.button(key="strat_run").click().run()), what="the strategies")
    assert not at.error, [e.value for e in at.error]
    return at


def _compressions(events):
    return [int(e.iteration) for e in events if e.kind == "compression" and e.payload.status == "ok"]


def _fork(at: AppTest):
    at.button(key="strat_fork_go").click()
    rerun_until(ok(at.run()), what="the fork")
    return at.session_state[FORK_RESULT]


def test_what_if_forks_the_middlewares_run_beside_it_and_langmem_says_why_it_is_not_forked(lab_db):
    at = _strategies(["autourgos-middleware", "langmem"])
    shown = at.session_state[STRAT_RESULT]
    middleware = shown.results[0]
    at_choices = _compressions(middleware.events)
    # under the autourgos middleware: the Playground's own control, at its run's compressions
    assert len(at_choices) >= 2 and at.selectbox(key="strat_fork_at").options == [str(i) for i in at_choices]
    # LangMem: the one line where its control would be, and no button of its own
    texts = [t.value for t in at.text]
    assert fork_note("langmem") in texts
    assert "LangMem runs here inside the lab's own loop over the messages" in fork_note("langmem")
    assert [b.key for b in at.button if "fork" in (b.key or "")] == ["strat_fork_go"]

    forked = _fork(at)
    first = at_choices[0]
    assert forked.record.forked_from == {
        "parent_id": None, "parent_name": f"autourgos middleware on {TITLE}", "iteration": first, "skipped": True,
        "parent_settings": {"summarize_every": middleware.config.summarize_every,
                            "max_scratchpad_chars": middleware.config.max_scratchpad_chars}, "earlier": []}
    # the fork is the strategy's own run replayed: the engine's fork of that run, made here apart, is the same
    alone = fork(ForkRequest(shown.run_of(middleware), first, summarizer=shown.fork_summarizer(middleware))).run_here()
    assert _untimed(figures(forked.record.events).to_dict()) == _untimed(figures(alone.record.events).to_dict())
    # drawn beside it: both series on one size chart, the figures from the fork point on, where they first differ
    specs = [c.proto.spec for c in at.get("vega_lite_chart")]
    assert any('"domain": ["original", "fork"]' in spec for spec in specs)
    table = next(d.value for d in at.dataframe if "fork" in d.value.columns)
    c = forked.comparison
    assert list(table["original"])[:2] == [str(c.original.compressions), str(c.original.summarizer_calls)]
    assert list(table["fork"])[:2] == [str(c.fork.compressions), str(c.fork.summarizer_calls)]
    assert c.fork.compressions < c.original.compressions  # that compression was skipped
    assert f"The two first differ at iteration {first} (the fork point)." in [t.value for t in at.text]
    # stored, with its own link, which opens it on the Runs page
    links = [t.value for t in at.text if t.value.startswith("The fork's own link: ")]
    assert len(links) == 1 and "?run=" in links[0]
    run_id = links[0].rsplit("?run=", 1)[1]
    from scratchpad_lab.engine.tasks import Store
    assert Store().load(run_id).forked_from == forked.record.forked_from
    opened = AppTest.from_file(APP, default_timeout=60)
    opened.query_params["run"] = run_id
    ok(opened.run())
    notes = [t.value for t in opened.text if t.value.startswith("A fork of ")]
    assert notes == [f"A fork of autourgos middleware on {TITLE} at iteration {first} (that compression skipped): "
                     "the same steps replayed, a run of its own."]


def test_a_fork_of_a_run_a_model_summarized_is_summarized_by_that_model_again(lab_db):
    from fake_openai import FakeOpenAI

    with FakeOpenAI() as fake:
        fake.default = ("ok", "Summary: order A-1001, ticket T-5521.")
        at = ok(AppTest.from_file(APP, default_timeout=180).run())
        ok(at.switch_page("pages/strategies.py").run())
        ok(at.selectbox(key="strat_source").set_value(SOURCE).run())
        at.radio(key="strat_summarizer").set_value("endpoint").run()
        at.selectbox(key="strat_sum_ep_provider").set_value("custom").run()
        at.text_input(key="strat_sum_ep_base_url_custom").set_value(fake.url)
        at.text_input(key="strat_sum_ep_model_custom").set_value("fake-model").run()
        at.multiselect(key="strat_pick").set_value(["autourgos-middleware", "trim-only"]).run()
        rerun_until(ok(at.button(key="strat_run").click().run()), what="the strategies")
        assert not at.error, [e.value for e in at.error]
        asked = len(fake.requests)
        forked = _fork(at)
        asked_by_fork = len(fake.requests) - asked
    assert forked.record.config.summarizer.kind == "endpoint"
    assert asked_by_fork == figures(forked.record.events).summarizer_calls > 0  # every summary of the fork: its
    # the same model wrote the same summaries before the fork point: the two first differ where it forked
    assert f"The two first differ at iteration {forked.comparison.at} (the fork point)." in [t.value for t in at.text]
    # trim only makes no compression: its line says so, and it has no control
    assert fork_note("trim-only") in [t.value for t in at.text]
