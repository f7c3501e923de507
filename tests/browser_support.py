"""Shared by the browser tests: `streamlit run app.py` on a free localhost port, and Debian's chromium
driven by Python Playwright (executable_path=/usr/bin/chromium; never `playwright install`).
Modules import the fixtures they use (`from browser_support import server, browser, page`)."""
from __future__ import annotations

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

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "test-artifacts"
SERVER_START_TIMEOUT_S = 40.0

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
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while not healthy(url):
        if proc.poll() is not None or time.monotonic() > deadline:
            stop_server(proc)
            pytest.fail(f"streamlit did not start (exit code {proc.poll()}):\n"
                        + log_path.read_text(errors="replace")[-3000:])
        threading.Event().wait(0.1)
    return proc, url


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`streamlit run app.py` on a free localhost port; killed at teardown."""
    proc, url = start_app(tmp_path_factory.mktemp("streamlit") / "server.log")
    try:
        yield url
    finally:
        stop_server(proc)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto(server)
    page.get_by_role("button", name="Run", exact=True).wait_for()
    try:
        yield page
    finally:
        context.close()


# The script is not running, no element is left over from an earlier run (data-stale) or still a
# placeholder (stSkeleton), and the "Running..." status widget is gone.
IDLE_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  return app !== null && app.getAttribute('data-test-script-state') === 'notRunning'
    && document.querySelectorAll('[data-stale="true"]').length === 0
    && document.querySelector('[data-testid="stSkeleton"]') === null
    && document.querySelector('[data-testid="stStatusWidget"]') === null;
}"""


# Counts the page's script runs that end from now on (stApp's data-test-script-state goes
# running -> notRunning), so a step can wait until the rerun a widget change or an action caused is over.
COUNT_RERUNS_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (window.__labObserver) window.__labObserver.disconnect();
  window.__labReruns = 0;
  let running = false;
  window.__labObserver = new MutationObserver(() => {
    const state = app.getAttribute('data-test-script-state');
    if (state === 'running') running = true;
    else if (running && state === 'notRunning') { running = false; window.__labReruns += 1; }
  });
  window.__labObserver.observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
}"""
