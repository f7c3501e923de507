"""The recommender: every strategy over a grid on one trajectory, the Pareto front, and its figures equal to a
direct `strategies --json` run of the same strategy and settings (synthetic trajectories, invented material)."""
import json
import threading

import pytest

from scratchpad_lab.cli import main
from scratchpad_lab.engine.recommend import SearchStopped, parse_grid, plan, search
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
        assert direct == p["figures"], p["cli"]


def test_one_worker_and_two_find_the_same_figures(trace):
    grids = {"langmem": {"max_tokens": ("20%", "40%")}, "trim-only": {"agent_trim_chars": (3000, 9000)}}
    one = search(trace, ["langmem", "trim-only"], grids, workers=1)
    two = search(trace, ["langmem", "trim-only"], grids, workers=2)
    assert [(p.strategy, p.settings, p.figures, p.on_front) for p in one.points] == \
        [(p.strategy, p.settings, p.figures, p.on_front) for p in two.points]


def test_a_share_of_the_peak_is_that_share_in_the_settings_unit(trace):
    chars = len(trajectory_text(trace))
    points, _ = plan(trace, ["clear-tool-uses", "trim-only"],
                     {"clear-tool-uses": {"trigger": ("50%",), "keep": (2,)}, "trim-only": {"agent_trim_chars": ("10%",)}})
    by_name = {p.strategy: p.settings for p in points}
    assert by_name["clear-tool-uses"] == {"trigger": round(0.5 * -(-chars // 4)), "keep": 2}
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
