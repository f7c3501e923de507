"""The issue-20 probes, re-run against the in-process fake servers (tests/fake_openai.py, 127.0.0.1 only):
prints tried / failed for each.

    PYTHONPATH=src python3 bench/probes.py

A probe fails when what the issue found happens again: a redirect followed, a rebinding address
reached, a 5 MB reply taken as a summary, the key shown or logged, an output file that is not JSON,
a call's thread or socket alive 10 s after Stop. (The 5,000-step trace is bench/work_limits.py --big;
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

from fake_openai import STEP, FakeOpenAI  # noqa: E402
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
    from scratchpad_lab.engine.summarizers import build_summarizer
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
    from scratchpad_lab.engine.runner import Run, Source
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


def main() -> None:
    os.environ["PROBE_SECRET"] = SECRET
    logging.getLogger("autourgos_agent").setLevel(logging.ERROR)
    redirects()
    rebinding()
    big_replies()
    echoed_key()
    surrogates()
    stop_against_drip()


if __name__ == "__main__":
    main()
