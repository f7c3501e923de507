"""What the lab records of the real agent and the real middleware: compression statuses, trims, cut tool
results, token counts, per-run prompts, and the run controls (stop, pause, idle stop)."""
import ast
import inspect
import sys

import pytest
import tiktoken
from autourgos_summarizer import middleware as summarizer_middleware

from scratchpad_lab.model.config import PACKAGE_PROMPT, RunConfig
from scratchpad_lab.analysis.metrics import compressions, trims
from scratchpad_lab.engine.run.runner import Run, Source
from conftest import wait_until
from synthetic import synthetic_trace
from scratchpad_lab.engine.run.tokens import count_tokens, encoding_name_for_model

TRIM_MARKER = "[...earlier steps trimmed...]\n"


def _prompt_as_written_in_the_package():
    """The package's prompt as its source file spells it, whatever any code did to the module global."""
    tree = ast.parse(inspect.getsource(summarizer_middleware))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["_SUMMARIZE_PROMPT"]:
            return ast.literal_eval(node.value)
    raise AssertionError("_SUMMARIZE_PROMPT not found in autourgos_summarizer.middleware")


def _run(trace=None, pace=False, idle_stop_s=None, **settings_):
    trace = trace or synthetic_trace(steps=25, seed=9)
    return Run(RunConfig.build(scenario=None, **settings_), Source.for_trace(trace), pace=pace,
               idle_stop_s=idle_stop_s)


def _events(run, kind):
    return [e for e in run.log.snapshot() if e.kind == kind]


# ── compression status, through the real middleware ─────────────────────────

def test_a_working_summarizer_is_recorded_as_ok_and_replaces_the_scratchpad():
    record = _run(summarize_every=4).run()
    comps = compressions(record.events)
    assert comps and all(c["status"] == "ok" for c in comps)
    for c in comps:
        assert c["after"] == f"[Summarized up to step {c['iteration']}]\n{c['response'].strip()}"
        assert c["after_chars"] < c["before_chars"]
        assert c["error"] is None
        assert c["model"] == "extractive (offline, no LLM)"


def test_an_empty_summary_is_recorded_as_empty_and_leaves_the_scratchpad_unchanged():
    run = _run(summarize_every=3, max_scratchpad_chars=1_000_000)
    run.middleware.llm.inner.summarize = lambda **_kw: "   "
    record = run.run()
    comps = compressions(record.events)
    assert [c["iteration"] for c in comps] == [3, 6, 9, 12, 15, 18, 21, 24]
    assert all(c["status"] == "empty" and c["after"] == c["before"] for c in comps)
    assert record.outcome == "answered"


def test_after_an_empty_summary_the_size_trigger_fires_again_at_the_next_iteration():
    cap = 1500
    run = _run(summarize_every=None, max_scratchpad_chars=cap)
    run.middleware.llm.inner.summarize = lambda **_kw: ""
    record = run.run()
    over_cap = [e.iteration for e in record.events if e.kind == "iteration" and e.data["before_chars"] > cap]
    comps = compressions(record.events)
    assert len(over_cap) > 5
    assert [c["iteration"] for c in comps] == over_cap
    assert all(c["status"] == "empty" and c["reason"] == "size" for c in comps)
    checks = [e.data for e in record.events if e.kind == "trigger"]
    assert all(c["predicted"] == c["fired"] for c in checks)


def test_a_failing_summarizer_is_recorded_as_error_and_the_run_goes_on():
    def broken(**_kw):
        raise RuntimeError("summarizer endpoint is down")

    run = _run(summarize_every=5, max_scratchpad_chars=1_000_000)
    run.middleware.llm.inner.summarize = broken
    record = run.run()
    comps = compressions(record.events)
    assert [c["iteration"] for c in comps] == [5, 10, 15, 20, 25]
    for c in comps:
        assert c["status"] == "error"
        assert c["error"] == "RuntimeError: summarizer endpoint is down"
        assert c["after"] == c["before"]
    assert record.outcome == "answered" and record.final_answer == "Finished after 25 steps."


def test_same_as_agent_summarizer_goes_through_the_agents_model_and_says_so():
    record = _run(summarize_every=5, max_scratchpad_chars=1_000_000, summarizer="same-as-agent").run()
    comps = compressions(record.events)
    assert [c["iteration"] for c in comps] == [5, 10, 15, 20, 25]
    assert all(c["status"] == "ok" and "(same as agent)" in c["model"] for c in comps)
    assert len([e for e in record.events if e.kind == "llm_call"]) == 25  # summaries are not agent steps


# ── trims and cut tool results ──────────────────────────────────────────────

def test_agent_trims_are_recorded_with_the_size_the_agent_cut_to():
    record = _run(summarize_every=None, max_scratchpad_chars=1_000_000, agent_trim_chars=2000).run()
    cuts = trims(record.events)
    assert cuts
    for cut in cuts:
        assert cut["before_chars"] > 2000
        assert cut["after_chars"] == 2000 + len(TRIM_MARKER)
    starts = {e.iteration: e.data for e in record.events if e.kind == "iteration"}
    for cut in cuts:
        following = starts.get(cut["iteration"] + 1)
        if following:  # the next iteration starts from exactly the trimmed scratchpad
            assert following["before_chars"] == cut["after_chars"]
            assert following["scratchpad"].startswith(TRIM_MARKER)


def test_no_trim_is_recorded_when_the_scratchpad_stays_under_the_agents_cap():
    record = _run(summarize_every=2, max_scratchpad_chars=1000, agent_trim_chars=50_000).run()
    assert trims(record.events) == []


def test_long_tool_results_are_cut_in_the_scratchpad_but_kept_raw_in_the_exported_trace():
    trace = synthetic_trace(steps=12, seed=13, max_observation_chars=4000)
    record = _run(trace, summarize_every=None, max_tool_output_chars=500).run()
    calls = [e for e in record.events if e.kind == "tool_call"]
    cut = 0
    for call in calls:
        raw = trace.steps[call.iteration - 1].observations[call.data["position"]]
        if len(raw) > 500:
            cut += 1
            assert call.data["result"] == raw[:500] + "... [truncated]"
            assert call.data["result_chars"] == 500 + len("... [truncated]")
        else:
            assert call.data["result"] == raw
    assert cut > 3
    assert record.trace.to_dict()["steps"] == trace.to_dict()["steps"]


# ── tokens ──────────────────────────────────────────────────────────────────

def test_iteration_tokens_are_tiktoken_counts_of_the_scratchpad_sent():
    record = _run(summarize_every=3, agent_trim_chars=4000).run()
    encoding = tiktoken.get_encoding(encoding_name_for_model("scripted"))
    iterations = [e.data for e in record.events if e.kind == "iteration"]
    assert any(d["scratchpad"] for d in iterations)
    for d in iterations:
        assert d["tokens"] == len(encoding.encode(d["scratchpad"], disallowed_special=()))
        assert d["chars"] == len(d["scratchpad"])
    for c in compressions(record.events):
        assert c["before_tokens"] == count_tokens(c["before"], "scripted")
        assert c["after_tokens"] == count_tokens(c["after"], "scripted")


def test_a_summarizer_that_reports_no_usage_is_charged_tiktoken_counts():
    """The prompt's fixed part and the scratchpad are counted apart, so the count may differ from one
    encoding of the whole prompt by a token at each of the two seams, never more."""
    record = _run(summarize_every=4).run()
    comps = compressions(record.events)
    assert comps
    for c in comps:
        assert abs(c["tokens_in"] - count_tokens(c["prompt"], "scripted")) <= 2
        assert c["tokens_out"] == count_tokens(c["response"], "scripted")


# ── per-run prompts ─────────────────────────────────────────────────────────

def test_two_runs_at_once_each_send_their_own_prompt_template():
    alpha = "ALPHA-TEMPLATE for {query} at step {iteration}.\nFacts: ...\n{scratchpad}"
    beta = "BETA-TEMPLATE: compress this, keep identifiers.\n{scratchpad}\nEND-BETA"
    runs = {marker: _run(synthetic_trace(steps=30, seed=seed), pace=True, summarize_every=2,
                         summarizer_prompt=template, step_delay_s=0.02)
            for marker, template, seed in (("ALPHA-TEMPLATE", alpha, 1), ("BETA-TEMPLATE", beta, 2))}
    for run in runs.values():
        run.start()
    for run in runs.values():
        assert wait_until(run, lambda run=run: len(_events(run, "iteration")) >= 2)
    assert all(run.running for run in runs.values())  # both are under way at the same time
    for run in runs.values():
        run.join(60)
    for marker, run in runs.items():
        other = "BETA-TEMPLATE" if marker == "ALPHA-TEMPLATE" else "ALPHA-TEMPLATE"
        comps = compressions(run.record.events)
        assert len(comps) == 15
        template = run.config.summarizer.prompt
        for c in comps:
            assert c["prompt"] == template.format(query=run.source.task, iteration=c["iteration"],
                                                  scratchpad=c["before"])
            assert marker in c["prompt"] and other not in c["prompt"]
    assert summarizer_middleware._SUMMARIZE_PROMPT == _prompt_as_written_in_the_package() == PACKAGE_PROMPT


def test_the_default_prompt_sent_is_the_packages_own():
    record = _run(summarize_every=5).run()
    task = record.trace.task
    for c in compressions(record.events):
        assert c["prompt"] == PACKAGE_PROMPT.format(query=task, iteration=c["iteration"], scratchpad=c["before"])


def test_a_custom_prompts_section_names_shape_the_offline_summary():
    template = "Notes for {query}:\n{scratchpad}\nIdentifiers: ...\nSizes: ...\nNext: ...\n"
    record = _run(summarize_every=5, summarizer_prompt=template).run()
    for c in compressions(record.events):
        assert "\nIdentifiers:\n" in c["after"] and "\nNext: Work continues" in c["after"]
        assert "Key findings" not in c["after"]


# ── run controls ────────────────────────────────────────────────────────────

def test_stop_from_another_thread_ends_a_paced_run_as_stopped():
    run = _run(synthetic_trace(steps=200, seed=3), pace=True, summarize_every=5, step_delay_s=0.2).start()
    assert wait_until(run, lambda: len(_events(run, "iteration")) >= 2)
    run.stop()
    run.join(30)
    assert not run.running and run.finished
    assert run.record.outcome == "stopped"
    events = run.record.events
    assert events[-1].kind == "finish" and events[-1].data["outcome"] == "stopped"
    assert events[-1].data["iterations"] < 200
    errors = [e for e in events if e.kind == "error"]
    assert errors and "stopped by the user" in errors[-1].data["message"]
    assert not any(e.kind == "final_answer" for e in events)


def test_pause_holds_a_paced_run_until_resume():
    run = _run(synthetic_trace(steps=12, seed=8), pace=True, summarize_every=5, step_delay_s=0.2).start()
    assert wait_until(run, lambda: len(_events(run, "iteration")) >= 1)
    run.pause()
    assert run.paused
    assert wait_until(run, lambda: bool(_events(run, "pause")))
    # Held: the worker thread is blocked inside the package's own pause wait (no fixed wait needed to see it).
    assert wait_until(run, lambda: _blocked_in(run, "_maybe_pause"))
    held_at = len(_events(run, "llm_call"))
    assert run.running and run.paused and _blocked_in(run, "_maybe_pause")
    assert len(_events(run, "llm_call")) == held_at
    run.resume()
    run.join(60)
    assert run.record.outcome == "answered"
    assert len(_events(run, "llm_call")) == 12 > held_at
    resumed = _events(run, "resume")
    assert len(resumed) == 1 and resumed[0].iteration == _events(run, "pause")[0].iteration
    kinds = [e.kind for e in run.record.events]
    between = kinds[kinds.index("pause"):kinds.index("resume")]
    assert "llm_call" not in between and "tool_call" not in between, "nothing ran while paused"


def _blocked_in(run, function_name):
    """Whether the run's worker thread is now inside `function_name` (read from its live stack)."""
    frame = sys._current_frames().get(run._thread.ident)
    while frame is not None:
        if frame.f_code.co_name == function_name:
            return True
        frame = frame.f_back
    return False


def test_stop_releases_a_paused_run():
    run = _run(synthetic_trace(steps=50, seed=8), pace=True, summarize_every=5, step_delay_s=0.2).start()
    assert wait_until(run, lambda: len(_events(run, "iteration")) >= 1)
    run.pause()
    assert wait_until(run, lambda: bool(_events(run, "pause")))
    run.stop()
    run.join(30)
    assert run.record.outcome == "stopped"


def test_a_run_nobody_reads_stops_itself():
    run = _run(synthetic_trace(steps=200, seed=4), pace=True, idle_stop_s=1, summarize_every=5,
               step_delay_s=0.2).start()
    run.join(60)  # nothing reads run.log while it runs
    assert run.record.outcome == "stopped"
    assert "no page read this run for 1 s" in run.record.error
    assert len([e for e in run.record.events if e.kind == "iteration"]) < 200


def test_a_paused_run_nobody_reads_stops_itself_too():
    """A paused run makes no model call, so only the watchdog can see that its tab is gone."""
    run = _run(synthetic_trace(steps=50, seed=4), pace=True, idle_stop_s=1, summarize_every=5,
               step_delay_s=0.2).start()
    assert wait_until(run, lambda: len(_events(run, "iteration")) >= 1)
    run.pause()
    run.join(30)
    assert not run.running and run.record.outcome == "stopped"
    assert "no page read this run" in run.record.error


def test_a_run_whose_log_is_read_is_not_stopped_as_idle():
    run = _run(synthetic_trace(steps=10, seed=4), pace=True, idle_stop_s=3, summarize_every=5,
               step_delay_s=0.2).start()
    while run.running:
        run.log.snapshot()  # the page's heartbeat
        run.join(0.05)
    assert run.record.outcome == "answered"


def test_after_a_failed_summary_the_size_trigger_fires_again_at_the_next_iteration():
    def broken(**_kw):
        raise TimeoutError("no reply")

    cap = 1500
    run = _run(summarize_every=None, max_scratchpad_chars=cap)
    run.middleware.llm.inner.summarize = broken
    record = run.run()
    over_cap = [e.iteration for e in record.events if e.kind == "iteration" and e.data["before_chars"] > cap]
    comps = compressions(record.events)
    assert len(over_cap) > 5 and [c["iteration"] for c in comps] == over_cap
    assert all(c["status"] == "error" for c in comps)


def test_a_replay_whose_trace_runs_out_ends_without_an_answer():
    trace = synthetic_trace(steps=6, seed=1)
    trace.steps.pop()  # no final answer any more
    record = _run(trace, summarize_every=None).run()
    assert record.outcome == "error"  # the replayer's own TraceExhausted, not the iteration cap
    assert [e.data["error_type"] for e in record.events if e.kind == "error"] == ["TraceExhausted"]
    assert record.final_answer is None
    # Five steps replayed; the sixth iteration found the trace empty.
    assert record.events[-1].kind == "finish" and record.events[-1].data["iterations"] == 6


def test_a_replay_whose_trace_runs_out_says_the_trace_lacks_a_final_answer():
    trace = synthetic_trace(steps=6, seed=1)
    trace.steps.pop()
    record = _run(trace, summarize_every=None).run()
    assert "final_answer" in record.error
    assert "30 iterations" not in record.error


@pytest.mark.parametrize("steps", [1, 2])
def test_a_trace_that_answers_at_once_gives_an_answer_and_no_compression(steps):
    record = _run(synthetic_trace(steps=steps, seed=0, parse_error_rate=0.0), summarize_every=1).run()
    assert record.outcome == "answered"
    assert record.final_answer == f"Finished after {steps} steps."


def test_presigned_hooks_get_the_same_arguments_and_the_agent_stops_inspecting_them(monkeypatch):
    """The lab gives the middleware's hooks (and its own) their signature once: the agent still
    decides from the same signature whether to pass agent=, async hooks stay async, and a whole run
    inspects no hook function per event (before: ~7 introspections per step)."""
    from autourgos_agent.base import CallbackHandler, CallbackManager
    from autourgos_summarizer import AutoSummarizeMiddleware

    from scratchpad_lab.engine.run.observe import presign_hooks

    class Narrow(CallbackHandler):
        def on_tool_end(self, tool_name, result):  # no agent=, no **kwargs
            self.seen = (tool_name, result)

        async def on_tool_start(self, tool_name, tool_input, agent=None):
            return tool_name

    narrow = Narrow()
    originals = {name: getattr(narrow, name) for name in dir(narrow) if name.startswith("on_")}
    presign_hooks(narrow)
    for name, original in originals.items():
        assert CallbackManager._accepts_agent_kwarg(getattr(narrow, name)) == \
            CallbackManager._accepts_agent_kwarg(original), name
    assert inspect.iscoroutinefunction(narrow.on_tool_start)
    narrow.on_tool_end("search", "ok")
    assert narrow.seen == ("search", "ok")

    introspected = []
    real = inspect._signature_from_function
    monkeypatch.setattr(inspect, "_signature_from_function",
                        lambda *a, **k: introspected.append(1) or real(*a, **k))
    counts = []
    for steps in (20, 60):
        introspected.clear()
        run = _run(synthetic_trace(steps=steps, seed=3))
        run.run()
        assert isinstance(run.middleware, AutoSummarizeMiddleware)
        assert len(_events(run, "compression")) > 3
        counts.append(len(introspected))
    assert counts[0] == counts[1] < 30  # once per hook and tool at the start; per event it would grow
