"""Compaction health (issue 34, item 3): each of health.py's five checks on a hand-built run that trips it and
one that does not, read through the figures row, the card (its named chips) and the narration."""
import pytest

from scratchpad_lab.analysis import health
from scratchpad_lab.analysis.figures import figures
from scratchpad_lab.analysis.narrate import narrate, why_compressions
from scratchpad_lab.analysis.quality import annotate
from scratchpad_lab.model.compression import compression_data
from scratchpad_lab.model.events import RunLog

USER = "Please keep my window seat on the rebooked flight"
BEFORE = ("Step 1: get_reservation NO6JO3 -> flight HAT170 on 2024-05-14, fare $186\n"
          f"Observation: {USER}\n" + "Observation: " + "x" * 600 + "\n")
HEALTHY = f"[Summarized up to step 2]\nReservation NO6JO3, flight HAT170 on 2024-05-14, fare $186.\n{USER}"


def _run(after=HEALTHY, reason="periodic", tokens_in=50, tokens_out=10, cap=100_000, second_at=None, steps=10,
         finished=True):
    """One compression at iteration 2 (a second one at `second_at`), then the run goes on to `steps` and (with
    `finished`) ends."""
    log = RunLog()
    log.emit("run_start", task="Rebook me.", config={"max_scratchpad_chars": cap, "summarize_every": 2})
    log.emit("tool_call", 1, tool="user", input={"message": "anything else?"}, result=USER)
    log.emit("iteration", 1, chars=len(BEFORE), tokens=200, scratchpad=BEFORE)
    for i in range(2, steps + 1):
        if i in (2, second_at):
            log.emit("compression", i, **compression_data(
                reason=reason if i == 2 else "size", before=BEFORE, after=after, before_tokens=200,
                after_tokens=len(after) // 4, prompt="Summarize the steps below.", tokens_in=tokens_in,
                tokens_out=tokens_out))
        log.emit("iteration", i, chars=len(after), tokens=len(after) // 4, scratchpad=after)
    if finished:
        log.emit("finish", steps, outcome="answered", iterations=steps)
    return log.snapshot()


TRIPS = {
    "grew": dict(after=HEALTHY + "\n" + "y" * 800),
    "fires_again": dict(reason="size", cap=100),
    "dropped_user": dict(after=HEALTHY.replace(USER, "The user wants a seat.")),
    "invented": dict(after=HEALTHY + "\nNew reservation QQX-7731 for Marta Lindqvist, $9,999."),
    "cost_more": dict(tokens_in=40_000, steps=4),
}


def test_a_healthy_compression_fails_no_check_on_any_surface():
    events = _run()
    assert health.check_run(events) == [[]]
    assert figures(events).health == {name: 0 for name in health.CHECKS}
    card = annotate(events)[0]
    assert card["health"] == [] and card["loss_words"] == ""
    said = narrate(events)[2]
    assert not any(s.split("(")[0] in said for s in health.SENTENCES.values())
    assert health.counts_text(figures(events).health) == health.NO_PROBLEM


@pytest.mark.parametrize("check", health.CHECKS)
def test_each_check_trips_on_its_own_run_and_shows_on_every_surface(check):
    from scratchpad_lab.ui.cards import badges

    events = _run(**TRIPS[check])
    assert check in health.check_run(events)[0], health.check_run(events)
    f = figures(events)
    assert f.health[check] == 1 and f.to_dict()["health"][check] == 1       # the figures row
    assert health.CHIPS[check] in health.counts_text(f.health)              # the Strategies table's cell
    card = annotate(events)[0]
    assert check in card["health"]
    assert (health.CHIPS[check], "red") in badges(card)                      # the named chip on its card
    opening = health.SENTENCES[check].split("(")[0].split("{")[0]
    assert opening in narrate(events)[2] and opening in why_compressions(events)[0]  # the narration


def test_only_the_check_a_run_was_built_for_trips():
    for check, built in TRIPS.items():
        failed = set(health.check_run(_run(**built))[0])
        assert check in failed and failed <= {check, "grew", "cost_more"}, (check, failed)


def test_a_size_trigger_firing_again_within_two_steps_trips_fires_again_and_a_periodic_one_does_not():
    assert "fires_again" in health.check_run(_run(second_at=4))[0]
    assert "fires_again" not in health.check_run(_run(second_at=5))[0]  # three steps on: not at once
    assert "fires_again" not in health.check_run(_run(reason="periodic", cap=100))[0]  # a periodic cut is not held to the cap


def test_the_narration_says_which_of_fires_agains_two_causes_it_was():
    over = narrate(_run(**TRIPS["fires_again"]))[2]
    assert "over the 100-char cap that fired it" in over and "fired again" not in over
    refired = narrate(_run(second_at=4))[2]  # a periodic cut, then a size trigger two iterations later
    assert "the size trigger fired again 2 iterations later, at iteration 4." in refired
    assert "cap that fired it" not in refired


def test_the_invented_facts_are_named_and_the_summary_header_is_not_one():
    c = _run(**TRIPS["invented"])
    assert health.invented_facts(BEFORE, TRIPS["invented"]["after"]) == ["QQX-7731", "Marta Lindqvist", "$9,999"]
    assert health.invented_facts(BEFORE, "[Summarized up to step 123]\nNO6JO3") == []
    assert "QQX-7731" in narrate(c)[2]


def test_cost_more_reads_tokens_spent_against_the_most_the_cut_can_have_saved():
    events = _run(tokens_in=900, tokens_out=100, steps=10)
    spent, saved = health.spent_saved(events, 0)
    after_tokens = len(HEALTHY) // 4
    assert spent == 1000 and saved == (200 - after_tokens) * 9  # iterations 2..10 were sent the shorter context
    assert ("cost_more" in health.check_run(events)[0]) == (spent > saved)


def test_a_call_that_replaced_nothing_is_not_checked():
    events = _run(after=BEFORE)  # status empty: the package kept the scratchpad
    assert health.check_run(events) == [[]] and figures(events).health == {n: 0 for n in health.CHECKS}


def test_the_cards_on_show_are_checked_against_the_whole_run():
    events = _run(**TRIPS["dropped_user"])
    starts = [e for e in events if e.kind == "run_start"]
    comps = [e for e in events if e.kind == "compression"]
    assert annotate(starts + comps, run=events)[0]["health"] == annotate(events)[0]["health"] == ["dropped_user"]


def test_cost_more_waits_for_the_end_of_a_run_that_is_still_going():
    # live, the calls still to come may save more: a card must not say "cost more than it saved" mid-run
    assert "cost_more" not in health.check_run(_run(**TRIPS["cost_more"], finished=False))[0]
    assert "cost_more" in health.check_run(_run(**TRIPS["cost_more"]))[0]
