"""Benchmark: what storing, listing and opening runs costs (issue 24), on SQLite and, given a URL, PostgreSQL.

    python bench/store.py [--runs 200] [--pg postgresql+psycopg://user:password@127.0.0.1/db]

Stores the shipped sample runs over and over into a fresh SQLite file in a temporary folder (and into the
PostgreSQL database given, whose lab tables it drops first), then prints the median time to store one run
(validated by the file schema on the way in), to list the library (newest first, then a search), and to open
one run (validated on the way out), with the bytes stored.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from scratchpad_lab.engine.store import Store, forget
from scratchpad_lab.engine.store.tables import metadata
from scratchpad_lab.model.records import load_record

REPO = Path(__file__).resolve().parents[1]


def _ms(samples) -> str:
    return f"{statistics.median(samples) * 1000:7.1f} ms"


def bench(url: str, runs: int) -> None:
    records = [load_record(p) for p in sorted((REPO / "sample_runs").glob("*.json"))]
    store = Store(url)
    store.check()
    saves, ids = [], []
    for i in range(runs):
        started = time.perf_counter()
        ids.append(store.save_run(records[i % len(records)], name=f"bench run {i}").id)
        saves.append(time.perf_counter() - started)
    lists, searches, loads = [], [], []
    for i in range(20):
        started = time.perf_counter()
        store.list_runs()
        lists.append(time.perf_counter() - started)
        started = time.perf_counter()
        store.list_runs(search="log-triage every")
        searches.append(time.perf_counter() - started)
        started = time.perf_counter()
        store.load(ids[i * 7 % len(ids)])
        loads.append(time.perf_counter() - started)
    count, size = store.usage(None)
    print(f"{store.where}\n  store one run {_ms(saves)}   list {count} runs {_ms(lists)}   search {_ms(searches)}"
          f"   open one run {_ms(loads)}   {size / 1e6:.1f} MB stored")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--pg", help="a PostgreSQL URL (its lab tables are dropped first)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = "sqlite:///" + str(Path(folder) / "lab.db")
        bench(url, args.runs)
        forget(url)
    if args.pg:
        from sqlalchemy import create_engine
        engine = create_engine(args.pg)
        metadata.drop_all(engine)
        engine.dispose()
        bench(args.pg, args.runs)
        metadata.drop_all(create_engine(args.pg))
        forget(args.pg)


if __name__ == "__main__":
    main()
