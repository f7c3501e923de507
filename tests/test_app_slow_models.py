"""Slow models (issue 21): the per-call timeout and the run's wall clock are endpoint settings with their
bounds, and while a model call is in flight the status says what the run waits for and for how long.
Through the real app with AppTest and the in-process fake chat server; bounded polling, no fixed sleep."""
from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from fake_openai import FakeOpenAI
from scratchpad_lab.model.endpoint import Endpoint
from scratchpad_lab.ui.state import K_ADVANCED
from conftest import APP



@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        yield fake


def _summarizer_on(at: AppTest, url: str) -> AppTest:
    at.sidebar.selectbox(key="play_summarizer").set_value("endpoint").run()
    at.sidebar.selectbox(key="play_sum_ep_provider").set_value("custom").run()
    at.sidebar.text_input(key="play_sum_ep_base_url_custom").set_value(url)
    at.sidebar.text_input(key="play_sum_ep_model_custom").set_value("slow-model").run()
    at.sidebar.select_slider(key="play_pacing").set_value("instant").run()
    at.session_state[K_ADVANCED] = True  # Max iterations is an Advanced setting: drawn while it is open
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _metrics(at: AppTest) -> dict:
    return {m.label: str(m.value) for m in at.metric}


def _poll(at: AppTest, done, rounds: int = 400):
    for _ in range(rounds):
        at.run()
        found = done(at)
        if found:
            return found
        run = at.session_state["play_active_run"]
        if run is None:
            return done(at)
        run.join(0.05)
    return done(at)


def test_the_per_call_timeout_and_the_wall_clock_are_bounded_endpoint_settings(server):
    at = _summarizer_on(AppTest.from_file(APP, default_timeout=60).run(), server.url)
    timeout = at.sidebar.number_input(key="play_sum_ep_timeout")
    assert (timeout.value, timeout.min, timeout.max) == (60, *map(int, Endpoint.bounds("timeout_s")))  # as today
    wall = at.sidebar.number_input(key="play_wall_clock")
    assert wall.label == "Run's wall clock (s)" and wall.value == 300
    timeout.set_value(7).run()
    at.sidebar.number_input(key="play_wall_clock").set_value(120).run()
    at.sidebar.number_input(key="play_max_iterations").set_value(2).run()
    at.button(key="play_run").click().run()
    _poll(at, lambda a: a.session_state["play_active_run"] is None)
    config = at.session_state["play_runs"][-1].config
    assert config.summarizer.endpoint.timeout_s == 7 and config.wall_clock_s == 120


def test_a_call_over_its_timeout_says_to_raise_the_per_call_timeout(server):
    server.default = ("stall", 10)
    at = _summarizer_on(AppTest.from_file(APP, default_timeout=60).run(), server.url)
    at.sidebar.number_input(key="play_sum_ep_timeout").set_value(1).run()
    at.sidebar.number_input(key="play_max_iterations").set_value(6).run()
    at.button(key="play_run").click().run()
    _poll(at, lambda a: a.session_state["play_active_run"] is None, rounds=600)
    record = at.session_state["play_runs"][-1]
    errors = [e.data.get("error") or "" for e in record.events if e.kind == "compression"]
    assert errors and "did not answer within 1 s" in errors[0] and "per-call timeout" in errors[0], errors


def test_while_the_summarizer_is_called_the_status_says_it_waits_for_it_and_how_long(server):
    server.delay = 2.5  # every call takes 2.5 s
    server.default = ("ok", "Key findings:\n- short")
    at = _summarizer_on(AppTest.from_file(APP, default_timeout=60).run(), server.url)
    at.sidebar.selectbox(key="play_summarize_every").set_value(2).run()
    at.sidebar.number_input(key="play_max_iterations").set_value(3).run()
    at.button(key="play_run").click().run()

    def waiting(a):
        label, value = next(((k, v) for k, v in _metrics(a).items() if k.startswith("status")), (None, None))
        return (label, value) if label == "status: waiting for the summarizer" and value != "0 s" else None

    found = _poll(at, waiting)
    assert found, _metrics(at)
    assert re.fullmatch(r"\d+ s", found[1]) and int(found[1][:-2]) >= 1, found
    _poll(at, lambda a: a.session_state["play_active_run"] is None, rounds=600)
    at.run()
    assert _metrics(at).get("status") in ("answered", "out of iterations"), _metrics(at)  # the wait is over
