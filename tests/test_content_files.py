"""Presets and the prompt library are data files, each checked by a schema: the shipped files load to what
the sidebar and the prompt lab offer, and a broken file is refused with one line naming the file and the
field (and what to change)."""
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from scratchpad_lab.engine.studies.promptlab.prompts import (LIBRARY, PROMPT_LIBRARY, PROMPTS_DIR, check_prompt, load_library,
                                                     read_prompt_file)
from scratchpad_lab.model.config import PACKAGE_PROMPT
from scratchpad_lab.model.datafile import DataFileError
from scratchpad_lab.model.presets import load_presets, presets


# ── presets ────────────────────────────────────────────────────────────────

def test_the_shipped_presets_load_with_a_description_each():
    loaded = presets()
    assert list(loaded) == ["Defaults (5 / 15,000)", "Tight (2 / 2,000)", "Size only (off / 4,000)",
                            "Off (no compression)"]
    assert loaded["Tight (2 / 2,000)"].settings == {"summarize_every": 2, "max_scratchpad_chars": 2_000,
                                                   "extractive_budget_chars": 600}
    assert loaded["Off (no compression)"].settings["max_scratchpad_chars"] == 1_000_000
    assert all(p.description for p in loaded.values())


def test_the_sidebar_offers_the_files_presets_with_their_descriptions():
    at = AppTest.from_file("../app.py", default_timeout=60).run()
    box = at.selectbox(key="play_preset")
    from scratchpad_lab.ui.sidebar_settings import CUSTOM_PRESET
    assert box.options == list(presets()) + [CUSTOM_PRESET]  # Custom: settings handed over that are no preset's
    assert all(p.description in box.help for p in presets().values())


def _presets_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "presets.toml"
    path.write_text(body, encoding="utf-8")
    return path


@pytest.mark.parametrize("body, field, says", [
    ('[[presets]]\nname = "Tiny"\ndescription = "x"\nmax_scratchpad_chars = 50\n',
     "presets[1].max_scratchpad_chars", "allowed: 100 to 1,000,000"),
    ('[[presets]]\nname = "A"\ndescription = "x"\n[[presets]]\nname = "B"\nsummarize_every = 2\n',
     "presets[2].description", "is missing"),
    ('[[presets]]\nname = "A very long preset name"\ndescription = "x"\n', "presets[1].name", "shorten the name"),
    ('[[presets]]\nname = "A"\ndescription = "x"\nagent_trim_chars = 900\n', "presets[1].agent_trim_chars",
     "not a field"),
    ('[[presets]]\nname = "A"\ndescription = "x"\nsummarize_every = "often"\n', "presets[1].summarize_every",
     'a number or "off"'),
    ('[[presets]]\nname = "A"\ndescription = "x"\n[[presets]]\nname = "A"\ndescription = "y"\n',
     "presets[2].name", "another preset"),
    ('presets = [\n', "", "not valid TOML"),
], ids=["out-of-range", "no-description", "label-too-long", "unknown-setting", "not-a-number", "duplicate", "syntax"])
def test_a_broken_presets_file_names_the_file_and_the_field(tmp_path, body, field, says):
    path = _presets_file(tmp_path, body)
    with pytest.raises(DataFileError) as raised:
        load_presets(path)
    message = str(raised.value)
    assert len(message.splitlines()) == 1 and says in message
    assert message.startswith(f"{path}: {field}: " if field else f"{path}: ")


def test_a_preset_that_leaves_a_setting_out_keeps_the_packages_default(tmp_path):
    path = _presets_file(tmp_path, '[[presets]]\nname = "Often"\ndescription = "x"\nsummarize_every = 2\n')
    assert load_presets(path)["Often (2 / 15,000)"].settings == {
        "summarize_every": 2, "max_scratchpad_chars": 15_000, "extractive_budget_chars": 1_500}


# ── the prompt library ─────────────────────────────────────────────────────

def test_the_library_is_the_packages_prompt_then_one_file_per_prompt():
    assert LIBRARY[0].text is PACKAGE_PROMPT and LIBRARY[0].source == "autourgos_summarizer"
    files = sorted(PROMPTS_DIR.glob("*.txt"))
    assert [p.source for p in LIBRARY[1:]] == [str(f) for f in files] and len(files) == 3
    assert list(PROMPT_LIBRARY) == [p.name for p in LIBRARY]
    assert all(p.description and check_prompt(p.text).ok for p in LIBRARY)
    # the file is the prompt exactly as sent, after its header
    first = files[0].read_text(encoding="utf-8")
    assert PROMPT_LIBRARY[LIBRARY[1].name] == first.split("\n---\n", 1)[1]


def test_the_prompt_lab_offers_the_library_with_its_descriptions():
    at = AppTest.from_file("../pages/prompt_lab.py", default_timeout=60).run()
    box = at.selectbox(key="pl_start_0")
    assert box.options[:len(LIBRARY)] == [p.name for p in LIBRARY]
    assert all(p.description in box.help for p in LIBRARY)


@pytest.mark.parametrize("content, field, says", [
    ("name: Short\ndescription: keeps it short\n---\nSummarize the notes in one line.\n", "text", "{scratchpad}"),
    ("name: Short\ndescription: x\n---\nNotes: {scratchpad} for {customer_name}\n", "text", "{customer_name}"),
    ("name: Short\n---\n{scratchpad}\n", "description", "is missing"),
    ("name: Short\ndescripton: x\n---\n{scratchpad}\n", "descripton", "not a field"),
    ("Summarize: {scratchpad}\n", "", "has no header"),
    ("name: Package default\ndescription: x\n---\n{scratchpad}\n", "name", "the package's own prompt"),
    ("name Short\ndescription: x\n---\n{scratchpad}\n", "header line 1", "key: value"),
], ids=["no-scratchpad", "unknown-placeholder", "no-description", "misspelt", "no-header", "reserved-name",
        "not-key-value"])
def test_a_broken_prompt_file_names_the_file_and_the_field(tmp_path, content, field, says):
    path = tmp_path / "mine.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DataFileError) as raised:
        read_prompt_file(path)
    message = str(raised.value)
    assert len(message.splitlines()) == 1 and says in message
    assert message.startswith(f"{path}: {field}: " if field else f"{path}: ")


def test_two_prompt_files_with_one_name_are_refused(tmp_path):
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text("name: Mine\ndescription: x\n---\n{scratchpad}\n", encoding="utf-8")
    with pytest.raises(DataFileError, match=r"b\.txt: name: another prompt is named 'Mine'"):
        load_library(tmp_path)
    (tmp_path / "b.txt").unlink()
    assert [p.name for p in load_library(tmp_path)] == ["Package default", "Mine"]
