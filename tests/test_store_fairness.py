"""Issue 29, item 3: the store's caps are fair to every visitor (engine/store/store.py, `_make_room`).

Three fresh visitors (three new cookies) each store past their own cap against a victim's library: the
victim, within their share of the total, keeps every run (before, the total cap removed the oldest runs of
anyone, and the victim's library was emptied). A visitor who holds the most pays for the total cap with
their own oldest, and is told once on their next visit. Prompt versions count toward the bytes caps, and
the 20,000-character prompt limit holds in the store itself, whatever path a prompt comes in by.
"""
from pathlib import Path

import pytest

from scratchpad_lab.engine.store import Limits, Store, StoreError, owner_of
from scratchpad_lab.model.config import MAX_PROMPT_CHARS
from scratchpad_lab.model.records import load_record

TIGHT = Path(__file__).resolve().parents[1] / "sample_runs" / "support-ticket-tight.json"


@pytest.fixture
def record():
    return load_record(TIGHT)


def test_three_fresh_visitors_cannot_empty_a_victims_library(lab_db, record):
    store = Store(lab_db, Limits(visitor_runs=10, total_runs=24))
    victim = owner_of("victim" * 4)
    kept = [store.save_run(record, victim, name=f"victim {k}").id for k in range(6)]  # 6 = 24 / 4 visitors
    for attacker in ("a1", "a2", "a3"):
        for k in range(12):
            store.save_run(record, owner_of(attacker * 12), name=f"{attacker} {k}")
    assert [r.id for r in store.list_runs(victim)][::-1] == kept
    assert store.usage(None)[0] <= 24
    assert store.take_notices(victim) == []
    # each attacker paid with their own oldest: each holds at most the share left, and their newest is there
    for attacker in ("a1", "a2", "a3"):
        theirs = [r.name for r in store.list_runs(owner_of(attacker * 12))]
        assert theirs and theirs[0] == f"{attacker} 11" and len(theirs) <= 10


def test_a_visitor_holding_the_most_loses_their_own_oldest_and_is_told_once(lab_db, record):
    store = Store(lab_db, Limits(visitor_runs=20, total_runs=12))
    big, newcomer = owner_of("big" * 8), owner_of("new" * 8)
    for k in range(12):
        store.save_run(record, big, name=f"big {k}")
    saved = store.save_run(record, newcomer, name="first")
    assert [r.name for r in saved.removed] == ["big 0"]
    assert "big 0" not in saved.notice() and "of others" in saved.notice()  # another's names are never shown
    told = store.take_notices(big)
    assert len(told) == 1 and "“big 0”" in told[0] and "removed to make room" in told[0]
    assert store.take_notices(big) == []  # said once
    assert store.take_notices(newcomer) == []


def test_prompt_versions_count_toward_a_visitors_bytes(lab_db, record):
    size = len(record.to_json().encode("utf-8"))
    store = Store(lab_db, Limits(visitor_bytes=size + 50_000))
    me = owner_of("prompter" * 3)
    run = store.save_run(record, me, name="my run")
    for k in range(4):  # 4 x 19,000 characters: over the visitor's bytes with the run
        store.save_prompt("long", f"{k} {{scratchpad}} " + "x" * 19_000, me)
    count, _ = store.usage(me)
    assert count == 0  # the oldest thing of theirs, the run, went to make room
    with pytest.raises(StoreError):
        store.load(run.id)
    assert len(store.prompt_history("long", me)) == 4


def test_the_prompt_limit_holds_in_the_store(lab_db):
    store = Store(lab_db)
    with pytest.raises(StoreError) as refused:
        store.save_prompt("uploaded", "{scratchpad} " + "x" * 60_000, owner_of("v" * 24))
    assert f"the limit is {MAX_PROMPT_CHARS:,}" in str(refused.value) and refused.value.kind == "too_large"
    assert store.latest_prompts(owner_of("v" * 24)) == {}


def test_a_prompt_lab_upload_is_held_to_the_prompt_limit_before_it_is_kept():
    from scratchpad_lab.engine.studies.promptlab import prompt_from_upload
    from scratchpad_lab.model.config import ConfigError
    with pytest.raises(ConfigError, match=f"the limit is {MAX_PROMPT_CHARS:,}"):
        prompt_from_upload("long.txt", ("{scratchpad} " + "x" * 60_000).encode())
    assert prompt_from_upload("mine.txt", b"Summarize {scratchpad}") == ("mine", "Summarize {scratchpad}")
