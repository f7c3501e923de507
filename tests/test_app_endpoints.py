"""The endpoint settings in the page: the key rule as a visitor meets it, and "Test connection"."""
import json
import re
import time

import pytest
from streamlit.testing.v1 import AppTest

from conftest import active_run, APP, rerun_until, ROOT
from fake_openai import FakeOpenAI
from inert_html import outside_code_spans
from scratchpad_lab.ui.markup import escape as plain  # the one escape for text put into markdown

SERVER_KEY = "sk-server-own-ui-4e5f"
ANSWER = json.dumps({"thought": "done", "actions": [], "final_answer": "Order A-1001."})


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        yield fake


def _agent_endpoint(at, provider, url, key_env=None, typed=None):
    at.sidebar.selectbox(key="play_agent").set_value("endpoint").run()
    at.sidebar.selectbox(key="play_agent_ep_provider").set_value(provider).run()
    at.sidebar.text_input(key=f"play_agent_ep_base_url_{provider}").set_value(url)
    at.sidebar.text_input(key=f"play_agent_ep_model_{provider}").set_value("tiny")
    if key_env is not None:
        at.sidebar.text_input(key=f"play_agent_ep_key_env_{provider}").set_value(key_env)
    if typed is not None:
        at.sidebar.text_input(key="play_agent_ep_key").set_value(typed)
    return at.run()


def _run_to_the_end(at):
    at.button(key="play_run").click().run()
    rerun_until(at, lambda a: active_run(a) is None, what="the run", wait_on=active_run)
    return at.session_state["play_runs"][-1]


@pytest.mark.parametrize("provider", ["custom", "openai"])
def test_a_base_url_the_visitor_chose_gets_no_server_key_even_when_they_name_its_variable(server, monkeypatch,
                                                                                         provider):
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
    server.default = ("ok", ANSWER)
    at = AppTest.from_file(APP, default_timeout=60).run()
    at = _agent_endpoint(at, provider, server.url, key_env="OPENAI_API_KEY")
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any(plain("OPENAI_API_KEY belongs to https://api.openai.com/v1, so it is not sent") in c.value
               for c in at.sidebar.caption)
    record = _run_to_the_end(at)
    assert record.outcome == "answered"
    sent = [r["headers"].get("authorization") for r in server.requests]
    assert sent and all(a == "Bearer no-key" for a in sent)
    at.sidebar.text_input(key="play_agent_ep_key").set_value("sk-typed-by-visitor").run()
    _run_to_the_end(at)
    assert server.requests[-1]["headers"]["authorization"] == "Bearer sk-typed-by-visitor"


def _test_connection(at):
    at.sidebar.button(key="play_agent_ep_test").click().run()
    assert not at.exception
    return [e.value for e in at.sidebar.success], [e.value for e in at.sidebar.error]


def test_test_connection_says_ok_with_one_tiny_call(server):
    at = _agent_endpoint(AppTest.from_file(APP, default_timeout=60).run(), "custom", server.url, typed="sk-t")
    ok, bad = _test_connection(at)
    assert len(ok) == 1 and ok[0].startswith(plain(f"OK: tiny @ {server.url} answered")) and not bad
    assert len(server.requests) == 1 and json.loads(server.requests[0]["body"])["max_tokens"] == 1
    assert "sk-t" not in ok[0]


def test_test_connection_says_the_key_was_refused(server):
    server.default = ("status", 401)
    at = _agent_endpoint(AppTest.from_file(APP, default_timeout=60).run(), "custom", server.url,
                         typed="sk-wrong-77")
    ok, bad = _test_connection(at)
    assert not ok and len(bad) == 1 and plain("refused the key (401)") in bad[0] and "sk-wrong-77" not in bad[0]
    assert len(server.requests) == 1


def test_test_connection_on_a_closed_port_says_it_cannot_reach_it_fast():
    at = _agent_endpoint(AppTest.from_file(APP, default_timeout=60).run(), "custom", "http://127.0.0.1:9/v1")
    started = time.monotonic()
    ok, bad = _test_connection(at)
    assert time.monotonic() - started < 3 + 2  # one script run with one refused connection
    assert not ok and bad == [plain("Cannot reach http://127.0.0.1:9/v1. Check the base URL and that the server "
                                    "is running.")]


def test_a_base_url_carrying_markdown_is_shown_as_typed_never_as_a_link_or_image():
    payload = "http://127.0.0.1:9/v1/![x](http://example.invalid/a.png)<img src=x onerror=alert(1)>"
    at = _agent_endpoint(AppTest.from_file(APP, default_timeout=60).run(), "custom", payload,
                         key_env="OPENAI_API_KEY")
    _, bad = _test_connection(at)
    shown = bad + [c.value for c in at.sidebar.caption]
    assert len(bad) == 1 and any("example" in t for t in shown)
    assert "`http://127.0.0.1:9/v1/![x](http://example.invalid/a.png)<img`" in bad[0], bad  # a code span: literal
    for text in shown:  # outside the code spans no character markdown could act on is left as itself
        assert re.search(r"[!\[\]()<>:*_`]", outside_code_spans(text)) is None, text


def test_compare_of_an_uploaded_record_with_a_loopback_summarizer_shows_a_sentence_in_hosted_mode(monkeypatch):
    monkeypatch.setenv("SCRATCHPAD_LAB_HOSTED", "1")
    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    record = json.loads((ROOT / "sample_runs" / "support-ticket-defaults.json").read_text())
    record["config"].update(summarizer="endpoint", summarizer_endpoint={
        "provider": "custom", "base_url": "https://127.0.0.1/v1", "model": "m"})
    at = AppTest.from_file(APP, default_timeout=60).run()
    at = at.switch_page("pages/compare.py").run()
    at.file_uploader(key="cmp_upload").upload("loopback.json", json.dumps(record).encode(), "application/json")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    rerun_until(at.button(key="cmp_run").click().run())  # the comparison is a job
    shown = [e.value for e in at.error] + [t.value for t in at.text]
    if at.session_state["cmp_result"] is None:  # the recorded endpoint was tried: refused, in one sentence
        assert any("may not point at 127.0.0.1" in t for t in shown), shown


def test_a_configured_summarizer_endpoint_survives_choosing_another_summarizer_and_another_page():
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.sidebar.selectbox(key="play_summarizer").set_value("endpoint").run()
    at.sidebar.selectbox(key="play_sum_ep_provider").set_value("custom").run()
    at.sidebar.text_input(key="play_sum_ep_base_url_custom").set_value("http://127.0.0.1:9/v1")
    at.sidebar.text_input(key="play_sum_ep_model_custom").set_value("my-model").run()
    at.sidebar.selectbox(key="play_summarize_every").set_value(3).run()

    def shown():
        assert not at.exception, [e.value for e in at.exception]
        return (at.sidebar.selectbox(key="play_summarizer").value, at.sidebar.selectbox(key="play_sum_ep_provider").value,
                at.sidebar.text_input(key="play_sum_ep_base_url_custom").value,
                at.sidebar.text_input(key="play_sum_ep_model_custom").value,
                at.sidebar.selectbox(key="play_summarize_every").value)

    configured = ("endpoint", "custom", "http://127.0.0.1:9/v1", "my-model", 3)
    assert shown() == configured
    at.sidebar.selectbox(key="play_summarizer").set_value("extractive").run()  # away ...
    at.sidebar.selectbox(key="play_summarizer").set_value("endpoint").run()    # ... and back
    assert shown() == configured, "not reset to the OpenAI defaults"
    at.switch_page("pages/compare.py").run()
    at.switch_page("pages/playground.py").run()
    assert shown() == configured, "the playground's settings survive a visit to another page"
