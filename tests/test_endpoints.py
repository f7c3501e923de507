"""Real-model endpoints against a local chat-completions server that can be told to fail."""
import json
import logging
import os
import subprocess
import sys
import time

import pytest

from conftest import threads_end
from fake_openai import ANSWER, STEP, FakeOpenAI
from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.engine.net.providers import resolve_key
from scratchpad_lab.model.endpoint import Endpoint, EndpointError
from scratchpad_lab.engine.run.runner import Run, Source
from scratchpad_lab.model.trace import MAX_STEP_RESPONSE_CHARS



@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        yield fake


def _endpoint(server, **limits):
    return Endpoint(provider="custom", base_url=server.url, model="tiny-test", **limits)


def _agent_run(server, keys=None, **limits):
    config = RunConfig.build(scenario="support-ticket", agent_endpoint=_endpoint(server, **limits),
                             summarize_every=2, max_iterations=8)
    return Run(config, Source.for_scenario("support-ticket"), keys=keys)


FAILURES = [
    (("status", 401), "refused the key (401)"),
    (("status", 404), "does not know model 'tiny-test'"),
    (("status", 500), "server error (500)"),
    (("stall", 10), "did not answer within 1 s"),
    (("garbage", "this is not json"), "not an OpenAI-compatible chat completion"),
    (("redirect", "http://127.0.0.1:9/v1/chat/completions"), "redirect (302); redirects are not followed"),
    (("big", 300_000), f"over the {MAX_STEP_RESPONSE_CHARS:,}-byte cap"),  # an agent step's cap
]


@pytest.mark.parametrize("behaviour,message", FAILURES, ids=[f[0][0] + str(f[0][1])[:4] for f in FAILURES])
def test_each_agent_endpoint_failure_ends_the_run_cleanly_with_a_sentence_saying_what_to_do(server, behaviour, message):
    server.script = [("ok", STEP), ("ok", STEP)] + [behaviour] * 3
    run = _agent_run(server, timeout_s=1, retries=2)
    run.start().join(timeout=30)
    record = run.record
    assert record is not None and record.outcome == "error"
    assert message in record.error and "Traceback" not in record.error
    # What was recorded before the failure is kept: two full steps with their tool results.
    assert sum(1 for e in record.events if e.kind == "tool_call") == 2
    assert record.events[-1].kind == "finish"
    assert threads_end("scratchpad-lab-run", 5)


def test_rate_limit_is_retried_with_backoff_and_the_run_goes_on(server):
    server.script = [("status", 429), ("ok", STEP), ("status", 429), ("status", 429), ("ok", ANSWER)]
    record = _agent_run(server, retries=3).run()
    assert record.outcome == "answered" and record.final_answer == "Order A-1001 for Asha Rao."
    assert len(server.requests) == 5


def test_rate_limit_that_never_ends_gives_up_after_the_bounded_retries(server):
    server.default = ("status", 429)
    record = _agent_run(server, retries=2).run()
    assert record.outcome == "error" and "rate-limiting" in record.error
    assert len(server.requests) == 2


def test_unreachable_host_is_reported_as_such():
    closed = Endpoint(provider="custom", base_url="http://127.0.0.1:9/v1", model="m", timeout_s=2, retries=1)
    config = RunConfig.build(scenario="support-ticket", agent_endpoint=closed)
    record = Run(config).run()
    assert record.outcome == "error" and "Cannot reach http://127.0.0.1:9/v1" in record.error


def test_a_failing_summarizer_endpoint_is_an_error_compression_and_the_run_goes_on(server):
    server.default = ("status", 500)
    config = RunConfig.build(scenario="support-ticket", summarizer="endpoint", summarize_every=5,
                             summarizer_endpoint=_endpoint(server, retries=1))
    record = Run(config).run()
    assert record.outcome == "answered"
    compressions = [e.data for e in record.events if e.kind == "compression"]
    assert [c["status"] for c in compressions] == ["error", "error"]
    assert all("server error (500)" in c["error"] and c["before"] == c["after"] for c in compressions)


def test_a_summarizer_endpoint_records_the_reply_tokens_and_latency(server):
    server.default = ("ok", "[Summary]\nKey findings: A-1001\nTool results: none\nCurrent status: going")
    config = RunConfig.build(scenario="support-ticket", summarizer="endpoint", summarize_every=5,
                             summarizer_endpoint=_endpoint(server))
    record = Run(config).run()
    c = next(e.data for e in record.events if e.kind == "compression")
    assert c["status"] == "ok" and c["response"].startswith("[Summary]")
    assert c["after"] == "[Summarized up to step 5]\n" + c["response"]
    assert (c["tokens_in"], c["tokens_out"]) == (11, 7)  # the API's own usage numbers
    assert c["latency_s"] > 0 and c["model"] == f"tiny-test @ {server.url}"
    sent = json.loads(server.requests[0]["body"])
    assert sent["max_tokens"] == 1024 and sent["messages"][-1]["content"] == c["prompt"]


def test_a_custom_base_url_never_gets_the_servers_own_openai_key(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-server-own-key")
    server.default = ("ok", ANSWER)
    endpoint = _endpoint(server)
    assert resolve_key(endpoint) == "no-key"
    record = _agent_run(server).run()
    assert record.outcome == "answered"
    assert server.requests[0]["headers"]["authorization"] == "Bearer no-key"


def test_planted_keys_appear_in_no_record_trace_log_or_output(server, monkeypatch, caplog, capsys, tmp_path):
    env_key, typed_key = "sk-planted-env-5f1e2d", "sk-planted-typed-9a8b7c"
    monkeypatch.setenv("LAB_TEST_KEY", env_key)
    monkeypatch.setenv("SCRATCHPAD_LAB_KEY_HOSTS", f"LAB_TEST_KEY={server.url}")  # the operator's binding
    caplog.set_level(logging.DEBUG)
    server.script = [("ok", STEP), ("status", 401)]
    config = RunConfig.build(scenario="support-ticket", agent_endpoint=Endpoint(
        provider="custom", base_url=server.url, model="m", key_env="LAB_TEST_KEY"), summarizer="endpoint",
        summarizer_endpoint=_endpoint(server), summarize_every=1)
    record = Run(config, keys={"summarizer": typed_key}).run()
    used = {r["headers"]["authorization"] for r in server.requests}
    assert f"Bearer {env_key}" in used and f"Bearer {typed_key}" in used  # the keys were really used
    out = tmp_path / "run.json"
    record.save(out)
    texts = [out.read_text(), json.dumps(record.trace.to_dict()), caplog.text, "".join(capsys.readouterr())]
    for text in texts:
        assert env_key not in text and typed_key not in text
    assert "LAB_TEST_KEY" in out.read_text()  # the variable's name is kept, so a re-run knows where to look


def test_hosted_mode_refuses_local_addresses_before_connecting(server, monkeypatch):
    monkeypatch.setenv("SCRATCHPAD_LAB_HOSTED", "1")
    for url in (server.url, "http://localhost:11434/v1", "https://127.0.0.1/v1", "https://10.0.0.8/v1",
                "https://169.254.169.254/v1"):
        config = RunConfig.build(scenario="support-ticket", agent_endpoint=Endpoint(
            provider="custom", base_url=url, model="m"))
        with pytest.raises(EndpointError):
            Run(config)
    assert server.requests == []


def test_hosted_mode_tightens_the_limits(monkeypatch):
    monkeypatch.setenv("SCRATCHPAD_LAB_HOSTED", "1")
    limited = Endpoint(provider="openai", model="gpt-4o-mini").limited()
    assert (limited.timeout_s, limited.max_tokens, limited.max_reply_bytes, limited.retries) == (30.0, 512, 64_000, 2)


def test_cli_against_a_closed_port_exits_nonzero_fast_with_one_line():
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "scratchpad_lab.cli", "run", "--agent-model", "m",
                           "--agent-base-url", "http://127.0.0.1:9/v1"], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "OPENAI_API_KEY": ""})
    assert done.returncode == 1
    assert time.monotonic() - started < 15
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Cannot reach http://127.0.0.1:9/v1" in lines[0]
    assert "Traceback" not in done.stderr


def test_cli_runs_a_scenario_with_the_summarizer_on_an_endpoint(server):
    server.default = ("ok", "[Summary]\nKey findings: A-1001\nTool results: -\nCurrent status: -")
    done = subprocess.run([sys.executable, "-m", "scratchpad_lab.cli", "run", "--scenario", "support-ticket",
                           "--summarizer-model", "tiny", "--summarizer-base-url", server.url, "--json"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [c["status"] for c in result["compressions"]] == ["ok", "ok"]
    assert all(c["after"].startswith("[Summarized up to step") for c in result["compressions"])
