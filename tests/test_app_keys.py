"""Keys typed into the page or planted in the environment never reach the page, a record or a download."""
import json

from streamlit.testing.v1 import AppTest

from conftest import APP
from fake_openai import FakeOpenAI

ENV_KEY, TYPED_KEY = "sk-planted-env-77aa11", "sk-planted-typed-88bb22"
STEP = json.dumps({"thought": "Read the ticket.", "actions": [
    {"action": "get_ticket", "action_input": {"ticket_id": "T-5521"}}], "final_answer": None})
ANSWER = json.dumps({"thought": "done", "actions": [], "final_answer": "Order A-1001."})


def _page_text(at) -> str:
    """Everything the page shows, except the password fields' own (masked) values."""
    parts = []
    for node in at:
        proto = getattr(node, "proto", None)
        if proto is not None and getattr(node, "type", "") == "text_input" and node.key.endswith("_key"):
            continue
        parts.append(str(proto))
    return "\n".join(parts)


def test_planted_keys_are_used_but_never_shown_recorded_or_downloaded(monkeypatch):
    monkeypatch.setenv("LAB_UI_TEST_KEY", ENV_KEY)
    with FakeOpenAI() as server:
        monkeypatch.setenv("SCRATCHPAD_LAB_KEY_HOSTS", f"LAB_UI_TEST_KEY={server.url}")  # the operator's binding
        agent_calls = []

        def reply(body):  # the summarizer and the agent share this server: answer each its own way
            prompt = body["messages"][-1]["content"]
            if "SCRATCHPAD TO SUMMARIZE" in prompt:
                return "[Summary]\nKey findings: A-1001\nTool results: -\nCurrent status: -"
            agent_calls.append(prompt)
            return STEP if len(agent_calls) == 1 else ANSWER

        server.default = ("ok", reply)
        at = AppTest.from_file(APP, default_timeout=60)
        at.run()
        at.sidebar.selectbox(key="play_agent").set_value("endpoint").run()
        at.sidebar.selectbox(key="play_agent_ep_provider").set_value("custom").run()
        at.sidebar.text_input(key="play_agent_ep_base_url_custom").set_value(server.url)
        at.sidebar.text_input(key="play_agent_ep_model_custom").set_value("tiny")
        at.sidebar.text_input(key="play_agent_ep_key_env_custom").set_value("LAB_UI_TEST_KEY").run()
        at.sidebar.selectbox(key="play_summarizer").set_value("endpoint").run()
        at.sidebar.selectbox(key="play_sum_ep_provider").set_value("custom").run()
        at.sidebar.text_input(key="play_sum_ep_base_url_custom").set_value(server.url)
        at.sidebar.text_input(key="play_sum_ep_model_custom").set_value("tiny-sum")
        at.sidebar.text_input(key="play_sum_ep_key").set_value(TYPED_KEY)
        at.sidebar.selectbox(key="play_summarize_every").set_value(1).run()
        assert not at.error, [e.value for e in at.error]
        at.button(key="play_run").click().run()
        active = at.session_state["play_active_run"]
        if active is not None:  # wait on the run itself (bounded), then let the page pick up its end
            active.join(timeout=60)
            assert not active.running
            at.run()
        assert at.session_state["play_active_run"] is None
        used = {r["headers"].get("authorization") for r in server.requests}
        assert f"Bearer {ENV_KEY}" in used and f"Bearer {TYPED_KEY}" in used
        record = at.session_state["play_runs"][-1]
        assert record.outcome == "answered"
        download = next(b for b in at.get("download_button"))
        texts = [_page_text(at), record.to_json(), str(download.proto), _stored_rows()]
        for text in texts:
            assert ENV_KEY not in text and TYPED_KEY not in text
        assert "Run 1" in texts[-1]  # the run was stored (issue 24), without either key


def _stored_rows() -> str:
    """Every value of every row of every table of the store this test's app used."""
    import os

    from sqlalchemy import MetaData, create_engine, select
    engine = create_engine(os.environ["SCRATCHPAD_LAB_DB"])
    meta = MetaData()
    meta.reflect(engine)
    with engine.connect() as conn:
        rows = [repr(tuple(row)) for table in meta.sorted_tables for row in conn.execute(select(table))]
    engine.dispose()
    return "\n".join(rows)
