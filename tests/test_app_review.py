"""Review mode in the playground, through the real app with AppTest and the scripted agent: the run
pauses at each proposed summary; accept, edit and reject are each applied by the package, recorded,
shown on the cards, and replayed with the same result."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from conftest import active_run, APP, ok, rerun_until
from scratchpad_lab.model.records import RunRecord
from scratchpad_lab.engine.run.review import RecordedReviews
from scratchpad_lab.engine.run.runner import Run

EDIT = "Reviewed: order A-1001 for Asha Rao, ticket T-5521."


def _buttons(at: AppTest) -> set:
    return {b.key for b in at.button}


def _wait_for(at: AppTest, key: str) -> None:
    ok(at.run())
    rerun_until(at, lambda a: key in _buttons(a) or active_run(a) is None, what=f"the button {key}", wait_on=active_run)


def test_accept_edit_reject_are_recorded_shown_and_replayed(monkeypatch):
    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    at = ok(AppTest.from_file(APP, default_timeout=60).run())
    at.sidebar.selectbox(key="play_summarize_every").set_value(3)
    at.sidebar.select_slider(key="play_pacing").set_value("instant")
    at.toggle(key="play_review").set_value(True).run()
    at.button(key="play_run").click().run()

    _wait_for(at, "play_review_accept_1")
    box = [t.value for t in at.text if t.value.startswith("The proposal keeps ")]
    assert box and " of " in box[0]
    assert any(c.value.startswith("Step 1:") for c in at.code)  # the scratchpad it would replace
    at.button(key="play_review_accept_1").click().run()

    _wait_for(at, "play_review_edit_2")
    at.text_area(key="play_review_text_2").input(EDIT)
    at.button(key="play_review_edit_2").click().run()

    _wait_for(at, "play_review_reject_3")
    at.button(key="play_review_reject_3").click().run()

    for n in range(4, 40):  # accept the rest until the run answers
        _wait_for(at, f"play_review_accept_{n}")
        if at.session_state["play_active_run"] is None:
            break
        at.button(key=f"play_review_accept_{n}").click().run()
    assert at.session_state["play_active_run"] is None
    ok(at.run())

    record = at.session_state["play_runs"][-1]
    comps = [e.data for e in record.events if e.kind == "compression"]
    assert [c["review"] for c in comps[:3]] == ["accepted", "edited", "rejected"]
    assert all(c["review"] == "accepted" for c in comps[3:])
    assert comps[0]["response"] == comps[0]["proposal"]
    assert comps[1]["response"] == EDIT and comps[1]["after"].endswith("\n" + EDIT) and comps[1]["proposal"] != EDIT
    assert comps[2]["status"] == "empty" and comps[2]["after"] == comps[2]["before"] and comps[2]["proposal"]
    markup = " ".join(str(m.value) for m in at.markdown)
    assert "edited by you" in markup and "rejected by you" in markup and "accepted by you" in markup

    # the record survives its JSON round trip, and a replay with its verdicts gets the same compressions
    loaded = RunRecord.from_dict(__import__("json").loads(record.to_json()))
    replay = Run(loaded.config)
    replay.observer.reviewer = RecordedReviews(loaded.events)
    again = replay.run()
    keys = ("status", "review", "proposal", "response", "before", "after")
    assert [{k: e.data.get(k) for k in keys} for e in again.events if e.kind == "compression"] == \
        [{k: c.get(k) for k in keys} for c in comps]
    assert again.final_answer == record.final_answer


def test_a_rejected_proposal_and_a_stop_during_review_read_as_the_persons_decisions(monkeypatch):
    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    at = ok(AppTest.from_file(APP, default_timeout=60).run())
    at.sidebar.selectbox(key="play_summarize_every").set_value(3)
    at.sidebar.select_slider(key="play_pacing").set_value("instant")
    at.toggle(key="play_review").set_value(True).run()
    at.button(key="play_run").click().run()
    _wait_for(at, "play_review_reject_1")
    at.button(key="play_review_reject_1").click().run()
    _wait_for(at, "play_review_accept_2")
    at.button(key="play_stop").click().run()  # Stop while the second proposal waits for a decision
    rerun_until(at, lambda page: page.session_state["play_active_run"] is None, timeout_s=30, what="the stopped run")
    ok(at.run())

    assert {m.label: str(m.value) for m in at.metric}["status"] == "stopped"
    assert not at.error, [e.value for e in at.error]  # no "compressions failed" banner: nothing failed
    texts = [t.value for t in at.text]
    assert "You rejected it; the package keeps the scratchpad and tries again." in texts
    assert "Stopped while it waited for your review; nothing was compressed." in texts
    assert any("and you rejected the proposed summary: the package keeps the scratchpad" in t for t in texts)
    assert any("the run was stopped while the proposed summary waited for your review" in t for t in texts)
    shown = " ".join(texts + [str(m.value) for m in at.markdown])
    for blame in ("summarizer replied nothing", "summarizer failed", "empty reply: scratchpad kept",
                  "error instead of a summary", "Summarizer error"):
        assert blame not in shown, blame
