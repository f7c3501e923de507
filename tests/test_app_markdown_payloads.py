"""Issue 20: every place a page puts a person's or a file's text into markdown (st.warning, st.info,
st.success, st.error, st.markdown, st.caption, an expander's label) escapes it with the one helper
(ui/markup.escape). A list of payloads goes through each such place in the real app (AppTest); the
markdown body Streamlit would render must not hold the live markup: no image or link syntax, no HTML
tag, no emphasis, no directive, no bare URL."""
from __future__ import annotations

import json

import pytest

from inert_html import outside_code_spans
from conftest import APP, ok, rerun_until
from streamlit.testing.v1 import AppTest

from scratchpad_lab.engine.strategies import Quirk

PAYLOADS = [
    "![p](http://127.0.0.1:1/x.png)",
    "[a link](http://127.0.0.1:1/page)",
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "**bold** _it_ `code`",
    ":red[red] :material/home: :smile:",
    "http://127.0.0.1:1/auto www.example.invalid",
]
# What must not survive into a body: each payload's live syntax.
LIVE = ["![", "](", "<img", "<script", "**", "_it_", "`code`", ":red[", ":material/", ":smile:", "http://",
        "www."]


def _bodies(at: AppTest, *where) -> list:
    kinds = where or ("warning", "error", "success", "info", "caption", "markdown")
    out = []
    for kind in kinds:
        for element in list(getattr(at, kind)) + list(getattr(at.sidebar, kind)):
            out.append(str(element.value))
    return out + [str(e.label) for e in at.expander]


def _assert_inert(bodies: list, must_show: str) -> None:
    hits = [b for b in bodies if must_show in b.replace("&#95;", "_")]  # the place was drawn...
    assert hits, (must_show, bodies)
    for body in bodies:  # ...and no body anywhere holds live markup (a code span's text is literal: a URL)
        for live in LIVE:
            assert live not in outside_code_spans(body), (live, body)


@pytest.fixture
def app(monkeypatch) -> AppTest:
    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    return ok(AppTest.from_file(APP, default_timeout=60).run())


@pytest.mark.parametrize("payload", PAYLOADS)
def test_the_prompt_labs_notes_and_its_use_in_the_playground(app, payload):
    at = ok(app.switch_page("pages/prompt_lab.py").run())
    at.selectbox(key="pl_entry").set_value("sample:support-ticket-defaults.json").run()
    at.text_area(key="pl_text_0").input("Keep the ids. {" + payload + "}\n{scratchpad}").run()
    ok(at)
    _assert_inert(_bodies(at, "warning"), "is not a word the lab fills in")
    _assert_inert(_bodies(at, "error"), "The summarizer prompt")  # refused as the Playground refuses it
    fix = [b for b in at.button if b.key == "pl_fix_0"]
    if fix:  # sends it as written, its braces doubled
        ok(fix[0].click().run())
    else:  # no one-click fix for this text: write the prompt without it
        ok(at.text_area(key="pl_text_0").input("Keep the ids.\n{scratchpad}").run())
    at.text_input(key="pl_name_0").input(payload[:80]).run()
    at.button(key="pl_use_0").click().run()
    ok(at)
    _assert_inert(_bodies(at, "success") + _bodies(at, "warning"), "The playground now uses the prompt")


@pytest.mark.parametrize("payload", PAYLOADS)
def test_the_playgrounds_setting_problem_and_the_endpoints_sentences(app, payload):
    at = app
    at.sidebar.selectbox(key="play_agent").set_value("endpoint").run()
    at.sidebar.selectbox(key="play_agent_ep_provider").set_value("custom").run()
    at.sidebar.text_input(key="play_agent_ep_base_url_custom").set_value("http://127.0.0.1:9/v1/" + payload)
    at.sidebar.text_input(key="play_agent_ep_model_custom").set_value("m")
    at.sidebar.text_input(key="play_agent_ep_key_env_custom").set_value(payload)  # not a variable name
    ok(at.run())
    _assert_inert(_bodies(at, "error"), "Fix this setting to run")
    at.sidebar.text_input(key="play_agent_ep_key_env_custom").set_value("OPENAI_API_KEY").run()
    _assert_inert(_bodies(at, "caption"), "so it is not sent to")  # the key rule quotes the URL
    at.sidebar.button(key="play_agent_ep_test").click().run()
    ok(at)
    _assert_inert(_bodies(at, "error"), "Cannot reach")


def _strategies_page(at: AppTest, trace: dict) -> AppTest:
    at = ok(at.switch_page("pages/strategies.py").run())
    at.file_uploader(key="strat_upload").upload("t.json", json.dumps(trace).encode(), "application/json")
    return ok(rerun_until(at.run()))  # a trace is replayed as a job: its entry is picked once that has ended


def _duplicate_write_trace() -> dict:
    write = {"action": "write_file", "action_input": {"file_path": "/notes.txt", "content": "draft"}}
    return {"schema": "scratchpad-lab/trace@1", "task": "keep notes",
            "tools": [{"name": "write_file", "description": "Write a file."}],
            "steps": [{"response": json.dumps({"thought": "save", "actions": [write, write], "final_answer": None}),
                       "observations": ["x" * 52, "x" * 52]},
                      {"response": json.dumps({"thought": "done", "actions": [], "final_answer": "ok"}),
                       "observations": []}]}


@pytest.mark.parametrize("payload", PAYLOADS)
def test_the_strategies_quirks_files_and_summarizer_problem(app, payload):
    at = _strategies_page(app, _duplicate_write_trace())
    at.multiselect(key="strat_pick").set_value(["deepagents", "trim-only"]).run()
    rerun_until(ok(at.button(key="strat_run").click().run()))  # the strategies run as a job
    shown = at.session_state["strat_result"]
    deep = next(r for r in shown.results if r.name == "deepagents")
    assert deep.quirks  # deepagents answered the second write itself: a quirk the page shows
    deep.quirks[0] = Quirk(1, deep.quirks[0].kind, f"a tool named {payload} said {payload}")
    deep.files = {f"/{payload}": "file text"}
    ok(at.run())
    _assert_inert(_bodies(at, "warning"), "a tool named")
    assert any("file" in label for label in (str(e.label) for e in at.expander))
    at.radio(key="strat_summarizer").set_value("endpoint").run()
    at.selectbox(key="strat_sum_ep_provider").set_value("custom").run()
    at.text_input(key="strat_sum_ep_base_url_custom").set_value("http://127.0.0.1:9/v1")
    at.text_input(key="strat_sum_ep_model_custom").set_value("m")
    at.text_input(key="strat_sum_ep_key_env_custom").set_value(payload)
    ok(at.run())
    _assert_inert(_bodies(at, "error"), "is not allowed")
