"""Strategies: each pinned to its real package, on synthetic trajectories (invented material)."""
import json

import pytest

from scratchpad_lab.cli import main
from scratchpad_lab.engine.strategies import ROW_KEYS, make_spec, names, run_strategies
from scratchpad_lab.engine.strategies.messages import step_messages
from scratchpad_lab.engine.strategies.chat_summarizer import extractive_chat_model
from bare_reference import graph_replay, trace_llm_and_tools
from synthetic import synthetic_trace
from scratchpad_lab.model.trace import Trace, TraceStep, TraceTool

TIGHT = {
    "autourgos-middleware": {"summarize_every": 4, "max_scratchpad_chars": 3000, "agent_trim_chars": 8000},
    "autourgos-builtin": {"summarize_every": 4, "max_scratchpad_chars": 3000},
    "deepagents": {"trigger_tokens": 3000, "keep_messages": 6},
    "langmem": {"max_tokens": 1500, "max_summary_tokens": 300},
    "langchain-summarization": {"trigger_tokens": 3000, "keep_messages": 6, "trim_tokens_to_summarize": None},
}


def _by_name(results):
    return {r.name: r for r in results}


def test_all_five_rows_with_the_issue_shape(tmp_path, capsys):
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(synthetic_trace(steps=20, seed=3).to_dict()))
    argv = ["strategies", str(path), "--json"] + [a for n in names() for a in ("--strategy", n)]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["strategy"] for r in rows] == names()
    for r in rows:
        assert tuple(r) == ROW_KEYS + ("take_away",)  # the CLI's: the setting to take to an agent
        assert r["peak_context_tokens"] > 0
        # facts kept is a share of what was compressed: a strategy that compressed nothing has none (never 1.0)
        assert (r["facts_retained"] is None) == (r["compressions"] == 0), r
        assert r["facts_retained"] is None or 0.0 <= r["facts_retained"] <= 1.0


@pytest.mark.parametrize("arg, named", [("langmem:max_tokenz=5", "max_tokenz"),
                                        ("deepagents:keep_messages=many", "many"),
                                        ("nope", "nope"),
                                        ("langmem:max_tokens=100,max_summary_tokens=200", "max_summary_tokens"),
                                        ("clear-tool-uses:placeholder=", "placeholder"),
                                        ("langchain-summarization:keep_messages=3,keep_tokens=900", "keep_tokens")])
def test_unknown_key_or_value_exits_2_with_one_line(tmp_path, capsys, arg, named):
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(synthetic_trace(steps=5, seed=1).to_dict()))
    assert main(["strategies", str(path), "--strategy", arg, "--json"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and named in err


def test_trim_only_never_calls_a_summarizer():
    trace = synthetic_trace(steps=40, seed=5, max_observation_chars=4000)
    result = run_strategies(trace, [make_spec("trim-only", {"agent_trim_chars": 2000})])[0]
    row = result.row()
    assert row["summarizer_calls"] == 0 and row["summarizer_tokens_in"] == 0
    assert not [e for e in result.events if e.kind == "compression"]
    assert [e for e in result.events if e.kind == "trim"], "the trim itself did cut"
    assert row["facts_retained"] is None, "nothing was compressed"
    assert row["trim_facts_retained"] < 1.0, "facts cut by the trim count as lost"


def test_the_agents_trim_dropping_a_summary_is_flagged():
    trace = synthetic_trace(steps=20, seed=6, max_observation_chars=3000)
    result = run_strategies(trace, [make_spec("autourgos-builtin", {"summarize_every": 3,
                                                                    "max_scratchpad_chars": 2000})])[0]
    flagged = [q for q in result.quirks if q.kind == "trim-dropped-summary"]
    assert flagged
    trim = next(e for e in result.events if e.kind == "trim" and e.iteration == flagged[0].iteration)
    assert "[Summarized up to step" in trim.data["before"] and "[Summarized up to step" not in trim.data["after"]


def test_every_summarizing_strategy_compresses_at_tight_settings_on_120_steps():
    trace = synthetic_trace(steps=120, seed=11, max_observation_chars=3000)
    results = _by_name(run_strategies(trace, [make_spec(n, s) for n, s in TIGHT.items()]))
    for name in TIGHT:
        row = results[name].row()
        assert row["compressions"] > 0, name
        assert row["summarizer_calls"] > 0, name
        assert row["context_tokens_saved"] > 0, name


def test_a_95000_char_tool_result_makes_deepagents_offload_a_file():
    big = "row " + " ".join(f"ID-{i:05d}" for i in range(10_555))
    big = (big + " tail")[:95_000]
    assert len(big) == 95_000
    trace = Trace("Read the big table.", [TraceTool("fetch", "Fetch")], [
        TraceStep(json.dumps({"thought": "fetch it", "actions": [{"action": "fetch", "action_input": {"doc_id": "t"}}]}),
                  [big]),
        TraceStep(json.dumps({"thought": "done", "actions": [], "final_answer": "ok"}), [])])
    result = run_strategies(trace, [make_spec("deepagents")])[0]
    assert result.row()["offloaded_files"] == 1
    (path, content), = result.files.items()
    assert path.startswith("/large_tool_results/") and content == big
    sent = result.sent_text(2)
    assert path in sent and len(sent) < 20_000, "the model sees a preview naming the file, not the result"
    assert any(q.kind == "deepagents-tool-offload" for q in result.quirks)


def test_langmem_strategy_gives_the_same_running_summary_boundaries_as_summarize_messages():
    from langmem.short_term import summarize_messages

    trace = synthetic_trace(steps=30, seed=7, max_observation_chars=2500)
    settings = {"max_tokens": 1200, "max_summary_tokens": 200}
    result = run_strategies(trace, [make_spec("langmem", settings)])[0]
    lab = [(e.iteration, e.data["summarized"]) for e in result.events if e.kind == "compression"]
    # The package called directly, on the same messages, with its own default counter.
    steps = step_messages(trace)
    messages, running, direct = list(steps[0]), None, []
    model = extractive_chat_model()
    for k in range(1, len(steps)):
        out = summarize_messages(messages, running_summary=running, model=model, **settings)
        if out.running_summary is not None and out.running_summary is not running:
            before = set(running.summarized_message_ids) if running else set()
            new = set(out.running_summary.summarized_message_ids) - before
            direct.append((k, sorted(new, key=lambda i: [m.id for m in messages].index(i))))
        running = out.running_summary
        messages.extend(steps[k])
    assert lab == direct and len(direct) >= 2


def test_langmem_over_budget_span_is_flagged_and_sent_whole():
    # A span over max_tokens: LangMem would trim it to its tail, but the tail must start on a human
    # message, and a trajectory has only the task; so LangMem sends the whole span, and says so.
    trace = synthetic_trace(steps=12, seed=2, max_observation_chars=6000, parse_error_rate=0)
    result = run_strategies(trace, [make_spec("langmem", {"max_tokens": 3000, "max_summary_tokens": 100,
                                                          "max_tokens_before_summary": 6000})])[0]
    flagged = [q.iteration for q in result.quirks if q.kind == "langmem-over-budget"]
    assert flagged
    comp = next(e for e in result.events if e.kind == "compression" and e.iteration == flagged[0])
    assert comp.data["not_sent_to_summarizer"] == [] and comp.data["tokens_in"] > 3000
    assert not [q for q in result.quirks if q.kind == "langmem-tail"]


def test_deepagents_strategy_gives_the_same_cut_and_offload_as_the_package_graph():
    """The package's own agent graph (create_agent + the two middlewares), driven with the same
    trajectory, gives the same summarization cutoffs and the same offloaded tool result."""
    from deepagents.backends.filesystem import FilesystemBackend
    from deepagents.middleware.filesystem import FilesystemMiddleware
    from deepagents.middleware.summarization import SummarizationMiddleware, compute_summarization_defaults
    from langchain.agents import create_agent
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

    trace = synthetic_trace(steps=14, seed=4, max_observation_chars=3000, parse_error_rate=0)
    trace.steps[3].observations[0] = "big " * 23_000  # 92,000 chars: over the 80,000-char eviction line
    result = run_strategies(trace, [make_spec("deepagents", {"trigger_tokens": 2500, "keep_messages": 4})])[0]
    lab_cuts = [e.data["cutoff_index"] for e in result.events if e.kind == "compression"]
    lab_files = sorted(p for p in result.files if p.startswith("/large_tool_results/"))

    steps = step_messages(trace)
    replies = iter([s[0] for s in steps[1:]])
    observations = {m.tool_call_id: m.content for s in steps[1:] for m in s[1:]}

    class Replay(GenericFakeChatModel):
        def bind_tools(self, tools, **kwargs):
            return self

    model = Replay(messages=replies)
    summarizer = extractive_chat_model()
    cuts = []

    class Watch(AgentMiddleware):
        def wrap_model_call(self, request, handler):
            event = request.state.get("_summarization_event")
            if event is not None and not any(event is seen for seen in cuts):
                cuts.append(event)
            return handler(request)

    from langchain_core.tools import StructuredTool

    class Results(AgentMiddleware):
        def wrap_tool_call(self, request, handler):
            from langchain_core.messages import ToolMessage
            call = request.tool_call
            return ToolMessage(observations[call["id"]], tool_call_id=call["id"], name=call["name"],
                               id=call["id"].replace("call", "tool"))

    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        backend = FilesystemBackend(root_dir=tmp, virtual_mode=True)
        d = compute_summarization_defaults(summarizer)
        tools = [StructuredTool.from_function(lambda **kw: "", name=t.name, description=t.name,
                                              args_schema={"type": "object", "properties": {}}) for t in trace.tools]
        agent = create_agent(model, tools=tools, middleware=[
            FilesystemMiddleware(backend=backend),
            SummarizationMiddleware(model=summarizer, backend=backend, trigger=("tokens", 2500), keep=("messages", 4),
                                    trim_tokens_to_summarize=None, truncate_args_settings=d["truncate_args_settings"]),
            Results(), Watch()])
        from langchain_core.messages import HumanMessage
        agent.invoke({"messages": [HumanMessage(trace.task, id="task")]}, {"recursion_limit": 200})
        import pathlib
        graph_files = sorted("/" + p.relative_to(tmp).as_posix() for p in pathlib.Path(tmp).rglob("*")
                             if p.is_file() and "large_tool_results" in p.as_posix())
    assert lab_files == graph_files and len(lab_files) == 1
    # The last event is made at the last model call and never reaches a later request's state.
    assert len(lab_cuts) >= 3 and lab_cuts[:-1] == [event["cutoff_index"] for event in cuts]


def test_builtin_compressions_fall_where_the_agents_own_code_puts_them():
    from autourgos_agent import Agent
    from scratchpad_lab.engine.summarize.extractive import ExtractiveSummarizer

    trace = synthetic_trace(steps=30, seed=9, max_observation_chars=3000)
    result = run_strategies(trace, [make_spec("autourgos-builtin", {"summarize_every": 6, "max_scratchpad_chars": 4000})])[0]
    lab = [(e.iteration, e.data["before"]) for e in result.events if e.kind == "compression"]

    calls = []

    class Summarizer:
        def invoke(self, prompt):
            calls.append((agent_state["iteration"], agent.scratchpad))
            return ExtractiveSummarizer(1500).invoke(prompt)

    llm, tools = trace_llm_and_tools(trace)
    agent_state = {"iteration": 0}

    class Count:
        def on_iteration_start(self, iteration, agent=None, **kwargs):
            agent_state["iteration"] = iteration

    from autourgos_agent import CallbackHandler
    counter = type("C", (CallbackHandler,), {"on_iteration_start": Count.on_iteration_start})()
    agent = Agent(llm=llm, tools=tools,
                  middleware=[counter], summarize_every=6, max_scratchpad_chars=4000, summarizer_llm=Summarizer(),
                  max_iterations=len(trace.steps) + 1, max_tool_workers=1)
    agent.invoke(trace.task)
    assert len(calls) >= 3 and lab == calls


def test_an_endpoint_summarizer_serves_every_strategy_through_its_own_client(tmp_path, capsys, monkeypatch):
    """Every strategy reaches the endpoint through the lab's one client (the LangChain ones as a chat
    model wrapping it); every summary request lands on the (local, fake) server, and its usage counts."""
    from fake_openai import FakeOpenAI

    path = tmp_path / "trace.json"
    path.write_text(json.dumps(synthetic_trace(steps=16, seed=12, max_observation_chars=2500).to_dict()))
    monkeypatch.setenv("FAKE_KEY", "sk-test-not-real")
    with FakeOpenAI() as server:
        server.default = ("ok", "Key findings: ID-1 summarized by the endpoint.")
        argv = ["strategies", str(path), "--json", "--summarizer-model", "fake-model",
                "--summarizer-base-url", server.url, "--api-key-env", "FAKE_KEY"]
        for name, settings in TIGHT.items():
            argv += ["--strategy", name + ":" + ",".join(f"{k}={v}" for k, v in settings.items())]
        assert main(argv) == 0
        rows = json.loads(capsys.readouterr().out)
        paths = {r["path"] for r in server.requests}
    assert paths == {"/v1/chat/completions"}
    assert len(server.requests) == sum(r["summarizer_calls"] for r in rows) > 0
    for r in rows:
        assert r["summarizer_calls"] > 0 and r["summarizer_tokens_out"] == 7 * r["summarizer_calls"], r


def _as_sent(messages):
    """What a model call was sent, as the model sees it (a summary message's random id left out)."""
    return [(m.type, m.content, getattr(m, "tool_call_id", None)) for m in messages]


def test_clear_tool_uses_sends_what_the_package_graph_sends_at_every_call():
    from langchain.agents.middleware import ClearToolUsesEdit, ContextEditingMiddleware

    trace = synthetic_trace(steps=30, seed=8, max_observation_chars=3000, parse_error_rate=0)
    settings = {"trigger": 6000, "keep": 2, "exclude_tools": "calc", "placeholder": "[gone]"}
    result = run_strategies(trace, [make_spec("clear-tool-uses", settings)])[0]
    direct = graph_replay(trace, [ContextEditingMiddleware(edits=[ClearToolUsesEdit(
        trigger=6000, keep=2, exclude_tools=("calc",), placeholder="[gone]")])])
    assert [_as_sent(m) for m in result.sent_messages] == [_as_sent(m) for m in direct]
    row = result.row()
    assert row["compressions"] > 0 and row["summarizer_calls"] == 0 and row["summarizer_tokens_in"] == 0
    last = result.sent_messages[-1]
    cleared = [m for m in last if m.type == "tool" and m.content == "[gone]"]
    assert cleared and all(m.name != "calc" for m in cleared), "an excluded tool's results are never cleared"
    tools = [m for m in last if m.type == "tool"]
    assert all(m.content != "[gone]" for m in tools[-2:]), "the newest two results are kept"
    assert all(m.content == "[gone]" for m in tools[:-2] if m.name != "calc")


def test_clear_tool_uses_with_clear_at_least_clears_only_the_oldest_until_enough_is_reclaimed():
    trace = synthetic_trace(steps=30, seed=8, max_observation_chars=3000, parse_error_rate=0)
    every = run_strategies(trace, [make_spec("clear-tool-uses", {"trigger": 6000})])[0]
    some = run_strategies(trace, [make_spec("clear-tool-uses", {"trigger": 6000, "clear_at_least": 2000})])[0]
    assert some.row()["peak_context_tokens"] > every.row()["peak_context_tokens"]
    first = next(m for m in some.sent_messages[-1] if m.type == "tool")
    assert first.content == "[cleared]", "the oldest result is the first cleared"


def test_langchain_summarization_sends_what_the_package_graph_sends_at_every_call():
    from langchain.agents.middleware import SummarizationMiddleware

    trace = synthetic_trace(steps=30, seed=8, max_observation_chars=3000, parse_error_rate=0)
    for settings, kwargs in [({"trigger_tokens": 5000, "keep_messages": 5, "trim_tokens_to_summarize": None},
                              {"trigger": ("tokens", 5000), "keep": ("messages", 5), "trim_tokens_to_summarize": None}),
                             ({"trigger_messages": 12, "keep_tokens": 1500},
                              {"trigger": ("messages", 12), "keep": ("tokens", 1500)})]:
        result = run_strategies(trace, [make_spec("langchain-summarization", settings)])[0]
        direct = graph_replay(trace, [SummarizationMiddleware(extractive_chat_model(), **kwargs)])
        assert [_as_sent(m) for m in result.sent_messages] == [_as_sent(m) for m in direct], settings
        assert result.row()["compressions"] >= 2, settings


def test_langchain_summarization_placeholder_summary_is_flagged():
    """With the package's trim of 4,000 tokens, what it summarizes must start on a human message; a trajectory
    has only the task, so the package writes a placeholder and calls no summarizer: flagged, not hidden."""
    trace = synthetic_trace(steps=30, seed=8, max_observation_chars=3000, parse_error_rate=0)
    result = run_strategies(trace, [make_spec("langchain-summarization", {"trigger_tokens": 5000,
                                                                          "keep_messages": 5})])[0]
    flagged = [q for q in result.quirks if q.kind == "langchain-no-human-in-trim"]
    assert flagged
    comp = next(e for e in result.events if e.kind == "compression" and e.iteration == flagged[0].iteration)
    assert comp.data["summarizer_called"] is False and "too long to summarize" in comp.data["after"]


def test_langchain_summarization_never_fires_with_the_package_defaults():
    trace = synthetic_trace(steps=20, seed=8, max_observation_chars=3000)
    result = run_strategies(trace, [make_spec("langchain-summarization")])[0]
    assert result.row()["compressions"] == 0 and result.sent_tokens == result.baseline_tokens


def _clip_trace():
    trace = synthetic_trace(steps=8, seed=4, max_observation_chars=2000, parse_error_rate=0)
    trace.steps[4].observations[0] = " ".join(f"row ID-{i:05d} value" for i in range(5600))  # 106,399 chars
    return trace


CLIP = {"max_input_tokens": 20_000, "tool_token_limit_before_evict": 1_000_000}


def test_deepagents_overflow_clip_offloads_are_reported_and_narrated():
    """After summarizing, a context still over its budget has its trailing tool results moved to files by
    deepagents' _clip_overflow_tail: every such offload is on its tool event, and the narration says the kept
    messages were previews; the files are the ones the package's own graph writes."""
    from deepagents.backends.filesystem import FilesystemBackend
    from scratchpad_lab.engine.strategies.deep_agents import build_middleware
    import pathlib
    import tempfile

    trace = _clip_trace()
    result = run_strategies(trace, [make_spec("deepagents", CLIP)])[0]
    offloaded = [e for e in result.events if e.kind == "tool_call" and e.data.get("offloaded_to")]
    assert [e.data["offloaded_by"] for e in offloaded] == ["overflow clip", "overflow clip"]
    assert all(e.data["offloaded_to"] in result.files for e in offloaded)
    narrated = next(q.text for q in result.quirks if q.kind == "deepagents-offload")
    assert "as previews of files" in narrated and "verbatim and moved" not in narrated
    lab_files = sorted(p for p in result.files if p.startswith("/large_tool_results/"))

    model = extractive_chat_model()
    model.profile = {"max_input_tokens": 20_000}
    with tempfile.TemporaryDirectory() as tmp:
        fs, summ = build_middleware(model, FilesystemBackend(root_dir=tmp, virtual_mode=True),
                                    make_spec("deepagents", CLIP).resolved())
        graph_replay(trace, [fs, summ], profile=model.profile)
        graph_files = sorted("/" + p.relative_to(tmp).as_posix() for p in pathlib.Path(tmp).rglob("*")
                             if p.is_file() and "large_tool_results" in p.as_posix())
    assert lab_files == graph_files and len(lab_files) == 2


def test_deepagents_runs_are_reproducible():
    # its history file is named by a session id that enters the summary; a fresh uuid4 each time made the
    # figures vary: the lab's id is derived from the trajectory
    trace = synthetic_trace(steps=30, seed=9, max_observation_chars=3000)
    spec = make_spec("deepagents", {"trigger_tokens": 3000, "keep_messages": 6})
    one, two = (run_strategies(trace, [spec])[0] for _ in range(2))
    assert one.row()["compressions"] >= 2
    assert one.sent_tokens == two.sent_tokens and sorted(one.files) == sorted(two.files)
    assert one.row() == two.row()
    assert [p for p in one.files if p.startswith("/conversation_history/session_")]


def test_details_list_each_compression_offload_and_model_call(tmp_path, capsys):
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(_clip_trace().to_dict()))
    argv = ["strategies", str(path), "--json", "--details", "--strategy",
            "deepagents:" + ",".join(f"{k}={v}" for k, v in CLIP.items()),
            "--strategy", "langchain-summarization:trigger_tokens=3000,keep_messages=4,trim_tokens_to_summarize=none"]
    assert main(argv) == 0
    deep, lc = json.loads(capsys.readouterr().out)
    d = deep["details"]
    assert len(d["model_calls"]) == 8 and [c["iteration"] for c in d["model_calls"]] == list(range(1, 9))
    assert max(c["context_tokens"] for c in d["model_calls"]) == deep["peak_context_tokens"]
    comp, = d["compressions"]
    assert comp["summary"] and comp["summarized"] and comp["kept"] and comp["tokens_in"] > 0
    assert comp["file_path"] in d["files"] and set(comp["files"]) <= set(d["files"])
    assert {o["offloaded_by"] for o in d["offloads"]} == {"overflow clip"}
    assert len(lc["details"]["compressions"]) == lc["compressions"] > 0


def test_why_a_message_strategy_never_fired_sets_its_rule_against_the_packages_own_count_of_the_peak():
    """deepagents compares its trigger with its own count (messages, system message, tool schemas): the sentence
    gives that count of the run's peak, not characters / 4."""
    from test_importers import TASKS
    from scratchpad_lab.engine.importers import import_raw
    from scratchpad_lab.engine.strategies.units import own_peak

    trace = import_raw(TASKS).trace
    result, = run_strategies(trace, [make_spec("deepagents", {})])
    assert result.row()["compressions"] == 0
    assert result.why_no_compression().endswith(
        f"summarizes at 170,000 tokens (its own count, about chars / 4); this trajectory peaks at "
        f"{own_peak(trace, 'request'):,} tokens by that count.")
    assert own_peak(trace, "request") > own_peak(trace, "messages")  # its system prompt and tools count too


def test_what_deepagents_moves_to_its_history_file_reads_recoverable_by_kind_neither_kept_nor_lost():
    """deepagents summarizes and writes the evicted messages to a file its summary names: the facts a compression
    dropped that sit there are recoverable, per kind; kept and recoverable never pass 100 %; a strategy that writes
    no file has none."""
    from test_importers import TASKS
    from scratchpad_lab.analysis.figures import kinds_kept_text
    from scratchpad_lab.engine.importers import import_raw

    trace = import_raw(TASKS).trace
    deep, clear = run_strategies(trace, [make_spec("deepagents", {"trigger_tokens": 1200, "keep_messages": 2}),
                                         make_spec("clear-tool-uses", {"trigger": 200, "keep": 1})])
    row = deep.row()
    assert row["compressions"] > 0 and deep.files
    assert row["recoverable_by_kind"] and all(0 < share <= 1 for share in row["recoverable_by_kind"].values())
    for kind, share in row["recoverable_by_kind"].items():
        assert row["kept_by_kind"].get(kind, 0) + share <= 1.0001, kind
    assert "in a named file)" in kinds_kept_text(row["kept_by_kind"], True, recoverable=row["recoverable_by_kind"])
    assert clear.row()["recoverable_by_kind"] == {} and clear.row()["facts_recoverable"] in (0.0, None)
