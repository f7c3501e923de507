"""One count of compressions and of failed summarizer calls on every surface (issue 28, item 4).

Three runs of the support-ticket scenario: a working summarizer (extractive), a silent one (it replies
nothing: every call fails) and a reviewed run whose person accepts one proposal and rejects the other (a
rejection is the person's decision, never a failure). Each goes through the figures row, `run` (and
`replay` for the reviewed run, which keeps its verdicts) with and without --json, the warning on stderr,
`runs list` and `runs list --json`, `runs show`, the rows in the store's table, and the Playground's
status row, cards heading and banner, and the Runs page's stored-runs table. Every surface must give
what an oracle outside the figures code reads from what the package did: a compression is an iteration
whose scratchpad sent starts with the package's summary marker, a summarizer call is a trigger check that
fired, and a failed call is the silent summarizer's every call and nobody else's.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import re

import pytest
from sqlalchemy import create_engine, text
from streamlit.testing.v1 import AppTest

from scratchpad_lab.analysis.figures import figures
from scratchpad_lab.cli import main
from scratchpad_lab.engine.run.runner import Run
from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.model.records import load_record
from conftest import APP

KINDS = ("working", "silent", "rejecting")
# the issue's own run: support-ticket, every 3, cap 2,000 (its silent run said 0 on one surface and 12 on another)
SETTINGS = ["--scenario", "support-ticket", "--summarize-every", "3", "--max-scratchpad-chars", "2000"]
REVIEWED = dict(scenario="support-ticket", summarize_every=6, max_scratchpad_chars=1_000_000)  # two calls: 6, 12
VERDICTS = ["accepted", "rejected"]


def _cli(*argv: str):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    assert code == 0, err.getvalue()
    return out.getvalue(), err.getvalue()


def _reviewer():
    """A person who accepts the first proposal and rejects the second."""
    verdicts = iter(VERDICTS)

    def decide(call, agent, iteration):
        verdict = next(verdicts, "accepted")
        return verdict, call["response"] if verdict == "accepted" else ""
    return decide


def _oracle(record) -> dict:
    """What the package did, read without the figures code."""
    replaced = sum(1 for e in record.events if e.kind == "iteration" and
                   str(e.data["scratchpad"]).startswith(f"[Summarized up to step {e.iteration}]"))
    called = sum(1 for e in record.events if e.kind == "trigger" and e.data["fired"])
    return {"compressions": replaced, "summarizer_calls": called,
            "failed_calls": called if record.config.summarizer.kind == "silent" else 0}


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("failed-calls")
    samples = root / "samples"
    samples.mkdir()
    url = "sqlite:///" + str(root / "lab.db")
    saved = os.environ.get("SCRATCHPAD_LAB_DB")
    os.environ["SCRATCHPAD_LAB_DB"] = url
    out = {"url": url, "samples": samples}
    try:
        reviewed = Run(RunConfig.build(**REVIEWED))
        reviewed.observer.reviewer = _reviewer()
        reviewed.run().save(str(root / "reviewed.json"))
        for kind in KINDS:
            record = samples / f"{kind}.json"
            if kind == "rejecting":  # `replay` keeps a reviewed run's verdicts under its own settings
                command = ["replay", str(root / "reviewed.json")]
            else:
                command = ["run", *SETTINGS, "--summarizer", "extractive" if kind == "working" else "silent"]
            as_json, _ = _cli(*command, "--json", "--save", "--out", str(record))
            human, warning = _cli(*command)
            out[kind] = {"record": load_record(record), "json": json.loads(as_json), "human": human,
                         "warning": warning}
            out[kind]["oracle"] = _oracle(out[kind]["record"])
        listing, _ = _cli("runs", "list")
        listing_json, _ = _cli("runs", "list", "--json")
        out["listing"] = listing
        out["listing_json"] = json.loads(listing_json)
        out["shown"] = {r["id"]: _cli("runs", "show", r["id"])[0] for r in out["listing_json"]}
        yield out
    finally:
        if saved is None:
            os.environ.pop("SCRATCHPAD_LAB_DB", None)
        else:
            os.environ["SCRATCHPAD_LAB_DB"] = saved
        from scratchpad_lab.engine.store import forget
        forget(url)


def _counts(d) -> tuple:
    return int(d["compressions"]), int(d["summarizer_calls"]), int(d["failed_calls"])


def _want(world, kind) -> tuple:
    return _counts(world[kind]["oracle"])


def _stored(world, kind) -> dict:
    """The `runs list --json` row of this kind's stored run (stored names say run or replay, and the strategy)."""
    command, summarizer = {"working": ("run", "extractive"), "silent": ("run", "silent"),
                           "rejecting": ("replay", "")}[kind]
    rows = [r for r in world["listing_json"] if r["name"].startswith(command) and summarizer in r["strategy"]]
    assert len(rows) == 1, (kind, world["listing_json"])
    return rows[0]


_LINE = re.compile(r"compressions: (\d+)  summarizer calls: (\d+)  failed calls: (\d+)")


# ── the oracle itself ───────────────────────────────────────────────────────

def test_the_three_summarizers_do_what_their_names_say(world):
    assert _want(world, "working")[0] > 0 and _want(world, "working")[2] == 0
    silent = _want(world, "silent")
    assert silent[0] == 0 and silent[1] > 0 and silent[2] == silent[1]
    assert _want(world, "rejecting") == (1, 2, 0)   # one accepted, one rejected: your decision, no failure
    comps = [e.data for e in world["rejecting"]["record"].events if e.kind == "compression"]
    assert [c["review"] for c in comps] == VERDICTS


# ── every surface ───────────────────────────────────────────────────────────

@pytest.mark.parametrize("kind", KINDS)
def test_the_figures_row_and_run_json_count_what_the_package_did(world, kind):
    assert _counts(figures(world[kind]["record"].events).to_dict()) == _want(world, kind)
    assert _counts(world[kind]["json"]["figures"]) == _want(world, kind)


@pytest.mark.parametrize("kind", KINDS)
def test_the_run_line_and_its_warning_count_the_same_failed_calls(world, kind):
    found = _LINE.search(world[kind]["human"])
    assert found, world[kind]["human"]
    assert tuple(map(int, found.groups())) == _want(world, kind)
    warned = re.search(r"warning: (\d+) of (\d+) summarizer calls failed", world[kind]["warning"])
    failed, calls = (int(warned[1]), int(warned[2])) if warned else (0, None)
    assert failed == _want(world, kind)[2], world[kind]["warning"]
    if warned:
        assert calls == _want(world, kind)[1]


@pytest.mark.parametrize("kind", KINDS)
def test_runs_list_its_json_runs_show_and_the_stored_row_count_the_same(world, kind):
    row = _stored(world, kind)
    assert _counts(row) == _want(world, kind)
    line = next(ln for ln in world["listing"].splitlines() if ln.startswith(row["id"]))
    found = re.search(r"(\d+) comp +(\d+) failed", line)
    assert found and (int(found[1]), int(found[2])) == (_want(world, kind)[0], _want(world, kind)[2]), line
    shown = _LINE.search(world["shown"][row["id"]])
    assert shown and tuple(map(int, shown.groups())) == _want(world, kind)
    engine = create_engine(world["url"])
    with engine.connect() as conn:
        stored = conn.execute(text("SELECT compressions, summarizer_calls, failed_calls FROM lab_runs WHERE id = :id"),
                              {"id": row["id"]}).one()
    engine.dispose()
    assert tuple(stored) == _want(world, kind)


def test_the_playground_status_cards_heading_and_banner_count_the_same(monkeypatch, world):
    monkeypatch.setenv("SCRATCHPAD_LAB_SAMPLES", str(world["samples"]))
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert not at.exception, [e.value for e in at.exception]
    for kind in KINDS:
        compressions, calls, failed = _want(world, kind)
        at.selectbox(key="play_sample_pick").set_value(f"{kind}.json").run()
        at.button(key="play_sample_open").click().run()
        assert not at.exception, [e.value for e in at.exception]
        assert [m.value for m in at.metric if m.label == "compressions"] == [str(compressions)], kind
        heading = [h.value for h in at.subheader if h.value.startswith("Compressions (")]
        assert heading == [f"Compressions ({compressions})" +
                           (f" and {failed} failed summarizer calls" if failed else "")], kind
        banners = [e.value for e in at.error if "summarizer calls failed" in e.value]
        if failed:
            assert len(banners) == 1 and banners[0].startswith(f"**{failed} of {calls} summarizer calls failed**"), \
                (kind, banners)
        else:
            assert banners == [], kind


def test_the_runs_pages_stored_runs_table_counts_the_same(monkeypatch, world):
    monkeypatch.setenv("SCRATCHPAD_LAB_DB", world["url"])
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page("pages/runs.py").run()
    assert not at.exception, [e.value for e in at.exception]
    table = next(d.value for d in at.dataframe if "failed calls" in d.value.columns and "KB" in d.value.columns)
    for kind in KINDS:
        stored = _stored(world, kind)
        rows = table[(table["name"] == stored["name"]) & (table["strategy"] == stored["strategy"])]
        assert len(rows) == 1, kind
        row = rows.iloc[0]
        assert (int(row["compressions"]), int(row["summarizer calls"]), int(row["failed calls"])) == \
            _want(world, kind), kind
