"""The playground page, driven through the real app with AppTest and the scripted agent.

AppTest never fires `st.fragment(run_every=...)` by itself, so a running Run is followed by calling
`at.run()` in a bounded polling loop (the worker thread keeps appending to the log meanwhile); no test
sleeps for a fixed time (conftest's rerun_until waits on the active run between reruns).
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import List, Optional

import pytest
from streamlit.testing.v1 import AppTest

from conftest import active_run, APP, rerun_until
from inert_html import html_texts

from scratchpad_lab.ui.markup import escape

PACE_INSTANT = "instant"
PACE_DEMO = "demo (0.5 s/step)"

# Untrusted text a tool, a model or a file could bring in: raw HTML and a markdown remote image.
HTML_PAYLOAD = "<img src=x onerror=alert(1)>"
IMAGE_PAYLOAD = "![x](http://example.invalid/a.png)"
PAYLOADS = (HTML_PAYLOAD, IMAGE_PAYLOAD)
# What must never reach an element that renders markup, in any form (escaped brackets still autolink
# a bare URL): the payloads' distinctive parts.
MARKERS = ("onerror=alert", "example.invalid")
# Elements that show their text as plain text: st.text, st.code, the cells of st.dataframe, and the
# labels Vega draws itself (legend, tooltips) in the Altair chart.
PLAIN_TEXT_NODES = {"text", "code", "dataframe", "vega_lite_chart"}


# ── helpers ────────────────────────────────────────────────────────────────

def _open_app(monkeypatch, samples_dir: Optional[Path] = None) -> AppTest:
    if samples_dir is None:
        monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    else:
        monkeypatch.setenv("SCRATCHPAD_LAB_SAMPLES", str(samples_dir))
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _run_to_the_end(at: AppTest) -> None:
    at.button(key="play_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    rerun_until(at, lambda a: active_run(a) is None, what="the run", wait_on=active_run)


def _metric(at: AppTest, label: str) -> str:
    """The first metric with this label: the status line of the run on show comes first."""
    found = [m.value for m in at.metric if m.label == label]
    assert found, f"no metric {label!r} on the page"
    return found[0]


def _runs_table(at: AppTest, *columns: str):
    """The runs table's tab with `columns` (its Outcome tab by default)."""
    wanted = set(columns or ("compressions", "outcome"))
    tables = [d.value for d in at.dataframe if wanted <= set(d.value.columns)]
    return tables[0] if tables else None


def _texts(at: AppTest) -> List[str]:
    return [t.value for t in at.text]


def _card_headings(at: AppTest) -> List[str]:
    return [m.value for m in at.markdown if m.value.startswith("**Compression at iteration ")]


def _answer_score_texts(at: AppTest) -> List[str]:
    return [t for t in _texts(at) if t.startswith("Answer score: ")]


def _rendered_as_markup(at: AppTest) -> List[str]:
    """The serialized protos of every node whose text Streamlit may render as markdown or HTML
    (markdown, badges, captions, titles, alerts, metric and widget labels, expander labels, ...). A select
    box's options are drawn as plain text (only its label is markdown: the Pin pickers offer a run's facts and
    lines there), so they are left out of its proto; its label and help stay."""
    out = []
    for node in at:
        if node.type in PLAIN_TEXT_NODES or node.type == "html" or getattr(node, "proto", None) is None:
            continue
        proto = node.proto
        if node.type == "selectbox":
            proto = type(proto)()
            proto.CopyFrom(node.proto)
            del proto.options[:]
            proto.ClearField("raw_values") if "raw_values" in proto.DESCRIPTOR.fields_by_name else None
        out.append(str(proto))
    return out



@pytest.fixture
def app(monkeypatch) -> AppTest:
    return _open_app(monkeypatch)


def _open_advanced(at: AppTest) -> AppTest:
    """Open the sidebar's Advanced expander, as a person would (its widgets are drawn only while open)."""
    from scratchpad_lab.ui.state import K_ADVANCED
    at.session_state[K_ADVANCED] = True
    return at.run()


def _set_pacing(at: AppTest, pacing: str) -> None:
    at.select_slider(key="play_pacing").set_value(pacing).run()


# ── loading ────────────────────────────────────────────────────────────────

def test_the_page_loads_and_shows_the_scenario_task(app):
    from scratchpad_lab.model.scenarios import get_scenario

    task = get_scenario(app.session_state["play_scenario"]).task
    assert "Task given to the agent: " + task in _texts(app)
    assert app.title[0].value == "Scratchpad Lab · Playground"
    assert not app.button(key="play_run").disabled
    assert "No finished runs yet. Press Run, or open a recorded sample run." in _texts(app)


def test_choosing_another_scenario_shows_its_task(app):
    from scratchpad_lab.model.scenarios import get_scenario

    app.selectbox(key="play_scenario").set_value("log-triage").run()
    assert "Task given to the agent: " + get_scenario("log-triage").task in _texts(app)


# ── a run ──────────────────────────────────────────────────────────────────

def test_an_instant_run_ends_in_the_runs_table_with_compression_cards_and_an_answer_score(app):
    _set_pacing(app, PACE_INSTANT)
    _run_to_the_end(app)

    table = _runs_table(app)
    assert table is not None and len(table) == 1
    row = table.iloc[0]
    assert row["outcome"] == "answered"
    assert list(_runs_table(app, "scenario", "settings")["scenario"]) == ["support-ticket"]
    assert row["compressions"] >= 1  # package defaults (every 5) over a 14-step scenario
    assert 0 <= row["answer score"] <= 100  # a whole percentage, as the view's sentence says it

    assert _metric(app, "status") == "answered"
    assert int(_metric(app, "compressions")) == row["compressions"]
    # one card per compression, and the newest once more at the top, in the one-screen view
    assert len(_card_headings(app)) == row["compressions"] + 1
    numbers = [m.value for m in app.markdown if " chars (" in m.value and "facts kept: **" in m.value]
    assert len(numbers) == row["compressions"] + 1
    assert all("no compression happened" not in n for n in numbers)
    scores = _answer_score_texts(app)
    assert scores == [f"Answer score: {row['answer score']}% of the expected facts "
                      "(the scripted agent answers only from what is still in its scratchpad)"]
    assert any(s.value == "Final answer" for s in app.subheader)
    assert app.download_button, "a finished run can be downloaded"


@pytest.mark.parametrize("every, cap, fewer", [("off", 1_000_000, True), (2, 15_000, False)],
                         ids=["off-and-no-size-cap", "every-2"])
def test_running_again_with_another_summarize_every_adds_a_row_with_a_different_compression_count(
        app, every, cap, fewer):
    _set_pacing(app, PACE_INSTANT)
    _run_to_the_end(app)
    first = int(_runs_table(app).iloc[0]["compressions"])

    app.selectbox(key="play_summarize_every").set_value(every)
    app.number_input(key="play_max_scratchpad_chars").set_value(cap)
    app.run()
    _run_to_the_end(app)

    table = _runs_table(app)
    assert list(table["#"]) == [1, 2]
    assert [t.split(" / ")[0] for t in _runs_table(app, "settings")["settings"]] == \
        ["every 5", "off" if every == "off" else f"every {every}"]
    second = int(table.iloc[1]["compressions"])
    assert (second < first) if fewer else (second > first)
    if every == "off":
        assert second == 0
        assert "No compression yet." in _texts(app)
    # the newest run is the one on show
    assert int(_metric(app, "compressions")) == second
    assert app.selectbox(key="play_show_2").value == 1


# ── settings ───────────────────────────────────────────────────────────────

@pytest.mark.parametrize("preset, every, cap", [
    ("Tight (2 / 2,000)", 2, 2_000),
    ("Size only (off / 4,000)", "off", 4_000),
    ("Off (no compression)", "off", 1_000_000),
], ids=["tight", "size-only", "off"])
def test_a_preset_fills_in_both_middleware_triggers(app, preset, every, cap):
    """Presets are found by the start of their label, which names the two triggers they set; each label
    is short enough to be read whole in the sidebar (24 chars at most)."""
    assert all(len(o) <= 24 for o in app.selectbox(key="play_preset").options)
    matching = [o for o in app.selectbox(key="play_preset").options if o.startswith(preset)]
    assert len(matching) == 1, app.selectbox(key="play_preset").options
    app.selectbox(key="play_preset").set_value(matching[0]).run()
    assert app.session_state["play_summarize_every"] == every
    assert app.session_state["play_max_scratchpad_chars"] == cap
    assert app.selectbox(key="play_summarize_every").value == every
    assert app.number_input(key="play_max_scratchpad_chars").value == cap
    assert not app.button(key="play_run").disabled


@pytest.mark.parametrize("template, named", [
    ("Summarize the notes so far, keeping every number.", "{scratchpad}"),
    ("Task: {foo}\n{scratchpad}", "{foo}"),
    ("", "{scratchpad}"),
], ids=["no-scratchpad", "unknown-placeholder", "empty"])
def test_a_bad_prompt_template_names_the_problem_and_disables_run_until_fixed(app, template, named):
    _open_advanced(app)
    prompt = app.text_area(key="play_summarizer_prompt")
    prompt.input(template).run()
    errors = [e.value for e in app.error]  # inert markdown (ui/markup.escape): it quotes what was typed
    assert len(errors) == 1 and errors[0].startswith(escape("Fix this setting to run: "))
    # the prompt is called what the Prompt lab calls it, never the field's raw name (issue 30 item 13)
    assert escape(named) in errors[0] and escape("The summarizer prompt") in errors[0]
    assert "summarizer_prompt" not in errors[0] and escape("summarizer_prompt") not in errors[0]
    assert app.button(key="play_run").disabled

    app.text_area(key="play_summarizer_prompt").input("Keep the facts; drop the rest.\n{scratchpad}").run()
    assert not app.error
    assert not app.button(key="play_run").disabled


def test_a_custom_prompt_is_what_the_summarizer_is_sent(app):
    _set_pacing(app, PACE_INSTANT)
    _open_advanced(app)
    app.text_area(key="play_summarizer_prompt").input("LAB-PROMPT step {iteration}:\n{scratchpad}").run()
    _run_to_the_end(app)
    prompts = [c.value for c in app.code if c.value.startswith("LAB-PROMPT step ")]
    assert prompts, "the compression cards show the prompt the summarizer was sent"
    assert all("{scratchpad}" not in p for p in prompts)


def test_reset_restores_the_packages_prompt(app):
    from scratchpad_lab.model.config import PACKAGE_PROMPT

    _open_advanced(app)
    app.text_area(key="play_summarizer_prompt").input("no placeholder").run()
    assert app.button(key="play_run").disabled
    app.button(key="play_reset_prompt").click().run()
    assert app.text_area(key="play_summarizer_prompt").value == PACKAGE_PROMPT
    assert not app.error and not app.button(key="play_run").disabled


# ── sample runs ────────────────────────────────────────────────────────────

def test_opening_a_sample_run_adds_it_to_the_table_and_shows_it(app):
    pick = app.selectbox(key="play_sample_pick")
    assert pick.options, "sample_runs/ ships recorded runs"
    name = pick.options[-1]
    pick.set_value(name)
    app.button(key="play_sample_open").click().run()
    assert not app.exception and not app.error

    table = _runs_table(app)
    assert table is not None and list(table["run"]) == [f"sample: {name}"]
    row = table.iloc[0]
    assert int(_metric(app, "compressions")) == row["compressions"]
    assert len(_card_headings(app)) == row["compressions"] + (1 if row["compressions"] else 0)
    assert _metric(app, "status") != "running"
    assert app.selectbox(key="play_show_1").value == 0


def test_every_shipped_sample_run_opens_in_the_same_view(app):
    names = list(app.selectbox(key="play_sample_pick").options)
    for name in names:
        app.selectbox(key="play_sample_pick").set_value(name)
        app.button(key="play_sample_open").click().run()
        assert not app.exception and not app.error, name
    assert list(_runs_table(app)["run"]) == [f"sample: {n}" for n in names]


def test_the_runs_table_reads_in_words_and_each_tab_fits_the_page_at_1280_px(app):
    """25 columns in one table showed 8 at 1280 px, three headed summarize_every, max_scratchpad_chars and
    agent_trim_chars: now a tab each for what happened, the settings, and the tokens and cost, each within the page's
    820 px (1280 with the sidebar open), headed in words; the settings in the sidebar's."""
    import json

    from scratchpad_lab.model.config import RunConfig
    from scratchpad_lab.ui.library import RUN_COLUMNS, RUN_TABS, settings_text
    from scratchpad_lab.ui.sidebar_settings import SETTING_LABELS

    _set_pacing(app, PACE_INSTANT)
    _run_to_the_end(app)
    assert [t.label for t in app.tabs if t.label in RUN_TABS] == ["Outcome", "Settings", "Tokens and cost"]
    tables = [d for d in app.dataframe if {"#", "run"} <= set(d.value.columns)]
    assert [list(d.value.columns) for d in tables] == [
        ["#", "run", "outcome", "answer score", "facts kept", "compressions", "summarizer calls", "trims"],
        ["#", "run", "scenario", "settings", "summarizer", "prompt"],
        ["#", "run", "peak chars / tokens", "agent tokens in / out", "summarizer tokens in / out", "agent $",
         "summarizer $"]]
    raw = ("summarize_every", "max_scratchpad_chars", "agent_trim_chars", "_")
    assert not [c for d in tables for c in d.value.columns if any(r in c for r in raw)]
    for d in tables:
        config = json.loads(d.proto.columns)  # the widths the page gives its columns
        assert sum(config[c]["width"] for c in d.value.columns) <= 820, (list(d.value.columns), config)
    for tab, columns in RUN_TABS.items():  # the Pins tab (a run with pins) and the Runs page's Where from too
        assert sum(RUN_COLUMNS[c][1] for c in columns) <= 820, tab
    settings = json.loads(tables[1].proto.columns)["settings"]
    assert all(SETTING_LABELS[f] in settings["help"] for f in ("summarize_every", "max_scratchpad_chars",
                                                                 "agent_trim_chars"))  # the sidebar's words
    assert list(tables[1].value["settings"]) == ["every 5 / 15,000 chars"]  # the package defaults
    tight = RunConfig.build(summarize_every=None, max_scratchpad_chars=2_000, agent_trim_chars=15_000)
    assert settings_text(tight) == "off / 2,000 chars, limit 15,000"  # the agent's own limit where it differs


# ── stop ───────────────────────────────────────────────────────────────────

def test_stop_during_a_paced_run_ends_it_as_stopped_and_keeps_what_was_recorded(app):
    _set_pacing(app, PACE_DEMO)
    app.button(key="play_run").click().run()
    run = active_run(app)
    assert run is not None and not run.finished
    assert _metric(app, "status") == "running"
    app.run()
    assert app.button(key="play_run").disabled, "one run at a time"

    rerun_until(app, lambda a: len(run.log.of_kind("iteration")) >= 2, what="the second iteration", wait_on=active_run)
    app.button(key="play_stop").click().run()
    rerun_until(app, lambda a: active_run(a) is None, what="the stopped run", wait_on=active_run)

    table = _runs_table(app)
    assert len(table) == 1 and table.iloc[0]["outcome"] == "stopped"
    record = app.session_state["play_runs"][0]
    iterations = [e for e in record.events if e.kind == "iteration"]
    assert 2 <= len(iterations) < 14, "stopped part-way, with the iterations done so far kept"
    assert _metric(app, "status") == "stopped"
    assert _metric(app, "iteration").startswith(f"{iterations[-1].iteration} of ")
    assert any(t.startswith("Run ended: The run was stopped by the user") for t in _texts(app))
    assert any(t.startswith(f"Scratchpad sent at iteration {iterations[-1].iteration}:") for t in _texts(app))
    assert not app.button(key="play_run").disabled


def test_run_is_disabled_in_the_very_render_that_starts_the_run(app):
    """During a run only the fragment reruns, so the render that starts a run is the one that must
    disable Run; otherwise the browser shows it enabled for the whole run."""
    _set_pacing(app, PACE_DEMO)
    app.button(key="play_run").click().run()
    try:
        assert active_run(app) is not None and not active_run(app).finished
        assert app.button(key="play_run").disabled
    finally:
        if active_run(app) is not None:
            active_run(app).stop()
            rerun_until(app, lambda a: active_run(a) is None, what="the stopped run", wait_on=active_run)


def test_settings_changed_together_with_the_run_click_are_the_ones_the_run_uses(app):
    """In a browser, a click on Run can reach the server before the rerun caused by a settings change
    has drawn the button again; AppTest sends both in one rerun, which is that case made certain."""
    app.select_slider(key="play_pacing").set_value(PACE_INSTANT)
    app.selectbox(key="play_summarize_every").set_value(2)
    app.button(key="play_run").click().run()
    run = active_run(app) or app.session_state["play_runs"][-1]
    try:
        assert (run.config.summarize_every, run.config.step_delay_s) == (2, 0.0)
    finally:
        if active_run(app) is not None:
            active_run(app).stop()
            rerun_until(app, lambda a: active_run(a) is None, what="the stopped run", wait_on=active_run)


# ── untrusted text ─────────────────────────────────────────────────────────

def _crafted_record(**overrides):
    """A real run's record, with untrusted markup planted in every text a run can carry."""
    from scratchpad_lab.model.config import RunConfig
    from scratchpad_lab.engine.run.runner import Run

    record = Run(RunConfig.build(scenario="support-ticket", summarize_every=2), name="crafted").run()
    bad = "\n" + "\n".join(PAYLOADS) + "\n"
    for e in record.events:
        if e.kind == "compression":
            for field in ("before", "after", "response", "prompt"):
                e.data[field] = e.data[field] + bad
            e.data.update(overrides)
        elif e.kind == "iteration":
            e.data["scratchpad"] = e.data.get("scratchpad", "") + bad
        elif e.kind == "tool_call":
            e.data["result"] = str(e.data.get("result", "")) + bad
        elif e.kind == "final_answer":
            e.data["text"] = e.data["text"] + bad
    record.final_answer = (record.final_answer or "") + bad
    return record


def _open_only_sample(at: AppTest) -> None:
    at.button(key="play_sample_open").click().run()
    assert not at.exception, [e.value for e in at.exception]


def test_untrusted_text_in_a_run_is_shown_only_as_code_or_text(monkeypatch, tmp_path):
    _crafted_record().save(tmp_path / "crafted.json")
    at = _open_app(monkeypatch, tmp_path)
    _open_only_sample(at)
    assert len(_runs_table(at)) == 1

    code = [c.value for c in at.code]
    for payload in PAYLOADS:
        # prompt and reply of each card, the scratchpad and the whole-scratchpad popover, final answer
        assert sum(payload in c for c in code) >= 5, payload
    # the merged diff shows them too, as text in our inert HTML (its elements are ours alone)
    assert any(HTML_PAYLOAD in t for t in html_texts(at)), "the word-level view shows the payload as text"
    assert all(p not in m.value for m in at.markdown for p in PAYLOADS)
    for markup in _rendered_as_markup(at):
        for marker in MARKERS:
            assert marker not in markup, f"{marker!r} reached an element that renders markup"


def test_a_compression_reason_from_a_file_is_refused_and_not_rendered_as_markdown(monkeypatch, tmp_path):
    _crafted_record(reason=IMAGE_PAYLOAD).save(tmp_path / "crafted.json")
    at = _open_app(monkeypatch, tmp_path)
    _open_only_sample(at)
    shown = " ".join(str(getattr(node, "proto", "")) for node in at)
    assert "could not be opened" in shown and ".data.reason" in shown  # the schema's Literal reasons
    for markup in _rendered_as_markup(at):
        assert "example.invalid" not in markup


def test_a_broken_sample_files_message_quotes_it_as_text(monkeypatch, tmp_path):
    (tmp_path / "broken.json").write_text(json.dumps({"schema": IMAGE_PAYLOAD}), encoding="utf-8")
    at = _open_app(monkeypatch, tmp_path)
    _open_only_sample(at)
    shown = " ".join(str(getattr(node, "proto", "")) for node in at)
    assert "could not be opened" in shown, "the page says the sample could not be opened"
    assert "example.invalid" in shown, "the message still quotes what is wrong, as text"
    for markup in _rendered_as_markup(at):
        assert "example.invalid" not in markup


def test_under_the_tight_preset_the_order_numbers_loss_shows_on_a_card_and_its_probe_flips(app):
    _set_pacing(app, PACE_INSTANT)
    preset = next(o for o in app.sidebar.selectbox(key="play_preset").options if o.startswith("Tight"))
    app.sidebar.selectbox(key="play_preset").set_value(preset).run()
    _run_to_the_end(app)  # presses Run
    lost_lines = [t for t in html_texts(app) if t.startswith("Lost ")]  # the chips, as text in inert HTML
    assert any("A-1001" in t for t in lost_lines), lost_lines
    # grouped by kind with a count per kind (issue 34): the order number among the ids
    assert any("id: A-1001" in t or re.search(r"\d+ ids: .*A-1001", t) for t in lost_lines), lost_lines
    # Pick the compression that lost it and ask the order-number probe before and after.
    record = app.session_state["play_runs"][-1]
    from scratchpad_lab.analysis.health import CHIPS
    from scratchpad_lab.analysis.quality import annotate
    failed = {h for c in annotate(record.events) for h in c["health"]}  # each failed check is a chip on its card
    assert failed and all(any(CHIPS[h] in m.value for m in app.markdown) for h in failed), failed
    at_iteration = next(c["iteration"] for c in annotate(record.events) if "A-1001" in c["facts_lost"])
    app.selectbox(key="loss_0_probe_at").set_value(at_iteration).run()
    probes = next(d.value for d in app.dataframe if "question" in d.value.columns)
    row = probes[probes["question"] == "Which order was this about?"].iloc[0]
    assert (row["before"], row["after"]) == ("answerable", "not answerable")
    assert "A-1001" in row["answer before"] and row["answer after"] == "Not in the context."


def test_the_run_view_above_the_picker_shows_the_run_the_picker_names(monkeypatch):
    """One rule says which run is on show (ui/state.shown_play_index): the picker's value. The run view drawn
    above the picker must name the same run as the picker and the cards below it, even when the index kept
    for page visits (PLAY_SHOWN) says another (in the browser a finished second run once showed the first
    run's status row above the second run's cards)."""
    from scratchpad_lab.model.records import load_path
    from scratchpad_lab.ui.state import PLAY_RUNS, PLAY_SHOWN, play_picker_key
    samples = Path(APP).parent / "sample_runs"
    first, second = load_path(samples / "support-ticket-defaults.json"), load_path(samples / "support-ticket-tight.json")
    first.name, second.name = "AnnRun", "BobRun"
    at = _open_app(monkeypatch)
    at.session_state[PLAY_RUNS] = [first, second]
    at.session_state[PLAY_SHOWN] = 1
    at.run()
    at.selectbox(key=play_picker_key(2)).select(0).run()
    at.session_state[PLAY_SHOWN] = 1  # the kept index disagrees with the picker, as it could in the browser
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    names = [m.value for m in at.markdown if m.value in ("**AnnRun**", "**BobRun**")]
    assert names == ["**AnnRun**"], names
    assert at.selectbox(key=play_picker_key(2)).value == 0
    compressions = [m.value for m in at.metric if m.label == "compressions"]
    shown = sum(1 for e in first.events if e.kind == "compression" and e.payload.status == "ok")
    assert compressions and compressions[0] == str(shown), (compressions, shown)
