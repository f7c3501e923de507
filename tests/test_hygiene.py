"""Issue 20, the smaller items: one prompt size limit everywhere, deepagents answering a tool call itself
named as such, and a hosted lab that shows no tracebacks and fetches nothing from another host."""
import json
from pathlib import Path

import pytest

from scratchpad_lab import cli
from scratchpad_lab.engine.studies.promptlab import check_prompt
from scratchpad_lab.engine.strategies import make_spec, run_strategies
from scratchpad_lab.model.config import MAX_PROMPT_CHARS, ConfigError, RunConfig
from scratchpad_lab.model.trace import Trace, TraceStep, TraceTool

ROOT = Path(__file__).resolve().parents[1]


# ── one prompt size limit ───────────────────────────────────────────────────────────────────────

def _long_prompt(chars: int) -> str:
    head = "Summarize for {query} at {iteration}:\n{scratchpad}\n"
    return head + "k" * (chars - len(head))


def test_the_prompt_lab_and_every_run_refuse_the_same_prompt_length():
    fits, over = _long_prompt(MAX_PROMPT_CHARS), _long_prompt(MAX_PROMPT_CHARS + 1)
    assert check_prompt(fits).ok and RunConfig.build(summarizer_prompt=fits).summarizer.prompt == fits
    assert not check_prompt(over).ok
    with pytest.raises(ConfigError, match=f"the limit is {MAX_PROMPT_CHARS:,}"):
        RunConfig.build(summarizer_prompt=over)


def test_run_prompt_file_of_a_megabyte_is_refused_before_anything_runs(tmp_path, capsys):
    path = tmp_path / "big.txt"
    path.write_text(_long_prompt(1_000_000), encoding="utf-8")
    out = tmp_path / "run.json"
    assert cli.main(["run", "--prompt-file", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "1,000,000 characters; the limit is 20,000" in err and not out.exists()


# ── deepagents answering a tool call itself ─────────────────────────────────────────────────────

def test_a_second_same_path_write_file_is_narrated_as_deepagents_own_answer():
    write = {"action": "write_file", "action_input": {"file_path": "/notes.txt", "content": "draft"}}
    step = json.dumps({"thought": "save twice", "actions": [write, write], "final_answer": None})
    result = "x" * 52
    trace = Trace("keep notes", [TraceTool("write_file", "Write a file.")],
                  [TraceStep(step, [result, result]),
                   TraceStep(json.dumps({"thought": "done", "actions": [], "final_answer": "ok"}), [])])
    [deep] = run_strategies(trace, [make_spec("deepagents", {})])
    texts = [q.text for q in deep.quirks]
    assert not any("went to None" in t for t in texts), texts
    assert any(q.kind == "deepagents-tool-answered" and "deepagents answered this write_file call itself" in q.text
               and "parallel file mutations" in q.text and "52-character" in q.text for q in deep.quirks), texts


# ── hosted hygiene ──────────────────────────────────────────────────────────────────────────────

def test_the_page_icon_is_a_file_the_app_serves():
    app = (ROOT / "app.py").read_text()
    assert "page_icon=ICON" in app and ":material/compress:" not in app
    from scratchpad_lab.ui.style import ICON
    assert Path(ICON).is_file() and Path(ICON).read_bytes().startswith(b"\x89PNG")


def test_hosted_mode_turns_streamlits_error_details_off(monkeypatch):
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    before = st.get_option("client.showErrorDetails")
    monkeypatch.setenv("SCRATCHPAD_LAB_HOSTED", "1")
    try:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
        assert not at.exception
        assert st.get_option("client.showErrorDetails") == "none"
    finally:
        st.set_option("client.showErrorDetails", before)
