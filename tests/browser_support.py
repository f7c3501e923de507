"""Shared by the browser tests: `streamlit run app.py` on a free localhost port, and Debian's chromium
driven by Python Playwright (executable_path=/usr/bin/chromium; never `playwright install`).
Modules import the fixtures they use (`from browser_support import server, browser, page`)."""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Dict, Optional, Tuple

import pytest

from machine_load import MAX_PATIENCE, patience  # noqa: F401 (the browser tests take them from here too)

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "test-artifacts"
SERVER_START_TIMEOUT_S = 40.0


def scaled(timeout_ms: float) -> float:
    return timeout_ms * patience()

if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) to run the "
                "browser tests; never `playwright install`", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="the browser tests need Python Playwright")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/_stcore/health", timeout=1) as reply:
            return reply.status == 200
    except OSError:
        return False


def stop_server(proc: subprocess.Popen) -> None:
    """End a server started for a test or a bench: politely, then for sure."""
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def start_app(log_path: Path, env_changes: Optional[Dict[str, Optional[str]]] = None) -> Tuple[subprocess.Popen, str]:
    """`streamlit run app.py` on a free localhost port with the environment changed by `env_changes` (None
    removes a variable); returns (process, URL) once it answers. The caller stops it (stop_server)."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "SCRATCHPAD_LAB_SAMPLES"}
    for key, value in (env_changes or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.port", str(port), "--server.address", "127.0.0.1",
             "--browser.gatherUsageStats", "false"],
            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S * patience()
    while not healthy(url):
        if proc.poll() is not None or time.monotonic() > deadline:
            stop_server(proc)
            pytest.fail(f"streamlit did not start (exit code {proc.poll()}):\n"
                        + log_path.read_text(errors="replace")[-3000:])
        threading.Event().wait(0.1)
    return proc, url


_SHARED: Dict[str, object] = {}  # the one app server and the one Chromium of a test session, started on first use


@pytest.fixture(scope="module")
def server(tmp_path_factory, request):
    """`streamlit run app.py` on a free localhost port, started once for every browser test file (each test
    opens a browser context of its own, so no test sees another's session) and stopped at the session's end;
    started again if it died."""
    proc = _SHARED.get("server")
    if proc is None or proc.poll() is not None:
        # the built-in model's replies capped low for the tests that use it (an operator's setting)
        proc, url = start_app(tmp_path_factory.mktemp("streamlit") / "server.log",
                              {"SCRATCHPAD_LAB_BUILTIN_MAX_TOKENS": "8"})
        _SHARED.update(server=proc, url=url)
        request.config.add_cleanup(lambda: stop_server(proc))
    yield _SHARED["url"]


@pytest.fixture(scope="module")
def browser(request):
    """One headless Chromium for the session (each test makes its own context in it)."""
    if "browser" not in _SHARED:
        pw = sync_api.sync_playwright().start()
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        _SHARED.update(browser=chromium)

        def close() -> None:
            chromium.close()
            pw.stop()
        request.config.add_cleanup(close)
    yield _SHARED["browser"]


@contextlib.contextmanager
def _tab(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(scaled(20_000))
    try:
        yield page
    finally:
        context.close()


@pytest.fixture
def blank_page(browser, server):
    """A tab of its own (a browser context: its own session and cookie) that has opened nothing yet, for a test
    whose first step is a link of its own (a page's path, a query)."""
    with _tab(browser) as page:
        yield page


def _open_playground(page, server: str) -> None:
    page.goto(server)
    page.get_by_role("button", name="Run", exact=True).wait_for()


@pytest.fixture
def page(browser, server):
    """A tab of its own with the Playground open."""
    with _tab(browser) as page:
        _open_playground(page, server)
        yield page


@pytest.fixture
def watched(browser, server):
    """(a tab with the Playground open and settled, the errors its browser reports from the first request on)."""
    with _tab(browser) as page:
        errors = ScriptErrors(page)
        _open_playground(page, server)
        page.wait_for_function(IDLE_JS)
        yield page, errors


# The script is not running, no element is left over from an earlier run (data-stale) or still a
# placeholder (stSkeleton), and the "Running..." status widget is gone.
IDLE_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  return app !== null && app.getAttribute('data-test-script-state') === 'notRunning'
    && document.querySelectorAll('[data-stale="true"]').length === 0
    && document.querySelector('[data-testid="stSkeleton"]') === null
    && document.querySelector('[data-testid="stStatusWidget"]') === null;
}"""


# Counts the page's script runs that end from now on (stApp's data-test-script-state leaves "running"), so a
# step can wait until the rerun a widget change or an action caused is over. Each change is read from its own
# mutation record (its old value), not from the attribute when the observer is called: a loaded page can
# deliver "running" and "notRunning" in one call, and reading the attribute then saw no run at all.
COUNT_RERUNS_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (window.__labObserver) window.__labObserver.disconnect();
  window.__labReruns = 0;
  window.__labObserver = new MutationObserver(records => {
    for (const r of records) if (r.oldValue === 'running') window.__labReruns += 1;
  });
  window.__labObserver.observe(app, {attributes: true, attributeOldValue: true,
                                     attributeFilter: ['data-test-script-state']});
}"""


# The value of the select labelled `label` starts with `title` (args: [label, title]).
PICKED_JS = """([label, title]) => document.querySelector(`input[role="combobox"][aria-label="${label}"]`)
  ?.value.startsWith(title) ?? false"""
UPLOAD_JOB_TIMEOUT_MS = 120_000


def upload_trace(page, trace_file: Path, picker: str, title: str, timeout: int = UPLOAD_JOB_TIMEOUT_MS) -> None:
    """Upload `trace_file` in the page's "Upload a run record or a trace" expander. A trace is replayed once
    with the package defaults as a job (its progress shows under the uploader, between runs of the script,
    so the page looks idle while it goes): wait until the job has ended and the page has opened the upload
    by itself in the select `picker` (its title starts with `title`), then until the page settles."""
    expander = page.locator('[data-testid="stExpander"]').filter(has_text="Upload a run record or a trace")
    expander.locator("summary").click()
    expander.locator('[data-testid="stFileUploaderDropzone"]').wait_for(state="visible")
    expander.locator("input[type=file]").set_input_files(str(trace_file))
    try:
        page.wait_for_function(PICKED_JS, arg=[picker, title], timeout=scaled(timeout))
        page.wait_for_function(IDLE_JS, timeout=scaled(timeout))
    except sync_api.TimeoutError:
        state = page.evaluate("""(label) => ({
          picked: document.querySelector(`input[role="combobox"][aria-label="${label}"]`)?.value ?? null,
          progress: document.querySelectorAll('[data-testid="stProgress"]').length,
          errors: [...document.querySelectorAll('[data-testid="stAlertContentError"]')].map(e => e.innerText.slice(0, 300)),
          exceptions: [...document.querySelectorAll('[data-testid="stException"]')].map(e => e.innerText.slice(0, 300)),
        })""", picker)
        raise AssertionError(f"the uploaded trace was not opened as {title!r} in {picker!r}: {state}") from None


# The text of a metric's value, found by its label; null when the page does not show that metric.
METRIC_JS = """(label) => {
  for (const m of document.querySelectorAll('[data-testid="stMetric"]')) {
    const l = m.querySelector('[data-testid="stMetricLabel"]');
    const v = m.querySelector('[data-testid="stMetricValue"]');
    if (l && v && l.innerText.trim() === label) return v.innerText.trim();
  }
  return null;
}"""


# ── what is drawn, and what the browser complained about (the acceptance suite) ──────────────

# Every Vega chart on the page (st.altair_chart draws stVegaLiteChart): its box, and whether it drew:
# the data marks of an svg (a Vega mark group with role-mark: not an axis, a legend or a title), or the
# ink of a canvas (pixels that are not the canvas's own background). A chart whose spec Vega refused
# has neither, however tall its empty box. The frame's hidden no-data chart, which loads the browser's chart
# library with the first page, is not one of the page's charts.
CHARTS_JS = """() => [...document.querySelectorAll(
    '[data-testid="stVegaLiteChart"], [data-testid="stArrowVegaLiteChart"]')]
    .filter(chart => !chart.closest('.st-key-warm_chart'))  // the frame's hidden chart of no data (ui/warm.py)
    .map((chart, index) => {
  const box = chart.getBoundingClientRect();
  let marks = 0;
  const texts = [];  // the text marks' words: a heatmap's numbers, a cap's label
  for (const group of chart.querySelectorAll('svg g.role-mark')) {
    for (const m of group.children) {
      if (m.tagName === 'text') {
        if (m.textContent.trim() !== '') { marks++; texts.push(m.textContent.trim()); }
      } else if (m.getAttribute('d') || m.tagName === 'rect') marks++;
    }
  }
  let ink = 0;
  for (const canvas of chart.querySelectorAll('canvas')) {
    try {
      const ctx = canvas.getContext('2d');
      const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
      const [r0, g0, b0, a0] = [data[0], data[1], data[2], data[3]];
      for (let i = 0; i < data.length; i += 4) {
        if (data[i] !== r0 || data[i + 1] !== g0 || data[i + 2] !== b0 || data[i + 3] !== a0) ink++;
      }
    } catch (e) { /* a canvas without a 2d context has no ink to count */ }
  }
  // a legend drawn past the chart's right edge is cut off: how far (px), 0 when it fits
  let legendCut = 0;
  for (const legend of chart.querySelectorAll('svg g.role-legend')) {
    legendCut = Math.max(legendCut, Math.round(legend.getBoundingClientRect().right - box.right));
  }
  // the "0" label of a value axis against the lowest horizontal grid line (px apart; null: no such label)
  let zeroOffset = null;
  const grid = [...chart.querySelectorAll('svg g.role-axis-grid line')]
    .filter(l => Number(l.getAttribute('y2') || 0) === 0 && Number(l.getAttribute('x2') || 0) > 0)
    .map(l => l.getBoundingClientRect().top);
  for (const t of chart.querySelectorAll('svg g.role-axis-label text')) {
    if (t.textContent.trim() !== '0' || t.getAttribute('text-anchor') !== 'end' || !grid.length) continue;  // a left axis
    const r = t.getBoundingClientRect();
    zeroOffset = Math.round(Math.abs((r.top + r.bottom) / 2 - Math.max(...grid)));
  }
  const heading = chart.closest('[data-testid="stVerticalBlock"]')?.innerText?.slice(0, 80) ?? '';
  return {index, marks, ink, texts, legendCut, zeroOffset, width: Math.round(box.width), height: Math.round(box.height),
          svg: chart.querySelectorAll('svg').length, canvas: chart.querySelectorAll('canvas').length,
          near: heading};
})"""


def charts(page) -> list:
    return page.evaluate(CHARTS_JS)


def wait_for_charts_drawn(page, at_least: int, timeout: int = 20_000) -> list:
    """Wait until the page has `at_least` Vega charts and every one of them drew (marks or ink);
    on a timeout, fail naming the charts that did not."""
    js = f"() => {{ const c = ({CHARTS_JS})(); return c.length >= {at_least} && c.every(x => x.marks > 0 || x.ink > 0); }}"
    try:
        page.wait_for_function(js, timeout=scaled(timeout))
    except sync_api.TimeoutError:
        found = charts(page)
        blank = [c for c in found if not (c["marks"] or c["ink"])]
        raise AssertionError(f"expected at least {at_least} drawn charts; found {len(found)}, of which these "
                             f"drew nothing: {blank}") from None
    return charts(page)


def _icon_fetch_exempt() -> bool:
    """The page icon (`page_icon=":material/..."`) makes the browser ask fonts.gstatic.com for the
    favicon: a network fetch the page icon's own change removes. Exempt only while app.py still names a
    material icon, so the exemption ends by itself with that change."""
    return 'page_icon=":material/' in (REPO / "app.py").read_text(encoding="utf-8")


class ScriptErrors:
    """Everything the browser reports as going wrong on a page: uncaught script errors (`pageerror`)
    and console errors. Streamlit's own `_stcore/` requests made relative to a deep link
    (/compare/_stcore/health) answer 404 and are not the app's doing: those are ignored."""

    def __init__(self, page) -> None:
        self.seen: list = []
        page.on("pageerror", lambda exc: self.seen.append(f"script error: {exc}"))
        page.on("console", self._console)

    def _console(self, message) -> None:
        if message.type != "error":
            return
        url = (message.location or {}).get("url", "") or ""
        if "/_stcore/" in url:
            return
        if "fonts.gstatic.com" in url and "materialsymbols" in url and _icon_fetch_exempt():
            return
        self.seen.append(f"console error: {message.text} ({url})" if url else f"console error: {message.text}")

    def check(self, what: str) -> None:
        assert not self.seen, f"the browser reported errors on {what}:\n" + "\n".join(self.seen)


SIZES = ((1280, 800), (1500, 1000))

# Scroll an element to the top of the view, just under Streamlit's fixed header (which would hide it).
SCROLL_UNDER_HEADER_JS = """(e) => {
  e.scrollIntoView({block: 'start'});
  let box = e.parentElement;
  while (box && !(box.scrollHeight > box.clientHeight && /(auto|scroll)/.test(getComputedStyle(box).overflowY))) {
    box = box.parentElement;
  }
  const header = document.querySelector('[data-testid="stHeader"]');
  (box || document.scrollingElement).scrollBy(0, -((header ? header.getBoundingClientRect().height : 60) + 8));
}"""


# What a failed wait says of the page: its texts, error boxes and exceptions.
PAGE_STATE_JS = """() => ({
  texts: [...document.querySelectorAll('[data-testid="stText"]')].map(e => e.innerText).slice(0, 60),
  errors: [...document.querySelectorAll('[data-testid="stAlertContentError"]')].map(e => e.innerText.slice(0, 300)),
  exceptions: [...document.querySelectorAll('[data-testid="stException"]')].map(e => e.innerText.slice(0, 300)),
})"""


def wait_for(page, js: str, what: str, timeout: int = 20_000, arg=None, state_js: str = PAGE_STATE_JS) -> None:
    """Wait until `js` holds, within `timeout` scaled by the machine's load (patience); else fail saying `what` and
    what the page shows (`state_js`)."""
    try:
        page.wait_for_function(js, arg=arg, timeout=scaled(timeout))
    except sync_api.TimeoutError:
        raise AssertionError(f"{what}: {page.evaluate(state_js)}") from None


def after_rerun(page, action, what: str, timeout: int = 20_000, state_js: str = PAGE_STATE_JS) -> None:
    """Do `action` (a click, a keypress) and wait until the script run it caused has ended and the page is idle."""
    page.evaluate(COUNT_RERUNS_JS)
    action()
    wait_for(page, f"() => window.__labReruns >= 1 && ({IDLE_JS})()", f"no finished rerun after {what}", timeout,
             state_js=state_js)


def choose_pacing(page, slider, value: str, what: str = "choosing the pace") -> None:
    """Move the select slider `slider` (a Pacing or Pace slider) to its first value, then a step at a time to
    `value` (its aria-valuetext), each key press after the rerun of the one before (a press made while the
    page redraws the slider is lost)."""
    after_rerun(page, lambda: slider.press("Home"), what)
    for _ in range(10):
        if slider.get_attribute("aria-valuetext") == value:
            return
        after_rerun(page, lambda: slider.press("ArrowRight"), what)
    raise AssertionError(f"{what}: the slider never read {value!r} (it reads {slider.get_attribute('aria-valuetext')!r})")


def open_select(page, label: str, option: Optional[str] = None):
    """Open the select box named `label` and return its listbox's options (a Locator; `option`: only that one).
    A click on a box of a freshly drawn page can focus it without opening its list (one run in two on the
    Playground's sidebar), and one made while the page redraws the box opens nothing: it is clicked again until
    the list shows, each look 1.5 s at most."""
    box = page.get_by_role("combobox", name=label, exact=True)
    options = page.get_by_role("option", name=option, exact=True) if option else page.get_by_role("option")
    for attempt in range(4):
        box.click()
        try:
            options.first.wait_for(timeout=1_500)
            return options
        except sync_api.TimeoutError:
            page.keyboard.press("Escape")
            page.wait_for_function(IDLE_JS)
    raise AssertionError(f"the select box {label!r} never showed its list" + (f" with {option!r}" if option else ""))


SELECTED_JS = "([l, o]) => document.querySelector(`input[aria-label=\"${l}\"]`)?.value === o"


def choose(page, label: str, option: str) -> None:
    """Pick `option` in the select box `label`, and wait until the box says so and the rerun the pick caused has
    ended. The box shows the pick at once, before its rerun starts: a page that merely looks idle then may still
    be drawing the last change, and a change sent into that redraw is lost (Streamlit sends the box's old value
    back; on a busy machine the Playground ran with its default trigger). A box that already reads `option` is
    left alone (no rerun comes)."""
    if page.evaluate(SELECTED_JS, [label, option]):
        return
    page.evaluate(COUNT_RERUNS_JS)
    open_select(page, label, option).first.click()
    wait_for(page, f"([l, o]) => window.__labReruns >= 1 && ({IDLE_JS})() && ({SELECTED_JS})([l, o])",
             f"choosing {option!r} in {label!r}", arg=[label, option])


def select_options(page, label: str) -> list:
    """The texts of the options the select box `label` offers (its list closed again after)."""
    texts = [o.strip() for o in open_select(page, label).all_inner_texts()]
    page.keyboard.press("Escape")
    return texts


# Two animation frames: the browser has laid out and painted what the last resize or scroll changed (a
# chart's own resize observer has fired by then). Waited for, never a fixed time.
FRAMES_JS = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"


def after_layout(page) -> None:
    """After a resize or a scroll: wait for the layout to be painted and for the page to be idle."""
    page.evaluate(FRAMES_JS)
    page.wait_for_function(IDLE_JS)


def full_page_screenshot(page, path: Path, width: int = 1400) -> None:
    """The whole page in one picture. Streamlit scrolls inside its app view, not the document: the viewport
    is grown to the content first."""
    height = page.evaluate("""() => {
      const main = document.querySelector('[data-testid="stMain"]');
      return Math.max(main ? main.scrollHeight : 0, document.documentElement.scrollHeight);
    }""")
    page.set_viewport_size({"width": width, "height": max(1000, min(int(height) + 200, 16_000))})
    after_layout(page)
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), full_page=True)


def charts_drawn_whole(page, at_least: int, where: str) -> list:
    """At least `at_least` charts, every one drawn, no legend cut off at the right and every value axis's 0
    level with its zero line (`where`: the window, for the message)."""
    drawn = wait_for_charts_drawn(page, at_least)
    assert all(c["legendCut"] <= 1 for c in drawn), f"a legend is cut off at {where}: {drawn}"
    assert all(c["zeroOffset"] is None or c["zeroOffset"] <= 3 for c in drawn), \
        f"a value axis's 0 is not level with its zero line at {where}: {drawn}"
    return drawn


def shoot(page, name: str, sizes=SIZES, scroll_to=None, charts_at_least: int = 0) -> list:
    """Screenshots of what is on screen at each window size, to test-artifacts/<name>-<w>x<h>.png;
    `scroll_to` (a locator) is scrolled to the top of the view first. With `charts_at_least`, every
    chart must have drawn (again) at each size before its capture. Returns the paths."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    paths = []
    for width, height in sizes:
        page.set_viewport_size({"width": width, "height": height})
        if scroll_to is not None:
            scroll_to.evaluate(SCROLL_UNDER_HEADER_JS)
        after_layout(page)
        if charts_at_least:
            charts_drawn_whole(page, charts_at_least, f"{width}px")
        path = ARTIFACTS / f"{name}-{width}x{height}.png"
        page.screenshot(path=str(path))
        paths.append(path)
    return paths
