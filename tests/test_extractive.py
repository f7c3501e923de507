"""The offline extractive summarizer: the package's summary shape, a hard budget, salient lines first,
and never a word that was not in the scratchpad."""
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchpad_lab.model.config import PACKAGE_PROMPT
from scratchpad_lab.engine.summarize.extractive import ExtractiveSummarizer
from scratchpad_lab.model.config import DEFAULT_SECTIONS
from synthetic import synthetic_trace

SCRATCHPAD = """Step 1:
Thought: I should look up the customer first.
Action: lookup({'id': 'A-1001'})
Observation: Customer A-1001 is on plan Pro, balance $120.50, ticket TCK-88 open for 3 days.
Step 2:
Thought: we had a friendly chat about the weather and the view from the office
Action: logs({'q': 'errors'})
Observation: gateway returned ERR_503 at 14:02 after 3 retries; latency 950ms.
"""


def _summary(scratchpad=SCRATCHPAD, budget=1500, iteration=3, template=None, query="Help customer A-1001"):
    return ExtractiveSummarizer(budget).summarize(scratchpad=scratchpad, query=query, iteration=iteration,
                                                  template=template)


def _bullets(summary):
    return [line[2:] for line in summary.splitlines() if line.startswith("- ")]


def _normalised(text):
    return " ".join(text.split()).replace("…", "")


def _invented(summary, scratchpad):
    """Bullet texts (ellipses removed) that are not a substring of the whitespace-normalised input."""
    source = _normalised(scratchpad)
    return [b for b in _bullets(summary) if _normalised(b) not in source]


def _trace_scratchpad(steps=30, seed=5):
    """A long, realistic scratchpad: a synthetic trace's observations laid out like the agent does."""
    trace = synthetic_trace(steps=steps, seed=seed, max_observation_chars=1200)
    parts = []
    for i, step in enumerate(trace.steps, start=1):
        parts.append(f"\nStep {i}:\nThought: step {i}")
        parts.extend(f"Action: search({{'query': 'q{i}'}})\nObservation: {o}" for o in step.observations)
    return "\n".join(parts)


def test_summary_has_the_packages_shape():
    lines = _summary().splitlines()
    assert lines[0] == "[Summary of steps 1-3]"
    headings = [line.split(":")[0] for line in lines if not line.startswith("- ") and ":" in line]
    assert headings == list(DEFAULT_SECTIONS) == ["Key findings", "Tool results", "Current status"]
    assert lines[-1].startswith("Current status: Work continues after step 2; last action: logs")


def test_tool_results_go_under_tool_results_and_the_rest_under_key_findings():
    text = _summary()
    findings, results = text.split("Tool results:")
    assert "- Action: lookup({'id': 'A-1001'})" in findings
    assert "ERR_503" in results and "ERR_503" not in findings
    assert all(b.startswith("Observation:") for b in _bullets(results.split("Current status:")[0]))


def test_summary_is_deterministic():
    long = _trace_scratchpad()
    assert _summary(long, budget=900) == _summary(long, budget=900) == \
        ExtractiveSummarizer(900).summarize(scratchpad=long, query="other", iteration=3, template=None)


def test_summary_never_exceeds_its_budget_and_shortens_a_long_scratchpad():
    long = _trace_scratchpad()
    assert len(long) > 20_000
    for budget in (200, 500, 1500, 4000):
        text = _summary(long, budget=budget)
        assert len(text) <= budget
        assert len(text) > budget // 2, "a long scratchpad should fill most of the budget"


def test_a_short_scratchpad_is_kept_whole():
    text = _summary(budget=5000)
    for line in ("A-1001 is on plan Pro", "ERR_503 at 14:02", "lookup({'id': 'A-1001'})"):
        assert line in text


def test_salient_lines_are_kept_before_plain_prose():
    prose = [f"Thought: we spoke with Sam about how the morning went, part {w}" for w in
             ("one", "two", "three", "four", "five", "six", "seven", "eight")]
    salient = ["Observation: order ORD-4471 refunded 89.90 EUR on 2024-03-02",
               "Observation: ERR_503 from gateway gw-eu1 after 3 retries",
               "Observation: customer A-1001 owes $120.50"]
    scratchpad = "\n".join(prose[:4] + salient[:1] + prose[4:] + salient[1:])
    text = _summary(scratchpad, budget=420)
    for line in salient:
        assert line in text
    kept_prose = [p for p in prose if p in text]
    assert len(kept_prose) < len(prose)


def test_salient_lines_from_early_steps_survive_a_tight_budget():
    scratchpad = "Observation: the refund id is RF-2001 for 45.00 USD\n" + _trace_scratchpad(steps=15, seed=2)
    assert "RF-2001" in _summary(scratchpad, budget=1500)


def test_lines_with_nothing_salient_are_dropped():
    scratchpad = "Thought: this is all very interesting\nThought: let us keep going then\n" + SCRATCHPAD
    text = _summary(scratchpad)
    assert "very interesting" not in text and "keep going" not in text


def test_structure_markers_are_not_repeated_as_findings():
    scratchpad = "[Summarized up to step 5]\n[...earlier steps trimmed...]\n" + SCRATCHPAD
    bullets = _bullets(_summary(scratchpad))
    assert not any("Summarized up to" in b or "earlier steps trimmed" in b or re.match(r"Step \d+:$", b)
                   for b in bullets)


def test_summary_invents_nothing():
    for scratchpad in (SCRATCHPAD, _trace_scratchpad()):
        text = _summary(scratchpad, budget=1200)
        assert _bullets(text)
        assert _invented(text, scratchpad) == []


def test_a_very_long_line_is_clipped_around_its_identifiers_and_marked_with_ellipses():
    line = "Observation: " + "filler words here " * 40 + "the key is KEY-9090 " + "more filler text " * 40
    bullets = _bullets(_summary(line, budget=2000))
    clipped = [b for b in bullets if "KEY-9090" in b]
    assert clipped and all(len(b) <= 242 for b in bullets)
    assert clipped[0].startswith("…") or clipped[0].endswith("…")


def test_custom_template_section_lines_name_the_sections():
    template = ("Compress this.\n{scratchpad}\nAnswer in this shape:\n"
                "Facts: ...\nOpen questions: ...\nNext step: ...\n")
    text = _summary(template=template)
    headings = [line.split(":")[0] for line in text.splitlines()[1:] if not line.startswith("- ")]
    assert headings == ["Facts", "Open questions", "Next step"]
    assert "Key findings" not in text
    assert text.splitlines()[-1].startswith("Next step: Work continues after step 2")
    assert "ERR_503" in text


def test_a_template_without_section_lines_gets_the_packages_sections():
    assert _summary(template="Summarize briefly:\n{scratchpad}") == _summary(template=None)


def test_a_single_section_template_holds_findings_results_and_status():
    text = _summary(template="{scratchpad}\nNotes: ...\n")
    lines = text.splitlines()
    assert lines[1] == "Notes:"
    assert "ERR_503" in text and "A-1001" in text
    assert lines[-1].startswith("Work continues after step 2")


def test_invoke_with_the_packages_prompt_equals_summarize_of_its_parts():
    summarizer = ExtractiveSummarizer(700)
    for scratchpad, query, iteration in ((SCRATCHPAD, "Help customer A-1001", 3),
                                         (_trace_scratchpad(), "Collect the identifiers.", 30)):
        prompt = PACKAGE_PROMPT.format(query=query, iteration=iteration, scratchpad=scratchpad)
        assert summarizer.invoke(prompt) == summarizer.summarize(
            scratchpad=scratchpad, query=query, iteration=iteration, template=None)


def test_invoke_with_any_other_prompt_summarizes_the_whole_prompt():
    text = ExtractiveSummarizer(1500).invoke("Please summarize:\n" + SCRATCHPAD)
    assert text.startswith("[Summary]\n")
    assert "ERR_503" in text


# ── properties over random scratchpads ──────────────────────────────────────

_tokens = st.one_of(
    st.sampled_from(["Step 3:", "Thought:", "Action:", "Observation:", "-", "|", ";", ".", "\\n", "…",
                     "A-1001", "ERR_503", "ORD-77", "v2", "$12.50", "95%", "450ms", "Maria", "Lopez",
                     "[Summarized up to step 4]", "\n", "\n\n", "  ", "\t"]),
    st.text(min_size=1, max_size=12),
    st.integers(-10**6, 10**6).map(str),
)
_scratchpads = st.lists(_tokens, max_size=400).map(" ".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scratchpad=_scratchpads, budget=st.integers(200, 5000), iteration=st.integers(0, 500))
def test_any_scratchpad_gives_a_summary_within_budget_that_invents_nothing(scratchpad, budget, iteration):
    text = ExtractiveSummarizer(budget).summarize(scratchpad=scratchpad, query="q", iteration=iteration,
                                                  template=None)
    assert len(text) <= budget
    assert _invented(text, scratchpad) == []


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scratchpad=_scratchpads, query=st.text(max_size=80), iteration=st.integers(1, 500))
def test_invoke_reads_any_package_prompt_back_into_its_parts(scratchpad, query, iteration):
    summarizer = ExtractiveSummarizer(800)
    prompt = PACKAGE_PROMPT.format(query=query, iteration=iteration, scratchpad=scratchpad)
    assert summarizer.invoke(prompt) == summarizer.summarize(
        scratchpad=scratchpad, query=query, iteration=iteration, template=None)


def test_long_lines_are_cut_exactly_where_the_plain_pattern_cuts_them():
    import random
    import re

    from scratchpad_lab.engine.summarize.extractive import _PIECE_BREAK

    plain = re.compile(r"(?<=[.;!?])\s+|\\n|\s\|\s")  # the rule as first written: the oracle
    rnd = random.Random(7)
    alphabet = list("ab .;!?\\n|\t\n") + [" | ", "\\n", ". ", "x.", "  "]
    for _ in range(30000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 24)))
        assert _PIECE_BREAK.split(text) == plain.split(text), text


def _plain_greedy(candidates, room):
    """The greedy choice as first written (every gain summed again at every pick): the oracle."""
    covered, kept, pool = set(), set(), list(candidates)
    while pool and room > 0:
        best, best_value = None, 0.0
        for cand in pool:
            cost = len(cand[1]) + 3
            if cost > room:
                continue
            gain = sum(weight for fact, weight in cand[3].items() if fact not in covered)
            if gain / (cost ** 0.5) > best_value:
                best, best_value = cand, gain / (cost ** 0.5)
        if best is None:
            break
        kept.add(best[0])
        covered.update(best[3])
        room -= len(best[1]) + 3
        pool = [c for c in pool if c is not best and any(f not in covered for f in c[3])]
    return kept, room


def test_the_greedy_line_choice_keeps_exactly_the_lines_the_plain_greedy_keeps():
    import random

    from scratchpad_lab.engine.summarize.extractive import ExtractiveSummarizer

    rnd = random.Random(11)
    facts = [f"F{i}" for i in range(40)]
    for _ in range(3000):
        candidates = []
        for order in range(rnd.randint(0, 30)):
            chosen = rnd.sample(facts, rnd.randint(1, 6))
            weights = {f: rnd.choice([0.25, 0.5, 1, 1.5, 2, 3]) for f in chosen}
            candidates.append((order, "x" * rnd.randint(4, 240), rnd.random() < 0.5, weights))
        room = rnd.randint(0, 2000)
        assert ExtractiveSummarizer._greedy(candidates, room) == _plain_greedy(candidates, room)
