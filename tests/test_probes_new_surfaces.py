"""Issue 46 item 3: the new surfaces attacked (bench/probes.py runs every probe; these are the defects it found,
each kept from coming back, in the cheapest layer that proves it)."""
import json
import random
import time

import pytest

from scratchpad_lab.analysis import fact_kinds, facts, health
from scratchpad_lab.analysis.facts import contains, extract_facts, retention
from scratchpad_lab.analysis.occurrences import Occurrences


def _seconds(work, *args):
    facts.clear_caches()
    fact_kinds._instructions.cache_clear()
    health._invented.cache_clear()
    started = time.perf_counter()
    work(*args)
    return time.perf_counter() - started


# ── facts: long runs, and many distinct facts ──────────────────────────────────────────────────────

@pytest.mark.parametrize("shape", ["1.", "a1-", "Zorba ", "1,", "a.a@", "a./", "v1.1"])
def test_a_200000_char_run_of_one_shape_has_its_facts_found_in_well_under_two_seconds(shape):
    # before: "1.1.1..." took 42 s at 100,000 chars, "a1-a1-..." 27 s, "Zorba Zorba ..." 8 s (each place of a
    # long match was tried again), "1,1,1..." over 20 s at 30,000 (a scan to the end of the run from each digit)
    text = (shape * 200_000)[:200_000] + (" 1" if shape in ("a./",) else "")
    assert _seconds(extract_facts, text) < 2.0


def test_many_distinct_facts_are_checked_against_a_long_text_in_linear_time():
    # before: 12,500 distinct ids against another 100,000 chars took 1.1 s, 125,000 against 1,000,000 133 s
    before = " ".join(f"AB-{i}" for i in range(40_000))
    after = " ".join(f"CD-{i}" for i in range(40_000))
    assert _seconds(retention, before, after) < 3.0
    assert _seconds(health.invented_facts, after, before, "") < 3.0
    turn = "\n".join(f"please do {i:06d}" for i in range(40_000))
    assert _seconds(fact_kinds.last_instruction_lost, turn.replace("do", "dont"), "x", [turn]) < 3.0


def test_looking_many_values_up_at_once_answers_exactly_as_one_by_one():
    rnd = random.Random(46)
    pieces = list("aA1_ .,-/:é٣\n\"$") + ["A-1001", "1.5", "2026-03-14", "Asha Rao", "ERR_503", "100", "1,000",
                                          "12345678", "1.1.1.1", "abcdefghij", "αβγδεζηθ"]
    for _ in range(400):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 60)))
        values = sorted({f.text for f in extract_facts(text)})
        values += ["".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 4))) for _ in range(8)]
        values += [text[i:i + rnd.randint(1, 20)] for i in rnd.sample(range(len(text)), min(5, len(text)))]
        relaxed = [rnd.random() < 0.3 for _ in values]
        found = Occurrences(text)
        assert found.found(values, relaxed) == [contains(text, v, r) for v, r in zip(values, relaxed)]
        assert found.found(values, whole=False) == [v in text for v in values]


# ── datasets: a hostile run's outcome and name ─────────────────────────────────────────────────────

CHAT = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]


def test_a_reward_too_large_for_a_float_or_infinite_is_no_outcome_and_the_dataset_still_reads():
    from scratchpad_lab.engine.files.dataset import read_dataset_bytes
    # before: OverflowError out of read_dataset_bytes (a traceback on the Benchmark page), and 1e999 read as inf
    data = ('[{"reward": 1' + "0" * 400 + ', "messages": %s}, {"reward": 1e999, "messages": %s}, '
            '{"reward": 0.5, "messages": %s}]') % ((json.dumps(CHAT),) * 3)
    assert [r.outcome for r in read_dataset_bytes(data.encode(), "d.json").runs] == [None, None, 0.5]


def test_a_folders_labels_too_large_for_a_float_are_left_out(tmp_path):
    from scratchpad_lab.engine.files.dataset import read_dataset
    (tmp_path / "a.json").write_text(json.dumps(CHAT))
    (tmp_path / "labels.json").write_text('{"a": 1' + "0" * 400 + ', "b": true}')
    assert read_dataset(tmp_path).runs[0].outcome is None


def test_a_task_id_of_megabytes_or_an_object_names_its_run_in_at_most_200_characters():
    from scratchpad_lab.engine.files.dataset import read_dataset_bytes
    data = json.dumps([{"task_id": "x" * 5_000_000, "messages": CHAT}, {"task_id": {"a": [1] * 100_000},
                                                                        "trial": "t" * 1_000, "messages": CHAT}])
    names = [r.name for r in read_dataset_bytes(data.encode(), "d.json").runs]
    assert all(len(n) <= 5 + 200 + 9 + 200 for n in names) and names[0].startswith("task xxx") and names[0][-1] == "…"


# ── forks: a fork of a fork of ... ─────────────────────────────────────────────────────────────────

def _fork_of_a_run_with(earlier: int, tmp_path):
    from conftest import ROOT
    from scratchpad_lab.engine.run.forking import compression_iterations
    from scratchpad_lab.engine.tasks.fork_tasks import ForkRequest, fork
    from scratchpad_lab.model.records import load_record
    raw = json.loads((ROOT / "sample_runs" / "support-ticket-tight.json").read_text(encoding="utf-8"))
    compressions = compression_iterations(load_record(ROOT / "sample_runs" / "support-ticket-tight.json").events)
    first, last = compressions[0], compressions[-1]
    raw["forked_from"] = {"parent_id": None, "parent_name": "p", "iteration": first, "skipped": True,
                          "parent_settings": {}, "earlier": [{"iteration": 1, "skipped": False, "parent_settings": {}}
                                                             for _ in range(earlier)]}
    (tmp_path / "parent.json").write_text(json.dumps(raw))
    job = fork(ForkRequest(load_record(tmp_path / "parent.json"), last, skip=True, parent_name="p")).start()
    job.join(60)
    return job


def test_a_fork_whose_record_would_hold_more_fork_points_than_a_file_keeps_is_refused_before_it_replays(tmp_path):
    from scratchpad_lab.model.records import load_record
    kept = _fork_of_a_run_with(99, tmp_path)  # 99 earlier, its own, and the new one: 101, a record holds them
    kept.result.record.save(tmp_path / "fork.json")
    assert len(load_record(tmp_path / "fork.json").forked_from["earlier"]) == 100
    # before: the fork replayed, and its record (101 earlier points) could be neither stored nor loaded again
    refused = _fork_of_a_run_with(100, tmp_path)
    assert refused.result is None and "the most a run file keeps is 101" in str(refused.error)
