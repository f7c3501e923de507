"""The Runs and Compare pages, driven through the real app with AppTest and the offline scripted agent.

Uploads go through AppTest's file_uploader; settings rows through the data editor's edit state (what
the browser sends when a cell is edited). Replays run as jobs (a trace's replay on upload, a comparison,
a sweep): a test reruns the page until they have ended (conftest.rerun_until), never sleeps.
"""
from __future__ import annotations

import json
from typing import List

import pytest
from streamlit.testing.v1 import AppTest

from conftest import APP, ok, rerun_until, ROOT
from scratchpad_lab.ui.library import imported_sample_files, sample_files
from inert_html import html_texts
from scratchpad_lab.ui.runs_page import TRACE_NOTE, UPLOAD_FAILED, read_upload

SAMPLE = "support-ticket-defaults.json"
HTML_PAYLOAD = "<img src=x onerror=alert(1)>"
IMAGE_PAYLOAD = "![x](http://example.invalid/a.png)"
PAYLOADS = (HTML_PAYLOAD, IMAGE_PAYLOAD)
MARKERS = ("onerror=alert", "example.invalid")
# Elements that show their text as plain text (dataframe cells and Vega's own labels included).
PLAIN_TEXT_NODES = {"text", "code", "dataframe", "vega_lite_chart"}


# ── helpers ────────────────────────────────────────────────────────────────

def _open(monkeypatch, page: str) -> AppTest:
    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    at = ok(AppTest.from_file(APP, default_timeout=60).run())
    return ok(at.switch_page(page).run())


@pytest.fixture
def runs(monkeypatch) -> AppTest:
    return _open(monkeypatch, "pages/runs.py")


@pytest.fixture
def cmp(monkeypatch) -> AppTest:
    return _open(monkeypatch, "pages/compare.py")


def _texts(at: AppTest) -> List[str]:
    return [t.value for t in at.text]


def _sent_at(at: AppTest) -> List[str]:
    return [t for t in _texts(at) if t.startswith("Scratchpad sent at iteration ")]


def _table_with(at: AppTest, *columns: str):
    """The first dataframe with these columns (read-only dataframes carry no key AppTest can read)."""
    found = [d.value for d in at.dataframe if set(columns) <= set(d.value.columns)]
    assert found, f"no table with columns {columns}"
    return found[0]


def _runs_table(at: AppTest):
    return _table_with(at, "source", "kind", "file")


def _sample_bytes(name: str = SAMPLE) -> bytes:
    return (ROOT / "sample_runs" / name).read_bytes()


def _trace_bytes(extra: str = "") -> bytes:
    """The sample run's trajectory as a trace file, with `extra` appended to every tool result."""
    trace = json.loads(_sample_bytes())["trace"]
    for step in trace["steps"]:
        step["observations"] = [o + extra for o in step["observations"]]
    return json.dumps(trace).encode("utf-8")


def _upload(at: AppTest, key: str, name: str, data: bytes) -> AppTest:
    at.file_uploader(key=key).upload(name, data, "application/json")
    return ok(rerun_until(at.run()))  # a trace is replayed (a job) before it is added


def _rendered_as_markup(at: AppTest) -> List[str]:
    """What of the page a browser draws as markdown: a select's label and help, but not its options, which it draws
    as plain text (a stored run's name, an upload's file name: tests/test_browser_runs_picker.py sees them so)."""
    out = []
    for node in at:
        if node.type in PLAIN_TEXT_NODES or node.type == "html" or getattr(node, "proto", None) is None:
            continue
        out.append(f"{node.proto.label}\n{node.proto.help}" if node.type == "selectbox" else str(node.proto))
    return out


def _assert_no_markup_carries_payloads(at: AppTest) -> None:
    for element in list(at.markdown) + list(at.caption):
        assert all(p not in element.value for p in PAYLOADS), element.value
    for markup in _rendered_as_markup(at):
        for marker in MARKERS:
            assert marker not in markup, f"{marker!r} reached an element that renders markup"
    html_texts(at)  # a card's HTML: our elements around the text only


def _set_rows(at: AppTest, rows: List[dict]) -> None:
    """Replace the settings table's rows, as edits in the data editor would."""
    current = len(at.data_editor(key="cmp_settings").value)
    at.session_state["cmp_settings"] = {"edited_rows": {}, "added_rows": rows,
                                        "deleted_rows": list(range(current))}


def _metric_values(at: AppTest, label: str) -> List[str]:
    return [m.value for m in at.metric if m.label == label]


def _figure_row(at: AppTest, label: str, star: bool = False) -> List[str]:
    """One row of the comparison's figures table (a column per setting), without its ★ unless `star`."""
    [table] = [d.value for d in at.dataframe if any(str(c).startswith("Setting ") for c in d.value.columns)]
    cells = [str(v) for v in table.loc[label]]
    return cells if star else [c.replace(" ★", "") for c in cells]


# ── Runs page ──────────────────────────────────────────────────────────────

def test_the_runs_page_lists_every_sample_run(runs):
    table = _runs_table(runs)
    names = [p.name for p in sample_files()]
    imported = [p.name for p in imported_sample_files()]
    assert names and imported and list(table[table["source"] == "sample"]["file"]) == names + imported
    assert runs.selectbox(key="runs_open").options == [f"sample · {n}" for n in names] + [
        f"sample · {n} (imported: autourgos-agent history)" for n in imported]
    assert runs.title[0].value == "Scratchpad Lab · Runs"


def test_the_imported_sample_opens_with_its_import_report_as_text(runs):
    name = imported_sample_files()[0].name
    ok(runs.selectbox(key="runs_open").set_value(f"sample:imported/{name}").run())
    report = [t for t in _texts(runs) if t.startswith("Imported: autourgos-agent history: 14 iterations → 14 steps")]
    assert report and "[REDACTED: length=371]" in report[0] and "cut at 512 characters" in report[0]
    assert not runs.warning, "the history of a real run replays as it reads"
    assert runs.slider(key="runs_step").max == 14


def test_opening_a_sample_and_moving_the_step_slider_shows_the_scratchpad_at_that_step(runs):
    runs.selectbox(key="runs_open").set_value(f"sample:{SAMPLE}").run()
    ok(runs)
    slider = runs.slider(key="runs_step")
    last = int(slider.max)
    assert slider.value == last, "a run opens at its end"
    assert _sent_at(runs)[0].startswith(f"Scratchpad sent at iteration {last}:")

    ok(runs.slider(key="runs_step").set_value(3).run())
    assert _sent_at(runs)[0].startswith("Scratchpad sent at iteration 3:")
    assert f"Showing iteration 3 of {last}." in _texts(runs)
    headings = [s.value for s in runs.subheader if s.value.startswith("Compressions (")]
    assert headings == ["Compressions (0)"], "no compression had happened by iteration 3 (every 5)"

    ok(runs.slider(key="runs_step").set_value(last).run())
    assert _sent_at(runs)[0].startswith(f"Scratchpad sent at iteration {last}:")
    assert runs.download_button, "the open run can be downloaded"


def test_a_run_made_in_this_tab_is_listed_and_opens(runs):
    from scratchpad_lab.model.config import RunConfig
    from scratchpad_lab.engine.run.runner import Run

    runs.session_state["play_runs"] = [Run(RunConfig.build(summarize_every=2), name="Run 1").run()]
    ok(runs.run())
    table = _runs_table(runs)
    assert list(table[table["source"] == "this tab"]["run"]) == ["Run 1"]
    ok(runs.selectbox(key="runs_open").set_value("tab:0").run())
    assert runs.slider(key="runs_step").value == int(runs.slider(key="runs_step").max)


def test_an_uploaded_run_record_is_added_and_opened(runs):
    before = len(_runs_table(runs))
    _upload(runs, "runs_upload", "my-run.json", _sample_bytes("support-ticket-tight.json"))
    table = _runs_table(runs)
    assert len(table) == before + 1 and table.iloc[-1]["file"] == "my-run.json"
    assert runs.selectbox(key="runs_open").value == "upload:0"
    assert not runs.error
    ok(runs.run())  # the file stays in the uploader: a rerun does not add it again
    assert len(_runs_table(runs)) == before + 1


def test_an_uploaded_trace_is_replayed_once_with_the_package_defaults_and_says_so(runs):
    _upload(runs, "runs_upload", "trace.json", _trace_bytes())
    assert runs.selectbox(key="runs_open").value == "upload:0"
    assert TRACE_NOTE in _texts(runs)
    record = runs.session_state["runs_uploads"][0].record
    assert record.config.summarize_every == 5 and record.config.max_scratchpad_chars == 15_000
    assert sum(1 for e in record.events if e.kind == "compression") >= 1
    assert len(runs.download_button) == 2, "the replayed run and the trace itself"
    ok(runs.slider(key="runs_step").set_value(2).run())
    assert _sent_at(runs)[0].startswith("Scratchpad sent at iteration 2:")


BAD_FILES = {
    "too-large": b"{" + b" " * (10 * 1024 * 1024) + b"}",
    "not-json": b"this is not json {",
    "wrong-schema": json.dumps({"schema": "someone-else/run@9", "events": []}).encode(),
    "hostile-schema": json.dumps({"schema": IMAGE_PAYLOAD + HTML_PAYLOAD}).encode(),
}


def _hostile_events() -> bytes:
    raw = json.loads(_sample_bytes())
    for e in raw["events"]:
        if e["kind"] == "iteration":
            e["data"]["chars"] = IMAGE_PAYLOAD  # text where a size belongs: the schema refuses it
            break
    return json.dumps(raw).encode()


@pytest.mark.parametrize("kind", list(BAD_FILES) + ["hostile-events"])
def test_a_bad_upload_gets_one_message_and_changes_nothing_else(runs, kind):
    data = _hostile_events() if kind == "hostile-events" else BAD_FILES[kind]
    runs.selectbox(key="runs_open").set_value(f"sample:{SAMPLE}").run()
    ok(runs.slider(key="runs_step").set_value(4).run())
    table = _runs_table(runs)

    _upload(runs, "runs_upload", IMAGE_PAYLOAD + ".json", data)
    assert [e.value for e in runs.error] == [UPLOAD_FAILED]
    assert any(t.startswith("The uploaded file") for t in _texts(runs)), "the detail is shown as text"
    assert _runs_table(runs).equals(table)
    assert runs.selectbox(key="runs_open").value == f"sample:{SAMPLE}"
    assert runs.slider(key="runs_step").value == 4
    assert runs.session_state["runs_uploads"] == []
    _assert_no_markup_carries_payloads(runs)

    ok(runs.run())  # still one message while the file stays in the uploader, and still nothing added
    assert len(runs.error) == 1 and _runs_table(runs).equals(table)


@pytest.mark.parametrize("kind", list(BAD_FILES) + ["hostile-events"])
def test_read_upload_returns_a_message_instead_of_raising(kind):
    data = _hostile_events() if kind == "hostile-events" else BAD_FILES[kind]
    loaded, message = read_upload("x.json", data)
    assert loaded is None and message.startswith("The uploaded file")


def test_read_upload_loads_a_run_record_and_a_trace():
    from scratchpad_lab.model.records import RunRecord
    from scratchpad_lab.model.trace import Trace

    record, message = read_upload("a.json", _sample_bytes())
    assert isinstance(record.item, RunRecord) and record.report is None and message is None
    trace, message = read_upload("b.json", _trace_bytes())
    assert isinstance(trace.item, Trace) and trace.report is None and message is None


def _crafted_record_bytes() -> bytes:
    raw = json.loads(_sample_bytes())
    bad = "\n" + "\n".join(PAYLOADS) + "\n"
    raw["name"] = raw["label"] = " ".join(PAYLOADS)
    for e in raw["events"]:
        if e["kind"] == "compression":
            for name in ("before", "after", "response", "prompt"):
                e["data"][name] += bad
        elif e["kind"] == "iteration":
            e["data"]["scratchpad"] += bad
        elif e["kind"] == "final_answer":
            e["data"]["text"] += bad
    return json.dumps(raw).encode()


def test_untrusted_text_in_an_uploaded_run_is_shown_only_as_code_or_text(runs):
    _upload(runs, "runs_upload", IMAGE_PAYLOAD + ".json", _crafted_record_bytes())
    assert runs.selectbox(key="runs_open").value == "upload:0"
    assert not runs.error
    table = _runs_table(runs)
    assert table.iloc[-1]["run"] == " ".join(PAYLOADS), "the run's name is shown, in a dataframe cell"
    code = [c.value for c in runs.code]
    for payload in PAYLOADS:
        assert sum(payload in c for c in code) >= 4, payload  # card before/after, prompt, reply, scratchpad
    _assert_no_markup_carries_payloads(runs)


# ── Compare page ───────────────────────────────────────────────────────────

TWO_SETTINGS = [{"summarize_every": "2", "max_scratchpad_chars": 2000},
                {"summarize_every": "off", "max_scratchpad_chars": 1_000_000}]


def _compare(at: AppTest, rows=TWO_SETTINGS) -> AppTest:
    _set_rows(at, rows)
    ok(at.run())
    assert not at.error, [t for t in _texts(at) if t.startswith("Row ")]
    return ok(rerun_until(at.button(key="cmp_run").click().run()))


def test_comparing_two_settings_of_a_sample_run_shows_one_column_each(cmp):
    ok(cmp.selectbox(key="cmp_source").set_value(f"sample:{SAMPLE}").run())
    assert any(i.value.startswith("Scenario run: ") for i in cmp.info)
    _compare(cmp)

    compressions = [int(v) for v in _figure_row(cmp, "compressions")]
    assert len(compressions) == 2 and compressions[0] > compressions[1] == 0
    assert _figure_row(cmp, "tokens saved vs no compression")[1] == "0"
    assert int(_figure_row(cmp, "tokens saved vs no compression")[0].replace(",", "")) > 0
    assert len(_figure_row(cmp, "answer score")) == 2
    assert [s.value for s in cmp.subheader if s.value.startswith("Setting ")] == ["Setting 1", "Setting 2"]
    rows = cmp.session_state["cmp_result"].rows
    assert [r["compressions"] for r in rows] == compressions
    assert [r["context_tokens_saved"] for r in rows][1] == 0

    result = cmp.session_state["cmp_result"]
    # issue 34: the figures row's facts kept by kind and health, worded as on Strategies and in --json
    from scratchpad_lab.analysis.fact_kinds import kept_by_kind_text
    from scratchpad_lab.analysis.figures import figures
    from scratchpad_lab.analysis.health import counts_text
    first = figures(result.records[0].events)
    assert first.kept_by_kind and _figure_row(cmp, "facts kept by kind") == [kept_by_kind_text(first.kept_by_kind),
                                                                               "no compression happened"]
    assert _figure_row(cmp, "compressions with a problem") == [counts_text(first.health), "no problem found"]
    assert "pins kept" not in [str(i) for i in [d.value for d in cmp.dataframe
                                                if any(str(c).startswith("Setting ") for c in d.value.columns)][0].index]
    assert cmp.selectbox(key="cmp_cards_for").options == [f"Setting 1: {result.labels[0]}",
                                                          f"Setting 2: {result.labels[1]}"]
    headings = [m.value for m in cmp.markdown if m.value.startswith("**Compression at iteration ")]
    assert len(headings) == compressions[0]
    ok(cmp.selectbox(key="cmp_cards_for").set_value(1).run())
    assert "This setting never compressed." in _texts(cmp)
    assert cmp.session_state["cmp_result"] is result, "choosing whose cards to show does not replay"


def test_the_comparison_marks_the_best_value_of_each_row_as_strategies_does(cmp):
    """Issue 30 item 12: 11 large metrics per setting, nothing marked best. One table, the Strategies ★ rule
    (ui/tables.best_in_row): among settings that cut something, where they differ."""
    ok(cmp.selectbox(key="cmp_source").set_value(f"sample:{SAMPLE}").run())
    _compare(cmp, [{"summarize_every": "2", "max_scratchpad_chars": 2000},
                   {"summarize_every": "5", "max_scratchpad_chars": 4000},
                   {"summarize_every": "off", "max_scratchpad_chars": 1_000_000}])
    rows = cmp.session_state["cmp_result"].rows
    saved = _figure_row(cmp, "tokens saved vs no compression", star=True)
    best = max(range(2), key=lambda i: rows[i]["context_tokens_saved"])
    assert saved[best].endswith(" ★") and not saved[1 - best].endswith(" ★")
    calls = _figure_row(cmp, "summarizer calls", star=True)
    assert not calls[2].endswith(" ★"), "a setting that did nothing wins nothing (0 calls is no achievement)"
    assert sum(c.endswith(" ★") for c in calls) >= 1
    assert not [m for m in cmp.metric if m.label == "compressions"], "no stack of metrics per setting"
    assert any("★ marks the best value of a row" in c.value for c in cmp.caption)


def test_the_sweep_speaks_the_apps_labels_and_its_help_and_error_say_off(cmp):
    """Issue 30 item 12: the Sweep showed summarize_every, facts_retained and None; the help said "off" and the
    error "or none"."""
    ok(cmp.selectbox(key="cmp_source").set_value(f"sample:{SAMPLE}").run())
    cmp.multiselect(key="cmp_sweep_every").set_value(["off"])
    cmp.multiselect(key="cmp_sweep_caps").set_value([1_000_000])
    ok(cmp.run())
    assert cmp.multiselect(key="cmp_sweep_every").label.startswith("Summarize every N iterations")
    ok(rerun_until(cmp.button(key="cmp_sweep_run").click().run()))
    [table] = [d.value for d in cmp.dataframe if "Compress when over (chars)" in d.value.columns]
    raw = {"summarize_every", "max_scratchpad_chars", "facts_retained", "context_tokens_saved", "answer_score",
           "summarizer_tokens"}
    assert not raw & set(table.columns)
    assert "None" not in {str(v) for v in table.to_numpy().ravel()} and table.notna().all().all()
    charts = [c.proto.spec for c in cmp.get("vega_lite_chart") if '"rect"' in c.proto.spec]
    assert charts and all('"title": "summarize_every"' not in spec for spec in charts)
    _set_rows(cmp, [{"summarize_every": "0", "max_scratchpad_chars": 2000},
                    {"summarize_every": "5", "max_scratchpad_chars": 4000}])
    ok(cmp.run())
    detail = "\n".join(_texts(cmp))
    assert "or off for no periodic trigger" in detail and "or none" not in detail


def test_a_wrong_settings_row_is_named_and_compare_is_disabled(cmp):
    _set_rows(cmp, [{"summarize_every": "sometimes", "max_scratchpad_chars": 2000},
                    {"summarize_every": "5", "max_scratchpad_chars": 4000, "custom prompt": "no placeholder"}])
    ok(cmp.run())
    assert [e.value for e in cmp.error] == ["Some settings need fixing before you can compare:"]
    detail = "\n".join(_texts(cmp))
    assert "Row 1: Summarize every N iterations must be off or a whole number" in detail
    assert "Row 2: " in detail and "The summarizer prompt" in detail
    assert cmp.button(key="cmp_run").disabled


def test_one_setting_is_not_a_comparison(cmp):
    _set_rows(cmp, TWO_SETTINGS[:1])
    ok(cmp.run())
    assert any(t.startswith("Define 2 to 6 settings") for t in _texts(cmp))
    assert cmp.button(key="cmp_run").disabled


def test_a_trace_keeps_its_recorded_answer_and_the_page_says_so(cmp):
    _upload(cmp, "cmp_upload", "trace.json", _trace_bytes())
    assert cmp.selectbox(key="cmp_source").value == "upload:0"
    assert any(i.value.startswith("Recorded trajectory: ") and "keeps_recorded_answer" in i.value for i in cmp.info)
    _compare(cmp)
    assert cmp.session_state["cmp_result"].keeps_answer
    assert _figure_row(cmp, "answer score") == ["recorded answer", "recorded answer"]
    compressions = [int(v) for v in _figure_row(cmp, "compressions")]
    assert compressions[0] > compressions[1] == 0


def test_untrusted_text_in_a_compared_trace_is_shown_only_as_code_or_text(cmp):
    _upload(cmp, "cmp_upload", IMAGE_PAYLOAD + ".json", _trace_bytes("\n" + "\n".join(PAYLOADS)))
    _compare(cmp)
    assert any(HTML_PAYLOAD in c.value for c in cmp.code), "the compression cards show the replayed text"
    _assert_no_markup_carries_payloads(cmp)


def test_a_two_by_two_sweep_gives_four_cells_and_any_cell_opens_as_a_run(cmp):
    ok(cmp.selectbox(key="cmp_source").set_value(f"sample:{SAMPLE}").run())
    cmp.multiselect(key="cmp_sweep_every").set_value(["2", "off"])
    cmp.multiselect(key="cmp_sweep_caps").set_value([2000, 1_000_000])
    ok(cmp.run())
    ok(rerun_until(cmp.button(key="cmp_sweep_run").click().run()))

    result = cmp.session_state["cmp_sweep_result"]
    assert len(result.records) == 4
    assert len(cmp.selectbox(key="cmp_sweep_cell").options) == 4
    numbers = _table_with(cmp, "Summarize every N iterations", "summarizer tokens (in + out)",
                          "tokens saved vs no compression")
    assert len(numbers) == 4
    off = numbers[(numbers["Summarize every N iterations"] == "off")
                  & (numbers["Compress when over (chars)"] == 1_000_000)]
    assert list(off["tokens saved vs no compression"]) == [0]
    assert list(off["facts kept"]) == ["no compression happened"]
    charts = [c for c in cmp.get("vega_lite_chart") if '"mark": {"type": "rect"' in c.proto.spec
              or '"rect"' in c.proto.spec]
    assert len(charts) == 4, "context saved, summarizer tokens, answer score, facts retained"

    ok(cmp.selectbox(key="cmp_sweep_cell").set_value(0).run())
    assert cmp.session_state["cmp_sweep_result"] is result, "opening a cell does not replay the sweep"
    assert _metric_values(cmp, "compressions") == [str(result.rows[0]["compressions"])]
    assert _sent_at(cmp), "the cell is shown as a run"


# ── leaving a page and coming back ─────────────────────────────────────────

def test_the_open_run_survives_a_visit_to_another_page(runs):
    ok(runs.selectbox(key="runs_open").set_value(f"sample:{SAMPLE}").run())
    ok(runs.switch_page("pages/playground.py").run())
    ok(runs.switch_page("pages/runs.py").run())
    assert runs.selectbox(key="runs_open").value == f"sample:{SAMPLE}"


def test_the_settings_and_the_last_comparison_and_sweep_survive_a_visit_to_another_page(cmp):
    ok(cmp.selectbox(key="cmp_source").set_value(f"sample:{SAMPLE}").run())
    _compare(cmp)
    cmp.multiselect(key="cmp_sweep_every").set_value(["2"])
    cmp.multiselect(key="cmp_sweep_caps").set_value([2000, 4000])
    ok(cmp.run())
    ok(rerun_until(cmp.button(key="cmp_sweep_run").click().run()))
    result, sweep = cmp.session_state["cmp_result"], cmp.session_state["cmp_sweep_result"]

    ok(cmp.switch_page("pages/runs.py").run())
    ok(cmp.switch_page("pages/compare.py").run())
    assert cmp.selectbox(key="cmp_source").value == f"sample:{SAMPLE}"
    table = cmp.data_editor(key="cmp_settings").value
    assert list(table["summarize_every"]) == ["2", "off"]
    assert list(table["max_scratchpad_chars"]) == [2000, 1_000_000]
    assert cmp.multiselect(key="cmp_sweep_every").value == ["2"]
    assert cmp.multiselect(key="cmp_sweep_caps").value == [2000, 4000]
    assert cmp.session_state["cmp_result"] is result and cmp.session_state["cmp_sweep_result"] is sweep
    assert not [i for i in cmp.info if i.value.startswith("These results are for an earlier")]
    assert len(_figure_row(cmp, "tokens saved vs no compression")) == 2


def test_changing_the_settings_after_a_comparison_marks_its_results_as_earlier(cmp):
    _compare(cmp)
    _set_rows(cmp, [{"summarize_every": "3", "max_scratchpad_chars": 2000},
                    {"summarize_every": "off", "max_scratchpad_chars": 1_000_000}])
    ok(cmp.run())
    assert [i for i in cmp.info if i.value.startswith("These results are for an earlier")]
