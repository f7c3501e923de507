"""Issue 9: keys go only where they belong, every wait is bounded, hosted mode connects only where it
checked. Real-model paths run against the in-process fake chat server (tests/fake_openai.py)."""
import json
import os
import subprocess
import socket
import sys
import time
import tomllib
from pathlib import Path

import pytest

from fake_openai import ANSWER, STEP, FakeOpenAI
from scratchpad_lab.model.config import ConfigError, RunConfig
from scratchpad_lab.engine.net.addresses import forbidden_address
from scratchpad_lab.engine.net.providers import EndpointLLM, check_base_url, key_refusal, resolve_key, worth_retrying
from scratchpad_lab.model.endpoint import Endpoint, EndpointError
from scratchpad_lab.engine.run.runner import Run

ROOT = Path(__file__).resolve().parents[1]
SERVER_KEY = "sk-server-own-3c9d"


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        yield fake


def _cli(*args, env=None, timeout=60):
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "scratchpad_lab.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})
    return done, time.monotonic() - started


def _auth(server):
    return [r["headers"].get("authorization") for r in server.requests]


# ── item 1: a server's key variable goes only to the base URL it belongs to ──────────────────────

@pytest.mark.parametrize("provider,key_env", [("custom", "OPENAI_API_KEY"), ("openai", "OPENAI_API_KEY"),
                                              ("groq", "GROQ_API_KEY"), ("custom", "HOME")])
def test_a_base_url_of_the_visitors_choice_never_gets_a_server_key_variable(server, monkeypatch, provider, key_env):
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
    monkeypatch.setenv("GROQ_API_KEY", SERVER_KEY)
    monkeypatch.setenv("HOME", SERVER_KEY)
    server.default = ("ok", ANSWER)
    endpoint = Endpoint(provider=provider, base_url=server.url, model="m", key_env=key_env)
    assert key_refusal(endpoint) is not None
    record = Run(RunConfig.build(scenario="support-ticket", agent_endpoint=endpoint)).run()
    assert record.outcome == "answered"
    assert _auth(server) == ["Bearer no-key"]


def test_a_preset_on_its_own_url_uses_its_own_variable_and_a_typed_key_goes_anywhere(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
    assert resolve_key(Endpoint(provider="openai", model="gpt-4o-mini")) == SERVER_KEY
    assert resolve_key(Endpoint(provider="openai", model="m", key_env="OPENAI_API_KEY",
                                base_url="https://api.openai.com/v1/")) == SERVER_KEY
    assert resolve_key(Endpoint(provider="groq", model="m", key_env="OPENAI_API_KEY")) == "no-key"
    assert resolve_key(Endpoint(provider="openai", model="m", base_url="https://api.openai.com.evil.test/v1",
                                key_env="OPENAI_API_KEY")) == "no-key"
    custom = Endpoint(provider="custom", base_url="http://127.0.0.1:1/v1", model="m", key_env="OPENAI_API_KEY")
    assert resolve_key(custom, typed_key="sk-typed") == "sk-typed"


def test_an_operator_binding_lets_a_variable_go_to_its_own_url_only(monkeypatch):
    monkeypatch.setenv("MY_LAB_KEY", SERVER_KEY)
    own = Endpoint(provider="custom", base_url="http://127.0.0.1:8000/v1", model="m", key_env="MY_LAB_KEY")
    other = own.model_copy(update={"base_url": "http://127.0.0.1:8001/v1"})
    assert resolve_key(own) == "no-key"
    monkeypatch.setenv("SCRATCHPAD_LAB_KEY_HOSTS", "MY_LAB_KEY=http://127.0.0.1:8000/v1")
    assert resolve_key(own) == SERVER_KEY and resolve_key(other) == "no-key"
    secrets = {"scratchpad_lab": {"key_hosts": {"SECRET_KEY_VAR": "http://127.0.0.1:8001/v1"}},
               "SECRET_KEY_VAR": "sk-from-secrets"}
    assert resolve_key(other.model_copy(update={"key_env": "SECRET_KEY_VAR"}), secrets=secrets) == "sk-from-secrets"


def test_hosted_mode_uses_only_the_variables_the_operator_allowed(monkeypatch):
    monkeypatch.setenv("SCRATCHPAD_LAB_HOSTED", "1")
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
    monkeypatch.setenv("GROQ_API_KEY", SERVER_KEY)
    openai, groq = Endpoint(provider="openai", model="m"), Endpoint(provider="groq", model="m")
    assert resolve_key(openai) == "no-key" and "has not allowed" in key_refusal(openai)
    monkeypatch.setenv("SCRATCHPAD_LAB_ALLOWED_KEY_VARS", "OPENAI_API_KEY")
    assert resolve_key(openai) == SERVER_KEY and resolve_key(groq) == "no-key"
    secrets = {"scratchpad_lab": {"allowed_key_vars": ["GROQ_API_KEY"]}}
    assert resolve_key(groq, secrets=secrets) == SERVER_KEY


def test_cli_does_not_send_a_providers_variable_to_another_url_unless_told(server):
    server.default = ("ok", ANSWER)
    env = {"OPENAI_API_KEY": SERVER_KEY, "MY_OWN_KEY": "sk-mine-1"}
    base = ["run", "--agent-model", "m", "--agent-base-url", server.url]
    done, _ = _cli(*base, "--api-key-env", "OPENAI_API_KEY", env=env)
    assert done.returncode == 0 and _auth(server) == ["Bearer no-key"]
    assert "OPENAI_API_KEY belongs to https://api.openai.com/v1" in done.stderr and SERVER_KEY not in done.stderr
    done, _ = _cli(*base, "--api-key-env", "OPENAI_API_KEY", "--send-key-to-custom-url", env=env)
    assert done.returncode == 0 and _auth(server)[-1] == f"Bearer {SERVER_KEY}"
    done, _ = _cli(*base, "--api-key-env", "MY_OWN_KEY", env=env)  # bound by this command line only
    assert done.returncode == 0 and _auth(server)[-1] == "Bearer sk-mine-1"


# ── item 5: a stalled call ends at the wall clock and at Stop ─────────────────────────────────────

def _stalled_run(server, wall_clock, **changes):
    server.script = [("ok", STEP)]
    server.default = ("stall", 120)
    endpoint = Endpoint(provider="custom", base_url=server.url, model="m")  # 60 s timeout x 3 tries
    return Run(RunConfig.build(scenario="support-ticket", wall_clock_s=wall_clock,
                               **({"agent_endpoint": endpoint} | changes)))


def test_a_stalled_agent_call_ends_at_the_wall_clock_as_timeout(server):
    run = _stalled_run(server, 3)
    started = time.monotonic()
    record = run.run()
    assert record.outcome == "timeout" and "wall-clock cap of 3 s" in record.error
    assert time.monotonic() - started < 3 + 2
    assert sum(1 for e in record.events if e.kind == "tool_call") == 1  # the first step is kept


def test_stop_ends_a_run_whose_model_call_is_stalled_as_stopped(server):
    run = _stalled_run(server, 600).start()
    assert server.wait_for_requests(2), "the stalled request never came in"
    assert len(server.requests) == 2
    run.stop()
    run.join(timeout=3)
    assert run.finished and run.record.outcome == "stopped" and "stopped by the user" in run.record.error


def test_a_stalled_summarizer_does_not_hold_the_run_past_its_wall_clock(server):
    server.default = ("stall", 120)
    endpoint = Endpoint(provider="custom", base_url=server.url, model="m")
    run = Run(RunConfig.build(scenario="support-ticket", wall_clock_s=2, summarizer="endpoint",
                              summarizer_endpoint=endpoint, summarize_every=1))
    started = time.monotonic()
    record = run.run()
    assert record.outcome == "timeout" and time.monotonic() - started < 2 + 2


def test_cli_wall_clock_with_a_stalled_model_ends_within_two_seconds_of_the_cap(server, tmp_path):
    server.default = ("stall", 120)
    out = tmp_path / "run.json"
    done, took = _cli("run", "--agent-model", "m", "--agent-base-url", server.url, "--wall-clock", "4",
                      "--out", str(out))
    assert done.returncode == 1 and "timeout" in done.stderr
    finish = [e for e in json.loads(out.read_text())["events"] if e["kind"] == "finish"][0]
    assert finish["data"]["outcome"] == "timeout" and finish["data"]["elapsed_s"] < 4 + 2
    assert took < 20  # the whole command, the interpreter's start-up included


# ── item 6: a refused connection is not retried; a broken summarizer fails fast and says so ─────

def test_only_failures_that_may_pass_are_tried_again():
    import httpx
    import openai
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    refused = openai.APIConnectionError(request=request)
    refused.__cause__ = httpx.ConnectError("[Errno 111] Connection refused")
    assert not worth_retrying(refused)
    assert worth_retrying(openai.APITimeoutError(request=request))
    for code, again in ((429, True), (500, True), (503, True), (302, False), (401, False), (404, False)):
        exc = openai.APIStatusError("x", response=httpx.Response(code, request=request), body=None)
        assert worth_retrying(exc) is again, code


def test_a_redirect_is_asked_once_and_not_followed(server):
    server.default = ("redirect", "http://127.0.0.1:9/v1/chat/completions")
    llm = EndpointLLM(Endpoint(provider="custom", base_url=server.url, model="m", retries=3), "k")
    with pytest.raises(EndpointError, match="redirects are not followed"):
        llm.invoke("hi")
    assert len(server.requests) == 1


def test_the_same_summarizer_failure_three_times_in_a_row_stops_further_calls_in_that_run(server):
    server.default = ("status", 500)
    endpoint = Endpoint(provider="custom", base_url=server.url, model="m", retries=1)
    record = Run(RunConfig.build(scenario="support-ticket", summarizer="endpoint", summarizer_endpoint=endpoint,
                                 summarize_every=1)).run()
    compressions = [e.data for e in record.events if e.kind == "compression"]
    assert len(compressions) > 3 and all(c["status"] == "error" for c in compressions)
    assert len(server.requests) == 3
    assert all("not tried again" in c["error"] for c in compressions[3:])
    assert record.outcome == "answered"


def test_cli_reports_an_unreachable_summarizer_on_stderr_with_its_url_fast():
    done, took = _cli("run", "--summarizer-model", "m", "--summarizer-base-url", "http://127.0.0.1:9/v1",
                      "--summarize-every", "1", "--json")
    assert done.returncode == 0
    assert took < 15
    result = json.loads(done.stdout)
    failed = [c for c in result["compressions"] if c["status"] == "error"]
    assert failed and all(c["error"] for c in failed)
    assert "Cannot reach http://127.0.0.1:9/v1" in failed[0]["error"]
    assert (f"{len(failed)} of {len(result['compressions'])} summarizer calls failed (summarizer at "
            "http://127.0.0.1:9/v1)") in done.stderr


# ── item 7: hosted mode refuses special-purpose addresses and connects only where it checked ────

REFUSED_ADDRESSES = [
    "127.0.0.1", "127.1.2.3", "10.0.0.8", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
    "169.254.170.2", "100.100.100.200", "100.64.0.1", "100.127.255.254", "0.0.0.0", "0.1.2.3", "192.0.0.192",
    "192.0.0.1", "192.0.2.1", "198.18.0.1", "198.51.100.7", "203.0.113.9", "224.0.0.1", "239.255.255.250",
    "240.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fc00::1", "fd00:ec2::254", "fd12:3456::1",
    "ff02::1", "2001:db8::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "::ffff:10.0.0.1",
    "::ffff:100.100.100.200", "2002:7f00:1::", "2002:a9fe:a9fe::", "2002:0a00:0001::1", "2002:6464:64c8::",
    "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "64:ff9b::6464:64c8", "64:ff9b:1::a9fe:a9fe",
    "2001:0:4136:e378:8000:63bf:80ff:fffe",  # Teredo whose client is 127.0.0.1
    "::127.0.0.1", "100::1", "2001:10::1", "fec0::1",
]
ALLOWED_ADDRESSES = ["1.1.1.1", "8.8.8.8", "93.184.216.34", "2606:4700::1111", "2002:0808:0808::",
                     "::ffff:8.8.8.8", "64:ff9b::808:808"]
REFUSED_URLS = [
    "https://127.0.0.1/v1", "https://localhost/v1", "https://2130706433/v1", "https://0x7f000001/v1",
    "https://0177.0.0.1/v1", "https://127.1/v1", "https://0/v1", "https://[::1]/v1", "https://[::]/v1",
    "https://[::ffff:7f00:1]/v1", "https://[2002:7f00:1::]/v1", "https://100.100.100.200/v1",
    "https://169.254.169.254/latest/meta-data", "https://[fd00:ec2::254]/v1", "https://[64:ff9b::a9fe:a9fe]/v1",
    "https://10.0.0.1:8443/v1", "http://api.openai.com/v1", "ftp://api.openai.com/v1", "https:///v1",
    "https://user:pw@api.openai.com/v1", "https://:pw@1.1.1.1/v1",
]


@pytest.mark.parametrize("address", REFUSED_ADDRESSES)
def test_every_special_purpose_address_is_refused(address):
    assert forbidden_address(address), address


@pytest.mark.parametrize("address", ALLOWED_ADDRESSES)
def test_public_addresses_are_allowed(address):
    assert not forbidden_address(address), address


@pytest.mark.parametrize("url", REFUSED_URLS)
def test_hosted_mode_refuses_each_probe_url_before_connecting(url, monkeypatch):
    monkeypatch.setenv("SCRATCHPAD_LAB_HOSTED", "1")
    with pytest.raises(EndpointError):
        check_base_url(url)


def test_hosted_mode_connects_to_the_address_it_checked_not_to_a_second_dns_answer(monkeypatch, rebinding_dns):
    """A rebinding DNS answers a public address for the check and 127.0.0.1 afterwards."""
    monkeypatch.setenv("SCRATCHPAD_LAB_HOSTED", "1")
    lookups, connects = rebinding_dns
    llm = EndpointLLM(Endpoint(provider="custom", base_url="https://rebind.example/v1", model="m", retries=1), "k")
    with pytest.raises(EndpointError, match="Cannot reach"):
        llm.invoke("hi")
    assert lookups == ["rebind.example"]
    assert connects == [("1.1.1.1", 443)]


# ── item 9: no user name or password in a base URL ───────────────────────────────────────────────

def test_a_base_url_with_a_password_is_refused_without_echoing_it():
    with pytest.raises(ValueError) as info:
        Endpoint(provider="custom", base_url="http://user:hunter2@127.0.0.1:9/v1", model="m")
    assert "password" in str(info.value)
    with pytest.raises(ConfigError) as info:
        RunConfig.build(agent_endpoint={"provider": "custom", "base_url": "http://u:hunter2@h/v1", "model": "m"})
    assert "hunter2" not in str(info.value) and "user name or password" in str(info.value)


def test_cli_refuses_a_password_in_a_base_url_and_never_prints_it():
    done, _ = _cli("run", "--agent-model", "m", "--agent-base-url", "http://user:hunter2@127.0.0.1:9/v1",
                   "--out", "/dev/null")
    assert done.returncode == 2 and "user name or password" in done.stderr
    assert "hunter2" not in done.stderr + done.stdout


# ── item 8 (part): Streamlit's own limits ────────────────────────────────────────────────────────

def test_streamlit_refuses_uploads_over_10_mb_and_hides_deploy():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] == 10
    assert config["browser"]["gatherUsageStats"] is False
    assert config["client"]["toolbarMode"] == "viewer"


def test_hosted_mode_reaches_an_idn_host_at_the_address_it_checked(monkeypatch):
    """An internationalised host (`bücher.example`) is looked up and pinned as the punycode name the HTTP
    client connects to (`xn--bcher-kva.example`): the call goes to the checked address, not refused as
    another host."""
    monkeypatch.setenv("SCRATCHPAD_LAB_HOSTED", "1")
    real, lookups, connects = socket.getaddrinfo, [], []

    def dns(host, port, *args, **kwargs):
        lookups.append(host)
        return real("1.1.1.1" if host == "xn--bcher-kva.example" else host, port, *args, **kwargs)

    def refuse(address, *args, **kwargs):
        connects.append(address)
        raise ConnectionRefusedError(111, "refused in the test")

    monkeypatch.setattr(socket, "getaddrinfo", dns)
    monkeypatch.setattr(socket, "create_connection", refuse)
    llm = EndpointLLM(Endpoint(provider="custom", base_url="https://bücher.example/v1", model="m", retries=1), "k")
    with pytest.raises(EndpointError, match="Cannot reach"):
        llm.invoke("hi")
    assert lookups == ["xn--bcher-kva.example"]
    assert connects == [("1.1.1.1", 443)]
