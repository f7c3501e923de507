"""Take the setting to your agent (engine/strategies/snippets.py): every snippet the lab prints builds its object with the
real package, and that object holds the numbers the figures beside it say.

Each registered strategy but the recording's own compaction, at its defaults and at a grid point of its own (shares of
three runs' peaks, so the one number to configure is a median), is turned into its snippet; the snippet is run with a
real LangChain chat model that needs no network (`your_model`), and what it built is read back setting by setting.
The figures are held to hand-worked medians and to what a benchmark itself resolved on each run.
"""
from __future__ import annotations

import json
import statistics

import pytest

from scratchpad_lab.engine.strategies.registry import names, strategy
from scratchpad_lab.engine.strategies.snippets import (NO_SNIPPET, SNIPPETS, peaks_of, take_away, take_away_for_label,
                                                       take_away_for_trace)
from scratchpad_lab.engine.strategies.spec import defaults
from synthetic import synthetic_trace

# A grid point of each strategy, its shares resolved on each run's own peak (the registry grid's first values, with
# the less common parameters of its package's snippet set too).
POINTS = {
    "autourgos-middleware": {"summarize_every": 4, "max_scratchpad_chars": 5_000, "agent_trim_chars": 8_000,
                             "max_tool_output_chars": 2_000},
    "autourgos-builtin": {"summarize_every": None, "max_scratchpad_chars": 10_000, "max_tool_output_chars": 3_000},
    "trim-only": {"agent_trim_chars": 4_000},
    "deepagents": {"trigger_tokens": "30%", "keep_messages": 6, "truncate_max_length": 3_000,
                   "tool_token_limit_before_evict": 1_000, "max_input_tokens": 50_000},
    "langmem": {"max_tokens": "15%", "max_tokens_before_summary": "20%", "system_in_messages": 1},
    "clear-tool-uses": {"trigger": "30%", "keep": 1, "exclude_tools": ("search", "fetch"),
                        "placeholder": "[cleared: 'see the file']"},
    "langchain-summarization": {"trigger_tokens": "30%", "trigger_messages": 40, "keep_tokens": 800,
                                "trim_tokens_to_summarize": None},
}
CASES = [(n, "defaults") for n in SNIPPETS] + [(n, "point") for n in SNIPPETS]


@pytest.fixture(scope="module")
def traces():
    return [synthetic_trace(steps=steps, seed=seed, parse_error_rate=0) for steps, seed in ((12, 1), (20, 2), (30, 3))]


def your_model():
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    return FakeListChatModel(responses=["the summary"] * 20)


def built(code: str, model=None) -> dict:
    space = {"your_model": model if model is not None else your_model()}
    exec(compile(code, "<snippet>", "exec"), space)  # noqa: S102 - the lab's own snippet, the test's subject
    return space


def shown(take) -> dict:
    """The numbers the figures show: each setting's one value to configure."""
    return {f.key: f.value for f in take.figures}


# ── what each built object holds, read back as the lab's settings ──────────────────────────────────

def _autourgos_middleware(space):
    summarizer, agent = space["summarizer"], space["agent"]
    assert agent.callback_manager._handlers == [summarizer] and summarizer.llm is agent.llm is space["your_model"]
    return {"summarize_every": summarizer.summarize_every, "max_scratchpad_chars": summarizer.max_scratchpad_chars,
            "agent_trim_chars": agent.MAX_SCRATCHPAD_CHARS, "max_tool_output_chars": agent.MAX_TOOL_OUTPUT_CHARS}


def _autourgos_builtin(space):
    agent = space["agent"]
    assert agent.summarizer_llm is agent.llm is space["your_model"] and agent.callback_manager._handlers == []
    return {"summarize_every": agent.summarize_every, "max_scratchpad_chars": agent.MAX_SCRATCHPAD_CHARS,
            "max_tool_output_chars": agent.MAX_TOOL_OUTPUT_CHARS}


def _trim_only(space):
    agent = space["agent"]
    assert agent.summarize_every is None and agent.callback_manager._handlers == []
    return {"agent_trim_chars": agent.MAX_SCRATCHPAD_CHARS, "max_tool_output_chars": agent.MAX_TOOL_OUTPUT_CHARS}


def _sizes(prefix: str, value) -> dict:
    clauses = value if isinstance(value, list) else [value]
    return {f"{prefix}_{kind}": number for kind, number in clauses}


def _deepagents(space):
    from deepagents.backends import StateBackend
    from deepagents.middleware.filesystem import FilesystemMiddleware

    summ = space["summarization"]
    helper = summ._lc_helper
    files = space.get("files") or FilesystemMiddleware(backend=StateBackend())  # create_deep_agent's own default
    out = {**_sizes("trigger", helper.trigger), **_sizes("keep", helper.keep),
           "tool_token_limit_before_evict": files._tool_token_limit_before_evict,
           "truncate_max_length": summ._max_arg_length}
    assert helper.trim_tokens_to_summarize is None and type(space["agent"]).__name__ == "CompiledStateGraph"
    profile = space["your_model"].profile or {}
    if "max_input_tokens" in profile:
        out["max_input_tokens"] = profile["max_input_tokens"]
    return out


def _langchain_summarization(space):
    summ = space["summarization"]
    out = {**_sizes("trigger", summ.trigger or []), "trim_tokens_to_summarize": summ.trim_tokens_to_summarize}
    if summ.keep != ("messages", 20):  # the package's default, which the snippet leaves out
        out.update(_sizes("keep", summ.keep))
    assert type(space["agent"]).__name__ == "CompiledStateGraph"
    return out


def _clear_tool_uses(space):
    [edit] = space["context_editing"].edits
    assert type(space["agent"]).__name__ == "CompiledStateGraph"
    return {"trigger": edit.trigger, "keep": edit.keep, "clear_at_least": edit.clear_at_least,
            "exclude_tools": tuple(edit.exclude_tools), "placeholder": edit.placeholder}


def _langmem(space, monkeypatch):
    """LangMem's is a call: the snippet's function is called on a conversation over its budget, through the real
    summarize_messages (watched, so the arguments it was given are read back), and must summarize it."""
    import langmem.short_term
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    real, given = langmem.short_term.summarize_messages, {}

    def watched(*args, **kwargs):
        given.update(kwargs)
        return real(*args, **kwargs)
    monkeypatch.setattr(langmem.short_term, "summarize_messages", watched)
    code = space["code"]
    space = built(code)
    words = " ".join(["word"] * 400)
    messages = [SystemMessage("You are a helper.", id="s")] + [
        (HumanMessage if i % 2 == 0 else AIMessage)(f"{i} {words}", id=f"m{i}") for i in range(40)]
    sent, summary = space["compress"](messages)
    assert summary is not None and summary.summary == "the summary" and len(sent) < len(messages)
    return {k: given[k] for k in ("max_tokens", "max_summary_tokens", "max_tokens_before_summary") if k in given}


READ_BACK = {"autourgos-middleware": _autourgos_middleware, "autourgos-builtin": _autourgos_builtin,
             "trim-only": _trim_only, "deepagents": _deepagents, "langchain-summarization": _langchain_summarization,
             "clear-tool-uses": _clear_tool_uses}


def _settings(name: str, case: str) -> dict:
    return defaults(name) if case == "defaults" else POINTS[name]


@pytest.mark.parametrize("name,case", CASES)
def test_each_snippet_builds_its_object_with_the_real_package_holding_the_numbers_shown(name, case, traces,
                                                                                          monkeypatch):
    take = take_away(name, _settings(name, case), [peaks_of(t, name) for t in traces])
    assert take.code and "api_key" not in take.code and "sk-" not in take.code
    assert max(len(line) for line in take.code.splitlines()) <= 88, take.code  # pasted as it is, drawn whole
    if name == "langmem":
        read = _langmem({"code": take.code}, monkeypatch)
    else:
        read = READ_BACK[name](built(take.code))
    numbers = shown(take)
    if name == "clear-tool-uses":  # its text settings are in the code as given
        assert (read.pop("exclude_tools"), read.pop("placeholder")) == (tuple(take.settings["exclude_tools"]),
                                                                        take.settings["placeholder"])
    for key, value in list(read.items()):  # a setting left off (None) is shown as no figure: the object has none
        if value is None:
            assert take.settings[key] is None, key
            del read[key]
    if name == "deepagents" and case == "defaults":  # deepagents' own defaults without a profile, said in a line
        assert (read.pop("trigger_tokens"), read.pop("keep_messages")) == (170_000, 6)
        assert take.lines()[-2].startswith("When it compresses: summarizes at 170,000 tokens (its own count, about "
                                           "chars / 4), ")
    if name == "langchain-summarization" and case == "defaults":
        assert read == {"trim_tokens_to_summarize": 4_000} == numbers  # no trigger: the package never summarizes
    assert read == numbers, take.text()


def test_a_share_is_configured_as_the_median_of_what_it_means_on_each_runs_peak(traces):
    peaks = [peaks_of(t, "deepagents") for t in traces]
    take = take_away("deepagents", POINTS["deepagents"], peaks)
    [trigger] = [f for f in take.figures if f.key == "trigger_tokens"]
    each = [round(0.3 * p["tokens"]) for p in peaks]
    assert trigger.values == tuple(each) and trigger.value == statistics.median(each) == take.settings["trigger_tokens"]
    assert trigger.peaks == tuple(p["tokens"] for p in peaks) and len(set(each)) == 3
    line = trigger.text()
    assert line == (f"trigger_tokens: 30% of each run's peak (median {statistics.median(trigger.peaks):,} tokens) = "
                    f"{trigger.value:,} tokens on the median run ({min(each):,} to {max(each):,} over 3 runs); "
                    f"configure {trigger.value:,}")
    assert f'trigger=("tokens", {trigger.value})' in take.code and 'keep=("messages", 6)' in take.code
    assert "deepagents' own count of the request" in take.lines()[-1]


def test_one_runs_point_says_its_share_of_that_runs_peak(traces):
    trace = traces[1]
    peak = peaks_of(trace, "langmem")["tokens"]
    take = take_away_for_trace("langmem", {"max_tokens": 5_000, "max_summary_tokens": 300}, trace)
    assert take.lines()[:2] == [f"max_tokens: 5,000 tokens, {5_000 / peak:.0%} of this run's peak of {peak:,} tokens",
                                "max_summary_tokens: 300 tokens"]  # the summary's size, not set against the context's
    assert 0.1 < 5_000 / peak < 1 and "max_tokens=5000," in take.code and "max_summary_tokens=300," in take.code


def test_the_recordings_own_compaction_has_no_snippet_and_says_why(traces):
    assert set(SNIPPETS) | set(NO_SNIPPET) == set(names())  # a new strategy needs its snippet (or why it has none)
    take = take_away_for_trace("recorded-compaction", {"use_summary": 1}, traces[0])
    assert take.code == "" and take.why_none == NO_SNIPPET["recorded-compaction"] and strategy("recorded-compaction").recorded
    assert take.text() == "    " + NO_SNIPPET["recorded-compaction"]


def test_a_benchmark_labels_setting_reads_the_values_the_benchmark_ran_on_each_run(traces, tmp_path):
    """The figures of a benchmark's setting are what the benchmark itself resolved on each run (its cells' settings),
    read from the runs' traces: the same rule (recommender.resolve on units' peaks), not a second copy of it."""
    from scratchpad_lab.engine.tasks import BenchmarkRequest, read_dataset, run_benchmark

    for i, trace in enumerate(traces):
        (tmp_path / f"run{i}.json").write_text(json.dumps(trace.to_dict()), encoding="utf-8")
    dataset = read_dataset(tmp_path)
    grids = {"clear-tool-uses": {"trigger": ("30%",), "keep": (1,)}}
    done = run_benchmark(BenchmarkRequest(dataset, ["clear-tool-uses"], grids, workers=1))
    label = "clear-tool-uses:trigger=30%,keep=1"
    by_name = {r.name: r.trace for r in dataset.usable}
    ran = [run for run in done.runs if label in run["cells"]]
    take = take_away_for_label(label, [by_name[run["name"]] for run in ran])
    [trigger] = [f for f in take.figures if f.key == "trigger"]
    assert list(trigger.values) == [run["cells"][label]["settings"]["trigger"] for run in ran] and len(ran) == 3
    assert f"edit = ClearToolUsesEdit(\n    trigger={trigger.value},\n    keep=1,\n" in take.code


def test_a_share_without_the_runs_peaks_is_refused_with_what_to_give():
    from scratchpad_lab.engine.strategies.registry import StrategyError

    with pytest.raises(StrategyError, match="give the runs' peaks"):
        take_away("langmem", {"max_tokens": "30%"})


# ── where it is shown: the CLI under each chosen point, and the Benchmark page ──────────────────────

def test_recommend_prints_each_chosen_points_figures_and_code(traces, tmp_path, capsys):
    from scratchpad_lab.cli import main

    path = tmp_path / "trace.json"
    path.write_text(json.dumps(traces[2].to_dict()), encoding="utf-8")
    assert main(["recommend", str(path), "--strategy", "clear-tool-uses", "--grid", "clear-tool-uses:trigger=30%,keep=1",
                 "--workers", "1"]) == 0
    out = capsys.readouterr().out.split("\nChosen points")[1]
    peak = peaks_of(traces[2], "clear-tool-uses")["tokens"]
    trigger = round(0.3 * peak)
    take = take_away_for_trace("clear-tool-uses", {"trigger": trigger, "keep": 1}, traces[2])
    assert f"    trigger: {trigger:,} tokens, 30% of this run's peak of {peak:,} tokens\n" in out
    assert "\n".join("    " + line if line else "" for line in take.code.splitlines()) in out
    assert f"    edit = ClearToolUsesEdit(\n        trigger={trigger},\n        keep=1,\n" in out


def test_the_benchmark_page_shows_each_chosen_points_code(monkeypatch):
    from streamlit.testing.v1 import AppTest

    from conftest import rerun_until

    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    monkeypatch.delenv("SCRATCHPAD_LAB_DATASETS_DIR", raising=False)
    at = AppTest.from_file("../pages/benchmark.py", default_timeout=180).run()
    at.multiselect(key="bench_pick").set_value(["trim-only"]).run()
    at.number_input(key="bench_runs").set_value(2).run()
    rerun_until(at.button(key="bench_run").click().run())
    assert not at.exception and not at.error, [e.value for e in at.exception]
    words = "trim only (Agent's own limit (chars): "  # the setting in the Playground's words (ui/setting_words.py)
    chosen = [t.value for t in at.text if t.value.startswith("For the ") and words in t.value]
    assert chosen, [t.value for t in at.text if t.value.startswith("For the ")]
    trim = int(chosen[0].split(words)[1].split(")")[0].replace(",", ""))
    codes = [c.value for c in at.code if c.language == "python"]
    assert any(f"agent = Agent(llm=your_model, max_scratchpad_chars={trim}, max_tool_output_chars=5000)" in c
               for c in codes), codes
    figures = [t.value for t in at.text if t.value.startswith("Take it to your agent:\n")]
    assert figures and f"agent_trim_chars: {trim:,} chars, " in figures[0], figures


def test_the_recommend_view_shows_each_chosen_points_code_with_this_trajectorys_numbers():
    from streamlit.testing.v1 import AppTest

    from conftest import APP, rerun_until
    from scratchpad_lab.ui.state import STRAT_RECOMMEND

    at = AppTest.from_file(APP, default_timeout=180).run()
    at.switch_page("pages/strategies.py").run()
    at.toggle(key="strat_rec_on").set_value(True).run()
    at.multiselect(key="strat_rec_pick").set_value(["trim-only"]).run()
    rerun_until(at.button(key="strat_rec_run").click().run())
    assert not at.exception and not at.error, [e.value for e in at.exception]
    found = at.session_state[STRAT_RECOMMEND][1]
    picked = [c.setting for c in found.chosen if c.setting]
    assert picked, [c.sentence for c in found.chosen]
    trim = int(picked[0].split("agent_trim_chars=")[1])
    codes = [c.value for c in at.code if c.language == "python"]
    assert any(f"agent = Agent(llm=your_model, max_scratchpad_chars={trim}, max_tool_output_chars=5000)" in c
               for c in codes), codes
    figures = [t.value for t in at.text if t.value.startswith("Take it to your agent:\n")]
    assert any(f"agent_trim_chars: {trim:,} chars, " in f and "of this run's peak of " in f for f in figures), figures
