"""The built-in model's bounds found by bench/probes.py (issue 46): Stop and the deadline end a call while the model
reads a long prompt (Stop took 67-131 s to be seen there: llama.cpp read the prompt in one batch of 2,048 tokens and
said nothing meanwhile), and past prompts do not stay in memory. They use the real model."""
from __future__ import annotations

import threading
import time

import pytest

from scratchpad_lab.engine.summarize import builtin_model
from scratchpad_lab.engine.summarize.builtin_model import GET_IT, BuiltinLLM, missing
from scratchpad_lab.model.endpoint import EndpointError

needs_model = pytest.mark.skipif(missing() is not None, reason=f"needs the built-in model: {GET_IT}")
# about 2,400 of SmolLM2's tokens: half a minute or more to read on this CPU
LONG_PROMPT = "Summarize in one line:\n" + " ".join(f"order A-{1000 + i} shipped to Pune on {i % 28 + 1} May"
                                                    for i in range(150))


@needs_model
def test_stop_while_the_model_reads_a_long_prompt_ends_the_call_within_a_batch():
    model = BuiltinLLM(max_tokens=4)
    model.stop_event = threading.Event()
    threading.Timer(1.0, model.stop_event.set).start()
    started = time.perf_counter()
    with pytest.raises(EndpointError, match="stopped"):
        model.invoke(LONG_PROMPT)
    assert time.perf_counter() - started < 15  # reading it whole takes 30 s or more here
    assert model.last_request["return_progress"] is True and builtin_model._SERVER["n_threads"] == 1


@needs_model
def test_a_deadline_while_the_model_reads_ends_the_call_saying_how_much_it_had_read():
    model = BuiltinLLM(max_tokens=4, timeout_s=2)
    started = time.perf_counter()
    with pytest.raises(EndpointError) as ended:
        model.invoke(LONG_PROMPT)
    assert time.perf_counter() - started < 15
    assert "passed its 2 s limit" in str(ended.value) and "prompt tokens read" in str(ended.value)


def resident_mb() -> float:
    return int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) / 1024


@needs_model
def test_distinct_prompts_do_not_grow_the_process():
    """llama.cpp kept each past prompt's model state in memory (its host cache, up to 8,192 MiB): 5-17 MB a prompt
    here, for a hosted server's lifetime. The lab reads every prompt whole, so it keeps none."""
    def ask(k: int) -> None:
        BuiltinLLM(max_tokens=2).invoke("Summarize:\n" + " ".join(f"order C-{k}{i} to Pune" for i in range(60)))
    ask(0)  # the model loaded and its buffers touched
    before = resident_mb()
    for k in (1, 2):  # about 400 tokens each: 9 MB each when kept
        ask(k)
    assert resident_mb() - before < 8
