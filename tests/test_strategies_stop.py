"""Issue 29, item 4: Stop during a Strategies model call reaches the model client.

The summarizer's endpoint (tests/fake_openai.py) holds its reply for a minute. Stop is pressed once the
first summary request is in: the job ends within a second (the call in flight is closed), and no retry
goes out after it. Before, the socket stayed open, retries went out at +61 s and +122 s, and the job
ended 183 s after Stop. Both paths a strategy's summaries take are tried: a scratchpad strategy (the
autourgos middleware, through the runner) and the message strategies (deepagents, LangChain's
summarization), through their chat model.
"""
import time
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI
from scratchpad_lab.engine.jobs import Job
from scratchpad_lab.engine.strategies import BuiltSummarizer, make_spec, run_strategies
from scratchpad_lab.model.endpoint import Endpoint
from scratchpad_lab.model.records import load_record

SAMPLE = Path(__file__).resolve().parents[1] / "sample_runs" / "support-ticket-tight.json"


@pytest.mark.parametrize("name,settings", [("autourgos-middleware", {"summarize_every": 1}),
                                           ("deepagents", {"trigger_messages": 4}),
                                           ("langchain-summarization", {"trigger_messages": 4})])
def test_stop_closes_the_call_in_flight_and_sends_no_retry(name, settings):
    record = load_record(SAMPLE)
    with FakeOpenAI() as server:
        server.default = ("stall", 60)
        summarizer = BuiltSummarizer(kind="endpoint", api_key="k",
                                    endpoint=Endpoint(provider="custom", base_url=server.url, model="m", retries=2))
        job = Job(lambda report, stop: run_strategies(record, [make_spec(name, settings)], summarizer,
                                                      stop=stop)).start()
        try:
            assert server.wait_for_requests(1, timeout_s=60), f"no summary request was made ({job.error})"
            asked = time.monotonic()
            job.stop()
            job.join(10)
            took = time.monotonic() - asked
        finally:
            server.stalled.set()  # let the held reply go, whatever happened
        assert job.finished and took < 1.0, f"the job ended {took:.1f} s after Stop"
        assert not server.wait_for_requests(2, timeout_s=2.0), "a retry went out after Stop"
