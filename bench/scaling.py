"""Benchmark: whole-process `scratchpad-lab replay` against the bare packages at 200, 800, 1,600 steps,
and a 6 x 6 `scratchpad-lab sweep` against one replay of the same trajectory.

    python bench/scaling.py [--steps 200,800,1600] [--repeats 3] [--sweep-steps 100]

Every figure is a whole process (`python -m scratchpad_lab.cli ...`, start-up and vocabulary load
included), best of N wall-clock times, lab and bare run one after the other in the same loop so both
see the same machine load. The lab side is exactly what a user runs: `scratchpad-lab replay TRACE`
(extractive summarizer, package defaults 5 / 15,000). The bare side is a process that imports only
the autourgos packages and replays the same trace through a bare `Agent` + `AutoSummarizeMiddleware`,
fed the summaries the lab wrote (read from the lab's run record), so it pays nothing for summarizing.
Also printed: what loading the o200k vocabulary costs from tiktoken's text form and from the lab's
pre-parsed form.

Also printed: what exact figures cost per step at the least (tiktoken over each distinct text the replay
counts, once; the fact search over each distinct line it reads, once), next to the bare step.

Targets (issue 15): replay of 200 steps <= 3.0x bare; each further step (200 -> 1,600) <= 2.0x what it
costs bare; the 6 x 6 sweep of 100 steps <= 4 single replays.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
REPLAY_RATIO_TARGET = 3.0
PER_STEP_TARGET = 2.0
SWEEP_TARGET = 4.0
GRID_EVERY = "1,2,3,5,8,none"
GRID_CHARS = "1000,2000,4000,8000,15000,30000"

# The bare side: autourgos packages only; the summarizer replays the lab's replies in order.
BARE = r"""
import json, sys
from autourgos_agent import Agent
from autourgos_summarizer import AutoSummarizeMiddleware

trace = json.load(open(sys.argv[1]))
replies = json.load(open(sys.argv[2]))
steps = trace["steps"]

class LLM:
    next = 0
    def invoke(self, prompt, **kw):
        response = steps[self.next]["response"]
        self.next += 1
        return response

class Summaries:
    next = 0
    def invoke(self, prompt, **kw):
        reply = replies[self.next]
        self.next += 1
        return reply

llm = LLM()
positions = {}

def make(name):
    def replayed(*args, **kwargs):
        index = llm.next - 1
        position = positions.get(index, 0)
        positions[index] = position + 1
        observations = steps[index]["observations"]
        return observations[position] if position < len(observations) else ""
    return replayed

tools = [{"name": t["name"], "description": t.get("description") or t["name"],
          "parameters": t.get("parameters") or {"type": "object", "properties": {}}, "func": make(t["name"])}
         for t in trace["tools"]]
summaries = Summaries()
middleware = AutoSummarizeMiddleware(summarize_every=5, max_scratchpad_chars=15000, llm=summaries)
agent = Agent(llm=llm, middleware=[middleware], tools=tools, max_iterations=len(steps) + 1,
              max_scratchpad_chars=15000, max_tool_output_chars=5000, max_tool_workers=1)
agent.invoke(trace["task"])
assert summaries.next == len(replies), (summaries.next, len(replies))
"""


def _env():
    env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("SCRATCHPAD_LAB_SAMPLES", None)
    return env


def timed(cmd, env) -> float:
    started = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd[:4]))} failed: {done.stderr[-500:]}")
    return seconds


def lab_cmd(*args):
    return [sys.executable, "-m", "scratchpad_lab.cli", *map(str, args)]


def vocabulary_load(env) -> str:
    code = ("import time, tiktoken.load, gc\n"
            "from scratchpad_lab.engine import tokens\n"
            "cache = tokens.install_vocabularies()\n"
            "url, h = tokens._VOCABS['o200k_base']\n"
            "t = time.perf_counter(); tiktoken.load.load_tiktoken_bpe(url, expected_hash=h); text = time.perf_counter() - t\n"
            "tokens._ranks('o200k_base', cache)\n"
            "t = time.perf_counter(); ranks = tokens._ranks('o200k_base', cache); pre = time.perf_counter() - t\n"
            "t = time.perf_counter(); tokens.get_encoding('o200k_base'); whole = time.perf_counter() - t\n"
            "print(f'{text:.3f} {pre:.3f} {whole:.3f}')")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    text, pre, whole = (float(x) for x in out.split())
    return (f"o200k vocabulary: tiktoken's text form parses in {text:.3f} s, the pre-parsed form reads in "
            f"{pre:.3f} s; the whole first get_encoding (read + tiktoken's Encoding build) {whole:.3f} s")


FLOOR = r"""
import functools, json, sys, time
from scratchpad_lab.analysis import facts
from scratchpad_lab.engine.summarize import extractive
from scratchpad_lab.engine.run import tokens
from scratchpad_lab.engine.run.runner import Run, Source
from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.model.records import load_path

trace = load_path(sys.argv[1])
encoding = tokens.get_encoding("o200k_base")
encoded, scanned = [], []
real_encoding, real_spans = tokens.get_encoding, facts.line_fact_spans.__wrapped__

class Spy:
    def encode(self, text, **kwargs):
        encoded.append(text)
        return encoding.encode(text, **kwargs)

tokens.get_encoding = lambda name: Spy()
def spy(line):
    scanned.append(line)
    return real_spans(line)
facts.line_fact_spans = extractive.line_fact_spans = functools.lru_cache(maxsize=8192)(spy)  # as remembered
Run(RunConfig.build(scenario=None, summarizer="extractive"), Source.for_trace(trace)).run()
tokens.get_encoding = real_encoding
started = time.process_time()
for text in encoded:
    encoding.encode(text, disallowed_special=())
encode_s = time.process_time() - started
started = time.process_time()
for line in scanned:
    real_spans(line)
facts_s = time.process_time() - started
steps = len(trace.steps)
print(json.dumps({"encode_ms": encode_s / steps * 1000, "facts_ms": facts_s / steps * 1000,
                  "encoded_chars": sum(map(len, encoded)) / steps, "scanned_chars": sum(map(len, scanned)) / steps}))
"""


def floor(trace_path, env) -> dict:
    """What exact figures cost per step at the least: tiktoken over each distinct text the replay counts,
    once, and the fact search over each distinct line it reads, once (CPU seconds, in one process)."""
    out = subprocess.run([sys.executable, "-c", FLOOR, str(trace_path)], env=env, capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default="200,800,1600")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sweep-steps", type=int, default=100)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(SRC))
    sys.path.insert(0, str(REPO / "tests"))  # synthetic traces
    from synthetic import synthetic_trace

    env = _env()
    if hasattr(os, "getloadavg"):
        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(vocabulary_load(env))
    sizes = [int(s) for s in args.steps.split(",")]
    results = {}
    with tempfile.TemporaryDirectory(prefix="scaling-") as tmp:
        tmp = Path(tmp)
        bare_script = tmp / "bare.py"
        bare_script.write_text(BARE)
        for steps in sizes + [args.sweep_steps]:
            trace_path = tmp / f"trace-{steps}.json"
            trace_path.write_text(json.dumps(synthetic_trace(steps=steps, seed=args.seed).to_dict()))
            record_path = tmp / f"run-{steps}.json"
            subprocess.run(lab_cmd("replay", trace_path, "--out", record_path), env=env, check=True,
                           stdout=subprocess.DEVNULL)
            record = json.loads(record_path.read_text())
            replies = [e["data"]["response"] for e in record["events"] if e["kind"] == "compression"]
            (tmp / f"replies-{steps}.json").write_text(json.dumps(replies))
        print(f"\nwhole-process replay, best of {args.repeats} (lab = `scratchpad-lab replay TRACE`)")
        print(f"{'steps':>6} {'lab s':>8} {'bare s':>8} {'ratio':>6}")
        for steps in sizes:
            lab, bare = float("inf"), float("inf")
            for _ in range(args.repeats):  # interleaved, so both see the same load
                lab = min(lab, timed(lab_cmd("replay", tmp / f"trace-{steps}.json"), env))
                bare = min(bare, timed([sys.executable, bare_script, tmp / f"trace-{steps}.json",
                                        tmp / f"replies-{steps}.json"], env))
            results[steps] = (lab, bare)
            print(f"{steps:>6} {lab:>8.2f} {bare:>8.2f} {lab / bare:>6.2f}")
        first, last = sizes[0], sizes[-1]
        ratio = results[first][0] / results[first][1]
        print(f"replay of {first} steps vs bare: {ratio:.2f} (target <= {REPLAY_RATIO_TARGET}) "
              f"{'OK' if ratio <= REPLAY_RATIO_TARGET else 'OVER'}")
        if last != first:
            lab_step = (results[last][0] - results[first][0]) / (last - first)
            bare_step = (results[last][1] - results[first][1]) / (last - first)
            per = lab_step / bare_step if bare_step > 0 else float("inf")
            print(f"each further step {first} -> {last}: lab {lab_step * 1000:.2f} ms, bare {bare_step * 1000:.2f} ms, "
                  f"ratio {per:.2f} (target <= {PER_STEP_TARGET}) {'OK' if per <= PER_STEP_TARGET else 'OVER'}")
            cost = floor(tmp / f"trace-{last}.json", env)
            least = (cost["encode_ms"] + cost["facts_ms"]) / 1000
            print(f"what exact figures cost per step at the least ({last} steps, each distinct text once): tiktoken "
                  f"{cost['encode_ms']:.2f} ms over {cost['encoded_chars']:,.0f} chars, fact search "
                  f"{cost['facts_ms']:.2f} ms over {cost['scanned_chars']:,.0f} chars; with the bare step that is "
                  f"{(bare_step + least) / bare_step:.2f}x the bare step before any other work")

        trace = tmp / f"trace-{args.sweep_steps}.json"
        one, sweep = float("inf"), float("inf")
        for _ in range(args.repeats):
            one = min(one, timed(lab_cmd("replay", trace), env))
            sweep = min(sweep, timed(lab_cmd("sweep", trace, "--summarize-every", GRID_EVERY,
                                             "--max-scratchpad-chars", GRID_CHARS), env))
        print(f"\n6 x 6 sweep of {args.sweep_steps} steps (whole process): {sweep:.2f} s; one replay {one:.2f} s; "
              f"{sweep / one:.2f} replays (target <= {SWEEP_TARGET}) {'OK' if sweep / one <= SWEEP_TARGET else 'OVER'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
