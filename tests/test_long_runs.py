"""A long run in the playground (issue 15): the compression cards come a page at a time, newest first,
and the loss figures that replay the whole run are worked out when asked for."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from conftest import APP, rerun_until
from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.engine.run.runner import Run, Source
from scratchpad_lab.ui import loss, view
from scratchpad_lab.ui.state import PLAY_RUNS, PLAY_SHOWN
from synthetic import synthetic_trace


@pytest.fixture(scope="module")
def record():
    trace = synthetic_trace(steps=60, seed=7)
    return Run(RunConfig.build(scenario=None, summarizer="extractive"), Source.for_trace(trace),
               name="long run").run()


def _shown(monkeypatch, record) -> AppTest:
    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.session_state[PLAY_RUNS] = [record]
    at.session_state[PLAY_SHOWN] = 0
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _card_iterations(at: AppTest) -> list:
    """Iterations of the cards below the runs table (the first heading is the newest compression's, above)."""
    headings = [m.value for m in at.markdown if m.value.startswith("**Compression at iteration ")]
    return [int(h.split("**")[1].rsplit(" ", 1)[1]) for h in headings[1:]]


def test_a_long_run_shows_its_cards_a_page_at_a_time_newest_first(monkeypatch, record):
    comps = [e.iteration for e in record.events if e.kind == "compression"]
    assert len(comps) > 2 * view.CARDS_PER_PAGE, "the fixture run must need three pages"
    at = _shown(monkeypatch, record)
    assert f"Compressions ({len(comps)})" in [s.value for s in at.subheader]
    first = _card_iterations(at)
    assert first == comps[::-1][:view.CARDS_PER_PAGE]
    picker = at.number_input(key=f"shown_0_cards_page_{-(-len(comps) // view.CARDS_PER_PAGE)}")
    picker.set_value(2).run()
    assert _card_iterations(at) == comps[::-1][view.CARDS_PER_PAGE:2 * view.CARDS_PER_PAGE]


def test_the_loss_figures_of_a_long_run_are_worked_out_when_asked(monkeypatch, record):
    monkeypatch.setattr(loss, "LOSS_AUTO_STEPS", 10)
    at = _shown(monkeypatch, record)
    labels = [m.label for m in at.metric]
    assert "facts kept across compressions" in labels
    assert "context tokens saved" not in labels  # not replayed with compression off yet
    at.toggle(key="loss_0_detailed").set_value(True).run()
    rerun_until(at, lambda a: "context tokens saved" in [m.label for m in a.metric], what="the replay with compression off")
