"""Inert text: untrusted text escaped so Streamlit shows it literally, never as markup. Short texts go
into markdown (`escape`: labels, alerts, names); a compression card's long text goes into HTML
(`inert_html`, below), so what a person copies from it is exactly the text.

Streamlit-free, so the escaping is unit-tested on its own (tests/test_markup.py) and in the browser.
Every character that is not an ASCII letter or digit, a space or a non-ASCII letter is written as a
numeric character reference (`&#60;` for `<`). CommonMark decodes references to plain text *after*
parsing, and a reference is never markup: `&#42;x&#42;` is "*x*", not emphasis. So no tag, link,
image, autolink (`http&#58;//` and `www&#46;` are not URLs to the parser), code span, math (`$`),
directive (`:red[...]`), emoji or icon shortcode (`:` is broken by a zero-width joiner, below) can
come out of untrusted text.
"""
from __future__ import annotations

import html
import re
from typing import Iterable, Tuple

# Some plugins run on the decoded text after parsing: Streamlit's emoji and icon shortcodes
# (`:smile:`, `:material/home:`) and GFM's literal autolinks (`www.x.org`, `a@b.org`, `http://`). An
# invisible word joiner (U+2060) after every colon and `@`, and between `www` and a dot, stops all of
# them; the text reads the same.
_JOINED = {":": "&#58;\u2060", "@": "&#64;\u2060"}
_WWW = re.compile(r"(?i)(www)(?=\.)")


def _escape_char(ch: str) -> str:
    if ch in _JOINED:
        return _JOINED[ch]
    if ch.isascii() and (ch.isalnum() or ch == " "):
        return ch
    if not ch.isascii() and ch.isalnum():
        return ch
    return f"&#{ord(ch)};"


def escape(text: str) -> str:
    """One line of untrusted text as inert markdown (a newline in `text` is escaped too)."""
    out = "".join(_escape_char(ch) for ch in _WWW.sub("\\1\u2060", text))
    # leading spaces could start an indented code block after a blank line: make them non-breaking
    stripped = out.lstrip(" ")
    return "&#160;" * (len(out) - len(stripped)) + stripped


# ── inert HTML: the merged text of a compression card, and its lost-fact chips ──────────────────

# A card's text is long and people copy it: in markdown it would need a word joiner at every `:`, `@` and
# `www.` (the autolink and shortcode plugins run on the decoded text), and a copy would carry hundreds of
# them. So it is built as HTML instead: every character of the text goes through html.escape (no tag,
# attribute or entity of its own can survive), our fixed tags and inline styles go around the escaped
# pieces, and st.html (no markdown, no autolinks, no shortcodes; sanitized by DOMPurify as well) draws
# it. What is copied is exactly the text. The styles are ours; nothing from the text reaches them.
HTML_STYLES = {
    "plain": "",
    "dropped": "background: rgba(255, 75, 75, 0.12); text-decoration: line-through;",
    "new": "background: rgba(28, 131, 225, 0.12);",
    "fact": "background: rgba(255, 75, 75, 0.12); text-decoration: line-through; font-weight: 700;",
    "bold": "font-weight: 700;",
}
TEXT_BOX = ('<div class="lab-text" style="white-space: pre-wrap; overflow-wrap: anywhere; '
            'font-family: inherit; font-size: 1rem; line-height: 1.6;">{}</div>')
CHIP = ('<span style="display: inline-block; margin: 0 0.25rem 0.2rem 0; padding: 0 0.4rem; border-radius: 0.5rem; '
        'background: rgba(255, 75, 75, 0.12); color: rgb(189, 65, 70); font-size: 0.875rem;">{}</span>')


def inert(text: str) -> str:
    """Untrusted text as HTML text: every markup character escaped, quotes too."""
    return html.escape(text, quote=True)


_EDGES = re.compile(r"^(\s*)(.*?)(\s*)$", re.S)


def inert_html(pieces: Iterable[Tuple[str, str]]) -> str:
    """HTML from (text, style) pieces, each escaped; for st.html. Line breaks stay line breaks (pre-wrap);
    the spaces at the edges of each line stay outside a style, so an indent is never struck through."""
    spans = []
    for text, style in pieces:
        css = HTML_STYLES[style]
        if not css:
            spans.append(inert(text))
            continue
        for k, line in enumerate(text.split("\n")):
            lead, body, trail = _EDGES.match(line).groups()
            spans.append(("\n" if k else "") + inert(lead)
                         + (f'<span style="{css}">{inert(body)}</span>' if body else "") + inert(trail))
    return TEXT_BOX.format("".join(spans))


def chips_html(facts: Iterable[str], lead: str, tail: str) -> str:
    """A line of lost-fact chips for st.html: our words around them (`lead`, `tail`), each fact escaped."""
    return (f'<div style="line-height: 1.9;">{inert(lead)} '
            + "".join(CHIP.format(inert(f)) for f in facts) + f"{inert(tail)}</div>")


def grouped_chips_html(groups: Iterable[Tuple[str, Iterable[str]]], lead: str, tail: str) -> str:
    """Lost-fact chips grouped by kind for st.html: our words (`lead`, each group's label, `tail`) around
    them, every fact escaped; one line per group."""
    lines = "".join(f'<div>{inert(label)} ' + "".join(CHIP.format(inert(f)) for f in facts) + "</div>"
                    for label, facts in groups)
    return f'<div style="line-height: 1.9;">{inert(lead)}{lines}{inert(tail)}</div>'
