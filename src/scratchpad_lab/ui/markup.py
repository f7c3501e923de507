"""Inert markdown: untrusted text escaped so Streamlit's st.markdown shows it literally, never as markup.

Streamlit-free, so the escaping is unit-tested on its own (tests/test_markup.py) and in the browser.
Every character that is not an ASCII letter or digit, a space or a non-ASCII letter is written as a
numeric character reference (`&#60;` for `<`). CommonMark decodes references to plain text *after*
parsing, and a reference is never markup: `&#42;x&#42;` is "*x*", not emphasis. So no tag, link,
image, autolink (`http&#58;//` and `www&#46;` are not URLs to the parser), code span, math (`$`),
directive (`:red[...]`), emoji or icon shortcode (`:` is broken by a zero-width joiner, below) can
come out of untrusted text. Styling is added only around escaped pieces, with our own fixed syntax
(`:red-background[...]`, `~~...~~`, `**...**`), and never across a line break, so a blank line in the
text cannot split one of our spans.
"""
from __future__ import annotations

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


STYLES = {
    "plain": "{}",
    "dropped": ":red-background[~~{}~~]",
    "new": ":blue-background[{}]",
    "fact": ":red-background[**~~{}~~**]",
    "bold": "**{}**",
}


def styled(text: str, style: str = "plain") -> str:
    """Untrusted text, escaped, in one of our styles. Whitespace at the edges stays outside the span
    (`~~` and `**` do not open or close next to a space); line breaks become markdown hard breaks."""
    lines = text.split("\n")
    out = []
    for line in lines:
        body = line.strip(" \t\r")
        if not body:
            out.append(escape(line.replace("\t", "    ").replace("\r", "")))
            continue
        start = line.index(body)
        lead, trail = line[:start], line[start + len(body):]
        out.append(escape(lead.replace("\t", "    ")) + STYLES[style].format(escape(body))
                   + (" " if trail else ""))
    return LINE_BREAK.join(out)


# A backslash before the newline is a hard line break; the zero-width space keeps an empty line from
# ending the paragraph (a blank line would also end a span that was open across it).
LINE_BREAK = "\\\n\u200b"


def compose(pieces: Iterable[Tuple[str, str]]) -> str:
    """Markdown from (text, style) pieces, each escaped; the result is safe for st.markdown."""
    return "".join(styled(text, style) for text, style in pieces)
