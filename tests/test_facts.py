"""The fact extractor (issue 6): what it finds in realistic scratchpad lines, what it must not take for a
fact, and when a fact counts as still "in" a text (same boundaries, never inside a longer code or number)."""
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchpad_lab.analysis.facts import KINDS, contains, extract_facts, retention


def _found(text, expected=()):
    return [(f.kind, f.text) for f in extract_facts(text, expected)]


# ── each kind, on lines an agent's scratchpad really holds ──────────────────

@pytest.mark.parametrize("line, kind, value", [
    ("Observation: status page https://status.example.com/incidents/4412?tab=log says degraded.",
     "url", "https://status.example.com/incidents/4412?tab=log"),
    ("Observation: requester a.rao.shop@example.in, cc support@shop.example.co.uk", "email", "a.rao.shop@example.in"),
    ("Observation: requester a.rao.shop@example.in, cc support@shop.example.co.uk", "email",
     "support@shop.example.co.uk"),
    ("Traceback points at /var/log/checkout/server.log line 88", "path", "/var/log/checkout/server.log"),
    ("The failing import is in src/lab/run.py according to CI", "path", "src/lab/run.py"),
    ("Dump written to C:\\logs\\crash.txt by the agent", "path", "C:\\logs\\crash.txt"),
    ("02:17:09 is when it began; first error logged 2026-03-14 02:17:09 on the host", "datetime",
     "2026-03-14 02:17:09"),
    ("Deploy finished 2026-03-14T02:10:00Z according to the pipeline", "datetime", "2026-03-14T02:10:00Z"),
    ("Courier promises delivery by Friday 13 March to the customer", "datetime", "Friday 13 March"),
    ("The chemistry run completed on 17 November 2026 in the lab", "datetime", "17 November 2026"),
    ("Replacement R-2087 created for order A-1001", "identifier", "A-1001"),
    ("Gateway answered ERR_503 twice, then ERR_DB_POOL_EXHAUSTED", "identifier", "ERR_503"),
    ("Gateway answered ERR_503 twice, then ERR_DB_POOL_EXHAUSTED", "identifier", "ERR_DB_POOL_EXHAUSTED"),
    ("Ticket ID-2347 references change CHG-7741", "identifier", "ID-2347"),
    ("Bad deploy was v4.18.2 on host chk-eu-11", "identifier", "v4.18.2"),
    ("Bad deploy was v4.18.2 on host chk-eu-11", "identifier", "chk-eu-11"),
    ("Roll back db.pool.max_size to its old value", "identifier", "db.pool.max_size"),
    ("The surface-code paper is arXiv:2611.04217 (preprint)", "identifier", "arXiv:2611.04217"),
    ("Refund of INR 99.00 goes to the original card", "number", "INR 99.00"),
    ("Invoice total is $120.50 including tax", "number", "$120.50"),
    ("Logical error per cycle fell to 0.071% in the run", "number", "0.071%"),
    ("The array holds 3,072 atoms in a 2D grid", "number", "3,072 atoms"),
    ("p99 latency went from 120ms to 950ms overnight", "number", "950ms"),
    ("Bit-flip time reached 1,040 seconds for the cat qubit", "number", "1,040 seconds"),
    ('Customer wrote "my screen arrived cracked" on the ticket', "quoted", "my screen arrived cracked"),
    ("We spoke with Asha Rao about the refund", "name", "Asha Rao"),
    ("Results came from the Lindqvist Quantum Lab last week", "name", "Lindqvist Quantum Lab"),
    ("The parcel is held at the depot in Pune until Monday", "name", "Pune"),
])
def test_each_kind_of_fact_is_found_on_a_realistic_line(line, kind, value):
    assert (kind, value) in _found(line)


def test_every_fact_kind_is_documented_in_kinds():
    line = ("See https://x.example.com/a by ops@x.example.com in /var/log/a/b.log at 2026-03-14 02:17:09: "
            'ERR_503 cost $120.50, "retry later" said Asha Rao')
    assert {f.kind for f in extract_facts(line)} == set(KINDS)


def test_a_date_or_time_is_one_fact_and_never_also_split_into_numbers():
    facts = _found("First error at 2026-03-14 02:17:09, a retry on 17 November 2026 and a page at 14:02.")
    assert facts == [("datetime", "2026-03-14 02:17:09"), ("datetime", "17 November 2026"), ("datetime", "14:02")]


def test_a_number_with_its_unit_or_currency_is_one_fact():
    facts = _found("Charged INR 99.00 for 3,072 atoms; p99 950ms")
    assert facts == [("number", "INR 99.00"), ("number", "3,072 atoms"), ("number", "950ms")]


def test_each_distinct_fact_is_listed_once_in_order_of_first_appearance():
    facts = _found("ERR_503 then ID-2347, again ERR_503 and ID-2347, then A-1001")
    assert facts == [("identifier", "ERR_503"), ("identifier", "ID-2347"), ("identifier", "A-1001")]


# ── what is not a name ──────────────────────────────────────────────────────

@pytest.mark.parametrize("text", [
    "Pune\nBerlin\n",                 # a single capitalized word that starts a line
    "- Pune is the city\n",           # ... or starts a bullet
    "Customer: waiting\nCity: unknown",  # a word that labels a value
    "Step 3:\nThought: Check the ticket\nAction: search\nObservation: nothing found",
    "[Summary of steps 1-4]\nKey findings: none\nTool results: none\nCurrent status: Work continues after step 4.",
    "Final Answer: Done. Please note the Error above.",
])
def test_capitalized_line_starts_labels_and_the_agents_structure_words_are_not_names(text):
    assert [value for kind, value in _found(text) if kind == "name"] == []


def test_a_name_inside_a_sentence_is_a_name_even_on_a_labelled_line():
    assert ("name", "Asha Rao") in _found("Customer: Asha Rao, tier gold")


@pytest.mark.parametrize("line, name", [
    ("The Nordvik team counters that its gates parallelise well", "Nordvik"),  # research_articles.txt
    ("When Asha Rao called, the order had shipped", "Asha Rao"),
])
def test_a_name_after_a_sentence_word_like_the_or_when_is_still_a_name(line, name):
    assert ("name", name) in _found(line)


# ── expected facts ──────────────────────────────────────────────────────────

def test_expected_facts_in_the_text_come_first_as_kind_expected():
    text = "Order A-1001 for Asha Rao ships from Pune by Friday 13 March; ticket T-5521."
    facts = _found(text, expected=["Friday 13 March", "A-1001", "R-2087"])
    assert facts[:2] == [("expected", "Friday 13 March"), ("expected", "A-1001")]
    assert ("expected", "R-2087") not in facts  # not in the text, so not a fact of it
    values = [value for _, value in facts]
    assert values.count("A-1001") == 1 and values.count("Friday 13 March") == 1
    assert ("identifier", "T-5521") in facts and ("name", "Asha Rao") in facts


def test_an_expected_fact_inside_a_longer_code_is_not_found():
    assert _found("Order A-10012 shipped", expected=["A-1001"])[0] == ("identifier", "A-10012")


# ── contains: the same boundaries ───────────────────────────────────────────

@pytest.mark.parametrize("text, fact", [
    ("ticket ID-23470 is open", "ID-2347"),
    ("gateway said ERR_5031", "ERR_503"),
    ("the ratio was 13.55 today", "3.5"),
    ("the ratio was 3.55 today", "3.5"),
    ("invoice XA-1001 paid", "A-1001"),
    ("refund INR 99.001", "INR 99.00"),
    ("version v4.18.2.1 deployed", "v4.18.2"),
])
def test_contains_never_finds_a_fact_inside_a_longer_identifier_or_number(text, fact):
    assert not contains(text, fact)


@pytest.mark.parametrize("text, fact", [
    ("ticket ID-2347.", "ID-2347"),
    ("(ERR_503)", "ERR_503"),
    ("ratio 3.5, then 4", "3.5"),
    ("- …cache ORD-6523 timeout…", "ORD-6523"),
    ('"ID-2347"', "ID-2347"),
    ("rate 0.071% today", "0.071%"),
    ("Customer: Asha Rao", "Asha Rao"),
])
def test_contains_finds_a_fact_next_to_punctuation(text, fact):
    assert contains(text, fact)


# ── retention ───────────────────────────────────────────────────────────────

def test_retention_lists_the_facts_the_after_text_dropped():
    before = "Order A-1001 failed with ERR_503 at 14:02; refund INR 99.00 to Asha Rao."
    after = "[Summary] Order A-1001 failed (ERR_5031?); refund pending for Asha Rao."
    r = retention(before, after)
    assert [f.text for f in r.kept] == ["A-1001", "Asha Rao"]
    assert [f.text for f in r.lost] == ["ERR_503", "14:02", "INR 99.00"]
    assert r.share == pytest.approx(2 / 5)


def test_retention_of_a_text_without_facts_has_no_share():
    assert retention("nothing to see here", "").share is None


_FRAGMENTS = ["Order A-1001 shipped", "code ERR_503", "at 2026-03-14 02:17:09", "due Friday 13 March",
              "refund INR 99.00", "paid $120.50", "rate 0.071%", "3,072 atoms", "took 950ms",
              "see https://status.example.com/i/4412?x=1", "mail a.rao@example.in", "log /var/log/app.log",
              "file src/lab/run.py", 'said "cracked screen"', "met Asha Rao", "Lindqvist Quantum Lab", "in Pune",
              "deploy v4.18.2", "host chk-eu-11", "key db.pool.max_size", "paper arXiv:2611.04217",
              "ticket ID-2347", "42 items", "count 1,040", "order ORD-6523"]
_SEPARATORS = [" ", ", ", "; ", "\n", ". ", " - ", "\nObservation: ", " (", ") "]


# IP addresses and quoted strings holding other facts have their own tests below.
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(_SEPARATORS), st.sampled_from(_FRAGMENTS)), min_size=1, max_size=8))
def test_a_text_compared_with_itself_loses_no_fact(parts):
    text = "".join(sep + fragment for sep, fragment in parts)
    r = retention(text, text)
    assert r.before and r.lost == []


@pytest.mark.parametrize("line, quote", [
    ('Customer wrote: "order A-1001 arrived with a cracked screen"', "order A-1001 arrived with a cracked screen"),
    ('She said "call me after 14:02"', "call me after 14:02"),
])
def test_a_quoted_string_keeps_the_facts_inside_it(line, quote):
    assert ("quoted", quote) in _found(line)
    assert retention(line, line).lost == []


def test_an_ip_address_in_a_log_line_is_never_lost_from_its_own_text():
    line = "02:17:09 WARN pool client 10.118.4.21 waited 950ms for a connection"
    assert retention(line, line).lost == []


# ── size ────────────────────────────────────────────────────────────────────

def test_a_50000_char_scratchpad_yields_every_planted_identifier_once():
    rng = random.Random(5)
    words = ["latency", "cache", "replica", "timeout", "shard", "queue", "retry", "courier", "refund"]
    planted, lines, size, step = [], [], 0, 0
    while size < 50_000:
        step += 1
        ident = f"{rng.choice(['ID-', 'ERR_', 'ORD-', 'TCK-'])}{1000 + step}"
        planted.append(ident)
        body = " ".join(rng.choice(words) for _ in range(30))
        line = (f"Step {step}:\nThought: Check shard {step}.\nAction: search({{'query': 'shard {step}'}})\n"
                f"Observation: {body} {ident} took {rng.randint(10, 999)}ms at 2026-03-14 02:{step % 60:02d}:00 "
                f"{body}\n")
        lines.append(line)
        size += len(line)
    text = "".join(lines)[:50_000]
    planted = [p for p in planted if contains(text, p)]
    facts = extract_facts(text)
    identifiers = [f.text for f in facts if f.kind == "identifier"]
    assert len(text) == 50_000 and len(planted) > 80
    assert identifiers == planted
    assert len({f.text for f in facts}) == len(facts)
    assert not any(f.kind == "name" for f in facts)  # only structure words and tool names are capitalized


# ── the fast search finds exactly what each kind's own pattern finds ────────

def _reference_spans(line):
    """line_fact_spans as it was written first: each kind's pattern.sub over the line, in order (after the
    one step both share: object keys blanked, as they are never facts)."""
    from scratchpad_lab.analysis import facts as F
    work, spans = F._without_keys(line), []
    for kind, pattern in F._PATTERNS:  # every kind over every line: no skipping, so the skips are checked too

        def claim(m, kind=kind):
            group = next((i for i in range(1, (m.re.groups or 0) + 1) if m.group(i)), 0)
            start, end = m.span(group)
            raw = line[start:end]
            value = raw.strip()
            start += len(raw) - len(raw.lstrip())
            if kind == "quoted" and not F.QUOTED[0] <= len(raw) <= F.QUOTED[1]:
                return m.group(0)
            if kind == "name":
                value, start = F._trim_name(line, m.start(), m.end(), value)
                if not value:
                    return m.group(0)
            spans.append((start, start + len(value), kind, value))
            return " " * len(m.group(0))
        work = pattern.sub(claim, work)
    return tuple(sorted(spans, key=lambda span: span[0]))


_PIECES = list("aAbBzZ019 _-.:/\\@$€£₹%\"“”'()[]{},;!?\t") + [
    "USD", "INR", "Rs.", "ms", "Monday", "March", "Sept", "April", "Aug ", "Dec ", "Sun, ", "Wed ", "12 ", " 7", "2026-03-14", "02:17:09", "v4.18.2", "ID-2347",
    "https://x.io/a", "Asha Rao", "2026-", "-03-", "9:", "INV88", "NX22", "v4.", "1.2.3", "Sept", "Mar 3", "Jan", "of ", " Pune", "3,072", "٣", "ERR_DB", "db.pool.max", "arXiv:2611.04217",
    "C:\\x\\y.txt", "~/a/b", "²", "x²_", "src/lab/run.py", "a.rao@example.in", "ß", "Sørbø", "\u00a0", " 0.071% "]


def test_fast_fact_search_finds_exactly_what_the_patterns_find():
    from pathlib import Path
    from scratchpad_lab.analysis.facts import line_fact_spans
    lines = set()
    for path in sorted(Path(__file__).resolve().parents[1].glob("sample_runs/*.json")):
        lines.update(path.read_text(encoding="utf-8").replace("\\n", "\n").split("\n"))
    rnd = random.Random(15)
    for _ in range(20000):
        lines.add("".join(rnd.choice(_PIECES) for _ in range(rnd.randint(1, 40))))
    differing = [line for line in lines if line_fact_spans.__wrapped__(line) != _reference_spans(line)]
    assert not differing, differing[:3]


def test_contains_answers_what_the_fact_pattern_finds():
    """contains() checks boundaries by hand (no pattern compiled per fact); fact_pattern (the cards mark
    facts with it) must find a fact exactly where contains() says it is."""
    from scratchpad_lab.analysis.facts import fact_pattern
    rnd = random.Random(151)
    alphabet = list("aZ09_.,- é٣²x") + ["ID-1", "3.5", "12", "A"]
    for _ in range(40000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 14)))
        value = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 4)))
        for relaxed in (False, True):
            assert contains(text, value, relaxed) == (fact_pattern(value, relaxed).search(text) is not None), \
                (text, value, relaxed)


# ── facts are values, never the keys of an object (issue 30, item 2) ─────────

@pytest.mark.parametrize("text, facts", [
    ('{"reservation_id": "ZFA04Y", "flights": [{"flight_number": "HAT083", "price": 186}], "status": "active"}',
     ["ZFA04Y", "HAT083", "186", "active"]),
    ("{'account_id': 'AC-118', 'status': 'ok', 'payment_method_id': 'credit_card_4421'}",
     ["AC-118", "credit_card_4421"]),
    ('Observation: {"user": {"user_id": "sara_doe_496", "membership_level": "gold"}, "total_due": "$1,204.50"}',
     ["sara_doe_496", "gold", "$1,204.50"]),
    ('    "payment_method_id": "gift_card_7219",', ["gift_card_7219"]),
    ('{"cabin": "economy", "prices": {"economy": 212, "business_class": 899}}', ["economy", "212", "899"]),
    ('"{\\"order_id\\": \\"A-1001\\", \\"refund_amount\\": 120}"', ["A-1001", "120"]),
])
def test_the_keys_of_an_object_are_never_facts_and_its_values_still_are(text, facts):
    found = [f.text for f in extract_facts(text)]
    for value in facts:
        assert value in found, (value, found)
    for key in ("reservation_id", "flight_number", "account_id", "payment_method_id", "user_id",
                "membership_level", "total_due", "business_class", "order_id", "refund_amount", "status", "flights"):
        assert key not in found, (key, found)


def test_a_quoted_word_in_prose_is_still_a_fact():
    assert "quoted" in {f.kind for f in extract_facts('The customer wrote "box arrived crushed": refund it.')}


def _keys_and_values(value, keys, values):
    if isinstance(value, dict):
        for k, v in value.items():
            keys.add(str(k))
            _keys_and_values(v, keys, values)
    elif isinstance(value, list):
        for v in value:
            _keys_and_values(v, keys, values)
    else:
        values.add(str(value))


def test_no_fact_of_a_real_tau_bench_tool_result_is_one_of_its_keys():
    import json

    from conftest import shared_file

    runs = json.loads(shared_file("datasets", "tau-bench-airline", "gpt-4o-airline.json").read_text(encoding="utf-8"))
    checked, facts, keys_taken = 0, set(), []
    for run in runs[:20]:
        for message in run["traj"]:
            content = str(message.get("content") or "")
            if message.get("role") != "tool":
                continue
            try:
                parsed = json.loads(content)
            except ValueError:
                continue  # a tool's plain-text reply ("Error: ...")
            keys, values = set(), set()
            _keys_and_values(parsed, keys, values)
            found = {f.text for f in extract_facts(content)}
            keys_taken += sorted(found & (keys - values))
            facts |= found
            checked += 1
    assert checked > 50 and not keys_taken, keys_taken[:10]
    # nor a piece of JSON between two strings (a short value's closing quote taken for an opening one)
    assert not [f for f in facts if '":' in f or '{"' in f], [f for f in facts if '":' in f][:5]
    # what the airline agent needs is still found (the first run's user, flights and payment methods):
    # reservation ids, flight numbers, payment method ids, amounts, dates, names
    assert {"NO6JO3", "AIXC49", "HAT069", "HAT083", "credit_card_4421486", "250", "1990-04-05",
            "Amelia"} <= facts
