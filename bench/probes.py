"""The issue-20 probes, re-run against the in-process fake servers (tests/fake_openai.py, 127.0.0.1 only):
prints tried / failed for each.

    PYTHONPATH=src python3 bench/probes.py [--only PROBE ...]

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

Issue 46 item 3, the new surfaces: loss by kind, health and pins on crafted text taking over 30 times as long
for 10 times the chars; a dataset upload of 5,000 runs, a 5,001st, or a hostile run that raises, or keeps a 5 MB
name; a hosted benchmark of 5,000 runs not refused within 10 s, or a hostile run inside one not broken in a line;
the benchmark's HTML report of markup names running a script in Chromium (its CSP bypassed: the escaping is
what is tested, and the same report unescaped must trip the probe); a stored result not read back as it was;
the built-in model writing past its wall clock, a visitor's call outliving its deadline, Stop not ending a call
within a bound, a tool schema (deep or huge) made a grammar crashing, hanging or over 600 MB (each in a child
process); a fork of a hostile run not refused or not bounded; a port of the Ray cluster the lab starts not on
loopback, a Ray cell that kills its worker or hangs not reported or not cancelled at the job's wall clock. It
prints this process's peak memory (every in-process probe: the hosted server's code paths) against 600 MB.
Needs the built-in model, Ray, Python Playwright and /usr/bin/chromium (requirements-dev.txt, requirements-model.txt).
"""
from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, List

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


# ── issue 46 item 3: the new surfaces ────────────────────────────────────────────────────────────

def _grows_linearly(work, make, sizes=(10_000, 100_000)) -> tuple:
    """(seconds at each size): `work(make(n))` with every remembered result forgotten first."""
    from scratchpad_lab.analysis import fact_kinds, facts, health, pin_checks
    out = []
    for n in sizes:
        facts.clear_caches()
        for cached in (fact_kinds._fact_kinds, fact_kinds._instructions, fact_kinds.kind_of, health._invented,
                       pin_checks._check):
            cached.cache_clear()
        args = make(n)
        started = time.perf_counter()
        work(*args)
        out.append(time.perf_counter() - started)
    return tuple(out)


def _dotted_combos(n: int) -> str:
    """Distinct ids of two digits and dots ("1.2.1", "2.1.1.2", ...): every piece of each is everywhere in a text
    of such pieces, none of them whole."""
    import itertools
    out, size = [], 0
    for k in itertools.count(3):
        for bits in itertools.product("12", repeat=k):
            out.append(".".join(bits))
            size += 2 * k
            if size > n:
                return " ".join(out)[:n]
    return ""


CRAFTED = {  # name: a text of n chars
    "1.1.1...": lambda n: ("1." * n)[:n], "a1-a1-...": lambda n: ("a1-" * n)[:n], "Zorba Zorba ...": lambda n: ("Zorba " * n)[:n],
    "x Zorba x Zorba ...": lambda n: ("x Zorba " * n)[:n], "1,1,1...": lambda n: ("1," * n)[:n],
    "a.a.a...@a": lambda n: ("a." * n)[:n] + "@a", "a.a.a.../": lambda n: ("a." * n)[:n] + "/", "v1.1.1...": lambda n: "v1" + ".1" * (n // 2),
    "digits": lambda n: "1" * n, "slashes": lambda n: "/" * n, '"""': lambda n: '"' * n, "“a“a...": lambda n: ("“a" * n)[:n],
    "a-a-a... 1": lambda n: ("a-" * n)[:n] + " 1", "1:11:11...": lambda n: ("1:11:" * n)[:n],
    "distinct ids": lambda n: " ".join(f"AB-{i}" for i in range(n // 8))[:n],
    "dotted combos": _dotted_combos,
    "quoted Greek": lambda n: "".join(f'"{chr(945 + i % 24)}{chr(945 + i // 24 % 24)}{chr(945 + i // 576 % 24)}x" '
                                      for i in range(n // 7))[:n],
}


def analysis_growth() -> None:
    """Loss by kind (facts kept, the user's lines), health (facts a summary invented) and pins, on crafted text
    at 10,000 and 100,000 chars: a probe fails when 10 times the text takes over 30 times as long (of at least
    20 ms) or over 2 s. (Before the fixes: "1.1.1..." 0.9 s -> 42 s, 125,000 distinct ids at 1,000,000 chars
    133 s, a user turn of 40,000 lines 31 s.)"""
    import numpy  # noqa: F401  (the hosted server has it loaded; its first import is not the analysis' time)
    from scratchpad_lab.analysis import fact_kinds, health, pin_checks
    other = lambda n: " ".join(f"CD-{i}" for i in range(n // 8))[:n]  # noqa: E731
    lines = lambda n: "\n".join(f"please do {i:06d}" for i in range(n // 17))[:n]  # noqa: E731
    checks = {
        "loss by kind": (fact_kinds.kind_loss, lambda make: lambda n: (make(n), other(n), (), (lines(n // 4),))),
        "health: invented": (health.invented_facts, lambda make: lambda n: (other(n), make(n), "")),
        "pins kept": (pin_checks.check, lambda make: lambda n: (make(n), make(n)[::-1],
                                                                 tuple(make(200)[:200] + str(k) for k in range(10)))),
    }
    tried = failed = 0
    worst = (0.0, "")
    for what, (work, args) in checks.items():
        for shape, make in CRAFTED.items():
            small, big = _grows_linearly(work, args(make))
            tried += 1
            bad = big > 2.0 or big > 30 * max(small, 0.02)
            failed += bad
            worst = max(worst, (big, f"{what} on {shape}: {small * 1000:.0f} ms -> {big * 1000:.0f} ms"))
            if bad:
                print(f"    super-linear: {what} on {shape}: {small:.2f} s at 10,000 chars, {big:.2f} s at 100,000")
    small, big = _grows_linearly(fact_kinds.last_instruction_lost,
                                 lambda n: (lines(n).replace("do", "dont"), "x", [lines(n)]))
    tried += 1
    failed += big > 2.0 or big > 30 * max(small, 0.02)
    print(f"    slowest at 100,000 chars: {worst[1]}; a user turn of lines: {small * 1000:.0f} -> {big * 1000:.0f} ms")
    report("analysis on crafted text: 10x the chars takes at most 30x the time", tried, failed)


CHAT = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]


def _chat_run(task: Any, reward: Any = 1.0, notes: str = "seat 1 open") -> dict:
    """A small tau-bench-shaped run: the user id from a user turn, the reservation from a tool result."""
    call = lambda i, name, args: {"role": "assistant", "content": None, "tool_calls": [  # noqa: E731
        {"id": i, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}
    return {"task_id": task, "reward": reward, "traj": [
        {"role": "system", "content": "You are an airline agent."}, {"role": "user", "content": "my id is mia_li_3668"},
        call("c1", "get_user", {"user_id": "mia_li_3668"}),
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps({"reservations": ["ZFA04Y"], "notes": notes})},
        call("c2", "cancel", {"reservation_id": "ZFA04Y"}), {"role": "tool", "tool_call_id": "c2", "content": "done"},
        {"role": "assistant", "content": "Cancelled."}]}


def datasets() -> None:
    """The Benchmark page's upload (read_dataset_bytes, on every rerun of the page): 5,000 runs read within 5 s,
    a 5,001st refused in one line, and hostile runs (a reward too large for a float or infinite, a 5 MB task id,
    an object as task id, nesting 100,000 deep, a 5,000-digit number, not JSON) each read as a run with no
    outcome, a name of at most 205 chars, or a broken run with its reason: never an exception."""
    from scratchpad_lab.engine.files.dataset import DatasetError, read_dataset_bytes
    tried = failed = 0
    many = json.dumps([_chat_run(i, i % 2) for i in range(5_000)]).encode()
    started = time.monotonic()
    got = read_dataset_bytes(many, "many.json")
    took = time.monotonic() - started
    tried += 1
    failed += len(got.usable) != 5_000 or took > 5
    print(f"    5,000 runs ({len(many) / 1e6:.1f} MB) read in {took:.2f} s")
    started = time.monotonic()
    try:
        read_dataset_bytes(json.dumps([CHAT] * 5_001).encode(), "more.json")
        failed += 1
    except DatasetError as exc:
        failed += "5,000 runs" not in str(exc) or time.monotonic() - started > 5
    tried += 1
    hostile = {
        "a 400-digit reward": '[{"reward": 1' + "0" * 400 + ', "messages": %s}, {"messages": %s}]' % ((json.dumps(CHAT),) * 2),
        "an infinite reward": '[{"reward": 1e999, "messages": %s}, {"messages": %s}]' % ((json.dumps(CHAT),) * 2),
        "a 5 MB task id": json.dumps([{"task_id": "x" * 5_000_000, "messages": CHAT}, {"messages": CHAT}]),
        "an object as task id": json.dumps([{"task_id": {"a": [1] * 100_000}, "messages": CHAT}, {"messages": CHAT}]),
        "nesting 100,000 deep": "[" * 100_000 + "]" * 100_000,
        "a 5,000-digit number": '[{"reward": ' + "9" * 5_000 + ', "messages": []}]',
        "not JSON": "<script>document.title='PWNED'</script>",
    }
    for what, text in hostile.items():
        tried += 1
        try:
            runs = read_dataset_bytes(text.encode(), "hostile.json").runs
            ok = all(len(r.name) <= 205 and (r.outcome is None or 0 <= r.outcome <= 1) and (r.ok or r.error)
                     for r in runs)
        except DatasetError:
            ok = True  # refused in one sentence
        except Exception as exc:  # an exception the page would show as a traceback
            print(f"    {what}: {type(exc).__name__}: {str(exc)[:120]}")
            ok = False
        failed += not ok
    report("datasets: 5,000 runs, a 5,001st, 7 hostile ones: read or one line", tried, failed)


def _hosted(work: Any) -> Any:
    os.environ["SCRATCHPAD_LAB_HOSTED"] = "1"
    try:
        return work()
    finally:
        os.environ.pop("SCRATCHPAD_LAB_HOSTED", None)


def benchmark_many_runs() -> None:
    """Hosted, a benchmark of a dataset of 5,000 small runs with every default strategy: refused in one line (over
    a job's wall clock) within 10 s, before any cell runs."""
    from scratchpad_lab.engine.files.dataset import read_dataset_bytes
    from scratchpad_lab.engine.studies.benchmark import BenchmarkRequest, run_benchmark
    from scratchpad_lab.model.errors import LabError
    dataset = read_dataset_bytes(json.dumps([_chat_run(i, i % 2) for i in range(5_000)]).encode(), "many.json")
    started = time.monotonic()
    said = ""
    try:
        _hosted(lambda: run_benchmark(BenchmarkRequest(dataset, None, workers=2)))
    except LabError as exc:
        said = str(exc)
    took = time.monotonic() - started
    print(f"    refused after {took:.1f} s: {said[:110]}")
    report("hosted benchmark of 5,000 runs: refused in one line within 10 s", 1, int(not said or took > 10))


def benchmark_hostile_run() -> None:
    """Hosted, a benchmark of six small runs and three hostile ones (an observation over the 4,000,000-char cap, 20
    steps of the agent parser's worst case, a 1 MB observation of "1.1.1..."): the first two come back as broken
    runs with their reason in one line, the third is measured like the others, all within a job's wall clock."""
    from scratchpad_lab.engine.files.dataset import read_dataset_bytes
    from scratchpad_lab.engine.limits import budget
    from scratchpad_lab.engine.studies.benchmark import BenchmarkRequest, run_benchmark
    from scratchpad_lab.model.errors import LabError
    garbage = json.loads(_garbage_trace().read_text())
    runs = [_chat_run(i, i % 2) for i in range(6)] + [_chat_run("over the cap", 1, "x" * 4_000_001), garbage,
                                                      _chat_run("crafted", 0, "1." * 500_000)]
    dataset = read_dataset_bytes(json.dumps(runs).encode(), "hostile.json")
    started = time.monotonic()
    try:
        result = _hosted(lambda: run_benchmark(BenchmarkRequest(dataset, ["trim-only", "deepagents"], workers=2)))
        broken = [why for _, why in result.broken]
        ok = len(broken) == 2 and all(why and "\n" not in why for why in broken) and len(result.runs) == 7
        said = f"{len(result.runs)} runs measured, {len(broken)} broken"
    except LabError as exc:
        ok, said = "\n" not in str(exc), f"refused: {str(exc)[:100]}"
    took = time.monotonic() - started
    print(f"    {said} in {took:.1f} s")
    report("benchmark with hostile runs: each broken in a line, the rest measured", 1,
           int(not ok or took > _hosted(lambda: budget("job_wall_s"))))


PAYLOADS = ("<img src=x onerror=\"document.title='PWNED';window.__pwned=1\">",
            "<script>document.title='PWNED';window.__pwned=1</script>",
            "\"><svg onload=\"window.__pwned=1\">", "</title><script>window.__pwned=1</script>",
            "'><iframe srcdoc='<script>parent.__pwned=1</script>'>", "<a href=\"javascript:window.__pwned=1\">x</a>")


def _hostile_benchmark() -> Any:
    """A benchmark whose dataset's folder, files, run names and broken runs' reasons all carry markup."""
    from scratchpad_lab.engine.studies.benchmark import BenchmarkRequest, run_benchmark
    folder = TMP / "<svg onload=window.__pwned=1>"
    folder.mkdir(exist_ok=True)
    (folder / "<img src=x onerror=window.__pwned=1>.json").write_text(json.dumps(
        [_chat_run(p, 1.0) for p in PAYLOADS] + [{"task_id": p, "traj": p} for p in PAYLOADS]))
    (folder / "<script>window.__pwned=1<\\script>.json").write_text(PAYLOADS[1])
    return run_benchmark(BenchmarkRequest(folder, ["trim-only"], workers=1))


def report_in_browser() -> None:
    """The benchmark's HTML report of a dataset whose folder, files, run names and errors are markup, opened in
    Chromium with its Content-Security-Policy bypassed (so markup that got in would run): no script ran, no element
    that loads or runs anything, no request but the file, every payload shown as text. The yardstick first: the
    same report with escaping off must trip it."""
    from playwright.sync_api import sync_playwright
    from browser_support import CHROMIUM, CHROMIUM_ARGS
    from scratchpad_lab.engine.studies import benchmark_report
    result = _hostile_benchmark()
    honest = TMP / "report.html"
    benchmark_report.write_report(result, honest)
    real_escape = benchmark_report.escape
    benchmark_report.escape = lambda text, quote=True: text  # the yardstick: a report that escapes nothing
    try:
        unescaped = TMP / "unescaped.html"
        benchmark_report.write_report(result, unescaped)
    finally:
        benchmark_report.escape = real_escape
    tried = failed = 0
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            for path, expect_safe in ((unescaped, False), (honest, True)):
                page = browser.new_context(bypass_csp=True).new_page()
                requests: List[str] = []
                page.on("request", lambda r: requests.append(r.url))
                page.goto(path.as_uri())
                page.wait_for_load_state("load")
                page.wait_for_timeout(300)  # an onerror fires after the load event
                ran = page.evaluate("window.__pwned === 1 || document.title === 'PWNED'")
                active = page.evaluate("document.querySelectorAll('script,img,iframe,object,embed,link,a,form,"
                                       "[onload],[onerror],[srcdoc]').length")
                shown = page.evaluate("document.body.innerText")
                if not expect_safe:  # the yardstick must see the attack, or it proves nothing
                    failed += not ran
                    continue
                tried += 1
                failed += ran or active > 0 or requests != [path.as_uri()] or \
                    not all(p in shown for p in PAYLOADS[:2]) or "<svg onload=window.__pwned=1>" not in shown
                print(f"    report: script ran {ran}, active elements {active}, requests {len(requests)}, payloads "
                      f"shown as text {sum(p in shown for p in PAYLOADS)} of {len(PAYLOADS)}")
        finally:
            browser.close()
    report("HTML report of markup names, in Chromium: no script ran, all text", tried, failed)


def stored_results() -> None:
    """A benchmark with markup run names stored and read back as it was; a result of 600 settings, names of
    10,000 chars and NaN figures: refused in one sentence or cut, never a traceback."""
    from scratchpad_lab.engine.store import Store
    from scratchpad_lab.model.errors import LabError
    from scratchpad_lab.model.results import Result
    store = Store(str(TMP / "results.db"))
    tried = failed = 0
    stored = _hostile_benchmark().result(PAYLOADS[0])
    back = store.load_result(store.save_result(stored))
    tried += 1
    failed += back.rows != Result.from_dict(stored.to_dict()).rows or back.name != PAYLOADS[0]
    rows = [{"setting": PAYLOADS[1] * 300 + str(i), "runs": 5, "argument recall %": float("nan")} for i in range(600)]
    for count in (500, 600):
        tried += 1
        try:
            back = store.load_result(store.save_result(Result("benchmark", rows[:count], [r["setting"] for r in rows[:count]],
                                                              name="n" * 10_000, source=PAYLOADS[2])))
            failed += len(back.rows) != count or len(back.name) > 500 or back.rows[0]["argument recall %"] is not None
        except LabError as exc:
            failed += count <= 500 or "\n" in str(exc)
        except Exception as exc:
            print(f"    {count} rows: {type(exc).__name__}: {str(exc)[:120]}")
            failed += 1
    report("stored results: markup kept as text, 600 settings refused in a line", tried, failed)


# ── the built-in model ───────────────────────────────────────────────────────────────────────────

# A prompt SmolLM2 writes hundreds of tokens for (about 500 in 15 s here); "every number from 1 to 100000 in words",
# the Stop probe's, got 27 tokens and an end before Stop, so that probe passed without a Stop.
LONG_WRITE = "Write a long story about a lighthouse keeper, in ten chapters."


def builtin_long_generation() -> None:
    """A prompt that would have it write for minutes, at the operator's largest reply cap (1,024 tokens): the
    call ends at its wall clock (10 s here, plus one token); the cap bounds every reply, and a call's default
    clock is within a hosted job's."""
    from scratchpad_lab.engine.summarize import builtin_model as m
    from scratchpad_lab.model.endpoint import EndpointError
    os.environ[m.MAX_TOKENS_ENV] = "1024"
    try:
        llm = m.BuiltinLLM(timeout_s=10)
        started = time.monotonic()
        try:
            llm.invoke(LONG_WRITE)
            said = "answered"
        except EndpointError as exc:
            said = str(exc)
        took = time.monotonic() - started
    finally:
        os.environ.pop(m.MAX_TOKENS_ENV, None)
    print(f"    ended after {took:.1f} s: {said[:90]}")
    from scratchpad_lab.engine.limits import budget
    failed = took > 12 or "limit" not in said or llm.max_tokens != 1024 or m.reply_cap() > 1024 or \
        m.DEFAULT_TIMEOUT_S > _hosted(lambda: budget("job_wall_s"))  # no call outlives a hosted job
    report("built-in model: a prompt to write for minutes ends at its wall clock", 1, int(failed))


def builtin_visitors() -> None:
    """Eight hosted visitors asking the one model at once (5 s each): they take turns, every call ends by its own
    deadline (answered, or given up waiting with its place said), the queue empties, no thread is left, and the
    process holds one model (its memory grows under 50 MB)."""
    import resource
    from scratchpad_lab.engine.summarize import builtin_model as m
    from scratchpad_lab.model.endpoint import EndpointError
    m.load()
    before_mb, threads = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, threading.active_count()
    ends: List[tuple] = []

    def visitor(k: int) -> None:
        llm = m.BuiltinLLM(max_tokens=32, timeout_s=5)
        started = time.monotonic()
        try:
            llm.invoke(f"Visitor {k}: summarize in one line: order A-{1000 + k} shipped to Pune.")
            said = "answered"
        except EndpointError as exc:
            said = "gave up waiting" if "held the model" in str(exc) else "cut at its deadline" \
                if "passed its" in str(exc) else str(exc)[:60]
        ends.append((time.monotonic() - started, said))
    workers = [threading.Thread(target=visitor, args=(k,)) for k in range(8)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - before_mb
    late = sum(1 for took, _ in ends if took > 5 + 3)
    from collections import Counter
    print(f"    {dict(Counter(s for _, s in ends))}; longest {max(t for t, _ in ends):.1f} s; queue {len(m._QUEUE)}; "
          f"memory grew {grew:.0f} MB")
    failed = late + (len(ends) != 8) + bool(m._QUEUE) + (threading.active_count() > threads) + (grew > 50)
    report("built-in model: 8 visitors at once, each call ends by its deadline", 8, failed)


def builtin_stop() -> None:
    """Stop while the model writes (a 1,024-token reply) ends the call within 1 s; Stop while it reads a prompt of
    about 3,800 tokens (near its 4,096-token context) ends the call within 5 s."""
    from scratchpad_lab.engine.summarize import builtin_model as m
    from scratchpad_lab.model.endpoint import EndpointError
    words = " ".join(f"order A-{1000 + i} shipped to Pune on {i % 28 + 1} May" for i in range(240))
    tried = failed = 0
    for what, prompt, max_tokens, stop_at, bound in (
            ("writing", LONG_WRITE, 1024, 3.0, 1.0),
            ("reading a 3,800-token prompt", "Summarize in one line:\n" + words, 16, 1.0, 5.0)):
        llm = m.BuiltinLLM(max_tokens=max_tokens, timeout_s=170)
        llm.stop_event = threading.Event()
        timer = threading.Timer(stop_at, llm.stop_event.set)
        timer.start()
        started = time.monotonic()
        said = "answered before Stop"
        try:
            llm.invoke(prompt)
        except EndpointError as exc:
            said = str(exc)
        after = time.monotonic() - started - stop_at
        timer.cancel()
        tried += 1
        failed += after > bound or "stopped" not in said  # a call that ended by itself proves nothing
        print(f"    Stop while {what}: the call ended {after:.1f} s after Stop (bound {bound:g} s): {said[-40:]}")
    report("built-in model: Stop ends a call within a bound, writing or reading", tried, failed)


GRAMMAR_CHILD = r'''
import json, sys, time
from scratchpad_lab.analysis.arguments import ToolCall
from scratchpad_lab.engine.studies.decide import Decider, tool_schema
from scratchpad_lab.engine.summarize.builtin_model import BuiltinLLM, load
from scratchpad_lab.model.trace import Trace
params = json.loads(sys.stdin.read())
trace = Trace.from_dict({"schema": "scratchpad-lab/trace@1", "task": "t", "tools": [{"name": "get", "parameters": params}],
                         "steps": [{"response": json.dumps({"thought": "d", "actions": [], "final_answer": "ok"})}]})
load()
started = time.monotonic()
found = Decider(BuiltinLLM(timeout_s=30), constrained=True, max_tokens=8, context_chars=200).decide(
    "task", "context", tool_schema(trace, [ToolCall(1, "get", {})]))
print(json.dumps({"s": time.monotonic() - started, "tool": found.tool, "error": found.error,
                  "mb": int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) / 1024}))
'''


CHILD_PEAK_MB = [0.0]  # the grammar children's own peak (VmHWM: ru_maxrss would count the parent's, forked)


def builtin_grammars() -> None:
    """The next call re-decided with the built-in model, constrained by a dataset run's own tool schema (llama.cpp
    makes it a grammar), each in a child process: nested 60 and 180 levels deep, an enum of 1,500 and of 100,000
    values, 5,000 properties, 1,000,000 as a string's minimum length. Each ends within its 30 s call and 20 s of
    start-up, as a decision or a one-line error (no traceback, no crash), under 600 MB."""
    def nested(depth: int) -> dict:
        s: dict = {"type": "string"}
        for _ in range(depth):
            s = {"type": "object", "properties": {"a": s}}
        return {"type": "object", "properties": {"a": s}}
    schemas = {"nested 60 deep": nested(60), "nested 180 deep": nested(180),
               "an enum of 1,500": {"type": "object", "properties": {"a": {"enum": [f"v{i}" for i in range(1_500)]}}},
               "an enum of 100,000": {"type": "object", "properties": {"a": {"enum": [f"v{i}" for i in range(100_000)]}}},
               "5,000 properties": {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(5_000)}},
               "minLength 1,000,000": {"type": "object", "properties": {"a": {"type": "string", "minLength": 1_000_000}}}}
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "SCRATCHPAD_LAB_BUILTIN_THREADS": "1"}
    tried = failed = 0
    for what, params in schemas.items():
        started = time.monotonic()
        try:
            done = subprocess.run([sys.executable, "-c", GRAMMAR_CHILD], input=json.dumps(params), env=env,
                                  capture_output=True, text=True, timeout=120)
            took = time.monotonic() - started
            last = (done.stdout.strip().splitlines() or [""])[-1]
            found = json.loads(last) if last.startswith("{") else None
            if found:
                CHILD_PEAK_MB[0] = max(CHILD_PEAK_MB[0], found["mb"])
            bad = done.returncode != 0 or found is None or took > 50 or found["mb"] > 600 or \
                "\n" in (found["error"] or "")
            said = (f"{found['s']:.1f} s, {found['mb']:.0f} MB: " + (found["error"] or f"decided {found['tool']}"))[:110] \
                if found else (done.stderr.strip().splitlines() or ["exit %d" % done.returncode])[-1][:110]
        except subprocess.TimeoutExpired:
            bad, said, took = True, "still running after 120 s", time.monotonic() - started
        tried += 1
        failed += bad
        print(f"    {what}: {'FAILED ' if bad else ''}{said}")
    report("built-in model: tool schemas as grammars, deep or huge: bounded", tried, failed)


# ── forks of hostile runs ─────────────────────────────────────────────────────────────────────────

def hostile_forks() -> None:
    """Forks of a run file that says it is a fork of a fork 100 times over (refused before it replays, within 2 s),
    whose name is 10,000 chars of markup, and whose summaries a "model" named with terminal escapes wrote: each
    fork ends within 30 s with a record that is stored and read back, names cut, escapes never shown raw."""
    from scratchpad_lab.engine.run.forking import compression_iterations
    from scratchpad_lab.engine.store import Store
    from scratchpad_lab.engine.tasks.fork_tasks import ForkRequest, fork
    from scratchpad_lab.model.records import load_record
    sample = REPO / "sample_runs" / "support-ticket-tight.json"
    at = compression_iterations(load_record(sample).events)
    store = Store(str(TMP / "forks.db"))
    tried = failed = 0

    def forked(raw: dict, name: str) -> Any:
        path = TMP / "hostile-parent.json"
        path.write_text(json.dumps(raw))
        started = time.monotonic()
        job = fork(ForkRequest(load_record(path), at[-1], skip=True, parent_name=name)).start()
        job.join(60)
        return job, time.monotonic() - started
    raw = json.loads(sample.read_text())
    raw["forked_from"] = {"parent_id": None, "parent_name": "p", "iteration": at[0], "skipped": True,
                          "parent_settings": {}, "earlier": [{"iteration": 1, "skipped": False, "parent_settings": {}}] * 100}
    job, took = forked(raw, "deep")
    tried += 1
    failed += job.result is not None or "the most a run file keeps" not in str(job.error) or took > 2
    raw = json.loads(sample.read_text())
    for e in raw["events"]:  # summaries a "model" wrote, its name a terminal's escapes and markup
        if e.get("kind") == "compression" and e["data"].get("status") == "ok":
            e["data"].update(summarizer_called=True, model="evil\x1b]0;PWNED\x07\x1b[31m<script>x</script>")
    job, took = forked(raw, PAYLOADS[0] * 100)
    tried += 1
    if job.result is None:
        print(f"    the hostile fork failed: {job.error}")
        failed += 1
    else:
        record = job.result.record
        stored = store.load(store.save_run(record, name=record.name).id)
        notice = job.result.notice or ""
        failed += took > 30 or len(record.name) > 500 or len(record.forked_from["parent_name"]) > 500 or \
            "\x1b" in notice or stored.forked_from != record.forked_from
        print(f"    the hostile fork: {took:.1f} s, name {len(record.name)} chars, notice: {notice[:90]!r}")
    report("forks of hostile runs: refused or bounded, stored, no raw escape", tried, failed)


# ── the Ray executor ─────────────────────────────────────────────────────────────────────────────

def _listening() -> dict:
    """{socket inode: (address, port)} of every listening TCP socket of this machine."""
    out = {}
    for table, family in (("/proc/net/tcp", socket.AF_INET), ("/proc/net/tcp6", socket.AF_INET6)):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] != "0A":  # LISTEN
                continue
            address, port = fields[1].split(":")
            raw = bytes.fromhex(address)
            raw = raw[::-1] if family == socket.AF_INET else b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
            out[fields[9]] = (socket.inet_ntop(family, raw), int(port, 16))
    return out


def _descendants() -> set:
    children: dict = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError, IndexError, ValueError):
            parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(pid))
    found, todo = set(), [os.getpid()]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _sockets_of(pids: set) -> List[tuple]:
    table, out = _listening(), []
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    link = os.readlink(f"/proc/{pid}/fd/{fd}")
                    if link.startswith("socket:[") and link[8:-1] in table:
                        title = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
                        out.append((pid, title.rsplit("/", 1)[-1], *table[link[8:-1]]))
    return sorted(set(out), key=lambda s: s[3])


def _own_addresses() -> List[str]:
    """This machine's addresses other than loopback (IPv4 from /proc/net/fib_trie, IPv6 from /proc/net/if_inet6)."""
    import ipaddress
    found = set()
    lines = Path("/proc/net/fib_trie").read_text().splitlines()
    for above, line in zip(lines, lines[1:]):
        if line.strip() == "/32 host LOCAL":
            found.add(above.split()[-1])
    with contextlib.suppress(OSError):
        for line in Path("/proc/net/if_inet6").read_text().splitlines():
            raw = line.split()[0]
            found.add(str(ipaddress.IPv6Address(int(raw, 16))))
    return sorted(a for a in found if not ipaddress.ip_address(a).is_loopback and not a.startswith("fe80"))


def _loopback(address: str) -> bool:
    import ipaddress
    ip = ipaddress.ip_address(address)
    mapped = getattr(ip, "ipv4_mapped", None)  # ::ffff:127.0.0.1, an IPv6 socket bound to IPv4 loopback
    return ip.is_loopback or bool(mapped and mapped.is_loopback)


def ray_binding() -> None:
    """The cluster the lab starts for `--executor ray` (ray_cluster.connected, no address): every port its processes
    (and this one) listen on is on loopback only, none answers at this machine's own addresses, and no Ray process
    is left once the study ends."""
    from scratchpad_lab.engine.cells.executor import ExecutorChoice
    from scratchpad_lab.engine.cells.ray_cluster import connected
    tried = failed = 0
    own = _own_addresses()
    with connected(ExecutorChoice("ray")):
        import ray
        ray.get(ray.remote(lambda: os.getpid()).remote())  # a worker up, with its own ports
        for pid, title, address, port in _sockets_of(_descendants() | {os.getpid()}):
            tried += 1
            answered = []
            for host in own:  # what a machine on the network would reach
                with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=1):
                    answered.append(host)
            failed += not _loopback(address) or bool(answered)
            if not _loopback(address) or answered:
                print(f"    {title} (pid {pid}) listens on {address}:{port}"
                      + (f", answering at {', '.join(answered)}" if answered else ""))
        print(f"    {tried} ports, tried at {', '.join(own) or 'no other address'}")
    deadline = time.monotonic() + 15
    while any(b"ray" in Path(f"/proc/{p}/cmdline").read_bytes() for p in _descendants()
              if Path(f"/proc/{p}/cmdline").exists()) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [p for p in _descendants() if Path(f"/proc/{p}/cmdline").exists()
            and b"ray" in Path(f"/proc/{p}/cmdline").read_bytes()]
    tried += 1
    failed += bool(left)
    report("Ray: every port the lab's cluster listens on is loopback; none left", tried, failed)


HANGS, KILLS = 5401, 5402  # trim-only agent_trim_chars values whose cells the workers' hook makes hang or die


def _ray_faults() -> None:
    """Ray's worker_process_setup_hook: a cell of trim-only with HANGS sleeps an hour, one with KILLS ends its
    worker with SIGKILL, every time (the lab's code has no fault switch)."""
    import signal
    from scratchpad_lab.engine.studies import recommender
    real = recommender.run_point

    def run_point(name, settings, price_model, context):
        trim = settings.get("agent_trim_chars") if name == "trim-only" else None
        if trim == HANGS:
            time.sleep(3_600)
        if trim == KILLS:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(name, settings, price_model, context)
    recommender.run_point = run_point


def ray_faults() -> None:
    """On a local cluster whose workers hang or die on cue: a cell that kills its worker is run once more, then
    one error row, and the others finish; a cell that hangs is cancelled at the job's wall clock (20 s here), the
    benchmark ends within 20 s + Ray's 10 s to cancel + 5 s, and no cell is left running."""
    import ray
    from scratchpad_lab.engine import limits
    from scratchpad_lab.engine.cells.executor import ExecutorChoice
    from scratchpad_lab.engine.studies.benchmark import BenchmarkRequest, run_benchmark
    dataset = TMP / "ray-runs.json"
    dataset.write_text(json.dumps([_chat_run(i, i % 2) for i in range(2)]))
    path = os.pathsep.join([str(REPO / "src"), str(REPO / "tests")])
    if __name__ != "__main__":  # imported (the hook is then pickled by reference, to a module no worker has)
        ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
             runtime_env={"env_vars": {"PYTHONPATH": path}, "worker_process_setup_hook": _ray_faults})
    tried = failed = 0
    real_budget = limits.BUDGETS["job_wall_s"]
    try:
        started = time.monotonic()
        done = run_benchmark(BenchmarkRequest(dataset, ["trim-only"], {"trim-only": {"agent_trim_chars": (4000, KILLS)}},
                                              runs=1, executor=ExecutorChoice("ray")))
        cells = done.runs[0]["cells"] if done.runs else {}
        lost = (cells.get(f"trim-only:agent_trim_chars={KILLS}") or {}).get("error") or ""
        tried += 1
        failed += "lost" not in lost or "error" in cells.get("trim-only:agent_trim_chars=4000", {"error": 1}) or \
            time.monotonic() - started > 60
        print(f"    a cell that kills its worker: {lost[:80]!r} after {time.monotonic() - started:.1f} s")
        limits.BUDGETS["job_wall_s"] = (20, 20)
        started = time.monotonic()
        done = run_benchmark(BenchmarkRequest(dataset, ["trim-only"], {"trim-only": {"agent_trim_chars": (4000, HANGS)}},
                                              executor=ExecutorChoice("ray")))
        took = time.monotonic() - started
        end = time.monotonic() + 15
        while _running_cells() and time.monotonic() < end:
            time.sleep(0.2)
        tried += 1
        failed += not done.stopped or took > 35 or bool(_running_cells())
        print(f"    a cell that hangs: {done.stopped!r} after {took:.1f} s, cells still running {len(_running_cells())}")
    finally:
        limits.BUDGETS["job_wall_s"] = real_budget
        ray.shutdown()
    report("Ray: a cell that kills its worker, one that hangs: bounded, reported", tried, failed)


def _running_cells() -> List[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            if Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"ray::run_cell"):
                found.append(int(pid))
    return found


def main(argv: Any = None) -> None:
    import argparse
    probes = [redirects, rebinding, big_replies, echoed_key, surrogates, stop_against_drip, compressed_replies,
              web_pages, parse_work, large_observations, fair_store, strategies_stop, store_errors, idn_hosts,
              # issue 46 item 3: the new surfaces
              analysis_growth, datasets, benchmark_many_runs, benchmark_hostile_run, report_in_browser, stored_results,
              builtin_long_generation, builtin_visitors, builtin_stop, builtin_grammars, hostile_forks, ray_binding,
              ray_faults]
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", metavar="PROBE", choices=[p.__name__ for p in probes],
                        help="run this probe only (again for more); default: every probe, in this order: "
                             + ", ".join(p.__name__ for p in probes))
    only = parser.parse_args(argv).only
    probes = [p for p in probes if not only or p.__name__ in only]
    os.environ["PROBE_SECRET"] = SECRET
    os.environ["SCRATCHPAD_LAB_DB"] = str(TMP / "lab.db")  # never the user's own store
    logging.getLogger("autourgos_agent").setLevel(logging.ERROR)
    import resource
    rises = []
    for probe in probes:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        probe()
        rises.append((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - before, probe.__name__))
    # The probes run the paths a hosted server runs (its model client and built-in model, loaders, datasets and
    # benchmark, store, strategies, forks, the Ray driver), in this one process; the grammar probes run in child
    # processes (a crash there must not end this one), and so do Chromium and Ray's own processes.
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory: this process {own:,.0f} MB (every in-process probe: the hosted server's code paths), against "
          f"600 MB: {'under' if own < 600 else 'OVER'}; it rose most in " + ", ".join(
              f"{name} (+{mb:,.0f} MB)" for mb, name in sorted(rises, reverse=True)[:4])
          + f"; the largest grammar child {CHILD_PEAK_MB[0]:,.0f} MB")


if __name__ == "__main__":
    main()
