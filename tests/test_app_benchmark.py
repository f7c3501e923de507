"""The Benchmark page in AppTest: the lab's sample runs benchmarked as a job, its chosen points, the front chart,
the table with the no-compression row first, and a setting's worst runs, each drawn without an error."""
from streamlit.testing.v1 import AppTest

from conftest import rerun_until

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
    # the finished benchmark is stored as a result, its table as the page shows it, and the Runs page lists it
    runs = AppTest.from_file("../pages/runs.py", default_timeout=TIMEOUT).run()
    assert any(e.label == "Stored Compare, sweep, recommendation and benchmark results (1)" for e in runs.expander)
    assert "benchmark" in runs.selectbox(key="runs_results_pick").format_func(runs.selectbox(key="runs_results_pick").value)
    stored = next(d.value for d in runs.dataframe if "argument recall %" in d.value.columns)
    assert list(stored["setting"]) == list(table.value["setting"])
    assert list(stored["argument recall %"]) == list(table.value["argument recall %"])
