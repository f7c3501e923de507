"""The Benchmark page in AppTest: the lab's sample runs benchmarked as a job, its chosen points, the front chart,
the table with the no-compression row first, and a setting's worst runs, each drawn without an error."""
import pytest
from streamlit.testing.v1 import AppTest

from conftest import APP, rerun_until
from scratchpad_lab.model.results import OLD_IMPORT_NOTE, Result
from scratchpad_lab.ui.decide_view import BUILTIN_MEANS as DECIDE_BUILTIN_MEANS
from scratchpad_lab.ui.decide_view import PROBLEM as DECIDE_PROBLEM
from scratchpad_lab.ui.benchmark_page import setting_cell
from scratchpad_lab.ui.markup import escape
from scratchpad_lab.ui.setting_words import label_words
from scratchpad_lab.ui.state import BENCH_DECIDED, BENCH_OPENED, BENCH_RESULT

TIMEOUT = 180


def test_the_sample_runs_are_benchmarked_and_the_result_is_drawn(monkeypatch):
    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    monkeypatch.delenv("SCRATCHPAD_LAB_DATASETS_DIR", raising=False)
    at = AppTest.from_file("../pages/benchmark.py", default_timeout=TIMEOUT).run()
    assert not at.exception and not at.error
    at.multiselect(key="bench_pick").set_value(["trim-only"]).run()
    at.number_input(key="bench_runs").set_value(2).run()
    rerun_until(at.button(key="bench_run").click().run())
    assert not at.exception and not at.error, [e.value for e in at.exception]
    texts = [t.value for t in at.text]
    assert texts[0].startswith("2 runs (0 could not be imported), 6 points")
    assert sum(1 for t in texts if t.startswith("For the ")) == 3
    [table] = [d for d in at.dataframe if d.key == "bench_table"] or [at.dataframe[0]]
    assert list(table.value["setting"])[0] == "no compression" and len(table.value) == 4
    assert at.selectbox(key="bench_worst").options
    seen = [c.value for c in at.caption if " saw each run " in c.value]
    assert seen and seen[0].startswith("trim only saw each run as an autourgos agent's scratchpad: one task and "), seen
    # the finished benchmark is stored as a result, its table as the page shows it, and the Runs page lists it
    runs = AppTest.from_file("../pages/runs.py", default_timeout=TIMEOUT).run()
    assert any(e.label == "Stored Compare, sweep, recommendation and benchmark results (1)" for e in runs.expander)
    assert "benchmark" in runs.selectbox(key="runs_results_pick").format_func(runs.selectbox(key="runs_results_pick").value)
    stored = next(d.value for d in runs.dataframe if "argument recall %" in d.value.columns)
    assert [setting_cell(s) for s in stored["setting"]] == list(table.value["setting"])  # the page's words
    assert list(stored["argument recall %"]) == list(table.value["argument recall %"])
    assert not [w for w in runs.warning if w.value == OLD_IMPORT_NOTE]  # measured with runs in their own shape


def test_a_benchmark_stored_before_runs_kept_their_own_shape_says_it_was_measured_with_the_old_import(monkeypatch):
    from scratchpad_lab.engine.store import Store, store_url

    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    old_rows = [{"setting": "no compression", "runs": 148, "argument recall %": 100.0, "peak %": 100.0},
                {"setting": "clear-tool-uses:trigger=30%,keep=1", "runs": 148, "argument recall %": 77.1,
                 "peak %": 70.0}]  # the columns of a benchmark stored on 2026-12-01: no recoverable %
    Store(store_url()).save_result(Result(kind="benchmark", rows=old_rows, labels=[r["setting"] for r in old_rows],
                                   name="benchmark of 148 runs", source="gpt-4o-airline.json"), owner="")
    runs = AppTest.from_file("../pages/runs.py", default_timeout=TIMEOUT).run()
    assert not runs.exception
    assert [w.value for w in runs.warning if w.value == OLD_IMPORT_NOTE] == [OLD_IMPORT_NOTE]
    assert "the system prompt was part of the first human message" in OLD_IMPORT_NOTE


# ── a worst run, opened in the Strategies view (issue 31 item 4) ────────────────────────────────────

def _benchmarked(monkeypatch, runs: int = 1, **before_run) -> AppTest:
    """The whole app on the Benchmark page, the lab's first sample runs benchmarked under trim-only (its grid: three
    settings), with `before_run` widget values set first ({key: value})."""
    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    monkeypatch.delenv("SCRATCHPAD_LAB_DATASETS_DIR", raising=False)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page("pages/benchmark.py").run()
    at.multiselect(key="bench_pick").set_value(["trim-only"]).run()
    at.number_input(key="bench_runs").set_value(runs).run()
    for key, value in before_run.items():
        widget = next(w for kind in ("toggle", "number_input", "radio") for w in getattr(at, kind) if w.key == key)
        widget.set_value(value).run()
    rerun_until(at.button(key="bench_run").click().run(), timeout_s=TIMEOUT)
    assert not at.exception, [e.value for e in at.exception]
    return at


def _open_first_worst_run(at: AppTest) -> None:
    at.button(key="bench_open_0").click().run()
    assert [t.value for t in at.title] == ["Scratchpad Lab · Strategies"]  # the click switched to Strategies
    # AppTest reruns the page it was last told to (not the one the script switched to): follow the switch, and wait
    # for the Strategies run the click started
    rerun_until(at.switch_page("pages/strategies.py"), timeout_s=TIMEOUT)


def test_opening_a_worst_run_shows_it_in_strategies_at_the_call_that_lost_its_values(monkeypatch):
    at = _benchmarked(monkeypatch)
    assert not at.error, [e.value for e in at.error]
    result = at.session_state[BENCH_RESULT]
    label = at.selectbox(key="bench_worst").value
    worst = result.setting(label).worst[0]
    cell = result.runs[0]["cells"][label]
    _open_first_worst_run(at)
    assert not at.exception and not at.error, [e.value for e in at.exception]
    opened = at.session_state[BENCH_OPENED]
    assert at.selectbox(key="strat_source").value == opened.entry_key == "bench:1"
    assert at.multiselect(key="strat_pick").value == [cell["strategy"]] == ["trim-only"]
    assert at.number_input(key="strat_trim-only_agent_trim_chars").value == cell["settings"]["agent_trim_chars"]
    texts = [t.value for t in at.text]
    kept = f"{worst['argument_recall']:.0%} of the needed argument values were kept."
    assert f"{worst['run']} under {label_words(label)}: {kept}" in texts  # the setting in words
    iteration, tool, lost = worst["lost"][0]["iteration"], worst["lost"][0]["tool"], worst["lost"][0]["lost"]
    assert f"Call {iteration} ({tool}) was sent a context without: {', '.join(map(str, lost))}" in texts
    assert any(f"starts at call {iteration}," in i.value for i in at.info)
    assert at.slider(key="strat_step").value == iteration
    sent = at.code[-1].value  # what the strategy sent for that call, replayed on the Strategies page: the values
    assert sent and not any(str(v) in sent for v in lost)  # the benchmark named are not in it
    assert at.session_state["strat_result"].signature == ("bench:1", ("trim-only",))


def test_open_in_strategies_waits_only_for_a_run_still_going_and_replaces_one_that_ended_unseen(monkeypatch):
    """A Strategies run that ended while its page was not on screen was never taken in, and held its slot: Open in
    Strategies refused as if it were still going. Now only a run still going refuses, in one line saying what to do,
    and one that has ended is replaced by the worst run's."""
    import threading

    from scratchpad_lab.engine.jobs import Job
    from scratchpad_lab.ui.state import STRAT_JOB
    from scratchpad_lab.ui.worst_runs import BUSY

    at = _benchmarked(monkeypatch)
    release = threading.Event()
    earlier = Job(lambda report, stop: release.wait(60) and "an earlier result nobody saw", name="earlier").start()
    at.session_state[STRAT_JOB.job] = earlier  # started on the Strategies page, which was then left
    at.button(key="bench_open_0").click().run()
    assert [t.value for t in at.title] == ["Scratchpad Lab · Benchmark"]  # not switched: it is still going
    assert [w.value for w in at.warning] == [BUSY] and len(BUSY.split(". ")) == 1
    assert "stop it on the Strategies page or let it finish, then press Open in Strategies again" in BUSY
    release.set()
    assert earlier.join(10) and at.session_state[STRAT_JOB.job] is earlier  # ended; the Benchmark never takes it in
    _open_first_worst_run(at)
    assert not at.exception and not at.warning and not at.error, [w.value for w in at.warning]
    assert at.session_state[STRAT_JOB.job] is not earlier
    assert at.session_state["strat_result"].signature == ("bench:1", ("trim-only",))  # the worst run's, drawn


def test_the_note_of_an_opened_worst_run_shows_the_datasets_text_as_text(monkeypatch):
    """A run's name, its tool and its lost values come from a dataset: the note draws them as plain text only."""
    from dataclasses import replace

    from test_app_markdown_payloads import PAYLOADS
    at = _benchmarked(monkeypatch)
    _open_first_worst_run(at)
    payload = " ".join(PAYLOADS)
    opened = replace(at.session_state[BENCH_OPENED], run=payload, calls=((3, payload, (payload, "42")),))
    at.session_state[BENCH_OPENED] = opened
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    texts = [t.value for t in at.text]
    assert f"{payload} under {label_words(opened.setting)}: {opened.recall:.0%} of the needed argument values were " \
           "kept." in texts
    assert f"Call 3 ({payload}) was sent a context without: {payload}, 42" in texts
    assert any("starts at call 3," in i.value for i in at.info)
    marked = [str(e.value) for kind in ("markdown", "info", "caption", "warning", "error", "success")
              for e in getattr(at, kind)]  # no markdown body of the page holds a payload, whole or in part
    assert [m for m in marked if any(p in m for p in PAYLOADS) or "alert(" in m or "127.0.0.1" in m] == []


# ── the next call, re-decided after the benchmark (issue 33 item 5) ─────────────────────────────────

def _needs_the_model():
    from scratchpad_lab.engine.summarize.builtin_model import GET_IT, missing
    if missing() is not None:
        pytest.skip(f"needs the built-in model: {GET_IT}")


def test_the_decide_switch_with_the_built_in_model_shows_the_agreement_table_and_says_it_checks_the_pipeline(
        monkeypatch):
    _needs_the_model()
    at = _benchmarked(monkeypatch, bench_decide=True, bench_decide_calls=1, bench_decide_tokens=16)
    assert not at.error, ([e.value for e in at.error], [t.value for t in at.text][-3:])
    decided = at.session_state[BENCH_DECIDED]
    assert decided.constrained and decided.asked >= 1 and not decided.stopped
    [frame] = [d.value for d in at.dataframe if "same as no compression %" in d.value.columns]
    settings = [label_words(s.label) for s in at.session_state[BENCH_RESULT].settings if s.label != "no compression"]
    assert list(frame["row"]) == ["no compression", "no compression (scratchpad)", *settings]
    assert list(frame["same as no compression %"])[:2] == [100.0, 100.0]  # each reference is itself
    assert list(frame["runs"]) == [1] * len(frame)
    assert DECIDE_BUILTIN_MEANS in [i.value for i in at.info]
    assert "a check that the pipeline works" in DECIDE_BUILTIN_MEANS and "135M" in DECIDE_BUILTIN_MEANS
    assert any(t.value.startswith(f"Decided by {decided.model}: {decided.asked} model calls") for t in at.text)


def test_the_decide_switch_refuses_work_over_the_limit_in_one_line(monkeypatch):
    _needs_the_model()
    at = _benchmarked(monkeypatch, runs=5, bench_decide=True, bench_decide_calls=50)
    assert at.session_state[BENCH_DECIDED].startswith("Re-deciding the next calls would be about ")
    assert [e.value for e in at.error] == [DECIDE_PROBLEM]
    assert at.session_state[BENCH_DECIDED] in [t.value for t in at.text]
    assert not [d for d in at.dataframe if "same as no compression %" in d.value.columns]


def test_the_decide_switch_says_how_to_get_the_built_in_model_where_it_is_missing(monkeypatch, tmp_path):
    from scratchpad_lab.engine.summarize.builtin_model import GET_IT, PATH_ENV
    monkeypatch.setenv(PATH_ENV, str(tmp_path / "absent.gguf"))
    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    at = AppTest.from_file("../pages/benchmark.py", default_timeout=TIMEOUT).run()
    at.toggle(key="bench_decide").set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    [notice] = [w.value for w in at.warning]
    assert notice.startswith(escape("The built-in model is not installed here")) and escape(GET_IT) in notice
    assert at.button(key="bench_run").disabled  # nothing can re-decide without it
    at.radio(key="bench_decide_with").set_value("endpoint").run()
    assert not [w for w in at.warning if w.value == notice]  # an endpoint needs no model file here
    assert at.text_input(key="bench_dec_ep_key") is not None


def test_a_click_on_a_point_of_the_front_chart_names_that_setting():
    """The chart's dots carry the click selection `point` over the setting's label, and the page reads the setting
    from the selection Streamlit returns (the browser's click itself is Vega's)."""
    from types import SimpleNamespace

    from scratchpad_lab.engine.studies.benchmark import SettingSummary
    from scratchpad_lab.ui.benchmark_page import clicked_setting, front_chart

    def summary(label, recall, peak):
        out = SettingSummary(label, label.split(":")[0], runs=2)
        out.means = {"argument_recall": {"mean": recall, "low": recall - 0.1, "high": recall},
                     "peak_share": {"mean": peak, "low": peak, "high": peak}}
        return out
    chart = front_chart(SimpleNamespace(settings=[summary("trim-only:agent_trim_chars=4000", 0.5, 0.1),
                                                  summary("langmem:max_tokens=30%", 0.9, 0.4)], chosen=[])).to_dict()
    params = chart.get("params", []) + [p for layer in chart["layer"] for p in layer.get("params", [])]
    assert [(p["name"], p["select"]["type"], p["select"]["fields"], p["select"]["on"]) for p in params] == \
        [("point", "point", ["setting"], "click")]
    dots = [layer.get("name") for layer in chart["layer"] if isinstance(layer["mark"], dict)
            and layer["mark"].get("type") == "point" and layer["mark"].get("filled")]
    assert params[0].get("views", dots) == dots  # the dots are what a click selects, not the whiskers or the rings
    clicked = SimpleNamespace(selection=SimpleNamespace(point=[{"setting": "langmem:max_tokens=30%", "peak %": 40}]))
    assert clicked_setting(clicked) == "langmem:max_tokens=30%"
    assert clicked_setting(SimpleNamespace(selection=SimpleNamespace(point=[]))) is None
    assert clicked_setting(None) is None


def test_the_table_gives_each_settings_facts_kept_by_kind_and_runs_with_a_problem(monkeypatch):
    """Issue 34: each kind's mean share over the runs where the setting compressed, and the runs with each health
    problem, for each setting: in the stored result's columns, and on the page for the setting picked under the table
    (sentences too long for a cell at 1280 px); doing nothing reads "no compression happened" and trim-only (which
    trims, never summarizes) says its trim cut, each with "no problem found"."""
    from scratchpad_lab.analysis.figures import NO_COMPRESSION, TRIM_ONLY
    from scratchpad_lab.analysis.health import NO_PROBLEM
    from scratchpad_lab.engine.tasks import KINDS_COLUMN, PROBLEMS_COLUMN

    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    monkeypatch.delenv("SCRATCHPAD_LAB_DATASETS_DIR", raising=False)
    at = AppTest.from_file("../pages/benchmark.py", default_timeout=TIMEOUT).run()
    at.multiselect(key="bench_pick").set_value(["trim-only", "langmem"]).run()
    at.number_input(key="bench_runs").set_value(1).run()
    rerun_until(at.button(key="bench_run").click().run())
    assert not at.exception and not at.error, [e.value for e in at.exception]
    result = at.session_state[BENCH_RESULT]
    rows = {r["setting"].lstrip("★ "): r for r in result.result().rows}
    for s in result.settings:
        assert (rows[s.label][KINDS_COLUMN], rows[s.label][PROBLEMS_COLUMN]) == (s.kinds_text, s.problems_text)
    assert (rows["no compression"][KINDS_COLUMN], rows["no compression"][PROBLEMS_COLUMN]) == \
        (NO_COMPRESSION, NO_PROBLEM)
    # trim-only never summarizes or clears, but it cut: its row says the trim cut, never "no compression happened"
    trim = result.setting("trim-only:agent_trim_chars=4000")
    assert (trim.kinds_text, trim.problems_text) == (TRIM_ONLY, NO_PROBLEM)
    langmem = result.setting("langmem:max_tokens=15%").kinds_text
    assert langmem.startswith("ids ") and langmem.endswith(" (1 run)"), langmem
    # the page: the setting picked under the table, its two sentences in full
    for label in ("trim-only:agent_trim_chars=4000", "langmem:max_tokens=15%"):
        at.selectbox(key="bench_worst").set_value(label).run()
        texts = [t.value for t in at.text]
        found = result.setting(label)
        assert f"Facts kept by kind: {found.kinds_text}" in texts and \
            f"Runs with a problem: {found.problems_text}" in texts, texts
