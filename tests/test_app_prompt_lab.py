"""The Prompt lab page through the real app with AppTest; the model is the in-process fake chat server.

The matrix runs on worker threads: tests poll with at.run() (bounded), as the page's fragment would.
"""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from conftest import active_run, APP, ok, rerun_until
from fake_openai import FakeOpenAI, echo_marker
from scratchpad_lab.ui.markup import escape
from scratchpad_lab.ui.state import K_ADVANCED

PAYLOAD = "<img src=x onerror=alert(1)>"


@pytest.fixture
def lab(monkeypatch) -> AppTest:
    monkeypatch.delenv("SCRATCHPAD_LAB_SAMPLES", raising=False)
    at = ok(AppTest.from_file(APP, default_timeout=60).run())
    at = ok(at.switch_page("pages/prompt_lab.py").run())
    at.selectbox(key="pl_entry").set_value("sample:support-ticket-defaults.json")
    return ok(at.run())


def _matrix(at: AppTest):
    return at.session_state["pl_matrix"]


def _wait_matrix(at: AppTest) -> AppTest:
    ok(at.run())  # sends the click
    rerun_until(at, lambda a: _matrix(a) is not None and _matrix(a).finished, timeout_s=60, what="the matrix",
                wait_on=_matrix)
    return ok(at.run())


def _run_in_playground(at: AppTest) -> None:
    """Press the playground's Run and poll until the run has ended (bounded: 60 s)."""
    at.button(key="play_run").click().run()
    rerun_until(at, lambda a: active_run(a) is None, timeout_s=60, what="the run", wait_on=active_run)


def _add_model(at: AppTest, url: str) -> None:
    at.number_input(key="pl_n_summarizers").set_value(2).run()
    at.selectbox(key="pl_sum_kind_1").set_value("endpoint").run()
    at.selectbox(key="pl_sum1_ep_provider").set_value("custom").run()
    at.text_input(key="pl_sum1_ep_base_url_custom").set_value(url)
    at.text_input(key="pl_sum1_ep_model_custom").set_value("fake-model").run()
    ok(at)


def _markup(at: AppTest) -> str:
    """Every element that renders markdown or HTML (text and code elements show text as it is)."""
    return "\n".join(str(getattr(n, "value", "")) for n in at.markdown) + \
        "\n".join(str(getattr(n, "value", "")) for n in at.caption)


def test_extractive_only_says_it_ignores_the_prompt_and_how_to_connect_a_model(lab):
    notice = [i.value for i in lab.info if "ignores the prompt" in i.value]
    assert notice and "key" in notice[0] and "Ollama" in notice[0] and "llama.cpp" in notice[0] and "vLLM" in notice[0]
    with FakeOpenAI() as fake:
        _add_model(lab, fake.url)
    assert not [i for i in lab.info if "ignores the prompt" in i.value]


def test_a_two_by_two_matrix_with_the_fake_model(lab):
    with FakeOpenAI() as fake:
        fake.default = ("ok", lambda body: echo_marker(body) + "\n" + PAYLOAD)
        _add_model(lab, fake.url)
        lab.text_area(key="pl_text_0").input("MARKER-one\n{scratchpad}")
        lab.text_area(key="pl_text_1").input("MARKER-two, step {iteration}\n{scratchpad}")
        lab.text_area(key="pl_probes").input("Which ticket was escalated? = T-5521").run()
        lab.button(key="pl_run").click()
        _wait_matrix(lab)
    matrix = lab.session_state["pl_matrix"]
    assert [(c.row, c.col, c.status) for c in matrix.cells] == [(0, 0, "ok"), (0, 1, "ok"), (1, 0, "ok"), (1, 1, "ok")]
    codes = [c.value for c in lab.code]
    assert any(v.startswith("Summary by MARKER-one") for v in codes)
    assert any(v.startswith("Summary by MARKER-two") for v in codes)
    texts = [t.value for t in lab.text]
    assert "4 cells in" in " ".join(texts)
    assert sum(1 for t in texts if "\nprobes answerable: " in t) == 4
    # the scenario's probes plus the user's own, answered before and after each summary
    assert all(len(c.probes) == 6 and c.probes[-1].question == "Which ticket was escalated?" for c in matrix.cells)
    assert all(c.probes[-1].answerable_before for c in matrix.cells)
    model_cell = matrix.cell(0, 1)
    assert model_cell.probes[-1].answerable_after == ("T-5521" in model_cell.summary)
    badges = _markup(lab)
    assert badges.count("facts kept ") == 4 and ":green-badge[summary]" in badges
    # issue 30 item 13: no cell says green "summary" beside a red "not a summary"
    assert not [m.value for m in lab.markdown if ":green-badge[summary]" in m.value and "not a summary" in m.value]
    # ... and under the matrix one sentence for the model column (the extractive one ignores the prompt): the fake
    # model's replies keep the agent's "Action:" lines, so each is flagged "not a summary" and none wins (issue 45)
    assert all(not matrix.cell(i, 1).is_summary and "not_a_summary" in matrix.cell(i, 1).compression["flags"]
               for i in range(2))
    winning = [t for t in texts if t.startswith("Winning prompt")]
    assert winning == ["Winning prompt with fake-model: none, no prompt got a summary (each reply failed, was empty "
                       "or was flagged as no summary)."]
    assert "onerror" not in badges  # the model's text never reaches markdown
    # open a cell as a compression card
    lab.button(key="pl_open_1_1").click().run()
    assert any(t.value == "Prompt: Keep every identifier and number · summarizer: fake-model" for t in lab.text)
    # only cells that differ: the extractive column's two identical summaries are hidden
    lab.toggle(key="pl_differ").set_value(True).run()
    assert sum(1 for t in lab.text if t.value == "Same summary as another cell.") == 2


def test_bad_prompts_get_a_sentence_and_a_fix(lab):
    lab.text_area(key="pl_text_0").input("Summarize the notes, please.").run()
    errors = [e.value for e in lab.error]  # inert markdown (ui/markup.escape): the text quotes the prompt
    assert errors and escape("{scratchpad}") in errors[0] and "escap" not in errors[0].lower()
    assert lab.button(key="pl_run").disabled
    fix = lab.button(key="pl_fix_0")
    assert fix.label == "Fix: Add {scratchpad} at the end"
    fix.click().run()
    assert lab.text_area(key="pl_text_0").value == "Summarize the notes, please.\n\n{scratchpad}"
    assert not lab.error and not lab.button(key="pl_run").disabled
    # Issue 30 item 13: a placeholder the Playground would refuse is refused here too (one rule:
    # config.validate_prompt_template), with a fix that sends it as written
    lab.text_area(key="pl_text_0").input("{scratchpad}\nFor {customer}").run()
    errors = [e.value for e in lab.error]
    assert errors and escape("unknown placeholder(s) {customer}") in errors[0]
    warnings = [w.value for w in lab.warning]
    assert warnings and escape("{customer}") in warnings[0] and escape("as written") in warnings[0]
    assert lab.button(key="pl_run").disabled
    lab.button(key="pl_fix_0").click().run()
    assert lab.text_area(key="pl_text_0").value == "{scratchpad}\nFor {{customer}}"
    assert not lab.error and not lab.button(key="pl_run").disabled


def test_prompt_versions_are_kept_and_loadable(lab):
    lab.text_input(key="pl_name_0").input("Ids v1")
    lab.text_area(key="pl_text_0").input("Keep ids.\n{scratchpad}").run()
    lab.button(key="pl_save_0").click().run()
    assert lab.session_state["pl_prompt_versions"] == {"Ids v1": "Keep ids.\n{scratchpad}"}
    assert any(t.value.startswith("Ids v1 · ") for t in lab.text)
    lab.selectbox(key="pl_start_1").set_value("version: Ids v1").run()
    lab.button(key="pl_load_1").click().run()
    assert lab.text_area(key="pl_text_1").value == "Keep ids.\n{scratchpad}"


def test_a_prompt_file_uploads_as_a_version_and_a_bad_one_changes_nothing(lab):
    lab.file_uploader(key="pl_prompt_upload").upload("ticket-notes.txt", "Notes: {scratchpad}".encode(), "text/plain")
    ok(lab.run())
    assert lab.session_state["pl_prompt_versions"] == {"ticket-notes": "Notes: {scratchpad}"}
    assert "version: ticket-notes" in lab.selectbox(key="pl_start_0").options
    lab.file_uploader(key="pl_prompt_upload").upload("bad.txt", b"\xff\xfe\x00bad", "text/plain")
    ok(lab.run())
    assert [e.value for e in lab.error] == [escape(
        "That file could not be read as plain UTF-8 text; nothing was added. Save the prompt as a plain .txt file "
        "and upload it again.")]
    assert lab.session_state["pl_prompt_versions"] == {"ticket-notes": "Notes: {scratchpad}"}


def test_use_in_playground_brings_the_model_with_the_prompt_and_credits_the_run(lab):
    with FakeOpenAI() as fake:
        fake.default = ("ok", echo_marker)
        _add_model(lab, fake.url)
        lab.text_input(key="pl_name_0").input("Ids v1")
        lab.text_area(key="pl_text_0").input("MARKER-ids Keep every id.\nTask: {query}\n{scratchpad}").run()
        lab.button(key="pl_use_0").click().run()
        assert any("Ids v1" in s.value and escape("fake-model") in s.value for s in lab.success), \
            [s.value for s in lab.success]  # shown escaped (the name and the model are the person's)
        at = ok(lab.switch_page("pages/playground.py").run())
        at.session_state[K_ADVANCED] = True  # the prompt's box is in Advanced
        ok(at.run())
        assert at.sidebar.text_area(key="play_summarizer_prompt").value.startswith("MARKER-ids Keep every id.")
        # the prompt lab's model came with it: the summarizer, its endpoint and its model
        assert at.sidebar.selectbox(key="play_summarizer").value == "endpoint"
        assert at.sidebar.selectbox(key="play_sum_ep_provider").value == "custom"
        assert at.sidebar.text_input(key="play_sum_ep_base_url_custom").value == fake.url
        assert at.sidebar.text_input(key="play_sum_ep_model_custom").value == "fake-model"
        assert not [w for w in at.main.warning if "does not follow prompts" in w.value]
        at.sidebar.select_slider(key="play_pacing").set_value("instant").run()
        _run_in_playground(at)
    record = at.session_state["play_runs"][-1]
    assert record.config.prompt_name == "Ids v1" and record.config.summarizer.endpoint.model == "fake-model"
    comps = [e.data for e in record.events if e.kind == "compression"]
    assert comps and all(c["response"].startswith("Summary by MARKER-ids") for c in comps)  # the model got it
    table = next(d.value for d in at.dataframe if "prompt" in d.value.columns)  # the runs table
    assert list(table["prompt"]) == ["Ids v1"]
    assert "Ids v1" in at.selectbox(key="play_show_1").format_func(0)


def test_a_prompt_taken_to_an_extractive_playground_says_it_is_not_followed_and_is_not_credited(lab):
    lab.text_input(key="pl_name_0").input("Ids v1")
    lab.text_area(key="pl_text_0").input("Keep every id.\nTask: {query}\n{scratchpad}").run()
    lab.button(key="pl_use_0").click().run()
    assert any("does not follow prompts" in w.value for w in lab.warning), [w.value for w in lab.warning]
    at = ok(lab.switch_page("pages/playground.py").run())
    at.session_state[K_ADVANCED] = True  # the prompt's box is in Advanced
    ok(at.run())
    assert at.sidebar.text_area(key="play_summarizer_prompt").value == "Keep every id.\nTask: {query}\n{scratchpad}"
    assert at.sidebar.selectbox(key="play_summarizer").value == "extractive"
    said = [w.value for w in at.main.warning if "does not follow prompts" in w.value]
    assert said and "Ids v1" in said[0], [w.value for w in at.main.warning]
    at.sidebar.select_slider(key="play_pacing").set_value("instant").run()
    _run_in_playground(at)
    record = at.session_state["play_runs"][-1]
    assert record.config.prompt_name is None, "a run whose summarizer ignores the prompt is not credited to it"
    assert list(next(d.value for d in at.dataframe if "prompt" in d.value.columns)["prompt"]) == [
        "not followed (extractive)"]


def test_compare_rows_can_use_an_endpoint_model_and_a_named_prompt_version(lab):
    lab.text_input(key="pl_name_0").input("Ids v1")
    lab.text_area(key="pl_text_0").input("MARKER-ids\n{scratchpad}").run()
    lab.button(key="pl_save_0").click().run()
    cmp = ok(lab.switch_page("pages/compare.py").run())
    cmp.selectbox(key="cmp_source").set_value("sample:support-ticket-defaults.json").run()
    with FakeOpenAI() as fake:
        fake.default = ("ok", echo_marker)
        cmp.selectbox(key="cmp_sum_ep_provider").set_value("custom").run()
        cmp.text_input(key="cmp_sum_ep_base_url_custom").set_value(fake.url)
        cmp.text_input(key="cmp_sum_ep_model_custom").set_value("fake-model").run()
        current = len(cmp.data_editor(key="cmp_settings").value)
        cmp.session_state["cmp_settings"] = {"edited_rows": {}, "deleted_rows": list(range(current)), "added_rows": [
            {"summarize_every": "5", "max_scratchpad_chars": 15000, "summarizer": "extractive"},
            {"summarize_every": "5", "max_scratchpad_chars": 15000, "summarizer": "endpoint",
             "custom prompt": "Ids v1"}]}
        ok(cmp.run())
        assert not cmp.error, [t.value for t in cmp.text][-5:]
        ok(rerun_until(cmp.button(key="cmp_run").click().run()))  # the comparison is a job
    result = cmp.session_state["cmp_result"]
    assert result.labels[1] == "#2 every 5 / 15,000 / fake-model / prompt “Ids v1”"
    model_run = result.records[1]
    assert model_run.config.prompt_name == "Ids v1" and model_run.config.summarizer.endpoint.model == "fake-model"
    comps = [e.data for e in model_run.events if e.kind == "compression"]
    assert comps and all(c["response"].startswith("Summary by MARKER-ids") for c in comps)
    assert any(t.value == result.labels[1] for t in cmp.text)


def test_a_cell_waiting_on_a_slow_model_says_for_what_and_how_long(lab):
    with FakeOpenAI() as fake:
        fake.delay = 2.5
        fake.default = ("ok", echo_marker)
        _add_model(lab, fake.url)
        lab.button(key="pl_run").click().run()
        said = None

        def waiting_said(page) -> bool:
            nonlocal said
            said = next((t.value for t in page.text if t.value.startswith("waiting for fake-model, ")
                         and not t.value.endswith(" 0 s")), None)
            return bool(said) or page.session_state["pl_matrix"].finished

        rerun_until(lab, waiting_said, timeout_s=30, what="the waiting status")
        assert said and said.endswith(" s"), [t.value for t in lab.text][-8:]
        _wait_matrix(lab)
    assert not [t for t in lab.text if t.value.startswith("waiting for ")]
