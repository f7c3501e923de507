"""Issue 29, items 1 and 7: a compressed reply is bounded while it is decoded, and a reply that is not a
chat completion (a web page at the base URL) is refused, on every model path: the agent, the summarizer,
Test connection, the prompt matrix and the LangChain strategies.

Every server is the in-process fake (tests/fake_openai.py) on 127.0.0.1. Its ("bomb", (encodings, n))
sends a completion of n bytes of text compressed with each encoding in turn: 100 MB stacked as
"gzip, gzip" is under 1 KB on the wire, 100 MB of one gzip layer about 100 KB.
"""
import json
import tracemalloc

import pytest

from fake_openai import STEP, FakeOpenAI, bomb
from scratchpad_lab.cli import main
from scratchpad_lab.engine.net.providers import EndpointLLM, body_cap, check_connection
from scratchpad_lab.engine.run.runner import Run, Source
from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.model.endpoint import Endpoint, EndpointError
from synthetic import synthetic_trace

DECODED = 100_000_000
STACKED = ("bomb", (("gzip", "gzip"), DECODED))
GZIP = ("bomb", (("gzip",), DECODED))
DEFLATE = ("bomb", (("deflate",), DECODED))
ZSTD = ("bomb", (("zstd",), DECODED))
LOGIN_PAGE = ("html", "<!doctype html><html><head><title>Sign in</title></head>"
                      "<body><form action='/login'>Sign in to continue</form></body></html>")

REFUSED = {  # what each hostile reply is refused as, in the sentence a person reads
    "stacked": (STACKED, "compressed as 'gzip, gzip', which the lab does not decode"),
    "gzip": (GZIP, "a compressed reply that decodes to more than"),
    "html": (LOGIN_PAGE, "not an OpenAI-compatible chat completion"),
}
CASES = list(REFUSED.values())
IDS = list(REFUSED)


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture(scope="module", autouse=True)
def bombs_built_once():
    for behaviour in (STACKED, GZIP, DEFLATE, ZSTD):
        bomb(*behaviour[1])  # built (and kept) before any test measures memory


def _endpoint(server, **limits):
    return Endpoint(provider="custom", base_url=server.url, model="m", **limits)


# ── the client: what it asks for, what it decodes, what it refuses ──────────────────────────────

def test_the_client_asks_for_an_uncompressed_reply(server):
    EndpointLLM(_endpoint(server, retries=1), "k").invoke("hi")
    assert server.requests[0]["headers"]["Accept-Encoding"] == "identity"


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_a_small_reply_compressed_anyway_is_decoded_and_taken(server, encoding):
    server.default = ("bomb", ((encoding,), 2_000))
    assert EndpointLLM(_endpoint(server, retries=1), "k").invoke("hi") == "x" * 2_000


@pytest.mark.parametrize("behaviour", [GZIP, DEFLATE], ids=["gzip", "deflate"])
def test_a_bomb_is_decoded_only_up_to_the_cap_and_memory_stays_near_it(server, behaviour):
    server.default = behaviour
    endpoint = _endpoint(server, retries=1)
    llm = EndpointLLM(endpoint, "k")
    tracemalloc.start()
    try:
        with pytest.raises(EndpointError, match="decodes to more than") as info:
            llm.invoke("hi")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    cap = body_cap(endpoint.limited().max_reply_bytes)
    assert f"over the {endpoint.limited().max_reply_bytes:,}-byte cap" in str(info.value)
    assert "Lower max_tokens or use another model" in str(info.value)
    assert peak < 4 * cap + 2_000_000, f"peak {peak:,} bytes for a {cap:,}-byte cap"  # before: over 300 MB
    assert len(server.requests) == 1  # a reply over the cap is not asked for again


@pytest.mark.parametrize("behaviour,shown", [(STACKED, "'gzip, gzip'"), (ZSTD, "'zstd'")], ids=["stacked", "zstd"])
def test_an_encoding_the_lab_does_not_decode_is_refused_unread(server, behaviour, shown):
    server.default = behaviour
    tracemalloc.start()
    try:
        with pytest.raises(EndpointError) as info:
            EndpointLLM(_endpoint(server, retries=3), "k").invoke("hi")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = str(info.value)
    assert f"compressed as {shown}, which the lab does not decode" in message
    assert "Turn that compression off on the server or its proxy, or use another endpoint." in message
    assert peak < 5_000_000
    assert len(server.requests) == 1  # not tried again


def test_a_web_page_with_status_200_is_not_a_reply(server):
    server.default = LOGIN_PAGE
    with pytest.raises(EndpointError, match="not an OpenAI-compatible chat completion"):
        EndpointLLM(_endpoint(server, retries=3), "k").invoke("hi")
    assert len(server.requests) == 1


# ── every path ──────────────────────────────────────────────────────────────────────────────────

@pytest.mark.parametrize("behaviour,message", CASES, ids=IDS)
def test_the_agent_path_ends_the_run_with_the_sentence(server, behaviour, message):
    server.script = [("ok", STEP), behaviour]
    config = RunConfig.build(scenario="support-ticket", agent_endpoint=_endpoint(server, retries=2), max_iterations=6)
    record = Run(config, Source.for_scenario("support-ticket")).run()
    assert record.outcome == "error" and message in record.error
    assert "<html" not in json.dumps(record.to_dict())


@pytest.mark.parametrize("behaviour,message", CASES, ids=IDS)
def test_the_summarizer_path_records_a_failed_compression_and_keeps_the_scratchpad(server, behaviour, message):
    server.default = behaviour
    config = RunConfig.build(scenario="support-ticket", summarizer="endpoint", summarize_every=5,
                             summarizer_endpoint=_endpoint(server, retries=1))
    record = Run(config).run()
    assert record.outcome == "answered"
    compressions = [e.data for e in record.events if e.kind == "compression"]
    assert compressions and all(c["status"] == "error" for c in compressions)
    assert all(message in c["error"] and c["before"] == c["after"] for c in compressions)
    assert "Sign in" not in json.dumps([c["after"] for c in compressions])


@pytest.mark.parametrize("behaviour,message", CASES, ids=IDS)
def test_test_connection_says_what_is_wrong(server, behaviour, message):
    server.default = behaviour
    ok, said = check_connection(_endpoint(server), "k")
    assert not ok and message in said


@pytest.mark.parametrize("behaviour,message", CASES, ids=IDS)
def test_the_prompt_matrix_marks_the_cell_as_an_error(server, behaviour, message):
    from scratchpad_lab.engine.studies.promptlab import Matrix, PromptVariant, Snapshot
    from scratchpad_lab.model.summarizer import SummarizerChoice

    server.default = behaviour
    matrix = Matrix(Snapshot("Order A-1001 for Asha Rao.\n" * 20, "find the order"),
                    [PromptVariant("p1", "Keep ids.\n{scratchpad}")],
                    [SummarizerChoice("endpoint", endpoint=_endpoint(server, retries=1), key="k")]).run(timeout=60)
    [cell] = matrix.cells
    assert cell.status == "error" and message in cell.compression["error"]


@pytest.mark.parametrize("behaviour,message", CASES, ids=IDS)
def test_the_langchain_strategies_take_no_summary(server, behaviour, message, tmp_path, capsys):
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps(synthetic_trace(steps=16, seed=12, max_observation_chars=2500).to_dict()))
    server.default = behaviour
    argv = ["strategies", str(trace), "--json", "--summarizer-model", "m", "--summarizer-base-url", server.url,
            "--strategy", "deepagents:trigger_tokens=3000,keep_messages=4",
            "--strategy", "langmem:max_tokens=1500,max_summary_tokens=256,max_tokens_before_summary=2000"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert all(row["compressions"] == 0 for row in json.loads(out))
    assert err.count(message) == 2 and "Traceback" not in err
