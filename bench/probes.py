"""The issue-20 probes, re-run against the in-process fake servers (tests/fake_openai.py, 127.0.0.1 only):
prints tried / failed for each.

    PYTHONPATH=src python3 bench/probes.py

A probe fails when what the issue found happens again: a redirect followed, a rebinding address
reached, a 5 MB reply taken as a summary, the key shown or logged, an output file that is not JSON,
a call's thread or socket alive 10 s after Stop; and (issue 29) a compressed reply of about 1 KB on the
wire that decodes to 419 MB taking more than 64 MB of memory on any model path, or being taken, and a
web page (200, text/html) taken as a reply on any path; and (issue 29, items 2-5 and 9) a parse-heavy file
accepted or taking seconds on any path a trace comes in, two 3.9 MB observations let through hosted
`strategies`, a victim's run removed by three fresh visitors or a prompt over the limit stored, a Strategies
model call alive 1 s after Stop, and a hosted store error naming where its database is. It writes only to a
store in a temporary folder (SCRATCHPAD_LAB_DB is set to one). (The 5,000-step trace is bench/work_limits.py --big;
requests off the app's host are tests/test_browser_offline.py.)
"""
from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "src"))

from fake_openai import STEP, FakeOpenAI, bomb  # noqa: E402
from synthetic import synthetic_trace  # noqa: E402

SECRET = "sk-probe-secret-5d1e8a"
TMP = Path(tempfile.mkdtemp(prefix="lab-probes-"))
TRACE = TMP / "trace.json"
TRACE.write_text(json.dumps(synthetic_trace(steps=16, seed=12, max_observation_chars=2500).to_dict()))
STRATEGIES = ["deepagents:trigger_tokens=3000,keep_messages=4",
              "langmem:max_tokens=1500,max_summary_tokens=256,max_tokens_before_summary=2000"]


def cli(*argv) -> tuple:
    from scratchpad_lab.cli import main
    out, err = io.StringIO(), io.StringIO()
    log = io.StringIO()
    handler = logging.StreamHandler(log)
    logging.getLogger().addHandler(handler)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(argv))
    finally:
        logging.getLogger().removeHandler(handler)
    return code, out.getvalue(), err.getvalue() + log.getvalue()


def strategies_cli(url: str) -> tuple:
    argv = ["strategies", str(TRACE), "--json", "--summarizer-model", "m", "--summarizer-base-url", url,
            "--api-key-env", "PROBE_SECRET"]
    for s in STRATEGIES:
        argv += ["--strategy", s]
    return cli(*argv)


def report(name: str, tried: int, failed: int) -> None:
    print(f"{name:<70} tried {tried:>4}  failed {failed:>3}")


def redirects() -> None:
    tried = failed = 0
    for code in ("redirect", "redirect307"):
        for _ in range(5):
            with FakeOpenAI() as server, FakeOpenAI() as target:
                server.default = (code, target.url + "/chat/completions")
                target.default = ("ok", "INTERNAL COMPLETION")
                _, out, _ = strategies_cli(server.url)
                tried += 2
                failed += len(target.requests) + out.count("INTERNAL")
    report("LangChain path: a 302/307 to another address is not followed", tried, failed)


def rebinding() -> None:
    from scratchpad_lab.engine.strategies import make_spec, run_strategies
    from scratchpad_lab.engine.summarize.summarizers import build_summarizer
    from scratchpad_lab.model.endpoint import Endpoint
    from scratchpad_lab.model.summarizer import SummarizerChoice
    from scratchpad_lab.model.records import load_path
    os.environ["SCRATCHPAD_LAB_HOSTED"] = "1"
    real_lookup, real_connect = socket.getaddrinfo, socket.create_connection
    tried = failed = 0
    try:
        for _ in range(4):
            answers = iter(["1.1.1.1"] + ["127.0.0.1"] * 100)
            connects = []
            socket.getaddrinfo = lambda host, port, *a, **k: real_lookup(
                next(answers) if host == "rebind.example" else host, port, *a, **k)

            def refuse(address, *a, **k):
                connects.append(address)
                raise ConnectionRefusedError(111, "probe")
            socket.create_connection = refuse
            spec = build_summarizer(SummarizerChoice("endpoint", 1500, Endpoint(
                provider="custom", base_url="https://rebind.example/v1", model="m"), key="k"))
            run_strategies(load_path(TRACE), [make_spec("langmem", {"max_tokens": 1500, "max_summary_tokens": 256,
                                                                    "max_tokens_before_summary": 2000})], spec)
            tried += 1
            failed += sum(1 for c in connects if c[0] != "1.1.1.1")
    finally:
        socket.getaddrinfo, socket.create_connection = real_lookup, real_connect
        os.environ.pop("SCRATCHPAD_LAB_HOSTED", None)
    report("hosted LangChain path: DNS rebinding to loopback reaches nothing", tried, failed)


def idn_hosts() -> None:
    """Hosted mode, an internationalised host (`bücher.example`, punycode `xn--bcher-kva.example`) that
    resolves to a public address: the run's endpoint client and the LangChain path both connect to the address
    the check pinned (before: 'Cannot reach', the pin compared the name with its punycode)."""
    from scratchpad_lab.engine.net.providers import EndpointLLM
    from scratchpad_lab.engine.strategies import make_spec, run_strategies
    from scratchpad_lab.engine.summarize.summarizers import build_summarizer
    from scratchpad_lab.model.endpoint import Endpoint, EndpointError
    from scratchpad_lab.model.summarizer import SummarizerChoice
    from scratchpad_lab.model.records import load_path
    os.environ["SCRATCHPAD_LAB_HOSTED"] = "1"
    real_lookup, real_connect = socket.getaddrinfo, socket.create_connection
    tried = failed = 0
    try:
        socket.getaddrinfo = lambda host, port, *a, **k: real_lookup(
            "1.1.1.1" if host == "xn--bcher-kva.example" else host, port, *a, **k)
        for _ in range(3):
            connects = []

            def refuse(address, *a, **k):
                connects.append(address)
                raise ConnectionRefusedError(111, "probe")
            socket.create_connection = refuse
            endpoint = Endpoint(provider="custom", base_url="https://bücher.example/v1", model="m", retries=1)
            with contextlib.suppress(EndpointError):  # refused at the check: no connection, counted below
                EndpointLLM(endpoint, "k").invoke("hi")
            with contextlib.suppress(EndpointError):
                spec = build_summarizer(SummarizerChoice("endpoint", 1500, endpoint, key="k"))
                run_strategies(load_path(TRACE), [make_spec("langmem", {
                    "max_tokens": 1500, "max_summary_tokens": 256, "max_tokens_before_summary": 2000})], spec)
            tried += 2
            failed += (not connects) + (len(connects) < 2) + sum(1 for c in connects if c[0] != "1.1.1.1")
    finally:
        socket.getaddrinfo, socket.create_connection = real_lookup, real_connect
        os.environ.pop("SCRATCHPAD_LAB_HOSTED", None)
    report("hosted, an IDN host: both model paths reach the checked address", tried, failed)


def big_replies() -> None:
    tried = failed = 0
    for _ in range(8):
        with FakeOpenAI() as server:
            server.default = ("big", 5_000_000)
            _, out, _ = strategies_cli(server.url)
            rows = json.loads(out)
            tried += 2
            # a refused reply is a summarizer call that replaced nothing (analysis/figures): only a compression,
            # a summary that replaced what is sent, would mean the reply was taken
            failed += sum(r["compressions"] for r in rows)
    report("LangChain path: a 5 MB reply is never taken as a summary", tried, failed)


def echoed_key() -> None:
    tried = failed = 0
    for behaviour in (("echo_auth", 401), ("echo_auth", 403), ("echo_auth", 500)):
        for _ in range(3):
            with FakeOpenAI() as server:
                server.default = behaviour
                _, out, err = strategies_cli(server.url)
                tried += 1
                failed += (out + err).count(SECRET) + err.count("Traceback")
    report("a server echoing the Authorization header: key shown or logged", tried, failed)


def surrogates() -> None:
    escaped = ('{"thought": "look \\udfff", "actions": [{"action": "get_ticket", "action_input": '
               '{"ticket_id": "T-5521\\ud800"}}], "final_answer": null}')
    end = '{"thought": "done", "actions": [], "final_answer": "ERR_503 \\udfff."}'
    tried = failed = 0
    for k in range(5):
        with FakeOpenAI() as server:
            server.script = [("ok", escaped), ("ok", end)]
            out_file = TMP / f"surrogate-{k}.json"
            code, out, err = cli("run", "--agent-model", "m", "--agent-base-url", server.url, "--out", str(out_file),
                                 "--json")
            tried += 1
            try:
                json.loads(out_file.read_text(encoding="utf-8"))
                json.loads(out)
                ok = code == 0 and "Traceback" not in err
            except (OSError, ValueError):
                ok = False
            failed += not ok
    report("a model reply with \\udfff escapes: `run --out` valid JSON, no traceback", tried, failed)


def _sockets() -> int:
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            count += os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")
    return count


def stop_against_drip() -> None:
    from scratchpad_lab.engine.run.runner import Run, Source
    from scratchpad_lab.model.config import RunConfig
    from scratchpad_lab.model.endpoint import Endpoint
    tried = failed = 0
    with FakeOpenAI() as server:
        threads, sockets = threading.active_count(), _sockets()
        server.script = [("ok", STEP)] * 5
        server.default = ("drip", 0.5)
        config = RunConfig.build(scenario="support-ticket", wall_clock_s=5,
                                 agent_endpoint=Endpoint(provider="custom", base_url=server.url, model="m"))
        runs = [Run(config, Source.for_scenario("support-ticket")).start() for _ in range(5)]
        end = time.monotonic() + 10
        while len(server.requests) < 10 and time.monotonic() < end:
            time.sleep(0.05)
        for run in runs:
            run.stop()
        stopped = time.monotonic()
        while time.monotonic() - stopped < 10 and (threading.active_count() > threads or _sockets() > sockets):
            time.sleep(0.1)
        tried = len(runs)
        failed = max(0, threading.active_count() - threads) + max(0, _sockets() - sockets)
        print(f"    back to {threading.active_count()} threads (from {threads}) and {_sockets()} sockets (from "
              f"{sockets}) {time.monotonic() - stopped:.1f} s after Stop")
    report("Stop against a slow-drip server: threads and sockets left after 10 s", tried, failed)


# ── issue 29: a compressed reply and a web page, on every model path ──────────────────────────────

def _agent(url: str) -> str:
    """'' when the path refused the reply, else what it took."""
    from scratchpad_lab.engine.run.runner import Run, Source
    from scratchpad_lab.model.config import RunConfig
    from scratchpad_lab.model.endpoint import Endpoint
    config = RunConfig.build(scenario="support-ticket", max_iterations=6,
                             agent_endpoint=Endpoint(provider="custom", base_url=url, model="m", retries=2))
    record = Run(config, Source.for_scenario("support-ticket")).run()
    refused = record.outcome == "error" and any(said in record.error for said in (
        "not an OpenAI-compatible chat completion", "-byte cap", "which the lab does not decode"))
    return "" if refused else f"the run ended {record.outcome}: {record.error}"  # a page the agent parsed was taken


def _summarizer(url: str) -> str:
    from scratchpad_lab.engine.run.runner import Run
    from scratchpad_lab.model.config import RunConfig
    from scratchpad_lab.model.endpoint import Endpoint
    config = RunConfig.build(scenario="support-ticket", summarizer="endpoint", summarize_every=5,
                             summarizer_endpoint=Endpoint(provider="custom", base_url=url, model="m", retries=1))
    record = Run(config).run()
    taken = [e.data for e in record.events if e.kind == "compression" and e.data["status"] != "error"]
    return f"{len(taken)} compressions took it" if taken else ""


def _test_connection(url: str) -> str:
    from scratchpad_lab.engine.net.providers import check_connection
    from scratchpad_lab.model.endpoint import Endpoint
    ok, said = check_connection(Endpoint(provider="custom", base_url=url, model="m"), "k")
    return said if ok else ""


def _prompt_matrix(url: str) -> str:
    from scratchpad_lab.engine.studies.promptlab import Matrix, PromptVariant, Snapshot
    from scratchpad_lab.model.endpoint import Endpoint
    from scratchpad_lab.model.summarizer import SummarizerChoice
    endpoint = Endpoint(provider="custom", base_url=url, model="m", retries=1)
    matrix = Matrix(Snapshot("Order A-1001 for Asha Rao.\n" * 20, "find the order"),
                    [PromptVariant("p1", "Keep ids.\n{scratchpad}")],
                    [SummarizerChoice("endpoint", endpoint=endpoint, key="k")]).run(timeout=120)
    return "" if matrix.cells[0].status == "error" else f"the cell is {matrix.cells[0].status}"


def _strategies(url: str) -> str:
    _, out, _ = strategies_cli(url)
    taken = sum(r["compressions"] for r in json.loads(out))
    return f"{taken} compressions took it" if taken else ""


PATHS = {"agent": _agent, "summarizer": _summarizer, "Test connection": _test_connection,
         "prompt matrix": _prompt_matrix, "LangChain strategies": _strategies}
BOMB_BYTES = 419_430_400  # what the issue measured: "gzip, gzip" of about 1 KB on the wire
BOMB_MEMORY_CAP = 64_000_000


def compressed_replies() -> None:
    import tracemalloc
    bombs = [("gzip", "gzip"), ("gzip",), ("deflate",), ("zstd",)]
    for encodings in bombs:
        bomb(encodings, BOMB_BYTES)  # built before anything is measured
    tried = failed = 0
    peaks = {}
    for name, path in PATHS.items():
        for encodings in bombs:
            with FakeOpenAI() as server:
                server.script = [("ok", STEP)] if name == "agent" else []
                server.default = ("bomb", (encodings, BOMB_BYTES))
                tracemalloc.start()
                try:
                    taken = path(server.url)
                    peak = tracemalloc.get_traced_memory()[1]
                finally:
                    tracemalloc.stop()
            peaks[name] = max(peaks.get(name, 0), peak)
            tried += 1
            failed += bool(taken) or peak > BOMB_MEMORY_CAP
    print("    peak traced memory per path (MB): " + ", ".join(f"{n} {p / 1e6:.1f}" for n, p in peaks.items()))
    report("every path: a reply decoding to 419 MB (gzip x2, gzip, deflate, zstd) stays under 64 MB", tried, failed)


def web_pages() -> None:
    page = ("<!doctype html><html><head><title>Sign in</title></head><body><form action='/login'>"
            "Sign in to continue</form></body></html>")
    tried = failed = 0
    for name, path in PATHS.items():
        for _ in range(3):
            with FakeOpenAI() as server:
                server.script = [("ok", STEP)] if name == "agent" else []
                server.default = ("html", page)
                taken = path(server.url)
            tried += 1
            failed += bool(taken)
    report("every path: a web page (200, text/html) at the base URL is not taken as a reply", tried, failed)


# ── issue 29, items 2-5 and 9 ────────────────────────────────────────────────────────────────────

def _garbage_trace(steps: int = 20) -> Path:
    from scratchpad_lab.model.schemas import MAX_STEP_RESPONSE_CHARS as cap
    worst = ('{"a":' + "[" * 50 + '"' + "}" * cap)[:cap]  # bench/parse_cap.py's slowest shape
    end = json.dumps({"thought": "done", "actions": [], "final_answer": "ok"})
    path = TMP / "garbage.json"
    path.write_text(json.dumps({"schema": "scratchpad-lab/trace@1", "task": "t", "tools": [],
                                "steps": [{"response": worst}] * steps + [{"response": end}]}))
    return path


def parse_work() -> None:
    from scratchpad_lab.engine.files.loader import load_file
    from scratchpad_lab.model.trace import RecordError
    path, tried, failed = _garbage_trace(), 0, 0
    for argv in (["import", str(path), "--out", str(TMP / "o.json")], ["replay", str(path)],
                 ["strategies", str(path), "--strategy", "trim-only"], ["recommend", str(path), "--strategy", "trim-only"]):
        started = time.monotonic()
        code, _, err = cli(*argv)
        tried += 1
        failed += code != 2 or "parse-work limit" not in err or time.monotonic() - started > 3
    started = time.monotonic()
    try:
        load_file(path)  # the loader the Runs page uses
        failed += 1
    except RecordError:
        failed += time.monotonic() - started > 1
    tried += 1
    calls = [{"id": f"c{k}", "type": "function", "function": {"name": "s", "arguments": "{}"}} for k in range(40_000)]
    chat = TMP / "chat.json"
    chat.write_text(json.dumps([{"role": "user", "content": "go"}, {"role": "assistant", "tool_calls": calls}]
                               + [{"role": "tool", "tool_call_id": f"c{k}", "content": "r"} for k in range(40_000)]))
    started = time.monotonic()
    code, _, err = cli("import", str(chat), "--out", str(TMP / "o.json"))
    tried += 1
    failed += code != 2 or "tool calls" not in err or time.monotonic() - started > 5
    report("parse-heavy files refused at once on every path a trace comes in", tried, failed)


def large_observations() -> None:
    import base64
    act = json.dumps({"thought": "t", "actions": [{"action": "s", "action_input": {}}], "final_answer": None})
    path = TMP / "two-large.json"
    path.write_text(json.dumps({"schema": "scratchpad-lab/trace@1", "task": "t", "tools": [{"name": "s"}], "steps": [
        {"response": act, "observations": [base64.b64encode(os.urandom(2_925_000)).decode()]} for _ in range(2)]
        + [{"response": json.dumps({"thought": "d", "actions": [], "final_answer": "ok"})}]}))
    os.environ["SCRATCHPAD_LAB_HOSTED"] = "1"
    try:
        names = ["autourgos-middleware", "autourgos-builtin", "trim-only", "deepagents", "langmem",
                 "clear-tool-uses", "langchain-summarization"]
        started = time.monotonic()
        code, _, err = cli("strategies", str(path), "--json", *[a for n in names for a in ("--strategy", n)])
        failed = code != 2 or "work" not in err or time.monotonic() - started > 10
    finally:
        os.environ.pop("SCRATCHPAD_LAB_HOSTED", None)
    report("hosted strategies: seven on two 3.9 MB observations refused at once", 1, int(failed))


def fair_store() -> None:
    from scratchpad_lab.engine.store import Limits, Store, StoreError, owner_of
    from scratchpad_lab.model.records import load_record
    record = load_record(REPO / "sample_runs" / "support-ticket-tight.json")
    store = Store(str(TMP / "fair.db"), Limits(visitor_runs=10, total_runs=24))
    victim = owner_of("victim" * 4)
    kept = {store.save_run(record, victim, name=f"v{k}").id for k in range(6)}
    for visitor in ("a1", "a2", "a3"):
        for k in range(12):
            store.save_run(record, owner_of(visitor * 12), name=f"{visitor} {k}")
    lost = len(kept - {r.id for r in store.list_runs(victim)})
    try:
        store.save_prompt("long", "{scratchpad} " + "x" * 60_000, victim)
        lost += 1
    except StoreError:
        pass
    report("store: a victim's runs vs three fresh visitors; a 60,000-char prompt", 7, lost)


def strategies_stop() -> None:
    from scratchpad_lab.engine.jobs import Job
    from scratchpad_lab.engine.strategies import BuiltSummarizer, make_spec, run_strategies
    from scratchpad_lab.model.endpoint import Endpoint
    from scratchpad_lab.model.records import load_record
    record = load_record(REPO / "sample_runs" / "support-ticket-tight.json")
    tried = failed = 0
    for name, settings in [("autourgos-middleware", {"summarize_every": 1}), ("deepagents", {"trigger_messages": 4}),
                           ("langchain-summarization", {"trigger_messages": 4})]:
        with FakeOpenAI() as server:
            server.default = ("stall", 60)
            summarizer = BuiltSummarizer(kind="endpoint", api_key="k", endpoint=Endpoint(
                provider="custom", base_url=server.url, model="m", retries=2))
            job = Job(lambda report, stop: run_strategies(record, [make_spec(name, settings)], summarizer,
                                                          stop=stop)).start()
            server.wait_for_requests(1, 60)
            asked = time.monotonic()
            job.stop()
            job.join(10)
            took = time.monotonic() - asked
            retried = server.wait_for_requests(2, timeout_s=2)
            server.stalled.set()
            tried += 1
            failed += took > 1 or retried
            print(f"    {name}: ended {took:.2f} s after Stop, {len(server.requests)} request(s)")
    report("Stop during a Strategies model call: closed within 1 s, no retry", tried, failed)


def store_errors() -> None:
    from scratchpad_lab.engine.store import Store, StoreError
    os.environ["SCRATCHPAD_LAB_HOSTED"] = "1"
    tried = failed = 0
    blocker = TMP / "secret-folder"
    blocker.write_text("x")
    try:
        for url, secrets in ((f"sqlite:///{blocker}/lab.db", ["secret-folder", str(TMP)]),
                             ("postgresql+psycopg://labuser:pw@127.0.0.1:9/labdb", ["labuser", "127.0.0.1", "labdb", ":9"])):
            tried += 1
            try:
                Store(url).check()
            except StoreError as exc:
                failed += any(s in str(exc) for s in secrets)
    finally:
        os.environ.pop("SCRATCHPAD_LAB_HOSTED", None)
    report("hosted store errors: no file path, user, host, port or database", tried, failed)


def main() -> None:
    os.environ["PROBE_SECRET"] = SECRET
    os.environ["SCRATCHPAD_LAB_DB"] = str(TMP / "lab.db")  # never the user's own store
    logging.getLogger("autourgos_agent").setLevel(logging.ERROR)
    redirects()
    rebinding()
    big_replies()
    echoed_key()
    surrogates()
    stop_against_drip()
    compressed_replies()
    web_pages()
    parse_work()
    large_observations()
    fair_store()
    strategies_stop()
    store_errors()
    idn_hosts()
    # The probes run the paths a hosted server runs (its model client, loaders, store, strategies), in this one
    # process; the CLI probes run in child processes.
    import resource
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak memory: this process {own:,.0f} MB (every in-process probe), the largest CLI child {child:,.0f} MB")


if __name__ == "__main__":
    main()
