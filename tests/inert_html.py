"""What a card's HTML (ui/markup.inert_html, chips_html) may hold, read the way a browser reads it: our own
div and span elements with our fixed styles, and text. Shared by the markup unit tests and the AppTest
checks that untrusted text reaching an st.html element stays text. Also how markdown from ui/markup.escape
reads: code spans (a URL, an email address) are literal text, the rest is references."""
from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import List

from scratchpad_lab.ui.markup import HTML_STYLES


class Elements(HTMLParser):
    """The tags, attributes and text of an HTML fragment."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: List[str] = []
        self.attributes: List[tuple] = []
        self.text: List[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes += attrs

    def handle_data(self, data):
        self.text.append(data)

    def handle_comment(self, data):
        self.tags.append("comment")


def read(fragment: str) -> Elements:
    parsed = Elements()
    parsed.feed(fragment)
    parsed.close()
    return parsed


def assert_inert(fragment: str) -> str:
    """Fail unless the fragment is only our elements (div, span) with our own attributes; return its text."""
    parsed = read(fragment)
    assert set(parsed.tags) <= {"div", "span"}, parsed.tags
    for name, value in parsed.attributes:
        assert name in ("style", "class"), (name, value)
        if name == "class":
            assert value == "lab-text", value
    return "".join(parsed.text)


def fixed_styles() -> set:
    return set(HTML_STYLES.values())


def html_texts(at) -> List[str]:
    """The text of every st.html element of an AppTest page that is not one of our fixed styles or scripts,
    each checked to be our inert elements around text only: untrusted text there is text."""
    from scratchpad_lab.ui.presenter import PRESENTER_CSS
    from scratchpad_lab.ui.runs_page import SCROLL_TO_STEP
    from scratchpad_lab.ui.style import PAGE_CSS
    from scratchpad_lab.ui.warm import HIDE_CSS
    fixed = {PAGE_CSS, PRESENTER_CSS, SCROLL_TO_STEP, HIDE_CSS}
    return [assert_inert(node.proto.body) for node in at.get("html") if node.proto.body not in fixed]


# A code span as CommonMark reads it: a run of backticks, the text, the same run (one space each side is
# stripped when both are there); nothing in it is markup.
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.*?)(?<!`)\1(?!`)")


def outside_code_spans(markdown: str) -> str:
    """The markdown with its code spans taken out: what a markdown parser still acts on."""
    return CODE_SPAN.sub("", markdown)
