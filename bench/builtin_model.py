"""Benchmark: the built-in model's speed on this CPU, at 1 and at 2 threads (issue 33).

    python bench/builtin_model.py [--threads 1,2] [--prompt-words 150] [--tokens 32] [--no-compression]

For each thread count, in a fresh process (the model is loaded once per process): the load time, llama.cpp's
own prompt and generation tokens per second on one call (a prompt of about --prompt-words words, --tokens
generated), and the process's resident memory after the call. Then, at 1 thread (the lab's setting), the time
of one Playground compression: the real middleware firing once on the support-ticket scenario's scratchpad
before its first compression, with the lab's default reply cap. Greedy decoding, so the figures repeat.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="utf-8") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def one(threads: int, prompt_words: int, tokens: int, compression: bool) -> dict:
    from scratchpad_lab.engine.summarize import builtin_model

    before = _rss_mb()
    started = time.perf_counter()
    builtin_model.load(n_threads=threads)
    load_s = time.perf_counter() - started
    model = builtin_model.BuiltinLLM(max_tokens=tokens, timeout_s=900)
    words = " ".join(f"order A-{1000 + i} shipped on day {i % 28 + 1};" for i in range(prompt_words // 6))
    model.invoke(f"Summarize these notes in a few lines.\n{words}")
    t = model.last_timings
    row = {"threads": threads, "load_s": round(load_s, 2), "prompt_tokens": t.get("prompt_n"),
           "prompt_tok_s": round(t.get("prompt_per_second", 0), 1), "generated_tokens": t.get("predicted_n"),
           "generation_tok_s": round(t.get("predicted_per_second", 0), 1),
           "rss_mb_before": round(before), "rss_mb_after": round(_rss_mb())}
    if compression:
        row.update(_compression())
    return row


def _compression() -> dict:
    """One Playground compression: the support-ticket run's first compressed scratchpad, summarized once."""
    from scratchpad_lab.engine.summarize import builtin_model
    from scratchpad_lab.engine.studies.promptlab.matrix import compress_once, snapshot_at_compression
    from scratchpad_lab.engine.run.runner import Run
    from scratchpad_lab.model.config import RunConfig

    record = Run(RunConfig.build(scenario="support-ticket", summarize_every=2)).run()
    snapshot = snapshot_at_compression(record, 1, "support-ticket")
    model = builtin_model.BuiltinLLM(timeout_s=900)
    started = time.perf_counter()
    c = compress_once(snapshot, None, model, model=model.model_name)
    return {"compression_s": round(time.perf_counter() - started, 1), "compression_tokens_in": c["tokens_in"],
            "compression_tokens_out": c["tokens_out"], "compression_status": c["status"]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--prompt-words", type=int, default=150)
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--no-compression", action="store_true")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(one(args.child, args.prompt_words, args.tokens,
                             compression=args.child == 1 and not args.no_compression)))
        return 0
    from scratchpad_lab.engine.summarize.builtin_model import missing
    gap = missing()
    if gap:
        print(gap, file=sys.stderr)
        return 1
    for threads in (int(x) for x in args.threads.split(",")):
        cmd = [sys.executable, __file__, "--child", str(threads), "--prompt-words", str(args.prompt_words),
               "--tokens", str(args.tokens)] + (["--no-compression"] if args.no_compression else [])
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
        row = json.loads(out)
        print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
