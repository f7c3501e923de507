"""Narration: each kind of sentence, checked against a run where it happens (the real agent and the real
middleware), with its numbers read from that run's own events."""
import json

import pytest

from scratchpad_lab import cli
from scratchpad_lab.model.config import RunConfig
from scratchpad_lab.analysis.metrics import compressions, trims
from scratchpad_lab.analysis.narrate import narrate, sentence_for, why_compressions, why_trims
from scratchpad_lab.engine.run.runner import Run, Source


def _run(scenario="support-ticket", patch=None, **settings):
    run = Run(RunConfig.build(scenario=scenario, **settings), Source.for_scenario(scenario))
    if patch:
        patch(run)
    return run.run()


def _checks(record):
    return {e.iteration: e.data for e in record.events if e.kind == "trigger"}


def test_a_periodic_compression_says_the_iteration_is_a_multiple_of_the_period():
    record = _run(summarize_every=3, max_scratchpad_chars=1_000_000)
    first = compressions(record.events)[0]
    assert first["reason"] == "periodic" and first["iteration"] == 3
    said = sentence_for(record.events, 3)
    assert said.startswith(
        f"Iteration 3 is a multiple of 3 (compress every 3 iterations), so the periodic trigger fired: the summarizer "
        f"replaced {first['before_chars']:,} chars with a {first['after_chars']:,}-char summary.")
    # then its failed health checks (health.py), if any: this early summary costs more than it can save
    assert said.endswith("the rest of the run (at most 636).") or said.endswith("summary.")


def test_a_size_compression_names_the_size_the_cap_and_the_last_summary_with_thousands_separators():
    record = _run(summarize_every=None, max_scratchpad_chars=1_000, extractive_budget_chars=1_500, agent_trim_chars=1_200)
    refire = [c for c in compressions(record.events)
              if c["reason"] == "size" and _checks(record)[c["iteration"]]["last_summarized_chars"] is not None][0]
    check = _checks(record)[refire["iteration"]]
    assert check["chars"] >= 1_000 and check["last_summarized_chars"] is not None
    assert sentence_for(record.events, refire["iteration"]).startswith(
        f"The scratchpad ({check['chars']:,} chars) is over the 1,000 cap and has grown since the last summary "
        f"({check['last_summarized_chars']:,} chars), so the size trigger fired")
    first = compressions(record.events)[0]
    assert "no summary has been written yet, so the size trigger fired" in sentence_for(record.events, first["iteration"])


def test_over_the_cap_but_not_grown_since_the_last_summary_says_the_size_trigger_waits_for_growth():
    record = _run(summarize_every=None, max_scratchpad_chars=1_000, extractive_budget_chars=1_500, agent_trim_chars=1_200)
    disarmed = [i for i, c in _checks(record).items() if c["over_cap"] and not c["size_armed"]]
    assert disarmed, "the settings must produce a disarmed over-cap iteration"
    c = _checks(record)[disarmed[0]]
    assert not c["fired"]
    assert sentence_for(record.events, disarmed[0]).startswith(
        f"The scratchpad ({c['chars']:,} chars) is over the 1,000 cap, but has not grown since the last summary "
        f"({c['last_summarized_chars']:,} chars): the size trigger waits for it to grow.")


def test_under_the_cap_with_nothing_due_says_when_the_next_periodic_trigger_comes():
    record = _run(summarize_every=5, max_scratchpad_chars=15_000)
    c = _checks(record)[7]
    assert not c["fired"] and not c["over_cap"]
    assert sentence_for(record.events, 7) == (
        f"The scratchpad ({c['chars']:,} chars) is under the 15,000 cap and iteration 7 is not a multiple of "
        "5 (compress every 5 iterations; next at 10): nothing is due.")
    assert sentence_for(record.events, 1) == "At iteration 1 the scratchpad is empty: there is nothing to compress."


@pytest.mark.parametrize("how", ["silent stand-in", "empty-reply summarizer"])
def test_an_empty_reply_is_a_wasted_call_that_the_package_retries_next_iteration(how):
    def empty(run):
        run.middleware.llm.inner.summarize = lambda **_kw: "  "

    settings = dict(summarize_every=None, max_scratchpad_chars=2_000)
    record = (_run(summarizer="silent", **settings) if how == "silent stand-in" else _run(patch=empty, **settings))
    comps = compressions(record.events)
    assert len(comps) >= 2 and all(c["status"] == "empty" for c in comps)
    first, second = comps[0], comps[1]
    assert second["iteration"] == first["iteration"] + 1  # what the sentence promises, the package then did
    sentence = sentence_for(record.events, first["iteration"])
    assert "but the summarizer replied nothing; the package kept the scratchpad" in sentence
    assert sentence.endswith("will try again next iteration, since the scratchpad is still over the cap (a wasted call).")
    assert f"({first['before_chars']:,} chars)" in sentence


def test_a_periodic_empty_reply_names_the_next_periodic_iteration():
    record = _run(summarizer="silent", summarize_every=4, max_scratchpad_chars=1_000_000)
    comps = compressions(record.events)
    assert [c["iteration"] for c in comps][:2] == [4, 8]
    assert sentence_for(record.events, 4).endswith("will try again at iteration 8 (a wasted call).")


def test_a_summarizer_error_is_named_and_the_scratchpad_kept():
    def broken(run):
        def fail(**_kw):
            raise RuntimeError("summarizer endpoint is down")
        run.middleware.llm.inner.summarize = fail

    record = _run(patch=broken, summarize_every=5, max_scratchpad_chars=1_000_000)
    comp = compressions(record.events)[0]
    assert comp["status"] == "error"
    assert sentence_for(record.events, 5) == (
        "Iteration 5 is a multiple of 5 (compress every 5 iterations), so the periodic trigger fired, but the summarizer failed "
        f"(RuntimeError: summarizer endpoint is down); the package kept the scratchpad ({comp['before_chars']:,} "
        "chars) unchanged.")


def test_a_trim_says_whether_the_summary_written_at_iteration_k_was_in_the_part_cut():
    record = _run("log-triage", summarize_every=4, max_scratchpad_chars=1_000_000, extractive_budget_chars=1_200,
                  agent_trim_chars=2_500)
    sent = {e.iteration: e.data["scratchpad"] for e in record.events if e.kind == "iteration"}
    whole = partial = plain = None
    for t in trims(record.events):
        k = t["iteration"]
        if k + 1 not in sent:
            continue
        header = f"[Summarized up to step {k // 4 * 4}]"
        sentence = sentence_for(record.events, k)
        assert f"The agent cut its scratchpad from {t['before_chars']:,} chars to the last 2,500 chars" in sentence
        if header in sent[k] and header not in sent[k + 1]:  # the text shows the summary went in this cut
            assert f"the summary written at iteration {k // 4 * 4}" in sentence
            if "the rest is still there" in sentence:
                partial = k
            else:
                whole = k
        elif "[Summarized up to step" not in sent[k]:
            assert sentence.endswith("no summary was in the part that was cut: the oldest steps are simply gone.")
            plain = k
    assert whole and partial and plain, (whole, partial, plain)


def test_compression_off_says_so():
    record = _run("log-triage", summarize_every=None, max_scratchpad_chars=1_000_000)
    assert not compressions(record.events)
    assert sentence_for(record.events, 2).startswith(
        "Compression is off (no periodic trigger, and the cap is the largest allowed)")


def test_every_iteration_of_a_run_has_one_narration_consistent_with_what_the_package_did():
    record = _run(summarize_every=2, max_scratchpad_chars=2_000, extractive_budget_chars=600)
    whys = narrate(record.events)
    checks = _checks(record)
    assert sorted(whys) == sorted(checks)
    fired = {c["iteration"]: c for c in compressions(record.events)}
    for i, text in whys.items():
        if i in fired:
            assert ("periodic trigger fired" in text) == (fired[i]["reason"] == "periodic")
        else:
            assert "fired" not in text


def test_cli_json_has_a_why_on_every_compression_and_trim(capsys):
    code = cli.main(["run", "--scenario", "log-triage", "--summarize-every", "4", "--max-scratchpad-chars",
                     "1000000", "--agent-trim-chars", "2500", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["compressions"] and out["trims"]
    assert all(c["why"].startswith(f"Iteration {c['iteration']} is a multiple") for c in out["compressions"])
    assert all(t["why"].startswith(f"The agent cut its scratchpad from {t['before_chars']:,} chars")
               for t in out["trims"])


def test_cli_silent_summarizer_reports_empty_replies(capsys):
    code = cli.main(["run", "--summarizer", "silent", "--summarize-every", "none", "--max-scratchpad-chars", "2000",
                     "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["compressions"]
    assert all(c["status"] == "empty" and "replied nothing" in c["why"] for c in out["compressions"])


def test_why_lists_follow_the_events_order():
    record = _run("log-triage", summarize_every=4, max_scratchpad_chars=1_000_000, agent_trim_chars=2_500)
    assert len(why_compressions(record.events)) == len(compressions(record.events))
    assert len(why_trims(record.events)) == len(trims(record.events))


def test_a_hostile_summarizer_error_in_the_narration_is_shown_only_as_plain_text():
    from streamlit.testing.v1 import AppTest

    def app():
        from scratchpad_lab.model.config import RunConfig
        from scratchpad_lab.engine.run.runner import Run, Source
        from scratchpad_lab.ui.view import render_run

        def fail(**_kw):
            raise RuntimeError('<img src=x onerror="alert(1)"> **bold** [link](http://example.invalid)')

        run = Run(RunConfig.build(scenario="support-ticket", summarize_every=5, max_scratchpad_chars=1_000_000),
                  Source.for_scenario("support-ticket"))
        run.middleware.llm.inner.summarize = fail
        record = run.run()
        render_run(record.events, record.config, live=False, key="x", upto=5)

    at = AppTest.from_function(app, default_timeout=60).run()
    assert not at.exception
    texts = [t.value for t in at.text if "onerror" in t.value]
    assert any(t.startswith("Why: Iteration 5 is a multiple") for t in texts)  # the trigger panel
    assert any(t.startswith("Iteration 5 is a multiple") for t in texts)  # the card
    for kind in ("markdown", "caption", "info", "html"):
        assert all("onerror" not in str(getattr(e, "value", e.proto)) for e in at.get(kind))


def test_a_record_without_trigger_checks_still_gets_an_honest_sentence():
    record = _run(summarize_every=None, max_scratchpad_chars=2_000)
    events = [e for e in record.events if e.kind != "trigger"]
    comp = compressions(events)[0]
    assert comp["reason"] == "size"
    sentence = sentence_for(events, comp["iteration"])
    assert sentence.startswith(f"At iteration {comp['iteration']} the size trigger fired (this record has no "
                               "trigger check to say more): the summarizer replaced")
    assert " 0 cap" not in sentence
