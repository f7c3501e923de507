"""The suite on a busy machine (issue 46): `.ci/run` (or the README's test command) run beside busy processes, a
few times in a row, each run's wall time and verdict printed.

    python bench/busy_ci.py [--busy 2] [--times 3] [--command "bash .ci/run"] [--log-dir /tmp/busy-ci]

`--busy N` starts N processes that each spin one core (`python -c "while True: pass"`, as a person's other work
would), runs the command `--times` times one after another, and stops the busy processes however it ends (done,
failed, Ctrl-C). Each run's output goes to a log file in --log-dir; the last lines of pytest's summary are printed
with its exit status, wall seconds and the load average before and after. `--busy 0` gives the quiet figure.
The guide's Benchmarks page quotes these figures (docs/benchmarks.md, "The suite on a busy machine").
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SPIN = "while True: pass"


def load() -> str:
    return " ".join(f"{v:.1f}" for v in os.getloadavg())


def summary(log: Path) -> str:
    """pytest's last summary line (`N passed, M failed in S s`) from a run's log."""
    lines = [line for line in log.read_text(errors="replace").splitlines() if " passed" in line or " failed" in line]
    return lines[-1].strip() if lines else "(no pytest summary: see the log)"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--busy", type=int, default=2)
    parser.add_argument("--times", type=int, default=3)
    parser.add_argument("--command", default="bash .ci/run")
    parser.add_argument("--log-dir", default="/tmp/busy-ci")
    args = parser.parse_args()
    logs = Path(args.log_dir)
    logs.mkdir(parents=True, exist_ok=True)
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(args.busy)]
    failed = 0
    print(f"{args.busy} busy processes beside `{args.command}`, {args.times} times; cores: {os.cpu_count()}", flush=True)
    try:
        for n in range(1, args.times + 1):
            log = logs / f"run-{n}.log"
            before, started = load(), time.monotonic()
            with log.open("w") as out:
                code = subprocess.run(args.command, shell=True, cwd=REPO, stdout=out, stderr=subprocess.STDOUT).returncode
            seconds = time.monotonic() - started
            failed += code != 0
            print(f"run {n}: exit {code} in {seconds / 60:.1f} min ({seconds:.0f} s); load {before} -> {load()}; "
                  f"{summary(log)}; log {log}", flush=True)
    finally:
        for spinner in spinners:
            spinner.send_signal(signal.SIGTERM)
        for spinner in spinners:
            spinner.wait()
    print(f"{args.times - failed} of {args.times} runs passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
