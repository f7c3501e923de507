"""One figures row, read the same on every surface (issue 19, item 5).

The same trajectory with the same settings is shown with a working summarizer, a silent one (it replies
nothing) and a failing one (its server refuses every call), through every surface that shows facts kept
or compressions: `sweep --json`, `strategies --json` and what the CLI prints for `replay` and
`strategies`; the Runs page's table, its run view and cards; the Playground's runs table and loss panel;
the Compare page's columns. Each must say what the package did, read from an oracle that is not the
figures code: the package's own summary marker in the scratchpad sent at an iteration (a compression
replaced it), and the observer's trigger check that the package called its summarizer.
"""
from __future__ import annotations

import contextlib
import io
import json
import re

import pytest

from conftest import APP, rerun_until
from streamlit.testing.v1 import AppTest

from fake_openai import FakeOpenAI
from synthetic import synthetic_trace
from scratchpad_lab.model.summarizer import SummarizerChoice

from scratchpad_lab.cli import main
from scratchpad_lab.model.records import load_path, load_record

KINDS = ("working", "silent", "failing")
EVERY, CAP, TRIM = 2, 4000, 1_000_000   # no agent trim: every cut of these runs is a compression
SETTINGS = ["--summarize-every", str(EVERY), "--max-scratchpad-chars", str(CAP), "--agent-trim-chars", str(TRIM)]
MIDDLEWARE = f"autourgos-middleware:summarize_every={EVERY},max_scratchpad_chars={CAP},agent_trim_chars={TRIM}"
STRATEGIES = [MIDDLEWARE, f"autourgos-builtin:summarize_every={EVERY},max_scratchpad_chars={TRIM}",
              "deepagents:trigger_tokens=1500,keep_messages=4", "langmem:max_tokens=800,max_summary_tokens=200"]
NO_COMPRESSION = "no compression happened"


def _cli(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    assert code == 0, err.getvalue()
    return out.getvalue()


def _percent(share) -> str:
    return f"{round(share * 100)}%"


def _kept_text(share) -> str:
    return NO_COMPRESSION if share is None else _percent(share)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """Every CLI surface, once per kind of summarizer; the replayed records saved as sample runs."""
    root = tmp_path_factory.mktemp("figures")
    trace = root / "trace.json"
    trace.write_text(json.dumps(synthetic_trace(steps=16, seed=12, max_observation_chars=2500).to_dict()))
    samples = root / "samples"
    out = {"trace": trace, "samples": samples}
    with FakeOpenAI() as silent, FakeOpenAI() as failing:
        silent.default = ("ok", "")            # an empty reply
        failing.default = ("status", 401)      # every call refused
        servers = {"silent": silent, "failing": failing}
        for kind in KINDS:
            summarizer = {"working": ["--summarizer", "extractive"], "silent": ["--summarizer", "silent"],
                          "failing": ["--summarizer-model", "fake-sum", "--summarizer-base-url", failing.url]}[kind]
            record = samples / f"{kind}.json"
            human = _cli("replay", str(trace), *SETTINGS, *summarizer, "--out", str(record))
            model = [] if kind == "working" else ["--summarizer-model", "fake-sum", "--summarizer-base-url",
                                                  servers[kind].url]
            strategy_rows = json.loads(_cli("strategies", str(trace), "--json", *model,
                                            *[a for s in STRATEGIES for a in ("--strategy", s)]))
            strategy_line = _cli("strategies", str(trace), *model, "--strategy", MIDDLEWARE).splitlines()[0]
            if kind == "failing":  # the sweep's summarizer flags are the lab's few; the same rows, from the engine
                from scratchpad_lab.engine.studies.compare import Setting, sweep_rows
                from scratchpad_lab.engine.net.keys import endpoint_for
                setting = Setting(EVERY, CAP, agent_trim_chars=TRIM, summarizer=SummarizerChoice(
                    "endpoint", endpoint=endpoint_for("fake-sum", failing.url, "")))
                sweep = json.loads(json.dumps(sweep_rows(load_path(trace), [setting])))
            else:
                sweep = json.loads(_cli("sweep", str(trace), *SETTINGS, *summarizer[:2], "--json"))
            out[kind] = {"record": record, "human": human, "strategies": strategy_rows, "strategy_line": strategy_line,
                         "sweep": sweep[0], "oracle": _oracle(load_record(record))}
        out["failing_url"] = failing.url
        yield out


def _oracle(record) -> dict:
    """(compressions, summarizer calls) from what the package did, not from the figures code."""
    replaced = sum(1 for e in record.events if e.kind == "iteration" and
                   str(e.data["scratchpad"]).startswith(f"[Summarized up to step {e.iteration}]"))
    called = sum(1 for e in record.events if e.kind == "trigger" and e.data["fired"])
    return {"compressions": replaced, "summarizer_calls": called}


def _facts_text(world, kind) -> str:
    return _kept_text(world[kind]["sweep"]["facts_retained"])


# ── the oracle itself ───────────────────────────────────────────────────────

def test_the_three_summarizers_do_what_their_names_say(world):
    assert world["working"]["oracle"]["compressions"] == world["working"]["oracle"]["summarizer_calls"] > 0
    for kind in ("silent", "failing"):
        assert world[kind]["oracle"]["compressions"] == 0 and world[kind]["oracle"]["summarizer_calls"] > 0, kind


# ── the JSON rows ───────────────────────────────────────────────────────────

@pytest.mark.parametrize("kind", KINDS)
def test_the_sweep_row_counts_what_the_package_did_and_keeps_no_facts_it_never_compressed(world, kind):
    row, oracle = world[kind]["sweep"], world[kind]["oracle"]
    assert (row["compressions"], row["summarizer_calls"]) == (oracle["compressions"], oracle["summarizer_calls"])
    if oracle["compressions"] == 0:
        assert row["facts_retained"] is None, "no compression happened, so no facts were kept by one"
    else:
        assert 0.0 < row["facts_retained"] < 1.0


@pytest.mark.parametrize("kind", KINDS)
def test_compressions_and_summarizer_calls_mean_the_same_in_sweep_and_strategies_json(world, kind):
    sweep = world[kind]["sweep"]
    middleware = next(r for r in world[kind]["strategies"] if r["strategy"] == "autourgos-middleware")
    for key in ("compressions", "summarizer_calls", "facts_retained", "peak_context_tokens", "mean_context_tokens"):
        assert middleware[key] == sweep[key], key


@pytest.mark.parametrize("kind", KINDS)
def test_no_strategy_row_keeps_facts_without_a_compression(world, kind):
    for r in world[kind]["strategies"]:
        assert (r["facts_retained"] is None) == (r["compressions"] == 0), r
        if r["strategy"].startswith("autourgos"):  # every autourgos compression is a summarizer call
            assert r["summarizer_calls"] >= r["compressions"], r
            assert kind == "working" or r["compressions"] == 0, r
        assert r["summarizer_calls"] > 0, r


# ── what the CLI prints ─────────────────────────────────────────────────────

@pytest.mark.parametrize("kind", KINDS)
def test_the_replay_summary_line_prints_the_same_figures(world, kind):
    line, oracle = world[kind]["human"].splitlines()[0], world[kind]["oracle"]
    assert f"compressions: {oracle['compressions']} " in line
    assert f"summarizer calls: {oracle['summarizer_calls']} " in line
    assert line.endswith(f"facts kept: {_facts_text(world, kind)}"), line


@pytest.mark.parametrize("kind", KINDS)
def test_the_strategies_line_prints_the_same_figures(world, kind):
    line, oracle = world[kind]["strategy_line"], world[kind]["oracle"]
    found = re.search(r"compressions +(\d+) +summarizer calls +(\d+) .* facts kept (.+?) +through trims", line)
    assert found, line
    assert (int(found[1]), int(found[2])) == (oracle["compressions"], oracle["summarizer_calls"])
    assert found[3] == _facts_text(world, kind)


# ── the pages ───────────────────────────────────────────────────────────────

def _app(monkeypatch, world, page: str) -> AppTest:
    monkeypatch.setenv("SCRATCHPAD_LAB_SAMPLES", str(world["samples"]))
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert not at.exception, [e.value for e in at.exception]
    if page:
        at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]
    return at


def _compare_cells(at: AppTest, label: str) -> list:
    """One row of the Compare page's table of figures (a column per setting), as its cells read, less the ★."""
    table = next(d.value for d in at.dataframe if label in d.value.index)
    return [str(v).removesuffix(" ★") for v in table.loc[label]]


def _metrics(at: AppTest, label: str) -> list:
    return [m.value for m in at.metric if m.label == label]


def test_the_runs_page_table_view_and_cards_read_the_same_figures(monkeypatch, world):
    at = _app(monkeypatch, world, "pages/runs.py")
    table = next(d.value for d in at.dataframe if "facts kept" in d.value.columns and "run" in d.value.columns)
    for kind in KINDS:
        row = table[table["run"] == f"sample: {kind}.json"].iloc[0]
        oracle = world[kind]["oracle"]
        assert (int(row["compressions"]), int(row["summarizer calls"])) == (oracle["compressions"],
                                                                             oracle["summarizer_calls"]), kind
        assert row["facts kept"] == _facts_text(world, kind), kind
        at.selectbox(key="runs_open").set_value(f"sample:{kind}.json").run()
        assert not at.exception, [e.value for e in at.exception]
        assert _metrics(at, "compressions") == [str(oracle["compressions"])], kind
        calls = _metrics(at, "summarizer calls")
        assert calls == ([] if kind == "working" else [str(oracle["summarizer_calls"])]), kind
        kept = [m.value for m in at.markdown if "facts kept: **" in m.value]
        assert kept, kind
        if kind != "working":
            assert all(f"facts kept: **{NO_COMPRESSION}**" in m for m in kept), kind
        assert not any("facts kept: **100%**" in m for m in kept if kind != "working")


def test_the_playground_table_and_loss_panel_read_the_same_figures(monkeypatch, world):
    at = _app(monkeypatch, world, "")
    for kind in KINDS:
        at.selectbox(key="play_sample_pick").set_value(f"{kind}.json").run()
        at.button(key="play_sample_open").click().run()
        assert not at.exception, [e.value for e in at.exception]
        assert _metrics(at, "facts kept across compressions") == [_facts_text(world, kind)], kind
    table = next(d.value for d in at.dataframe if "facts kept" in d.value.columns and "outcome" in d.value.columns)
    assert len(table) == len(KINDS)
    for (_, row), kind in zip(table.iterrows(), KINDS):
        oracle = world[kind]["oracle"]
        assert (int(row["compressions"]), int(row["summarizer calls"])) == (oracle["compressions"],
                                                                             oracle["summarizer_calls"]), kind
        assert row["facts kept"] == _facts_text(world, kind), kind


def test_the_compare_columns_read_the_same_figures_as_the_sweep(monkeypatch, world):
    at = _app(monkeypatch, world, "pages/compare.py")
    at.selectbox(key="cmp_source").set_value("sample:working.json").run()
    at.selectbox(key="cmp_sum_ep_provider").set_value("custom").run()
    at.text_input(key="cmp_sum_ep_base_url_custom").set_value(world["failing_url"])
    at.text_input(key="cmp_sum_ep_model_custom").set_value("fake-sum")
    at.text_input(key="cmp_sum_ep_key").set_value("sk-test-not-a-real-key").run()
    rows = [{"summarize_every": str(EVERY), "max_scratchpad_chars": CAP, "agent_trim_chars": TRIM, "summarizer": s}
            for s in ("extractive", "silent", "endpoint")]
    at.session_state["cmp_settings"] = {"edited_rows": {}, "added_rows": rows,
                                        "deleted_rows": list(range(len(at.data_editor(key="cmp_settings").value)))}
    at.run()
    assert not at.error, [t.value for t in at.text if t.value.startswith("Row ")]
    rerun_until(at.button(key="cmp_run").click().run())  # the replays are a job
    compressions, calls, kept = (_compare_cells(at, label) for label in ("compressions", "summarizer calls", "facts kept"))
    for i, kind in enumerate(KINDS):
        sweep = world[kind]["sweep"]
        assert (compressions[i], calls[i]) == (str(sweep["compressions"]), str(sweep["summarizer_calls"])), kind
        assert kept[i] == _facts_text(world, kind), kind
        shown = at.session_state["cmp_result"].rows[i]
        assert (shown["compressions"], shown["summarizer_calls"], shown["facts_retained"]) == \
            (sweep["compressions"], sweep["summarizer_calls"], sweep["facts_retained"]), kind
