"""The recommender: every strategy over a grid on one trajectory, the Pareto front, and its figures equal to a
direct `strategies --json` run of the same strategy and settings (synthetic trajectories, invented material)."""
import json
import os
import subprocess
import sys
import threading
import types
from pathlib import Path

import pytest

from scratchpad_lab.cli import main
from scratchpad_lab.engine.studies import recommender as recommend
from scratchpad_lab.engine.cells import local_pool
from scratchpad_lab.engine.cells.local_pool import CellWorker
from scratchpad_lab.engine.studies.recommender import SearchStopped, parse_grid, plan, search
from scratchpad_lab.engine.strategies.engine import trajectory_text
from synthetic import synthetic_trace


@pytest.fixture(scope="module")
def trace():
    return synthetic_trace(steps=24, seed=5, max_observation_chars=2500, parse_error_rate=0)


@pytest.fixture
def trace_file(tmp_path, trace):
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(trace.to_dict()))
    return str(path)


def _dominated(p, others, objectives):
    def value(point, key):
        f = point["figures"]
        return f["summarizer_tokens_in"] + f["summarizer_tokens_out"] if key == "summarizer_tokens" else f[key]

    for q in others:
        if q is p:
            continue
        at_least = all((value(q, o["figure"]) >= value(p, o["figure"])) if o["direction"] == "max"
                       else (value(q, o["figure"]) <= value(p, o["figure"])) for o in objectives)
        better = any((value(q, o["figure"]) > value(p, o["figure"])) if o["direction"] == "max"
                     else (value(q, o["figure"]) < value(p, o["figure"])) for o in objectives)
        if at_least and better:
            return True
    return False


def test_front_points_are_non_dominated_and_equal_a_direct_strategies_run(trace_file, capsys):
    argv = ["recommend", trace_file, "--json", "--workers", "2"]
    for name in ("trim-only", "langmem", "clear-tool-uses", "deepagents", "langchain-summarization"):
        argv += ["--strategy", name]
    assert main(argv) == 0
    found = json.loads(capsys.readouterr().out)
    points, objectives = found["points"], found["objectives"]
    assert {o["figure"] for o in objectives} >= {"facts_at_answer", "peak_context_tokens", "summarizer_tokens"}
    front = [p for p in points if p["on_front"]]
    assert front and len(front) < len(points), "some point is dominated on this trajectory"
    for p in points:
        assert p["on_front"] == (p["error"] is None and not _dominated(p, points, objectives)), p["cli"]
    for p in front:
        assert p["why"].startswith("keeps ") and "of the no-compression peak" in p["why"]
        assert main(["strategies", trace_file, "--json", "--strategy", p["cli"]]) == 0
        direct, = json.loads(capsys.readouterr().out)
        direct.pop("take_away")  # the row's setting to take to an agent: not a figure (tests/test_cli_snippets_json.py)
        assert direct == p["figures"], p["cli"]


def test_a_search_picks_one_point_per_budget_from_its_own_points_and_the_cli_prints_them(trace_file, capsys):
    """Single-trajectory recommend answers with picks, not only a front: for each budget the pick is the point a
    person would take from the table (the lowest peak keeping >= 95 % of the last call's facts; the same with no
    summarizer tokens; the most facts at half the peak or less), never a point that cut nothing."""
    argv = ["recommend", trace_file, "--workers", "1", "--strategy", "trim-only", "--strategy", "langmem",
            "--strategy", "clear-tool-uses"]
    assert main(argv + ["--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    live = [p for p in found["points"] if p["error"] is None and not p["figures"]["cut_nothing"]]
    f = lambda p: p["figures"]  # noqa: E731
    tokens = lambda p: f(p)["summarizer_tokens_in"] + f(p)["summarizer_tokens_out"]  # noqa: E731
    keeping = [p for p in live if f(p)["facts_at_answer"] >= 0.95]
    free = [p for p in keeping if tokens(p) == 0]
    half = [p for p in live if f(p)["peak_share"] <= 0.5]
    expected = [min(keeping, key=lambda p: (f(p)["peak_share"], -f(p)["facts_at_answer"]))["cli"] if keeping else None,
                min(free, key=lambda p: (f(p)["peak_share"], -f(p)["facts_at_answer"]))["cli"] if free else None,
                min(half, key=lambda p: (-f(p)["facts_at_answer"], f(p)["peak_share"]))["cli"] if half else None]
    assert [c["setting"] for c in found["chosen"]] == expected
    assert any(expected), "this trajectory has a point for some budget"
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "Chosen points. Measured with the offline extractive summarizer" in text
    for c in found["chosen"]:
        assert c["sentence"] in text and c["sentence"].startswith("For the ")


def test_one_worker_and_two_find_the_same_figures(trace):
    grids = {"langmem": {"max_tokens": ("20%", "40%")}, "trim-only": {"agent_trim_chars": (3000, 9000)}}
    one = search(trace, ["langmem", "trim-only"], grids, workers=1)
    two = search(trace, ["langmem", "trim-only"], grids, workers=2)
    assert [(p.strategy, p.settings, p.figures, p.on_front) for p in one.points] == \
        [(p.strategy, p.settings, p.figures, p.on_front) for p in two.points]


def _children():
    """This process's child processes, a zombie (one never waited for) included."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, parent = stat.read_text().rsplit(")", 1)[1].split()[:2]
        except (OSError, ValueError):
            continue  # ended while being read
        if int(parent) == os.getpid():
            found.add((int(stat.parent.name), state))
    return found


@pytest.fixture
def worker_answered(monkeypatch):
    """Set when a worker process has answered a point (so this thread can wait for the workers to be busy)."""
    answered = threading.Event()
    run = CellWorker.run

    def counted(self, *args):
        out = run(self, *args)
        answered.set()
        return out

    monkeypatch.setattr(CellWorker, "run", counted)
    return answered


GRIDS = {"langmem": {"max_tokens": ("15%", "30%", "60%")}, "trim-only": {"agent_trim_chars": (3000, 6000, 9000)}}


def test_workers_never_run_the_callers_main_module(trace, tmp_path, monkeypatch, worker_answered):
    # After an AppTest of app.py, sys.modules["__main__"] is the page script; multiprocessing's spawn ran it
    # again in every worker (st.Page outside a page run: BrokenProcessPool). So does an unguarded script.
    script = tmp_path / "page.py"
    script.write_text("raise SystemExit('the main module was run again in a worker')\n")
    page = types.ModuleType("__main__")
    page.__file__ = str(script)
    monkeypatch.setitem(sys.modules, "__main__", page)
    before = _children()

    def progress(done, total, text):
        if done == 1:
            assert worker_answered.wait(120), "a worker process answered a point"

    two = search(trace, ["langmem", "trim-only"], GRIDS, workers=2, progress=progress)
    assert two.points_in_workers >= 1 and two.to_dict()["points_in_workers"] == two.points_in_workers
    one = search(trace, ["langmem", "trim-only"], GRIDS, workers=1)
    assert [(p.strategy, p.settings, p.figures, p.on_front, p.why) for p in one.points] == \
        [(p.strategy, p.settings, p.figures, p.on_front, p.why) for p in two.points]
    assert not _children() - before, "every worker has exited and was waited for"


@pytest.mark.parametrize("ending", ["stopped", "raised"])
def test_a_search_that_ends_early_leaves_no_worker_behind(trace, monkeypatch, worker_answered, ending):
    stop = threading.Event()
    outcome = local_pool._cell_outcome
    here = []

    def failing(*args):  # a point this thread runs: the second one fails with a bug
        here.append(args)
        if ending == "raised" and len(here) == 2:
            raise RuntimeError("a bug at this point")
        return outcome(*args)

    def progress(done, total, text):
        if done == 1:  # a worker is busy with its next point when the search ends
            assert worker_answered.wait(120)
            if ending == "stopped":
                stop.set()

    monkeypatch.setattr(local_pool, "_cell_outcome", failing)
    before = _children()
    with pytest.raises(SearchStopped if ending == "stopped" else RuntimeError):
        search(trace, ["langmem", "trim-only"], GRIDS, workers=2, progress=progress, stop=stop)
    assert not _children() - before, "every worker was ended and waited for"


def test_the_worker_reads_only_what_its_search_sends(tmp_path):
    # The worker's command is public (python -c ...): given a path instead of a trajectory, it reads nothing.
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"schema": "scratchpad-lab/trace@1", "task": "SECRET-TASK", "steps": []}))
    src = str(Path(recommend.__file__).resolve().parents[2])
    work = local_pool.work_name(recommend.POINTS)
    done = subprocess.run([sys.executable, "-c", local_pool.WORKER_CODE], capture_output=True, text=True, timeout=120,
                          input=json.dumps({"share": {"trace": str(secret), "budget": 600}, "work": work}) + "\n" +
                          json.dumps({"strategy": "trim-only", "settings": {}, "price_model": None}) + "\n" +
                          json.dumps({"share": {"trace": None, "budget": 600}, "work": ["os:system", "os:system"]})
                          + "\n", env={**os.environ, "PYTHONPATH": src})
    assert done.returncode == 0
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(replies) == 3 and all("refused" in r for r in replies), replies
    assert "lab's own functions" in replies[2]["refused"] and "SECRET" not in done.stdout + done.stderr


def test_a_share_of_the_peak_is_that_share_in_the_settings_unit(trace):
    chars = len(trajectory_text(trace))
    points, _ = plan(trace, ["clear-tool-uses", "trim-only"],
                     {"clear-tool-uses": {"trigger": ("50%",), "keep": (2,)}, "trim-only": {"agent_trim_chars": ("10%",)}})
    by_name = {p.strategy: p.settings for p in points}
    # a token share is of the peak by the package's own count (count_tokens_approximately of the messages before
    # the last call, for clear-tool-uses); a character share is of the characters
    from langchain_core.messages.utils import count_tokens_approximately
    from scratchpad_lab.engine.strategies.messages import step_messages
    own = count_tokens_approximately([m for step in step_messages(trace)[:-1] for m in step])
    assert by_name["clear-tool-uses"] == {"trigger": round(0.5 * own), "keep": 2}
    assert by_name["trim-only"] == {"agent_trim_chars": round(0.1 * chars)}


def test_identical_summarizer_requests_are_answered_once_per_search(trace):
    # Neither setting's scratchpad reaches its size, so both points summarize at the same steps on the same
    # text: the second point's summaries are the first's, reused, and its figures are the same.
    grid = {"autourgos-builtin": {"summarize_every": (4,), "max_scratchpad_chars": (400_000, 500_000)}}
    found = search(trace, ["autourgos-builtin"], grid, workers=1)
    first, second = found.points
    assert first.figures["compressions"] > 0
    assert found.summaries_reused == first.figures["summarizer_calls"]
    same = {k: v for k, v in first.figures.items() if k != "settings"}
    assert same == {k: v for k, v in second.figures.items() if k != "settings"}


def test_a_stopped_search_raises_and_returns_nothing(trace):
    stop = threading.Event()
    seen = []

    def progress(done, total, text):
        seen.append(done)
        if done == 1:
            stop.set()

    with pytest.raises(SearchStopped):
        search(trace, ["trim-only"], None, workers=1, progress=progress, stop=stop)
    assert seen == [0, 1]


@pytest.mark.parametrize("grid, named", [("langmem:max_tokenz=1|2", "max_tokenz"), ("nope:x=1", "nope"),
                                         ("trim-only:agent_trim_chars=abc%", "abc%"),
                                         ("clear-tool-uses:keep=5%", "not a size"),
                                         ("trim-only", "give the values")])
def test_a_bad_grid_exits_2_with_one_line(trace_file, capsys, grid, named):
    strategy = grid.split(":")[0]
    assert main(["recommend", trace_file, "--grid", grid, "--strategy", "trim-only"] +
                (["--strategy", strategy] if strategy in ("langmem", "clear-tool-uses") else [])) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and named in err


def test_a_grid_for_a_strategy_not_searched_is_refused(trace_file, capsys):
    assert main(["recommend", trace_file, "--strategy", "trim-only", "--grid", "langmem:max_tokens=900"]) == 2
    assert "add --strategy langmem" in capsys.readouterr().err


def test_parse_grid_reads_none_and_shares():
    assert parse_grid("autourgos-middleware:summarize_every=3|none,max_scratchpad_chars=40%") == \
        ("autourgos-middleware", {"summarize_every": ("3", None), "max_scratchpad_chars": ("40%",)})


# ── issue 34: each point's facts kept by kind, its health, and its pins ─────────────────────────────────────────

KINDS_GRIDS = {"clear-tool-uses": {"trigger": ("20%", "1000%"), "keep": (1,)}, "langmem": {"max_tokens": ("30%",)}}


def test_a_point_that_loses_ids_reads_the_strategies_tables_words_for_its_kinds_and_problems(trace, trace_file, capsys):
    """Each point's row says what it kept of each kind and which health checks its compressions failed, in the very
    words the Strategies table gives the same strategy and settings (one rule, the same number on every surface); a
    point whose settings never fired reads "no compression happened" and "no problem found"."""
    from scratchpad_lab.analysis.figures import LABELS, NO_COMPRESSION
    from scratchpad_lab.analysis.health import CHECKS, NO_PROBLEM
    from scratchpad_lab.engine.strategies import make_spec, run_strategies
    from scratchpad_lab.ui.strategies_page import table_texts

    found = search(trace, ["clear-tool-uses", "langmem"], KINDS_GRIDS, workers=1)
    rows = found.rows()
    cleared, idle, langmem = rows
    assert cleared["kept_by_kind"] == "of the tool results it cleared: ids 0%, amounts 0% (a placeholder stands for each; the rest stays whole)", \
        "clearing the tool results lost every planted id, and the row says they were the cleared results'"
    assert cleared["health"].startswith("fires again at once ")
    assert (idle["kept_by_kind"], idle["health"]) == (NO_COMPRESSION, NO_PROBLEM)
    assert langmem["kept_by_kind"].startswith("ids ") and "pins_kept" not in langmem  # no pins: no pins column
    for point, row in zip(found.points, rows):
        [result] = run_strategies(trace, [make_spec(point.strategy, point.settings)])
        [column] = table_texts([result]).values()
        assert (row["kept_by_kind"], row["health"]) == (column[LABELS["kept_by_kind"]], column[LABELS["health"]])
        assert point.figures["kept_by_kind"] == result.row()["kept_by_kind"]
    argv = ["recommend", trace_file, "--workers", "1", "--strategy", "clear-tool-uses",
            "--grid", "clear-tool-uses:trigger=20%,keep=1"]
    assert main(argv + ["--json"]) == 0
    [point] = json.loads(capsys.readouterr().out)["points"]
    assert point["figures"]["kept_by_kind"] == {"id": 0.0, "amount": 0.0} and set(point["figures"]["health"]) == set(CHECKS)
    assert main(argv) == 0
    assert (f"    facts kept by kind: {cleared['kept_by_kind']}; compressions with a problem: {cleared['health']}\n"
            in capsys.readouterr().out)


TIGHT = Path(__file__).resolve().parents[1] / "sample_runs" / "support-ticket-tight.json"
PIN = "A-1001"   # the sample ticket's order id: clear-tool-uses at trigger 500 clears the results that hold it
PINNED = ["--pin", PIN, "--pin", "not in this run"]


def test_recommend_pin_says_the_pins_each_point_kept_and_counts_a_lost_pin_lost(capsys):
    argv = ["recommend", str(TIGHT), "--workers", "1", "--strategy", "clear-tool-uses",
            "--grid", "clear-tool-uses:trigger=500|100000,keep=1", "--strategy", "trim-only",
            "--grid", "trim-only:agent_trim_chars=4000"] + PINNED
    assert main(argv + ["--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["pins"] == [PIN, "not in this run"]
    by_cli = {p["cli"]: p["figures"] for p in found["points"]}
    lost = by_cli["clear-tool-uses:trigger=500,keep=1"]
    assert (lost["pins"], lost["pins_met"], lost["pins_kept"], lost["pins_lost"]) == (2, 1, 0, [PIN])
    for cli, figures in by_cli.items():  # each point's pin fields are a `strategies --pin` run's
        assert main(["strategies", str(TIGHT), "--json", "--strategy", cli] + PINNED) == 0
        [direct] = json.loads(capsys.readouterr().out)
        direct.pop("take_away")  # the row's setting to take to an agent: not a figure
        assert direct == figures, cli
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "; pins: 0 of 1 pin kept (1 never compressed)\n    lost pins: A-1001\n" in out
    assert out.count("; pins: 2 pins, none in a compressed scratchpad\n") == 2


def test_a_search_with_pins_keeps_its_pins_kept_in_each_row(trace):
    from scratchpad_lab.model.pins import Pinned

    grids = {"trim-only": {"agent_trim_chars": (3000,)}}
    plain = search(trace, ["trim-only"], grids, workers=1).rows()
    pinned = search(trace, ["trim-only"], grids, workers=1, pinned=Pinned(("not in this run",))).rows()
    assert "pins_kept" not in plain[0] and pinned[0]["pins_kept"] == "1 pin, none in a compressed scratchpad"
    assert {k: v for k, v in pinned[0].items() if k != "pins_kept"} == plain[0]


def test_the_pins_reach_a_worker_process_and_its_point_counts_the_lost_pin():
    from scratchpad_lab.engine.cells.executor import RunShare, StudyCell
    from scratchpad_lab.engine.run.replay import recorded_trajectory
    from scratchpad_lab.model.pins import Pinned
    from scratchpad_lab.model.records import load_record
    from scratchpad_lab.model.summarizer import SummarizerChoice

    record, pinned = load_record(TIGHT), Pinned((PIN,))
    worker = CellWorker()
    try:
        share = RunShare("pins", recorded_trajectory(record), record.scenario, budget_chars=SummarizerChoice().budget_chars,
                         pins=pinned.pins)
        assert worker.start(share, recommend.POINTS)
        figures, error, _ = worker.run(StudyCell(0, "0", "clear-tool-uses", {"trigger": 500, "keep": 1}), None)
    finally:
        worker.end(True)
        worker.reap()
    assert error is None and (figures["pins"], figures["pins_lost"]) == (1, [PIN])
    here = search(record, ["clear-tool-uses"], {"clear-tool-uses": {"trigger": (500,), "keep": (1,)}}, workers=1,
                  pinned=pinned)
    assert here.points[0].figures == figures


def test_recommend_refuses_a_pin_over_a_limit_in_one_line(trace_file, capsys):
    assert main(["recommend", trace_file, "--strategy", "trim-only", "--pin", " "]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "Pin 1 is empty" in lines[0]
