"""Lessons are files: each shipped lesson is a TOML file that `scratchpad-lab lessons check` accepts; a copy
with a new title passes; a broken file fails with one line naming the file, the field and what to change
(exit 2); the settings note is made from the settings; and a folder set by SCRATCHPAD_LAB_LESSONS_DIR shows
its lessons on the Lessons page after the shipped ones, a broken file named there without hiding the rest."""
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from scratchpad_lab.cli import main
from scratchpad_lab.engine.run.lesson_runs import LESSONS, LESSONS_DIR, LESSONS_DIR_ENV, MOMENTS, all_lessons, read_lesson
from scratchpad_lab.model.datafile import DataFileError
from scratchpad_lab.ui.markup import escape
from scratchpad_lab.ui.state import LESSON_RUN

SHIPPED = sorted(LESSONS_DIR.glob("*.toml"))
PERIODIC = LESSONS_DIR / "1-periodic.toml"


def _copy(tmp_path: Path, name: str = "my-lesson.toml", source: Path = PERIODIC, **edits: str) -> Path:
    """A copy of a shipped lesson with whole lines replaced: edits map a line's start to its new text."""
    lines = source.read_text(encoding="utf-8").splitlines()
    for start, new in edits.items():
        hits = [i for i, line in enumerate(lines) if line.startswith(start.replace("__", " "))]
        assert hits, start
        lines[hits[0]] = new
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _check(path: Path, capsys, *flags: str):
    code = main(["lessons", "check", str(path), *flags])
    out, err = capsys.readouterr()
    return code, out.strip(), err.strip()


def test_every_shipped_lesson_is_a_file_that_passes_the_check(capsys):
    assert [Path(item.source) for item in LESSONS] == SHIPPED and len(SHIPPED) == 5
    for path in SHIPPED:
        code, out, err = _check(path, capsys)
        assert (code, err) == (0, "") and out.startswith(f"OK: {path}: lesson ") and len(out.splitlines()) == 1


def test_a_copy_with_a_new_title_passes(tmp_path, capsys):
    path = _copy(tmp_path, title='title = "My first lesson"')
    code, out, err = _check(path, capsys)
    assert (code, out, err) == (0, f'OK: {path}: lesson "My first lesson" (support-ticket, 3 pauses)', "")
    assert read_lesson(path).title == "My first lesson"


def test_the_readmes_worked_example_runs_to_its_moments(tmp_path, capsys):
    # docs/lessons.md "Writing a lesson": lesson 1 copied, retitled, every four iterations
    path = _copy(tmp_path, "every-four.toml", title='title = "Every four iterations"',
                 summarize_every="summarize_every = 4")
    code, out, err = _check(path, capsys, "--run")
    assert code == 0 and err == "" and len(out.splitlines()) == 1
    assert out == (f'OK: {path}: lesson "Every four iterations" (support-ticket, 3 pauses); run offline: '
                   "pauses at iterations 4, 5, 8 of 14")


@pytest.mark.parametrize("edits, field, says", [
    ({"title": ""}, "title", "is missing"),
    ({"scenario": 'scenario = "support"'}, "scenario", "support-ticket"),
    ({"summarize_every": "summarize_every = 0"}, "settings.summarize_every", "or off for no periodic trigger"),
    ({"summarize_every": 'summarize_every = "three"'}, "settings.summarize_every", "not a number"),
    ({"extractive_budget_chars": "model = 'gpt-4o'"}, "settings.model", "not a setting a lesson can change"),
    ({'moment = { find = "nth_compression", n = 2': 'moment = { find = "nth_compresion", n = 2 }'},
     "pauses[3].moment", "nth_compression"),
    ({'moment = { find = "nth_compression", n = 1': 'moment = { find = "first_disarmed", n = 1 }'},
     "pauses[1].moment", "takes no arguments"),
    ({'moment = { find = "first_quiet_after"': 'moment = { find = "first_quiet_after" }'},
     "pauses[2].moment", "needs after"),
    ({'moment = { find = "nth_compression", n = 1': 'moment = { find = "nth_compression", n = 1, reason = "often" }'},
     "pauses[1].moment.reason", "'periodic' or 'size'"),
    ({"Look: the scratchpad was far": "Look: ![x](https://example.org/x.png)"}, "pauses[1].callout", "images"),
    ({"[ending]": "[endings]"}, "endings", "not a field this file knows"),
    ({"title": "title = The periodic trigger"}, "", "not valid TOML"),
], ids=["no-title", "bad-scenario", "out-of-range", "not-a-number", "unknown-setting", "unknown-finder",
        "extra-argument", "missing-argument", "bad-reason", "image", "misspelt-table", "syntax"])
def test_a_broken_lesson_fails_with_one_line_naming_the_file_and_the_field(tmp_path, capsys, edits, field, says):
    path = _copy(tmp_path, **edits)
    code, out, err = _check(path, capsys)
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert err.startswith(f"scratchpad-lab: error: {path}: {field}" if field else f"scratchpad-lab: error: {path}: ")
    assert says in err


def test_check_run_names_a_moment_the_run_never_reaches(tmp_path, capsys):
    # every 30 iterations in a 14-iteration run: the file is valid, but its first moment never comes
    path = _copy(tmp_path, summarize_every="summarize_every = 30")
    assert _check(path, capsys)[0] == 0
    code, out, err = _check(path, capsys, "--run")
    assert code == 2 and len(err.splitlines()) == 1
    assert f"{path}: pauses[1].moment: the run never reaches 'the first periodic compression'" in err


def test_the_settings_note_is_made_from_the_settings(tmp_path):
    shipped = read_lesson(PERIODIC)
    assert "Summarize every 3 iterations" in shipped.settings_note and "900 chars" in shipped.settings_note
    assert "summarize_every" not in shipped.settings_note  # the Playground's words, never the field's name
    changed = read_lesson(_copy(tmp_path, summarize_every="summarize_every = 4",
                                extractive_budget_chars="extractive_budget_chars = 1_100"))
    assert "Summarize every 4 iterations" in changed.settings_note and "1,100 chars" in changed.settings_note
    assert "Summarize every 3 iterations" not in changed.settings_note
    assert read_lesson(LESSONS_DIR / "4-loss.toml").settings_note.startswith("The Tight preset.")


def test_every_finder_a_file_can_name_is_documented_in_the_guide():
    readme = (Path(__file__).resolve().parents[1] / "docs" / "lessons.md").read_text(encoding="utf-8")
    assert all(f"`{name}`" in readme for name in MOMENTS), [n for n in MOMENTS if f"`{n}`" not in readme]


def test_lessons_list_shows_the_shipped_then_the_extra_lessons_and_names_a_broken_one(tmp_path, capsys, monkeypatch):
    _copy(tmp_path, "extra.toml", title='title = "An extra lesson"')
    _copy(tmp_path, "broken.toml", scenario='scenario = "nowhere"')
    monkeypatch.setenv(LESSONS_DIR_ENV, str(tmp_path))
    assert main(["lessons", "list"]) == 0
    out, err = capsys.readouterr()
    rows = out.strip().splitlines()
    assert len(rows) == 6 and rows[0].split()[:2] == ["1", "periodic"] and "shipped" in rows[0]
    assert rows[5].split()[:2] == ["6", "extra"] and "An extra lesson" in rows[5]
    assert rows[5].endswith(f"{LESSONS_DIR_ENV}: {tmp_path / 'extra.toml'}")
    assert err.strip() == f"scratchpad-lab: skipped: {tmp_path / 'broken.toml'}: scenario: 'nowhere' is not a " \
                          "scenario; use one of support-ticket, research-digest, log-triage."


def test_a_folder_that_does_not_exist_is_named_and_the_shipped_lessons_stay(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(LESSONS_DIR_ENV, str(tmp_path / "nowhere"))
    assert [item.number for item in all_lessons()] == [1, 2, 3, 4, 5]
    assert main(["lessons", "list"]) == 0
    assert "no such folder" in capsys.readouterr().err


def test_an_edited_extra_file_is_read_again(tmp_path, monkeypatch):
    monkeypatch.setenv(LESSONS_DIR_ENV, str(tmp_path))
    path = _copy(tmp_path, "extra.toml", title='title = "Before"')
    assert all_lessons()[-1].title == "Before"
    _copy(tmp_path, "extra.toml", title='title = "After the edit"')
    assert all_lessons()[-1].title == "After the edit"
    path.unlink()
    assert len(all_lessons()) == 5


def test_read_lesson_raises_the_data_file_error_for_a_missing_file(tmp_path):
    with pytest.raises(DataFileError, match="no such file"):
        read_lesson(tmp_path / "none.toml")


# ── the Lessons page with an operator's folder ─────────────────────────────

def _wait(at, done, rounds=300):
    for _ in range(rounds):
        if done(at):
            return True
        run = at.session_state[LESSON_RUN]
        if run is not None:
            run.join(0.05)
        at.run()
    return done(at)


def test_a_folder_set_by_the_environment_shows_on_the_lessons_page(tmp_path, monkeypatch):
    _copy(tmp_path, "extra.toml", source=LESSONS_DIR / "5-silent.toml", title='title = "Our own failing summarizer"')
    broken = _copy(tmp_path, "broken.toml", summarize_every="summarize_every = 0")
    with pytest.raises(DataFileError) as problem:
        read_lesson(broken)
    assert f"{broken}: settings.summarize_every: " in str(problem.value)
    monkeypatch.setenv(LESSONS_DIR_ENV, str(tmp_path))
    at = AppTest.from_file("../app.py", default_timeout=60)
    at.query_params["lesson"] = "6"
    at.run()
    try:
        assert not at.exception, [e.value for e in at.exception]
        assert at.radio(key="lesson_pick").options == [
            "1. The periodic trigger", "2. The size trigger and re-arming", "3. The agent's blunt trim",
            "4. What a summary loses", "5. A summarizer that fails", "6. Our own failing summarizer"]
        assert at.header[0].value == "Lesson 6: Our own failing summarizer"
        assert any(t.value == f"From this server's lessons folder: {tmp_path / 'extra.toml'}" for t in at.text)
        warnings = [w.value for w in at.warning]
        assert len(warnings) == 1 and warnings[0].endswith(escape(str(problem.value)))  # as text, inert
        # it runs like a shipped lesson: to its first pause
        at.select_slider(key="lesson_pace").set_value(0.0).run()
        at.button(key="lesson_start").click().run()
        assert _wait(at, lambda a: any(b.key == "lesson_continue_0" for b in a.button))
        assert any(m.value.startswith("**Pause 1 of 2: the first empty reply") for m in at.markdown)
        # and a shipped lesson still works beside the broken file
        at.radio(key="lesson_pick").set_value(1).run()
        assert at.header[0].value == "Lesson 1: The periodic trigger" and not at.exception
    finally:
        run = at.session_state[LESSON_RUN] if LESSON_RUN in at.session_state else None
        if run is not None:
            run.stop()
            run.join(10)
