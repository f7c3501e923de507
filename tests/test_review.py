"""Review mode's engine: each summarizer reply waits for a verdict, the package applies it, the record
keeps it, and a replay with the recorded verdicts gets the same compressions."""
import threading

from conftest import wait_until
from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.engine.run.review import RecordedReviews, ReviewGate
from scratchpad_lab.engine.run.runner import Run

CONFIG = dict(scenario="support-ticket", summarize_every=2, max_scratchpad_chars=1_000_000)
EDIT = "My own summary: order A-1001, ticket T-5521."


def _decide_in_turn(gate: ReviewGate, verdicts, done: threading.Event) -> threading.Thread:
    def work():
        for number, verdict in enumerate(verdicts, start=1):
            while gate.pending is None or gate.pending.number != number:
                if done.wait(0.01):
                    return
            gate.decide(verdict, EDIT if verdict == "edited" else "")
    t = threading.Thread(target=work, daemon=True)
    t.start()
    return t


def _run(run: Run):
    """Run on a worker with a bound: a review nobody answers must fail the test, not hang it."""
    run.start()
    run.join(30)
    if run.record is None:
        run.stop()
        run.join(10)
        raise AssertionError("the run waited for a review that never came")
    return run.record


def _compressions(record):
    return [e for e in record.events if e.kind == "compression"]


def test_accept_edit_reject_are_applied_by_the_package_and_recorded():
    run = Run(RunConfig.build(**CONFIG))
    gate = ReviewGate(run.observer.stop_event)
    run.observer.reviewer = gate
    done = threading.Event()
    verdicts = ["accepted", "edited", "rejected", "accepted", "accepted", "accepted", "accepted", "accepted"]
    _decide_in_turn(gate, verdicts, done)
    record = _run(run)
    done.set()
    comps = _compressions(record)
    assert len(comps) >= 3 and record.outcome == "answered"
    first, second, third = (c.data for c in comps[:3])
    assert first["review"] == "accepted" and first["response"] == first["proposal"] and first["status"] == "ok"
    assert first["after"] == f"[Summarized up to step {comps[0].iteration}]\n{first['proposal'].strip()}"
    assert second["review"] == "edited" and second["response"] == EDIT and second["proposal"] != EDIT
    assert second["after"] == f"[Summarized up to step {comps[1].iteration}]\n{EDIT}"
    assert third["review"] == "rejected" and third["status"] == "empty" and third["after"] == third["before"]
    assert third["proposal"].strip()


def test_a_replay_with_the_recorded_verdicts_gets_the_same_compressions():
    run = Run(RunConfig.build(**CONFIG))
    gate = ReviewGate(run.observer.stop_event)
    run.observer.reviewer = gate
    done = threading.Event()
    _decide_in_turn(gate, ["edited", "rejected", "accepted"] + ["accepted"] * 10, done)
    original = _run(run)
    done.set()
    replay = Run(RunConfig.build(**CONFIG))
    replay.observer.reviewer = RecordedReviews(original.events)
    again = _run(replay)
    keys = ("iteration", "status", "review", "proposal", "response", "before", "after")
    assert [{k: c.data.get(k, c.iteration) for k in keys} for c in _compressions(again)] == \
        [{k: c.data.get(k, c.iteration) for k in keys} for c in _compressions(original)]
    assert again.final_answer == original.final_answer


def test_stop_abandons_a_waiting_review():
    run = Run(RunConfig.build(**CONFIG))
    gate = ReviewGate(run.observer.stop_event)
    run.observer.reviewer = gate
    run.start()
    assert wait_until(run, lambda: gate.pending is not None), "no summary waited for review"
    assert gate.pending.facts_before
    run.stop()
    run.join(10)
    assert run.record.outcome == "stopped"
    assert _compressions(run.record)[-1].data["review"] == "abandoned"


def test_cli_replay_of_a_reviewed_run_keeps_the_verdicts(tmp_path, capsys):
    import json

    from scratchpad_lab.cli import main

    run = Run(RunConfig.build(**CONFIG))
    gate = ReviewGate(run.observer.stop_event)
    run.observer.reviewer = gate
    done = threading.Event()
    _decide_in_turn(gate, ["rejected", "edited"] + ["accepted"] * 10, done)
    original = _run(run)
    done.set()
    path = tmp_path / "reviewed.json"
    original.save(path)
    assert main(["replay", str(path), "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)["compressions"]
    recorded = [c.data for c in _compressions(original)]
    assert [(c["status"], c["after"]) for c in replayed] == [(c["status"], c["after"]) for c in recorded]
    assert recorded[1]["after"].endswith(EDIT)
    # under other settings no verdict applies: the summarizer's own replies are used
    assert main(["replay", str(path), "--summarize-every", "3", "--json"]) == 0
    other = json.loads(capsys.readouterr().out)["compressions"]
    assert all(not c["after"].endswith(EDIT) for c in other)
