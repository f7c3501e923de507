"""Issue 20: one endpoint client under every model call, the LangChain strategies included.

Every server here is the in-process fake (tests/fake_openai.py) on 127.0.0.1: it redirects, drips one
byte at a time, sends 5 MB, or echoes the Authorization header back in its 401.
"""
import json
import os
import threading
import time
from pathlib import Path

import pytest

from conftest import rerun_until

from fake_openai import STEP, FakeOpenAI
from scratchpad_lab.cli import main
from scratchpad_lab.engine.net.providers import EndpointLLM, scrub
from scratchpad_lab.engine.run.runner import Run, Source
from scratchpad_lab.engine.strategies import BuiltSummarizer, make_spec, run_strategies
from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.model.endpoint import Endpoint, EndpointError
from synthetic import synthetic_trace

SECRET = "sk-planted-secret-7f3a9c"
MESSAGE_STRATEGIES = ["deepagents:trigger_tokens=3000,keep_messages=4",
                      "langmem:max_tokens=1500,max_summary_tokens=256,max_tokens_before_summary=2000"]


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def trace_file(tmp_path):
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(synthetic_trace(steps=16, seed=12, max_observation_chars=2500).to_dict()))
    return path


def _strategies_cli(server, trace_file, *extra):
    argv = ["strategies", str(trace_file), "--json", "--summarizer-model", "m", "--summarizer-base-url", server.url,
            "--api-key-env", "MY_SECRET", *extra]
    for spec in MESSAGE_STRATEGIES:
        argv += ["--strategy", spec]
    return main(argv)


def _socket_count() -> int:
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            count += os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")
        except OSError:
            pass
    return count


def _settles(check, within_s: float = 10.0) -> bool:
    end = time.monotonic() + within_s
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.05)
    return check()


# ── the LangChain strategies go through the lab's client ───────────────────────────────────────

def test_a_redirect_on_the_langchain_path_is_refused_and_never_followed(server, trace_file, monkeypatch, capsys):
    monkeypatch.setenv("MY_SECRET", SECRET)
    with FakeOpenAI() as target:
        server.default = ("redirect307", target.url + "/chat/completions")
        assert _strategies_cli(server, trace_file) == 0
        assert target.requests == []  # 0 requests reached the redirect's target
    out, err = capsys.readouterr()
    assert len(server.requests) == 2  # one per strategy; a redirect is not tried again
    assert err.count("redirects are not followed") == 2
    assert "deepagents stopped" in err and "LangMem stopped" in err


def test_a_5_mb_reply_on_the_langchain_path_is_cut_off_at_the_cap(server, trace_file, monkeypatch, capsys):
    monkeypatch.setenv("MY_SECRET", SECRET)
    server.default = ("big", 5_000_000)
    assert _strategies_cli(server, trace_file) == 0
    out, err = capsys.readouterr()
    rows = json.loads(out)
    assert all(r["compressions"] == 0 for r in rows)  # no 5 MB reply became a summary (the refused call still counts as a summarizer call)
    assert err.count("over the 256,000-byte cap") == 2


def test_a_401_that_echoes_the_key_never_shows_it(server, trace_file, monkeypatch, capsys, caplog):
    monkeypatch.setenv("MY_SECRET", SECRET)
    server.default = ("echo_auth", 401)
    assert _strategies_cli(server, trace_file) == 0
    out, err = capsys.readouterr()
    assert {r["headers"].get("authorization") for r in server.requests} == {f"Bearer {SECRET}"}  # it was sent
    assert "refused the key (401)" in err
    assert SECRET not in out + err + caplog.text
    assert "Traceback" not in err


def test_strategies_follow_the_cli_key_rule(server, trace_file, monkeypatch, capsys):
    """--api-key-env names a variable that belongs to no provider: it goes to the URL given with it."""
    monkeypatch.setenv("MY_SECRET", SECRET)
    server.default = ("ok", "a summary")
    assert _strategies_cli(server, trace_file) == 0
    assert server.requests and {r["headers"].get("authorization") for r in server.requests} == {f"Bearer {SECRET}"}
    # A provider's own variable does not go to another URL unless told to.
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    server.requests.clear()
    argv = ["strategies", str(trace_file), "--json", "--summarizer-model", "m", "--summarizer-base-url", server.url,
            "--api-key-env", "OPENAI_API_KEY", "--strategy", MESSAGE_STRATEGIES[1]]
    assert main(argv) == 0
    assert {r["headers"].get("authorization") for r in server.requests} == {"Bearer no-key"}
    assert "--send-key-to-custom-url" in capsys.readouterr().err
    server.requests.clear()
    assert main(argv + ["--send-key-to-custom-url"]) == 0
    assert {r["headers"].get("authorization") for r in server.requests} == {f"Bearer {SECRET}"}


def test_one_breaker_serves_every_strategy_of_a_job(server, trace_file):
    """The same failure three times in a row, whichever strategy met it: the rest of the job fails at once."""
    server.default = ("status", 500)
    endpoint = Endpoint(provider="custom", base_url=server.url, model="m", retries=1)
    specs = [make_spec("deepagents", {"trigger_tokens": 3000, "keep_messages": 4}),
             make_spec("langmem", {"max_tokens": 1500, "max_summary_tokens": 256, "max_tokens_before_summary": 2000}),
             make_spec("autourgos-builtin", {})]
    from scratchpad_lab.model.records import load_path
    results = run_strategies(load_path(trace_file), specs, BuiltSummarizer("endpoint", 1500, endpoint, "k"))
    assert len(server.requests) == 3
    assert "server error (500)" in results[0].error and "server error (500)" in results[1].error


def test_stop_ends_a_langchain_summarizer_call_in_flight(server, trace_file):
    server.default = ("drip", 0.5)
    endpoint = Endpoint(provider="custom", base_url=server.url, model="m", retries=1)
    stop = threading.Event()
    summarizer = BuiltSummarizer("endpoint", 1500, endpoint, "k", stop_event=stop)
    from scratchpad_lab.model.records import load_path
    box = {}
    worker = threading.Thread(target=lambda: box.update(results=run_strategies(
        load_path(trace_file), [make_spec("langmem", {"max_tokens": 1500, "max_summary_tokens": 256,
                                                      "max_tokens_before_summary": 2000})], summarizer)))
    worker.start()
    assert _settles(lambda: len(server.requests) == 1)
    stop.set()
    worker.join(timeout=5)
    assert not worker.is_alive()
    assert "the call was stopped" in box["results"][0].error


# ── the whole call has one deadline; Stop closes what it abandons ──────────────────────────────

def test_a_server_dripping_a_byte_every_half_second_cannot_outlast_the_timeout(server):
    server.default = ("drip", 0.2)  # a whole completion would take about a minute at this pace
    llm = EndpointLLM(Endpoint(provider="custom", base_url=server.url, model="m", timeout_s=2, retries=1), "k")
    started = time.monotonic()
    with pytest.raises(EndpointError, match="did not answer within 2 s"):
        llm.invoke("hi")
    assert time.monotonic() - started < 2 + 1


def test_threads_and_sockets_are_back_within_seconds_of_stop_against_a_slow_drip(server):
    threads, sockets = threading.active_count(), _socket_count()
    server.script = [("ok", STEP)]
    server.default = ("drip", 0.5)
    config = RunConfig.build(scenario="support-ticket", wall_clock_s=5,
                             agent_endpoint=Endpoint(provider="custom", base_url=server.url, model="m"))
    runs = [Run(config, Source.for_scenario("support-ticket")).start() for _ in range(3)]
    assert _settles(lambda: len(server.requests) >= 4)  # every run's second call is dripping
    for run in runs:
        run.stop()
    for run in runs:
        run.join(timeout=5)
        assert run.record.outcome == "stopped"
    assert _settles(lambda: threading.active_count() <= threads and _socket_count() <= sockets), \
        (threading.enumerate(), _socket_count(), sockets)
    assert server.dropped >= 3  # the client hung up on every drip


def test_a_call_cut_by_the_runs_wall_clock_ends_with_it(server):
    threads = threading.active_count()
    server.script = [("ok", STEP)]
    server.default = ("drip", 0.5)
    config = RunConfig.build(scenario="support-ticket", wall_clock_s=2,
                             agent_endpoint=Endpoint(provider="custom", base_url=server.url, model="m"))
    record = Run(config, Source.for_scenario("support-ticket")).run()
    assert record.outcome == "timeout"
    assert _settles(lambda: threading.active_count() <= threads, within_s=5)


# ── error sentences never carry a header or the key ────────────────────────────────────────────

@pytest.mark.parametrize("code", [400, 401, 403, 404, 500])
def test_no_error_sentence_carries_what_the_server_echoed(server, code):
    server.default = ("echo_auth", code)
    llm = EndpointLLM(Endpoint(provider="custom", base_url=server.url, model="m", retries=1), SECRET)
    with pytest.raises(EndpointError) as info:
        llm.invoke("hi")
    text = str(info.value)
    assert SECRET not in text and "bad credentials" not in text and "authorization" not in text.lower()
    assert info.value.__cause__ is None and info.value.__suppress_context__  # no chained server text


def test_the_keys_exact_value_is_scrubbed_from_any_sentence():
    assert scrub(f"model {SECRET} @ http://h/v1?k={SECRET}", SECRET) == "model [key hidden] @ http://h/v1?k=[key hidden]"
    assert scrub("no-key here", "no-key") == "no-key here"
    llm = EndpointLLM(Endpoint(provider="custom", base_url=f"http://127.0.0.1:9/v1?{SECRET}", model="m",
                               retries=1, timeout_s=1), SECRET)
    with pytest.raises(EndpointError) as info:
        llm.invoke("hi")
    assert SECRET not in str(info.value) and SECRET not in repr(llm)


def test_the_jobs_deadline_bounds_a_langchain_summarizer_call(server, trace_file):
    server.default = ("stall", 60)
    ends = time.monotonic() + 2
    summarizer = BuiltSummarizer("endpoint", 1500, Endpoint(provider="custom", base_url=server.url, model="m"), "k",
                                time_left=lambda: ends - time.monotonic())
    from scratchpad_lab.model.records import load_path
    [result] = run_strategies(load_path(trace_file), [make_spec("langmem", {
        "max_tokens": 1500, "max_summary_tokens": 256, "max_tokens_before_summary": 2000})], summarizer)
    assert time.monotonic() < ends + 2
    assert "LangMem stopped" in result.error and ("did not answer" in result.error or "no time left" in result.error)


def test_hosted_langchain_path_connects_only_to_the_checked_address(monkeypatch, trace_file, rebinding_dns):
    """DNS rebinding on the Strategies path: public for the check, loopback after. Nothing reaches it."""

    monkeypatch.setenv("SCRATCHPAD_LAB_HOSTED", "1")
    lookups, connects = rebinding_dns
    summarizer = BuiltSummarizer("endpoint", 1500, Endpoint(provider="custom", base_url="https://rebind.example/v1",
                                                           model="m"), "k")
    from scratchpad_lab.model.records import load_path
    results = run_strategies(load_path(trace_file), [make_spec(n, s) for n, s in (
        ("deepagents", {"trigger_tokens": 3000, "keep_messages": 4}),
        ("langmem", {"max_tokens": 1500, "max_summary_tokens": 256, "max_tokens_before_summary": 2000}))],
        summarizer)
    assert lookups == ["rebind.example"]
    assert connects and set(connects) == {("1.1.1.1", 443)}
    assert all("Cannot reach" in r.error for r in results)


def test_the_strategies_page_shows_no_key_a_server_echoed(server, trace_file, monkeypatch):
    """An operator-bound key, a server that repeats the Authorization header in its 401: the page shows
    the lab's sentence, no traceback, and the key nowhere."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("PAGE_KEY", SECRET)
    monkeypatch.setenv("SCRATCHPAD_LAB_KEY_HOSTS", f"PAGE_KEY={server.url}")
    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    server.default = ("echo_auth", 401)
    app = str(Path(__file__).resolve().parents[1] / "app.py")
    at = AppTest.from_file(app, default_timeout=120).run()
    at = at.switch_page("pages/strategies.py").run()
    at.file_uploader(key="strat_upload").upload("t.json", trace_file.read_bytes(), "application/json")
    at.run()
    at.multiselect(key="strat_pick").set_value(["deepagents", "langmem"]).run()
    at.radio(key="strat_summarizer").set_value("endpoint").run()
    at.selectbox(key="strat_sum_ep_provider").set_value("custom").run()
    at.text_input(key="strat_sum_ep_base_url_custom").set_value(server.url)
    at.text_input(key="strat_sum_ep_model_custom").set_value("m")
    at.text_input(key="strat_sum_ep_key_env_custom").set_value("PAGE_KEY")
    at.run()
    rerun_until(at.button(key="strat_run").click().run())  # the strategies run as a job
    assert {r["headers"].get("authorization") for r in server.requests} == {f"Bearer {SECRET}"}
    shown = " ".join(str(node.proto) for node in at if getattr(node, "proto", None) is not None)
    assert "refused the key (401)" in shown
    assert SECRET not in shown and "bad credentials" not in shown


def test_stop_in_the_prompt_matrix_closes_the_calls_in_flight(server):
    from scratchpad_lab.engine.studies.promptlab import Matrix, PromptVariant, Snapshot
    from scratchpad_lab.model.summarizer import SummarizerChoice

    threads = threading.active_count()
    server.default = ("drip", 0.5)
    matrix = Matrix(Snapshot("Order A-1001 for Asha Rao.\n" * 20, "find the order"),
                    [PromptVariant("p1", "Keep ids.\n{scratchpad}"), PromptVariant("p2", "Short.\n{scratchpad}")],
                    [SummarizerChoice("endpoint", endpoint=Endpoint(provider="custom", base_url=server.url, model="m"),
                                      key="k")]).start()
    assert _settles(lambda: len(server.requests) == 2)
    matrix.stop()
    assert all(c.status == "cancelled" for c in matrix.cells)
    assert _settles(lambda: threading.active_count() <= threads and server.dropped >= 2, within_s=5), \
        threading.enumerate()
