"""Links that open a moment: parsing (hostile input included) and the app opened by a link."""
import pytest
from streamlit.testing.v1 import AppTest

from conftest import APP
from scratchpad_lab.model.links import base_url, check_iteration, link_query, parse_link

SAMPLES = ["support-ticket-tight.json", "log-triage-defaults.json"]
LESSONS = [1, 2, 3, 4, 5]
XSS = '<img src=x onerror="alert(1)">'


def _parse(**params):
    return parse_link(params, SAMPLES, LESSONS)


def test_a_sample_and_step_open_the_runs_page_at_that_step():
    t = _parse(sample="support-ticket-tight", step="6")
    assert (t.page, t.sample, t.step, t.notes) == ("runs", "support-ticket-tight.json", 6, [])


def test_a_lesson_number_opens_that_lesson():
    t = _parse(lesson="2")
    assert (t.page, t.lesson, t.notes) == ("lessons", 2, [])


@pytest.mark.parametrize("params", [
    {"sample": XSS}, {"sample": "../../etc/passwd"}, {"sample": "support-ticket-tight/../x"},
    {"sample": "SUPPORT-TICKET-TIGHT"}, {"sample": "x" * 5000}, {"sample": ["support-ticket-tight", "log-triage-defaults"]},
    {"sample": ""}, {"lesson": "0"}, {"lesson": "99"}, {"lesson": "-1"}, {"lesson": "2.5"}, {"lesson": XSS},
    {"lesson": "٢"}, {"step": "6"}, {"card": "4"},
])
def test_malformed_or_unknown_values_open_the_default_page_with_a_note_that_never_quotes_them(params):
    t = _parse(**params)
    assert t.page is None and t.notes
    for note in t.notes:
        assert "<" not in note and "onerror" not in note and "passwd" not in note and "x" * 50 not in note


@pytest.mark.parametrize("step", ["abc", "-3", "0", "6e3", "1" * 20, XSS, "6; drop"])
def test_a_bad_step_is_dropped_with_a_note_and_the_sample_still_opens(step):
    t = _parse(sample="support-ticket-tight", step=step)
    assert t.page == "runs" and t.step is None and len(t.notes) == 1 and "<" not in t.notes[0]


def test_unknown_parameter_names_are_ignored_without_quoting_them():
    t = parse_link({XSS: "1", "sample": "support-ticket-tight"}, SAMPLES, LESSONS)
    assert t.page == "runs" and t.notes == ["The link had parameters this app does not use; they were ignored."]


def test_a_step_or_card_the_run_does_not_have_is_dropped():
    t = _parse(sample="support-ticket-tight", step="99", card="3")
    check_iteration(t, list(range(1, 15)), [2, 4, 5])
    assert t.step is None and t.card is None and len(t.notes) == 2
    t = _parse(sample="support-ticket-tight", card="4")
    check_iteration(t, list(range(1, 15)), [2, 4, 5])
    assert (t.card, t.step) == (4, 4)


def test_link_query_round_trips_through_the_parser():
    for query in (link_query(sample="support-ticket-tight.json", step=6), link_query(lesson=3)):
        params = dict(part.split("=") for part in query[1:].split("&"))
        t = _parse(**params)
        assert t.page and not t.notes
    assert link_query() == ""
    assert base_url("http://127.0.0.1:8501/runs?sample=x") == "http://127.0.0.1:8501/"
    assert base_url("javascript:alert(1)") == "http://localhost:8501/"


# ── the app opened by a link ──────────────────────────────────────────────

def _app(**params):
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def _all_text(at):
    parts = [str(getattr(e, "value", "")) for coll in (at.markdown, at.text, at.info, at.caption, at.title,
                                                      at.header, at.code, at.error) for e in coll]
    return "\n".join(parts)


def test_app_opened_at_a_sample_step_shows_that_step_and_its_link():
    at = _app(sample="support-ticket-tight", step="6")
    assert not at.exception
    assert at.title[0].value == "Scratchpad Lab · Runs"
    assert at.slider(key="runs_step").value == 6
    assert any(t.value == "Showing iteration 6 of 14." for t in at.text)
    assert any(t.value.startswith("Scratchpad sent at iteration 6:") for t in at.text)
    # the trigger panel says why, for the step on screen (the tight sample compresses at every even iteration)
    assert any(t.value.startswith("Why: Iteration 6 is a multiple of summarize_every = 2, so the periodic trigger "
                                  "fired") for t in at.text)
    cards = [m.value for m in at.markdown if m.value.startswith("**Compression at iteration")]
    assert cards[0].startswith("**Compression at iteration 6** ")
    assert any(t.value.startswith("Iteration 6 is a multiple of summarize_every = 2") for t in at.text)  # on the card
    assert at.sidebar.code[0].value.endswith("/?sample=support-ticket-tight&step=6")


def test_app_opened_at_a_card_shows_that_compression_first():
    at = _app(sample="support-ticket-tight", card="4")
    assert at.slider(key="runs_step").value == 4
    assert "The compression card of iteration 4 is the first card below the chart." in [i.value for i in at.info]
    cards = [m.value for m in at.markdown if m.value.startswith("**Compression at iteration")]
    assert cards[0].startswith("**Compression at iteration 4** ")


def test_app_opened_at_a_lesson_shows_that_lesson():
    at = _app(lesson="4")
    assert at.title[0].value == "Scratchpad Lab · Lessons"
    assert at.header[0].value == "Lesson 4: What a summary loses"
    assert at.sidebar.code[0].value.endswith("/?lesson=4")


@pytest.mark.parametrize("params", [{"sample": XSS, "step": "6"}, {"lesson": XSS}, {XSS: XSS},
                                    {"sample": "support-ticket-tight", "step": XSS}])
def test_hostile_links_open_a_page_with_a_short_note_and_never_echo_the_value(params):
    at = _app(**params)
    assert not at.exception
    assert at.info and all("<" not in i.value for i in at.info)
    assert "onerror" not in _all_text(at)
    from scratchpad_lab.ui.view import PAGE_CSS

    # nothing raw went into HTML (the playground's own fixed layout style is the only HTML)
    assert not [h for h in at.get("html") if h.proto.body != PAGE_CSS]


# ── links to a stored run (issue 24) ──────────────────────────────────────

RUN_ID = "Zq3x_9-AbCdEfGhIjKlMnO"


def test_a_stored_runs_id_and_step_open_the_runs_page_and_round_trip_through_link_query():
    t = _parse(run=RUN_ID, step="6")
    assert (t.page, t.run, t.step, t.sample, t.notes) == ("runs", RUN_ID, 6, None, [])
    t = _parse(run=RUN_ID, card="4")
    assert (t.run, t.card) == (RUN_ID, 4)
    assert link_query(run=RUN_ID, step=6) == f"?run={RUN_ID}&step=6"
    assert link_query(run=RUN_ID, card=4) == f"?run={RUN_ID}&card=4"
    assert link_query(run=XSS) == ""  # only an id we made goes into a link


@pytest.mark.parametrize("run", [XSS, "short", "x" * 65, "../../../etc/passwd", "a b c d e f g h i j k l", ""])
def test_a_run_id_that_is_not_one_opens_the_default_page_with_a_note_that_never_quotes_it(run):
    t = _parse(run=run, step="3")
    assert t.page is None and t.run is None
    assert t.notes == ["The link's run is not a stored run's id (it may have been cut short); the default page "
                       "opened instead."]


def test_a_link_with_a_run_and_a_sample_opens_the_run_and_says_so():
    t = _parse(run=RUN_ID, sample="support-ticket-tight")
    assert (t.page, t.run, t.sample) == ("runs", RUN_ID, None) and "not both" in t.notes[0]
