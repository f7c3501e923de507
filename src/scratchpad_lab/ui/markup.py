"""Inert text: untrusted text escaped so Streamlit shows it literally, never as markup. Short texts go
into markdown (`escape`: labels, alerts, names); a compression card's long text goes into HTML
(`inert_html`, below), so what a person copies from it is exactly the text.

Streamlit-free, so the escaping is unit-tested on its own (tests/test_markup.py) and in the browser.
Every character that is not an ASCII letter or digit, a space or a non-ASCII letter is written as a
numeric character reference (`&#60;` for `<`). CommonMark decodes references to plain text *after*
parsing, and a reference is never markup: `&#42;x&#42;` is "*x*", not emphasis. So no tag, link,
image, code span, math (`$`) or directive (`:red[...]`) can come out of untrusted text. Two plugins
run on the decoded text after parsing (below): GFM's literal autolinks and Streamlit's shortcodes. A
URL or an email address (what the autolink plugin would link) is put in a code span, whose text no
plugin touches and which a copy gives back exactly; a colon that could open a shortcode (`:smile:`,
`:material/home:`) is followed by an invisible word joiner. Nothing else gets one: "OK: http://x"
copies as itself.
"""
from __future__ import annotations

import html
import re
from typing import Iterable, Tuple

# What GFM's literal-autolink plugin links, found on the decoded text (a superset of its own patterns: a URL
# from `http://`, `https://` or `www.` to the next whitespace, and an email address); each such piece goes
# into a code span instead of being escaped.
# Punctuation that ends a sentence after a URL stays out of its code span, as the plugin leaves it out of a link.
_LINKABLE = re.compile(r"(?i)(?:https?://|www\.)\S*?(?=[.,:;!?)\]'\"]*(?:\s|$))|[-.\w+]+@[-\w]+(?:\.[-\w]+)+")
# A colon a Streamlit shortcode could start at: `:smile:`, `:+1:`, `:material/home:`.
_SHORTCODE = re.compile(r":(?=[\w/+-]+:)")
_JOINER = "\u2060"  # an invisible word joiner: the shortcode plugin no longer sees `:name:`


def _escape_char(ch: str) -> str:
    if ch.isascii() and (ch.isalnum() or ch == " "):
        return ch
    if not ch.isascii() and ch.isalnum():
        return ch
    return f"&#{ord(ch)};"


def _escaped(text: str) -> str:
    """Text that is not a URL: every markup character a reference, a joiner after a shortcode's colon."""
    out = []
    for i, ch in enumerate(text):
        out.append(_escape_char(ch))
        if ch == ":" and _SHORTCODE.match(text, i):
            out.append(_JOINER)
    return "".join(out)


def _code_span(text: str) -> str:
    """`text` as a code span: shown literally (CommonMark decodes nothing in it, and no plugin runs on it),
    fenced by one backtick more than its longest run of them."""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def escape(text: str) -> str:
    """One line of untrusted text as inert markdown (a newline in `text` is escaped too); a URL or an email
    address in it is shown as code, exactly as written."""
    out, at = [], 0
    for found in _LINKABLE.finditer(text):
        out.append(_escaped(text[at:found.start()]))
        out.append(_code_span(found.group()))
        at = found.end()
    out.append(_escaped(text[at:]))
    joined = "".join(out)
    # leading spaces could start an indented code block after a blank line: make them non-breaking
    stripped = joined.lstrip(" ")
    return "&#160;" * (len(joined) - len(stripped)) + stripped


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
