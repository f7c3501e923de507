"""Every link into the app that the README and the guide give (`/?sample=...&step=N`, `&card=N`, `/?lesson=N`,
`/?run=ID...`) opens, in Chromium, what the page says: the page, the run, the iteration, the compression card and
the health chips the guide names beside the link.

The links are read from the pages (any `/?...` in backticks), so a link added to the guide is opened here by
itself. What each must show comes from the link (its page, run and iteration) and from the words around it (a
paragraph, or a table row): a health chip named there in bold (`**fires again at once**`) must be on that card. A
link to a stored run is written with the placeholder `ID` (and `N` for an iteration or a lesson): it is opened with
a stored copy of the support-ticket-tight sample, at its compression of iteration 4 (and lesson 1). The note a link leaves on arrival
never says that it fell back to the default page.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, List, NamedTuple
from urllib.parse import parse_qs, urlsplit

import pytest

from browser_support import IDLE_JS, blank_page, browser, scaled, server, wait_for  # noqa: F401 (fixtures: by name)
from scratchpad_lab.analysis.health import CHIPS

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
LINK = re.compile(r"`(/\?[^`\s]+)`")
PLACEHOLDER_SAMPLE = "support-ticket-tight"  # stored under a new id for the `ID` links
PLACEHOLDER_STEP = "4"                        # a compression of that sample: good for step=N and card=N
PLACEHOLDER_LESSON = "1"                      # for lesson=N
FELL_BACK = ("opened instead", "default page", "has no", "ignored", "not one of")
TIMEOUT_MS = 60_000  # on a quiet machine; every wait is scaled() by the load


class GuideLink(NamedTuple):
    page: str
    line: int
    link: str
    chips: tuple  # health chips the words around the link name, in bold


def _context(text: str, start: int) -> str:
    """The table row the link is in, or else its paragraph."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    line = text[line_start:line_end if line_end >= 0 else None]
    if line.lstrip().startswith("|"):
        return line
    begin = text.rfind("\n\n", 0, start)
    end = text.find("\n\n", start)
    return text[begin + 2 if begin >= 0 else 0:end if end >= 0 else None]


def guide_links() -> List[GuideLink]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in LINK.finditer(text):
            bold = re.findall(r"\*\*([^*]+)\*\*", _context(text, match.start()))
            chips = tuple(name for name in bold if name in CHIPS.values())
            found.append(GuideLink(page.name, text.count("\n", 0, match.start()) + 1, match.group(1), chips))
    return found


LINKS = guide_links()


def distinct_links() -> List[GuideLink]:
    """One per link (a link given twice is opened once), with every place that gives it and every chip named."""
    merged: Dict[str, GuideLink] = {}
    for g in LINKS:
        seen = merged.get(g.link)
        merged[g.link] = g if seen is None else GuideLink(f"{seen.page}:{seen.line}, {g.page}", g.line, g.link,
                                                           tuple(dict.fromkeys(seen.chips + g.chips)))
    return list(merged.values())


def test_the_guide_gives_links_to_a_step_a_card_with_its_chip_a_lesson_and_a_stored_run():
    queries = [parse_qs(urlsplit(g.link).query) for g in LINKS]
    assert any("card" in q for q in queries) and any("step" in q for q in queries)
    assert any("lesson" in q for q in queries) and any("run" in q for q in queries)
    assert any(g.chips for g in LINKS), "no link names the chip its card shows"


@pytest.fixture(scope="module")
def stored_id(lab_store_in_tmp, server):  # noqa: F811 (server: a fixture)
    """The placeholder sample, stored in the store the shared app server reads (the session's: the server was
    started with it, before any test's own store)."""
    from scratchpad_lab.engine.store import Store, forget
    from scratchpad_lab.model.records import load_record

    url = str(lab_store_in_tmp / "lab.db")
    saved = Store(url).save_run(load_record(ROOT / "sample_runs" / f"{PLACEHOLDER_SAMPLE}.json"))
    forget(url)
    return saved.id


def _expected(link: str, stored: str) -> Dict[str, str]:
    query = {k: v[0] for k, v in parse_qs(urlsplit(link).query).items()}
    if query.get("run") == "ID":
        query["run"] = stored
    for key, value in (("step", PLACEHOLDER_STEP), ("card", PLACEHOLDER_STEP), ("lesson", PLACEHOLDER_LESSON)):
        if query.get(key) == "N":
            query[key] = value
    return query


@pytest.mark.parametrize("guide", distinct_links(), ids=lambda g: f"{g.page}:{g.line}:{g.link}")
def test_a_guide_link_opens_what_the_guide_says(guide, blank_page, server, stored_id):  # noqa: F811
    page = blank_page
    query = _expected(guide.link, stored_id)
    url = server + "/?" + "&".join(f"{k}={v}" for k, v in query.items())
    page.goto(url)
    where = f"{guide.page}:{guide.line} {guide.link}"
    if "lesson" in query:
        page.get_by_role("heading", name=f"Lesson {query['lesson']}:", exact=False).wait_for(timeout=scaled(TIMEOUT_MS))
    else:
        page.get_by_role("heading", name="Scratchpad Lab · Runs").wait_for(timeout=scaled(TIMEOUT_MS))
        at = query.get("card") or query.get("step")
        shown = rf"^Showing iteration {at} of \d+\.$" if at else r"^Showing the whole run \("
        page.get_by_text(re.compile(shown)).wait_for(timeout=scaled(TIMEOUT_MS))
    page.wait_for_function(IDLE_JS, timeout=scaled(TIMEOUT_MS))
    notes = page.locator('[data-testid="stAlert"]').all_inner_texts()
    assert not [n for n in notes if any(words in n for words in FELL_BACK)], (where, notes)
    if "lesson" in query:
        return
    opened = page.locator('[data-testid="stSidebar"] [data-testid="stCode"]').all_inner_texts()
    which = f"run={query['run']}" if "run" in query else f"sample={query['sample']}"
    assert any(which in box for box in opened), (where, opened)  # the sidebar's link to what is on screen: that run
    if "card" in query:
        _the_card_and_its_chips(page, int(query["card"]), guide.chips, notes, where)
    else:
        assert not guide.chips, f"{where}: the guide names a chip for a link that opens no card"


# The step view's card (the compression on screen at that step) is in the window, and the first card below the chart
# has that compression's heading and every chip asked for (args: [heading, chips]).
CARD_JS = """([heading, chips]) => {
  const step = document.querySelector('.st-key-runs_view_newest');
  const box = step?.getBoundingClientRect();
  const inWindow = !!box && box.top >= 0 && box.top < innerHeight && step.innerText.includes(heading);
  const card = document.querySelector('.st-key-runs_view_card_0');
  const badges = card ? [...card.querySelectorAll('.stMarkdownBadge')].map(b => b.innerText.trim()) : [];
  return inWindow && !!card && card.innerText.includes(heading) && chips.every(c => badges.includes(c));
}"""
CARD_STATE_JS = """() => ({
  step: document.querySelector('.st-key-runs_view_newest')?.innerText?.slice(0, 80) ?? null,
  step_top: document.querySelector('.st-key-runs_view_newest')?.getBoundingClientRect()?.top ?? null,
  window_height: innerHeight,
  first_card: document.querySelector('.st-key-runs_view_card_0')?.innerText?.slice(0, 80) ?? null,
  its_chips: [...(document.querySelector('.st-key-runs_view_card_0')?.querySelectorAll('.stMarkdownBadge') ?? [])]
    .map(b => b.innerText.trim()),
})"""


def _the_card_and_its_chips(page, iteration: int, chips: tuple, notes: list, where: str) -> None:
    """On arrival the window shows that compression (the step view's newest card, which knows the run only up to
    that step), and the note says where its card with the whole run's health checks is: the first card below the
    chart, which must carry the chips the guide names."""
    heading = f"Compression at iteration {iteration}"
    assert any(f"The compression card of iteration {iteration} is the first card below the chart." in n
               for n in notes), (where, notes)
    wait_for(page, CARD_JS, f"{where}: the window shows {heading!r} and the first card below the chart has it with "
             f"the chips {list(chips)}", TIMEOUT_MS, arg=[heading, list(chips)], state_js=CARD_STATE_JS)
