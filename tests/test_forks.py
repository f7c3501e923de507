"""Forks (issue 34, item 4): "what if that compression had not happened?", through the real packages.

The engine's fork of a sample run at its first compression, with it skipped: the package made no call there, the
fork's context is larger from there on, the original is untouched, and the fork records its parent and
iteration; the CLI's --json carries exactly the engine's figures; the three one-line refusals; the fork stored,
loaded back, exported and replayed as itself, and opened from its own link; the What if... control on the Runs
page and the Playground (AppTest). A run summarized by a model (a scripted one on the local fake server): its
fork is the run up to the fork point, its own summaries given back without a call, and the fork says whose
summaries it shows from where, in the engine's result and in `scratchpad-lab fork`; an extractive run's says
nothing.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from conftest import APP, ok, rerun_until
from fake_openai import FakeOpenAI, prompt_of
from scratchpad_lab.analysis.figures import figures
from scratchpad_lab.analysis.forks import from_iteration
from scratchpad_lab.cli import main
from scratchpad_lab.engine.tasks import ForkRefused, ForkRequest, ReplayRequest, fork, replay
from scratchpad_lab.model.records import load_any, load_record

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_runs" / "support-ticket-tight.json"


TIMED = ("summarizer_latency_s",)  # a measured time: the one figure two runs of the same work never share


def _untimed(row):
    if isinstance(row, dict):
        return {k: _untimed(v) for k, v in row.items() if k not in TIMED}
    return row


def _same_figures(a, b):
    return _untimed(json.loads(json.dumps(a))) == _untimed(json.loads(json.dumps(b)))


def _compressions(events):
    return [int(e.iteration) for e in events if e.kind == "compression" and e.payload.status == "ok"]


@pytest.fixture(scope="module")
def parent():
    return load_record(SAMPLE)


@pytest.fixture(scope="module")
def forked(parent):
    return fork(ForkRequest(parent, _compressions(parent.events)[0], parent_name=SAMPLE.name)).run_here()


def test_a_fork_at_the_first_compression_with_it_skipped_keeps_more_context_from_there(parent, forked):
    at = _compressions(parent.events)[0]
    before = json.dumps(parent.to_dict(), sort_keys=True)
    record = forked.record
    # up to the fork point the fork is the parent, step for step (the same replay rule, the same settings)
    def sent(events, upto):
        return [(e.iteration, e.payload.scratchpad) for e in events if e.kind == "iteration" and e.iteration < upto]
    assert sent(record.events, at) == sent(parent.events, at)
    # at the fork point the package made no call: no compression event, a trigger that says it was skipped
    assert at not in [int(e.iteration) for e in record.events if e.kind == "compression"]
    trigger = next(e for e in record.events if e.kind == "trigger" and e.iteration == at)
    assert trigger.payload.skipped and not trigger.payload.fired and trigger.payload.periodic_due
    # from there the agent is sent more: the fork's context is larger, and it made one summarizer call fewer
    original, fork_from = forked.comparison.original, forked.comparison.fork
    assert fork_from.context_tokens > original.context_tokens
    assert fork_from.summarizer_calls < original.summarizer_calls
    assert forked.comparison.first_difference == at
    assert original.to_dict() == figures(from_iteration(parent.events, at)).to_dict()
    assert json.dumps(parent.to_dict(), sort_keys=True) == before, "the original is unchanged"
    assert record.forked_from == {"parent_id": None, "parent_name": SAMPLE.name, "iteration": at, "skipped": True,
                                  "parent_settings": {"summarize_every": parent.config.summarize_every,
                                                      "max_scratchpad_chars": parent.config.max_scratchpad_chars},
                                  "earlier": []}


def test_the_cli_fork_prints_the_engines_figures(forked, capsys, tmp_path):
    at = forked.comparison.at
    out = tmp_path / "fork.json"
    assert main(["fork", str(SAMPLE), "--at", str(at), "--skip", "--json", "--out", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert _same_figures(printed["figures"], figures(forked.record.events, forked.record.scenario).to_dict())
    assert _same_figures(printed["comparison"], forked.comparison.to_dict())
    assert printed["forked_from"] == forked.record.forked_from
    assert load_record(out).forked_from == forked.record.forked_from


@pytest.mark.parametrize("args, says", [
    (["--at", "3"], "Iteration 3 of this run has no compression to fork at: its compressions are at iterations 2, "),
    (["--at", "99"], "Iteration 99 is not in this run: it has 14 iterations."),
])
def test_a_fork_where_there_is_no_compression_is_refused_in_one_line(args, says, capsys):
    assert main(["fork", str(SAMPLE), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err


def test_a_file_that_is_no_run_nor_trace_is_refused_in_one_line(tmp_path, capsys):
    other = tmp_path / "notes.json"
    other.write_text('{"hello": "world"}')
    assert main(["fork", str(other), "--at", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "none of the formats the lab reads" in err


def test_a_fork_that_changes_nothing_or_another_knob_is_refused(parent):
    at = _compressions(parent.events)[0]
    with pytest.raises(ForkRefused, match="changes nothing"):
        fork(ForkRequest(parent, at, skip=False, changes={"summarize_every": parent.config.summarize_every}))
    with pytest.raises(ForkRefused, match="only the middleware's triggers"):
        fork(ForkRequest(parent, at, changes={"agent_trim_chars": 900}))


def test_other_triggers_apply_from_the_fork_point_on(parent):
    at = _compressions(parent.events)[1]
    forked = fork(ForkRequest(parent, at, skip=False, changes={"summarize_every": None})).run_here()
    triggers = {int(e.iteration): e.payload for e in forked.record.events if e.kind == "trigger"}
    assert {t.summarize_every for i, t in triggers.items() if i < at} == {parent.config.summarize_every}
    assert {t.summarize_every for i, t in triggers.items() if i >= at} == {None}
    assert forked.record.config.summarize_every is None
    assert forked.record.forked_from["parent_settings"]["summarize_every"] == parent.config.summarize_every


def test_a_stored_fork_loads_back_replays_as_itself_and_opens_from_its_link(forked, lab_db):
    from scratchpad_lab.engine.tasks import Store
    store = Store()
    saved = store.save_run(forked.record, name=forked.record.name)
    again = store.load(saved.id)
    assert again.forked_from == forked.record.forked_from
    assert load_any(store.export(saved.id)).to_dict() == again.to_dict()
    replayed = replay(ReplayRequest(again, "fork")).run_here()  # a fork replayed under its own settings is the fork
    assert _same_figures(figures(replayed.events).to_dict(), figures(forked.record.events).to_dict())

    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["run"] = saved.id
    ok(at.run())
    assert at.session_state["runs_open_entry"] == f"stored:{saved.id}"
    notes = [t.value for t in at.text if t.value.startswith("A fork of ")]
    assert notes and f"at iteration {forked.comparison.at} (that compression skipped)" in notes[0]


def test_the_runs_page_what_if_control_forks_the_open_run_and_shows_it_beside(parent, forked, lab_db):
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["sample"] = "support-ticket-tight"
    ok(at.run())
    assert at.selectbox(key="runs_fork_at").options == [str(i) for i in _compressions(parent.events)]
    at.button(key="runs_fork_go").click()
    rerun_until(ok(at.run()), what="the fork")
    result = at.session_state["fork_result"]
    assert result is not None and result.record.forked_from["iteration"] == forked.comparison.at
    assert _same_figures(figures(result.record.events).to_dict(), figures(forked.record.events).to_dict())  # = the CLI's
    table = next(d.value for d in at.dataframe if "fork" in d.value.columns)
    assert list(table["fork"]) [:2] == [str(forked.comparison.fork.compressions),
                                        str(forked.comparison.fork.summarizer_calls)]
    assert any("The two first differ at iteration" in t.value for t in at.text)
    links = [t.value for t in at.text if t.value.startswith("The fork's own link: ")]
    assert links and "?run=" in links[0]
    # a fork at a compression refused by the task is said under the control, and nothing starts
    at.radio(key="runs_fork_how").set_value("other settings from there").run()
    at.button(key="runs_fork_go").click().run()
    assert any("This fork changes nothing" in t.value for t in at.text)
    # the Playground draws the same control under the run on show: here the fork itself, forkable again
    ok(at.switch_page("pages/playground.py").run())
    shown = len(at.session_state["play_runs"]) - 1
    assert at.selectbox(key=f"play_fork_{shown}_at").options == [str(i) for i in _compressions(result.record.events)]
    at.button(key=f"play_fork_{shown}_go").click()
    rerun_until(ok(at.run()), what="the fork of the fork")
    again = at.session_state["fork_result"]
    assert again.parent is result.record and again.record.forked_from["earlier"][0]["iteration"] == forked.comparison.at


# ── a run summarized by a model ─────────────────────────────────────────────────────────────────────────────

def _scripted_summary(body):
    """A model's summary, in words the extractive summarizer never writes (it only copies the scratchpad's lines)."""
    import re
    prompt = prompt_of(body)
    step = re.search(r"Steps completed: (\d+)", prompt).group(1)
    ids = sorted(set(re.findall(r"\b[ATCR]-\d{4,5}\b", prompt)))
    return f"Scripted model summary at step {step}: ids {', '.join(ids)}"


@pytest.fixture(scope="module")
def model_run():
    """(the parent, summarized by a scripted model on the fake server; its fork at its second compression, with
    it skipped; the requests the server got during the fork)."""
    from scratchpad_lab.engine.run.runner import Run, Source
    from scratchpad_lab.model.config import RunConfig
    from scratchpad_lab.model.endpoint import Endpoint

    with FakeOpenAI() as server:
        server.default = ("ok", _scripted_summary)
        endpoint = Endpoint(provider="custom", base_url=server.url, model="tiny-summarizer")
        config = RunConfig.build(scenario="support-ticket", summarizer="endpoint", summarizer_endpoint=endpoint,
                                 summarize_every=2, max_scratchpad_chars=2000, extractive_budget_chars=600)
        parent = Run(config, Source.for_scenario("support-ticket"), name="model-summarized").run()
        assert len(server.requests) == len(_compressions(parent.events)) >= 3, "the model wrote every summary"
        server.requests.clear()
        forked = fork(ForkRequest(parent, _compressions(parent.events)[1], parent_name="model-summarized")).run_here()
        return parent, forked, list(server.requests)


def _as_recorded(events, upto):
    """The events before iteration `upto`, as data to compare: without the agent's measured step times and the
    live "waiting for the model" marks (the fork waits for no model)."""
    out = []
    for e in events:
        if e.iteration is None or e.iteration >= upto or e.kind == "call_start":
            continue
        data = {k: v for k, v in e.data.items() if not (e.kind == "llm_call" and k == "latency_s") and k != "reused"}
        out.append((e.kind, e.iteration, data))
    return out


def test_a_fork_of_a_model_summarized_run_is_the_run_up_to_the_fork_point(model_run):
    parent, forked, requests = model_run
    at = forked.comparison.at
    assert at == _compressions(parent.events)[1]
    assert requests == [], "the parent's summaries are given back: the model is not called"
    # before the fork point: the same events, the model's own summaries, the same scratchpad sizes
    assert _as_recorded(forked.record.events, at) == _as_recorded(parent.events, at)
    given = [e for e in forked.record.events if e.kind == "compression" and e.iteration < at]
    assert given and all(e.payload.reused and e.payload.response.startswith("Scripted model summary")
                         for e in given)
    def sizes(events):
        return [(e.iteration, e.payload.chars) for e in events if e.kind == "iteration" and e.iteration < at]
    assert sizes(forked.record.events) == sizes(parent.events)
    assert forked.comparison.first_difference is not None and forked.comparison.first_difference >= at
    # read by the one figures row, the two runs agree before the fork point (a summary given back is the
    # parent's call: its tokens and its time)
    def before(events):
        return [e for e in events if e.iteration is not None and e.iteration < at]
    assert figures(before(forked.record.events)).to_dict() == figures(before(parent.events)).to_dict()
    # from there the extractive summarizer writes them, and the fork says so, naming the model
    own = [e for e in forked.record.events if e.kind == "compression" and e.iteration > at]
    assert own and all(not e.payload.reused and e.payload.model.startswith("extractive") for e in own)
    first_own = own[0].iteration
    model = parent.config.summarizer.endpoint.label()
    assert forked.notice == (f"Before iteration {first_own} the fork gives back the parent's summaries, written by "
                             f"the model {model!r}, without a new call; from there the offline extractive summarizer "
                             "writes them, so the difference is also the summarizer's.")


def test_a_fork_at_a_model_summarized_runs_first_compression_says_the_summarizer_differs_from_there(model_run):
    parent, _, _ = model_run
    first = _compressions(parent.events)[0]
    forked = fork(ForkRequest(parent, first)).run_here()  # nothing before it to give back
    assert not any(e.payload.reused for e in forked.record.events if e.kind == "compression")
    assert forked.notice == (f"The parent's summaries from iteration {first} on were written by the model "
                             f"{parent.config.summarizer.endpoint.label()!r}, the fork's by the offline extractive "
                             "summarizer, so the difference is also the summarizer's.")


def test_the_cli_fork_of_a_model_summarized_run_prints_whose_summaries_it_shows(model_run, tmp_path, capsys):
    parent, forked, _ = model_run
    path = tmp_path / "model-summarized.json"
    parent.save(path)
    assert main(["fork", str(path), "--at", str(forked.comparison.at), "--skip"]) == 0
    out = capsys.readouterr().out
    assert forked.notice in out.splitlines()
    assert main(["fork", str(path), "--at", str(forked.comparison.at), "--skip", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["notice"] == forked.notice


def test_a_fork_of_an_extractive_run_says_nothing_of_whose_summaries(parent, forked, capsys):
    assert forked.notice is None
    assert main(["fork", str(SAMPLE), "--at", str(forked.comparison.at), "--skip"]) == 0
    assert "gives back the parent's summaries" not in capsys.readouterr().out


def test_the_runs_page_shows_whose_summaries_the_fork_of_a_model_summarized_run_shows(model_run, lab_db):
    from scratchpad_lab.engine.tasks import Store
    parent, forked, _ = model_run
    saved = Store().save_run(parent, name=parent.name)
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["run"] = saved.id
    ok(at.run())
    at.selectbox(key="runs_fork_at").set_value(forked.comparison.at)
    at.button(key="runs_fork_go").click()
    rerun_until(ok(at.run()), what="the fork")
    assert at.session_state["fork_result"].notice == forked.notice
    assert forked.notice in [t.value for t in at.text]
