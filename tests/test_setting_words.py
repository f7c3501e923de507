"""A strategy's settings read in words on every page that shows one (issue 45): the Strategies page's settings boxes,
the Recommend view's points and sentences, the Benchmark's table, sentences, worst runs and re-decided rows; the
registry's keys stay the CLI's, the stored results' and the snippets'. One home for the words (ui/setting_words.py),
and the autourgos settings in the Playground sidebar's own (sidebar_settings.SETTING_LABELS)."""
from __future__ import annotations

import html
import re

from streamlit.testing.v1 import AppTest

from conftest import APP, rerun_until
from scratchpad_lab.engine.strategies.registry import STRATEGIES
from scratchpad_lab.ui.setting_words import knob_label, label_words, parse_label, sentence_words, settings_words
from scratchpad_lab.ui.sidebar_settings import SETTING_LABELS

TIMEOUT = 180
# a registry key as a person would see it raw: lower-case words joined by "_", or a `--strategy NAME:key=value`
RAW = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b|\b[a-z-]+:[a-z_]+=")


def _raw_names(text: str) -> list:
    return RAW.findall(text)


def test_every_setting_of_every_strategy_has_words_and_the_autourgos_ones_are_the_sidebars():
    for name, entry in STRATEGIES.items():
        for knob in entry.knobs:
            words = knob_label(name, knob.key)
            assert words != knob.key and not _raw_names(words), (name, knob.key, words)
    assert knob_label("autourgos-middleware", "summarize_every") == SETTING_LABELS["summarize_every"]
    assert knob_label("trim-only", "agent_trim_chars") == SETTING_LABELS["agent_trim_chars"]
    assert knob_label("autourgos-middleware", "max_scratchpad_chars") == "Compress when over (chars)"
    # the built-in agent's one number is both its trigger and its trim: said so, not the middleware's words
    assert knob_label("autourgos-builtin", "max_scratchpad_chars") == "Compress and trim when over (chars)"


def test_a_label_reads_in_words_and_anything_else_is_left_as_it_is():
    assert label_words("trim-only:agent_trim_chars=4000") == "trim only (Agent's own limit (chars): 4,000)"
    assert label_words("autourgos-middleware:summarize_every=none,max_scratchpad_chars=5000") == (
        "autourgos middleware (Summarize every N iterations: off; Compress when over (chars): 5,000)")
    assert label_words("langmem:max_tokens=30%") == "LangMem (Messages budget (tokens): 30%)"
    assert label_words("clear-tool-uses:trigger=8162,keep=3") == (
        "LangChain clear tool uses (Clear when over (tokens): 8,162; Newest tool results kept: 3)")
    assert label_words("no compression") == "no compression" and label_words("mine:k=1") == "mine:k=1"
    assert parse_label("clear-tool-uses:placeholder=[gone, see file],keep=2") == (
        "clear-tool-uses", {"placeholder": "[gone, see file]", "keep": "2"})
    assert settings_words("deepagents", {"trigger_fraction": 0.3, "keep_messages": None}) == (
        "Summarize at share of the input window: 0.3; Keep newest (messages): none")
    short, long = "trim-only:agent_trim_chars=4000", "trim-only:agent_trim_chars=40000"
    assert sentence_words(f"For a: {long} keeps 9%; for b: {short}.", [short, long, None]) == (
        "For a: trim only (Agent's own limit (chars): 40,000) keeps 9%; for b: trim only (Agent's own limit (chars): "
        "4,000).")


def _strategies() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page("pages/strategies.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_strategies_settings_boxes_and_the_recommend_view_say_each_setting_in_words():
    at = _strategies()
    at.multiselect(key="strat_pick").set_value(["autourgos-middleware", "deepagents", "clear-tool-uses"]).run()
    labels = {w.key: w.label for kind in ("number_input", "text_input") for w in getattr(at, kind)
              if (w.key or "").startswith("strat_") and w.key.count("_") >= 2 and w.key != "strat_budget"}
    assert labels["strat_clear-tool-uses_keep"] == "Newest tool results kept"
    assert labels["strat_deepagents_trigger_fraction"] == "Summarize at share of the input window"
    assert labels["strat_autourgos-middleware_max_scratchpad_chars"] == SETTING_LABELS["max_scratchpad_chars"]
    assert [k for k, label in labels.items() if _raw_names(label)] == []
    helps = {w.key: w.help for w in at.number_input if w.key == "strat_clear-tool-uses_keep"}
    assert helps["strat_clear-tool-uses_keep"].endswith("In the package and the CLI: `keep`.")  # errors name it

    at.toggle(key="strat_rec_on").set_value(True).run()
    at.multiselect(key="strat_rec_pick").set_value(["trim-only", "clear-tool-uses"]).run()
    rerun_until(at.button(key="strat_rec_run").click().run(), timeout_s=TIMEOUT)
    assert not at.exception and not at.error, [e.value for e in at.exception]
    found = at.session_state["strat_recommend"][1]
    front = next(d.value for d in at.dataframe if list(d.value.columns[:2]) == ["strategy", "settings"])
    every = next(d.value for d in at.dataframe if "front" in d.value.columns and "settings" in d.value.columns)
    assert len(every) == len(found.points)
    assert set(every["settings"]) == {settings_words(p.strategy, p.settings) for p in found.points}
    assert "Newest tool results kept: 1" in " ".join(every["settings"])
    shown = [*front["settings"], *front["why"], *every["settings"]]
    assert [t for t in shown if _raw_names(t)] == []
    sentences = [t.value for t in at.text if t.value.startswith("For ")]
    assert len(sentences) == 3 and [s for s in sentences if _raw_names(s)] == []
    opener = at.selectbox(key="strat_rec_open")
    assert [o for o in opener.options if _raw_names(o)] == []
    opened = [html.unescape(h.value) for h in at.subheader]  # escaped markdown: the point opened, in words
    assert any(h.startswith(("trim only (", "LangChain clear tool uses (")) for h in opened), opened
    assert found.points[0].cli_arg().startswith(("trim-only:", "clear-tool-uses:"))  # the CLI's names stay


def test_the_benchmark_says_each_setting_in_words_and_stores_the_clis_labels():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page("pages/benchmark.py").run()
    at.multiselect(key="bench_pick").set_value(["trim-only", "clear-tool-uses"]).run()
    at.number_input(key="bench_runs").set_value(1).run()
    rerun_until(at.button(key="bench_run").click().run(), timeout_s=TIMEOUT)
    assert not at.exception and not at.error, [e.value for e in at.exception]
    result = at.session_state["bench_result"]
    table = next(d.value for d in at.dataframe if "argument recall %" in d.value.columns)
    assert list(table["setting"])[0] == "no compression"
    assert "trim only (Agent's own limit (chars): 4,000)" in list(table["setting"])
    assert [s for s in table["setting"] if _raw_names(s)] == []
    sentences = [t.value for t in at.text if t.value.startswith("For ")]
    assert sentences and [s for s in sentences if _raw_names(s)] == []
    worst = at.selectbox(key="bench_worst")
    assert worst.value in [s.label for s in result.settings]  # the select's value stays the label
    assert [o for o in worst.options if _raw_names(o)] == []
    stored = result.result()  # what the store and the CLI keep: the --strategy arguments
    assert "trim-only:agent_trim_chars=4000" in stored.labels
