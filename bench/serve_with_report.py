"""`streamlit run` with a memory report on SIGUSR2 (SIGUSR1: also malloc_trim) (used by bench/tabs.py to see what holds memory).

The report (appended to $LAB_REPORT) lists live threads by name and how many objects of the kinds that
could hold a closed tab's data are alive: Streamlit sessions, runs, agents, records, events.
"""
import collections
import gc
import os
import signal
import sys
import threading

KINDS = ("AppSession", "SessionState", "Run", "ObservedAgent", "RunRecord", "RunLog", "Event", "EndpointLLM")


def rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    return -1


def report(signum=None, _frame=None):
    before = rss_mb()
    gc.collect()
    trimmed = ""
    if signum == signal.SIGUSR1:  # also hand freed heap back to the OS, to see how much of RSS is free space
        import ctypes
        ctypes.CDLL("libc.so.6").malloc_trim(0)
        trimmed = f"; RSS {before} MB -> {rss_mb()} MB after gc + malloc_trim"
    counts = collections.Counter(type(o).__name__ for o in gc.get_objects())
    names = collections.Counter(t.name.rstrip("0123456789-_ ") for t in threading.enumerate())
    with open(os.environ.get("LAB_REPORT", "/dev/stderr"), "a") as out:
        out.write("objects: " + ", ".join(f"{k}={counts.get(k, 0)}" for k in KINDS) + "\n")
        out.write("threads: " + ", ".join(f"{n}={c}" for n, c in names.most_common()) + trimmed + "\n")


signal.signal(signal.SIGUSR2, report)
signal.signal(signal.SIGUSR1, report)
from streamlit.web.cli import main  # noqa: E402

sys.argv = ["streamlit", *sys.argv[1:]]
sys.exit(main())
