"""Untrusted text through markup stays text. In markdown (`escape`, short labels): decoding the references
gives back exactly the input (less the invisible joiners), and nothing a markdown parser acts on survives
raw. In a card's HTML (`inert_html`, `chips_html`): the only elements are our own, their text is exactly the
input (no joiner, no zero-width space: a copy is the text), and no attribute but our fixed style."""
from __future__ import annotations

import html
import re

from hypothesis import example, given, settings, strategies as st

from inert_html import CODE_SPAN, outside_code_spans, read
from scratchpad_lab.ui.markup import HTML_STYLES, chips_html, escape, inert_html

PAYLOADS = [
    "<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "![x](http://evil.invalid/a.png)",
    "[link](http://evil.invalid)", "http://evil.invalid/b", "www.evil.invalid", "mail a@evil.invalid",
    ":red[INJECT]", ":material/home: :smile:", "`code` ``x``", "$x^2$ $$y$$", "**bold** _it_ ~~s~~",
    "# heading", "    indented", "1. list", "> quote", "| a | b |", "<http://evil.invalid/c>", "&lt;b&gt; &amp;",
    "\\*esc\\*", "]] ~~ ** [[", ":red-background[x]", "<!-- c -->", "javascript:alert(1)",
]
JOINERS = "\u2060"
# characters markdown, GFM, Streamlit's directives and math act on, raw in the output = a hole
ACTIVE = set("<>[]()!`$*_~:&#\\|@.=/-+{}\"'")


def _literal(span: str) -> str:
    return span[1:-1] if len(span) > 1 and span[0] == span[-1] == " " else span


def _decoded(markdown: str) -> str:
    # what a reader sees: code spans' text as it is, references decoded elsewhere (the escape's leading
    # `&#160;` becomes U+00A0), joiners gone
    out, at = [], 0
    for m in CODE_SPAN.finditer(markdown):
        out.append(html.unescape(markdown[at:m.start()]).replace(JOINERS, ""))
        out.append(_literal(m.group(2)))
        at = m.end()
    out.append(html.unescape(markdown[at:]).replace(JOINERS, ""))
    return "".join(out)


def test_every_payload_round_trips_and_keeps_no_active_character_raw():
    for payload in PAYLOADS:
        out = escape(payload)
        lead = len(payload) - len(payload.lstrip(" "))
        assert _decoded(out) == "\xa0" * lead + payload[lead:], payload
        raw = re.sub(r"&#\d+;", "", outside_code_spans(out))
        assert not (set(raw) & ACTIVE), (payload, raw)


def test_a_url_or_email_is_a_code_span_and_only_a_shortcodes_colon_gets_a_joiner():
    assert escape("OK: tiny answered at http://127.0.0.1:9/v1") == "OK&#58; tiny answered at `http://127.0.0.1:9/v1`"
    assert escape("www.evil.invalid/x") == "`www.evil.invalid/x`"
    assert escape("mail a@b.org") == "mail `a@b.org`"
    assert escape("Cannot reach http://h:9/v1. Check it") == "Cannot reach `http://h:9/v1`&#46; Check it"
    assert escape("HTTPS://x`y`") == "`` HTTPS://x`y` ``"  # a backtick inside: a longer fence
    assert escape(":smile: :material/home:") == "&#58;\u2060smile&#58; &#58;\u2060material&#47;home&#58;"
    assert JOINERS not in escape("Cannot reach http://127.0.0.1:9/v1: check the base URL; 12: a, b")


_read = read


OUR_STYLES = set(HTML_STYLES.values())


def test_a_cards_html_is_our_elements_around_exactly_the_text():
    for payload in PAYLOADS + ["line one\n\n  indented two\nwww.x.org a@b.org http://y :smile:"]:
        parsed = _read(inert_html([(payload, "dropped"), (payload, "plain"), (payload, "new")]))
        assert set(parsed.tags) <= {"div", "span"}, (payload, parsed.tags)
        assert all(name == "class" and value == "lab-text" or name == "style" for name, value in parsed.attributes)
        spans = [value for name, value in parsed.attributes if name == "style"][1:]  # the box's own style first
        assert set(spans) <= OUR_STYLES, spans
        assert "".join(parsed.text) == payload * 3, payload  # nothing added: no joiner, no zero-width space


def test_chips_are_our_spans_around_each_fact_as_it_is():
    facts = ["a.rao.shop@example.in", "<img src=x onerror=alert(1)>", "www.evil.invalid", "http://x"]
    parsed = _read(chips_html(facts, "Lost 4 of 9 facts:", " (all bold in the text)"))
    assert set(parsed.tags) <= {"div", "span"} and parsed.tags.count("span") == len(facts)
    assert "".join(parsed.text) == "Lost 4 of 9 facts: " + "".join(facts) + " (all bold in the text)"


@settings(max_examples=300, deadline=None)
# Cn (unassigned code points, such as the noncharacter U+FFFE) left out: HTML's own decoder, which the
# markdown check reads back with, drops a reference to a noncharacter (html.unescape("&#65534;") == "").
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Cn")), max_size=80))
@example("&#160;")  # a text that is itself a reference reads back as that text
def test_any_text_in_a_card_reads_back_as_itself_and_makes_no_element(text):
    parsed = _read(inert_html([(text, "dropped"), (text, "new"), (text, "plain"), (text, "fact")]))
    assert set(parsed.tags) <= {"div", "span"}, parsed.tags
    assert "".join(parsed.text) == text * 4
    flat = text.replace("\n", " ")
    lead = len(flat) - len(flat.lstrip(" "))  # in markdown, leading spaces come back as no-break spaces
    assert _decoded(escape(flat)) == ("\xa0" * lead + flat[lead:]).replace(JOINERS, "")
