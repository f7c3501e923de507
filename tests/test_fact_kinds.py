"""Loss by kind (issue 34, item 1): the one rule of what kind a fact is (analysis/fact_kinds.py), proved on
hand-built text for each kind and on real tau-bench airline tool results, then read through the figures row,
the card's chips and the Strategies row."""
import json

import pytest

from conftest import shared_file
from scratchpad_lab.analysis.fact_kinds import (KINDS, kept_by_kind_text, kind_loss, kind_of, loss_words,
                                                 user_turns)
from scratchpad_lab.analysis.facts import Fact, extract_facts
from scratchpad_lab.analysis.figures import figures
from scratchpad_lab.analysis.quality import annotate
from scratchpad_lab.model.compression import compression_data
from scratchpad_lab.model.events import RunLog


def _kinds(text):
    return {f.text: kind_of(f) for f in extract_facts(text)}


@pytest.mark.parametrize("text, value, kind", [
    ("Ticket A-1001 is open", "A-1001", "id"),
    ("order INV88213 shipped", "INV88213", "id"),
    ("running v4.18.2 now", "v4.18.2", "id"),
    ("refund of $120.50 issued", "$120.50", "amount"),
    ("3,072 atoms were simulated", "3,072 atoms", "amount"),
    ("it took 950ms", "950ms", "amount"),
    ("due 2026-03-14 02:17:09", "2026-03-14 02:17:09", "date"),
    ("on Friday 13 March we met", "Friday 13 March", "date"),
    ("see /var/log/app.log for it", "/var/log/app.log", "path"),
    ("open https://example.com/a?b=1 now", "https://example.com/a?b=1", "path"),
    ("write to a.rao@example.in soon", "a.rao@example.in", "name"),
    ("ask Asha Rao about it", "Asha Rao", "name"),
    ('then run "git push --force origin main" again', "git push --force origin main", "code"),
    ('the check is "x = f(1)" here', "x = f(1)", "code"),
    ("set db.pool.max_size to 40", "db.pool.max_size", "code"),
    ("Action: get_order_history with A-1001", "get_order_history", "code"),
    ("paid by credit_card_4421486 today", "credit_card_4421486", "id"),
    ('cabin is "economy" today', "economy", "other"),
])
def test_each_kind_on_hand_built_text(text, value, kind):
    assert _kinds(text).get(value) == kind, _kinds(text)


def test_an_expected_fact_is_the_kind_of_the_one_fact_it_is():
    assert kind_of(Fact("expected", "INV88213")) == "id"
    assert kind_of(Fact("expected", "2026-03-14")) == "date"
    assert kind_of(Fact("expected", "pool size went up, then down")) == "other"


def test_real_tau_bench_airline_facts_are_the_right_kind():
    runs = json.loads(shared_file("datasets", "tau-bench-airline", "gpt-4o-airline.json").read_text(encoding="utf-8"))
    text = "\n".join(str(m.get("content") or "") for r in runs[:20] for m in r["traj"] if m.get("role") == "tool")
    kinds = {f.text: kind_of(f) for f in extract_facts(text)}
    # reservation ids, flight numbers, payment ids, airports
    for value in ("NO6JO3", "AIXC49", "HAT069", "HAT083", "credit_card_4421486", "gift_card_3481935",
                  "certificate_4856383", "JFK"):
        assert kinds[value] == "id", (value, kinds.get(value))
    for value in ("250", "100"):                       # amounts (a certificate's, a fare's)
        assert kinds[value] == "amount", value
    for value in ("1990-04-05", "2024-05-20"):        # dates of birth, of flights
        assert kinds[value] == "date", value
    assert kinds["mia.li3818@example.com"] == "name" and kinds["Mia"] == "name"
    # a flight number further on, as one JSON line of a tool result holds it
    line = '"destination": "LAX", "flight_number": "HAT170", "date": "2024-05-14",'
    assert {f.text: kind_of(f) for f in extract_facts(line)} == {"LAX": "id", "HAT170": "id", "2024-05-14": "date"}


BEFORE = ("Step 1: get_reservation A-1001 B-2002 C-3003, fare $120.50 and 3,072 atoms\n"
          "Observation: Please rebook me onto the earliest flight tomorrow morning\n"
          "Observation: Also keep my seat 14C and refund the difference\n")
AFTER = "[Summarized up to step 1]\nThe user wants a rebooking."
TURNS = ["Please rebook me onto the earliest flight tomorrow morning",
         "Also keep my seat 14C and refund the difference"]


def test_a_cut_lost_three_ids_two_amounts_and_the_users_last_instruction():
    loss = kind_loss(BEFORE, AFTER, (), TURNS)
    assert loss.lost["id"] == ["A-1001", "B-2002", "C-3003"]
    assert loss.lost["amount"] == ["$120.50", "3,072 atoms"]
    assert loss.before["instruction"] == 2 and not loss.kept.get("instruction")
    assert loss.last_instruction_lost
    assert loss_words(loss).startswith("lost 3 ids, 2 amounts, ")
    assert loss_words(loss).endswith("the user's last instruction")
    kept = kind_loss(BEFORE, BEFORE.replace("Step 1: ", "[Summarized up to step 1]\n"), (), TURNS)
    assert not kept.lost and not kept.last_instruction_lost and loss_words(kept) == ""


def _run(before=BEFORE, after=AFTER, user_tool=True):
    log = RunLog()
    log.emit("run_start", task="System message:\nYou are an airline agent.\n\nUser:\nChange my flight.",
             config={"max_scratchpad_chars": 100_000})
    if user_tool:
        log.emit("tool_call", 1, tool="user", input={"message": "?"}, result=TURNS[0])
        log.emit("tool_call", 1, tool="user", input={"message": "?"}, result=TURNS[1])
    log.emit("iteration", 1, chars=len(before), tokens=100, scratchpad=before)
    log.emit("compression", 2, **compression_data(reason="periodic", before=before, after=after, before_tokens=100,
                                                    after_tokens=10, tokens_in=120, tokens_out=20))
    for i in range(2, 10):
        log.emit("iteration", i, chars=len(after), tokens=10, scratchpad=after)
    return log.snapshot()


def test_user_turns_are_the_tasks_user_part_and_each_user_tool_result():
    assert [t for _, t in user_turns(_run())] == ["Change my flight.", *TURNS]


def test_the_figures_row_and_the_card_read_kinds_the_same_way():
    events = _run()
    f = figures(events)
    assert f.kept_by_kind["id"] == f.kept_by_kind["amount"] == f.kept_by_kind["instruction"] == 0.0
    assert f.to_dict()["kept_by_kind"] == f.kept_by_kind
    assert list(f.kept_by_kind) == [k for k in KINDS if k in f.kept_by_kind]  # KINDS order everywhere
    card = annotate(events)[0]
    assert card["lost_by_kind"]["id"] == ["A-1001", "B-2002", "C-3003"]
    assert card["loss_words"].endswith("the user's last instruction")
    assert kept_by_kind_text({"id": 0.8, "amount": 0.5}) == "ids 80%, amounts 50%"
    # kinds only sort the facts that facts kept counts (the user's own lines are counted beside them)
    assert sum(n for k, n in f.kinds_before.items() if k != "instruction") == f.facts_before
    assert sum(n for k, n in f.kinds_kept.items() if k != "instruction") == f.facts_kept


def test_the_cards_chips_are_grouped_by_kind_and_every_fact_escaped():
    from scratchpad_lab.ui.cards import kind_groups
    from scratchpad_lab.ui.markup import grouped_chips_html

    groups = kind_groups({"id": ["<b>A-1</b>", "B-2"], "amount": ["$5"], "name": ["x"]}, shown=3)
    assert groups == [("2 ids:", ["<b>A-1</b>", "B-2"]), ("1 amount:", ["$5"])]
    html = grouped_chips_html(groups, "Lost 4 of 9 facts: 2 ids, 1 amount.", "")
    assert "<b>A-1" not in html and "&lt;b&gt;A-1&lt;/b&gt;" in html and "2 ids:" in html


def test_the_strategies_row_carries_kept_by_kind_and_health():
    from scratchpad_lab.engine.strategies import make_spec, run_strategies
    from synthetic import synthetic_trace

    result = run_strategies(synthetic_trace(steps=12, seed=3), [make_spec("autourgos-middleware", {})])[0]
    row, f = result.row(), figures(result.events)
    assert row["kept_by_kind"] == f.kept_by_kind and row["health"] == f.health
    assert set(row["health"]) == {"grew", "fires_again", "dropped_user", "invented", "cost_more"}
    # the Strategies table: one row of facts kept by kind and one of compressions with a problem, worded as
    # fact_kinds and health word them
    from scratchpad_lab.analysis.fact_kinds import kept_by_kind_text
    from scratchpad_lab.analysis.figures import LABELS
    from scratchpad_lab.analysis.health import counts_text
    from scratchpad_lab.ui.strategies_page import table_texts

    column = next(iter(table_texts([result]).values()))
    assert column[LABELS["kept_by_kind"]] == kept_by_kind_text(f.kept_by_kind) and f.compressions
    assert column[LABELS["health"]] == counts_text(f.health)
