"""Issue 30 item 9: the CLI's details read right in a terminal. Its messages name a flag or a variable (not a
page's field), `run --preset`, `strategies` with no --strategy, one JSON document for every --json, `runs
export` saying what it wrote, a per-call `--timeout`, and a refused database login that reads as such."""
import json
import os

import pytest

from scratchpad_lab.cli import _overrides, build_parser, main
from scratchpad_lab.engine.strategies.registry import names
from scratchpad_lab.model.presets import presets
from scratchpad_lab.model.records import load_record

pytestmark = pytest.mark.usefixtures("no_network")


def test_run_preset_fills_in_the_presets_settings_and_a_flag_given_too_wins(tmp_path, capsys):
    tight = next(p for p in presets().values() if p.name == "Tight")
    assert main(["run", "--scenario", "log-triage", "--preset", "tight", "--out", str(tmp_path / "a.json")]) in (0, 1)
    config = load_record(tmp_path / "a.json").config
    assert (config.summarize_every, config.max_scratchpad_chars, config.summarizer.budget_chars) == (
        tight.settings["summarize_every"], tight.settings["max_scratchpad_chars"],
        tight.settings["extractive_budget_chars"])
    assert main(["run", "--scenario", "log-triage", "--preset", "Tight", "--summarize-every", "4",
                 "--out", str(tmp_path / "b.json")]) in (0, 1)
    assert load_record(tmp_path / "b.json").config.summarize_every == 4
    capsys.readouterr()
    assert main(["run", "--preset", "nope"]) == 2
    err = capsys.readouterr().err
    assert "no preset 'nope'" in err and "'Size only'" in err


def test_strategies_without_a_strategy_runs_every_registered_one_and_its_help_says_so(capsys):
    with pytest.raises(SystemExit):
        main(["strategies", "--help"])
    assert "none given: every registered strategy" in " ".join(capsys.readouterr().out.split())
    assert main(["strategies", "sample_runs/support-ticket-tight.json", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    # every registered strategy but the recording's own compaction, which a run without one does not carry
    assert [r["strategy"] for r in rows] == [n for n in names() if n != "recorded-compaction"]


def test_runs_list_json_is_one_json_document_and_export_says_what_it_wrote(lab_db, tmp_path, capsys):
    for every in ("2", "3"):
        assert main(["run", "--scenario", "log-triage", "--summarize-every", every, "--save"]) == 0
    capsys.readouterr()
    assert main(["runs", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)  # one document, not JSON Lines
    assert isinstance(listed, list) and len(listed) == 2
    out_file = tmp_path / "exported.json"
    assert main(["runs", "export", listed[0]["id"], "--out", str(out_file)]) == 0
    out, err = capsys.readouterr()
    assert out == "" and f"wrote run {listed[0]['id']} to {out_file}" in err
    assert f"{out_file.stat().st_size:,} bytes" in err


def test_timeout_sets_each_endpoints_per_call_limit_within_the_pages_bounds(capsys):
    args = build_parser("run").parse_args(["run", "--agent-model", "m", "--agent-base-url", "http://127.0.0.1:9/v1",
                                           "--summarizer-model", "s", "--timeout", "300"])
    got = _overrides(args)
    assert got["agent_endpoint"].timeout_s == got["summarizer_endpoint"].timeout_s == 300
    assert main(["run", "--agent-model", "m", "--timeout", "601"]) == 2
    assert "timeout" in capsys.readouterr().err.lower()
    assert main(["run", "--timeout", "30"]) == 2  # no endpoint: nothing it could apply to
    assert "--timeout is for endpoint calls" in capsys.readouterr().err


def test_a_key_refused_for_a_url_tells_a_terminal_user_which_flag_to_use(capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-sent")
    args = build_parser("run").parse_args(["run", "--summarizer-model", "s",
                                           "--summarizer-base-url", "http://127.0.0.1:9/v1", "--api-key-env",
                                           "OPENAI_API_KEY"])
    from scratchpad_lab.engine.tasks import cli_keys
    from scratchpad_lab.model.config import RunConfig
    cli_keys(RunConfig.build(**_overrides(args)), vars(args))
    err = capsys.readouterr().err
    assert "Type a key" not in err and "--api-key-env NAME" in err and "--send-key-to-custom-url" in err


def test_a_store_message_in_a_terminal_says_no_page_words(capsys, monkeypatch):
    monkeypatch.setenv("SCRATCHPAD_LAB_DB", "postgresql+psycopg://nobody:x@127.0.0.1:9/none")  # port 9: refused
    assert main(["runs", "list"]) == 2
    err = capsys.readouterr().err
    assert "cannot be reached" in err and "What is on screen" not in err and "SCRATCHPAD_LAB_DB" in err


def test_a_wrong_database_password_reads_as_a_refused_login_not_unreachable(capsys, monkeypatch):
    admin = os.environ.get("SCRATCHPAD_LAB_TEST_PG")
    if not admin:
        pytest.skip("SCRATCHPAD_LAB_TEST_PG is not set: this test needs a running PostgreSQL (bash .ci/run sets it)")
    from sqlalchemy.engine import make_url
    wrong = make_url(admin).set(password="certainly-wrong").render_as_string(hide_password=False)
    monkeypatch.setenv("SCRATCHPAD_LAB_DB", wrong)
    assert main(["runs", "list"]) == 2
    err = capsys.readouterr().err
    assert "refused the login" in err and "cannot be reached" not in err and "certainly-wrong" not in err
    assert "SCRATCHPAD_LAB_DB" in err
