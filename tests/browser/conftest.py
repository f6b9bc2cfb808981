"""Browser tests: the real app (`streamlit run app.py`) in Debian's headless chromium, driven by
Playwright. One app server per test process (a temp data folder, presets on the hashing embedder
so no model loads); every test gets a fresh browser page, and its last view is saved as a PNG
under tests/browser/screenshots/ (git-ignored) for a person to look at.

`.ci/run` installs chromium with apt when it is missing; Playwright's own browser download is never
used. Without chromium or playwright these tests are skipped with that reason."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(__file__).resolve().parent / "screenshots"
CHROMIUM = os.environ.get("RAG_WORKBENCH_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
START_TIMEOUT_S = 90
# A run is over when nothing is stale, the "Running…" icon is gone and no skeleton waits to fill.
SETTLED_JS = """() => {
  const running = document.querySelector('[data-testid="stStatusWidgetRunningIcon"]');
  const stale = document.querySelector('[data-stale="true"]');
  const skeleton = document.querySelector('[data-testid="stSkeleton"]');
  const app = document.querySelector('[data-testid="stApp"]');
  return Boolean(app) && !running && !stale && !skeleton;
}"""
CONTENT_HEIGHT_JS = """() => {
  const main = document.querySelector('[data-testid="stMain"]') || document.body;
  return Math.max(main.scrollHeight, document.body.scrollHeight);
}"""
# What a page shows when its script raised: st.exception's block, or streamlit's error box.
EXCEPTION_SELECTOR = '[data-testid="stException"]'
TRACEBACK_TEXT = re.compile(r"Traceback \(most recent call last\)|\w+Error: ")

try:
    from playwright.sync_api import Browser, Page, sync_playwright
except ImportError:  # pragma: no cover - requirements.txt installs it
    sync_playwright = None  # type: ignore[assignment]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"streamlit did not answer within {START_TIMEOUT_S} s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="session")
def app_url() -> Iterator[str]:
    """`streamlit run app.py` on a free port, on its own temp data folder, stopped after the session."""
    if sync_playwright is None:
        pytest.skip("playwright is not installed (pip install -r requirements.txt)")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no chromium at {CHROMIUM} (apt-get install chromium)")
    data = Path(tempfile.mkdtemp(prefix="rag-workbench-browser-"))
    port = _free_port()
    env = {**os.environ, "RAG_WORKBENCH_DATA": str(data),
           "RAG_WORKBENCH_PRESET_OVERRIDES": "{embedding.backend: hashing}"}
    log = data / "streamlit.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.port", str(port), "--server.address", "127.0.0.1",
             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc, log)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture(scope="session")
def browser(app_url: str) -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class App:
    """One browser tab on the running app, with the few moves the tests need."""

    def __init__(self, url: str, page: Page) -> None:
        self.url, self.page = url, page

    def open(self, path: str = "", wait_text: str | None = None, timeout_s: float = 60) -> App:
        """Open a page by its address ("" is the home page, "documents", "answer", …) and wait."""
        self.page.goto(f"{self.url}/{path}")
        self.page.wait_for_selector('[data-testid="stApp"]')
        return self.settle(wait_text, timeout_s)

    def settle(self, wait_text: str | None = None, timeout_s: float = 60) -> App:
        """Wait until the script run is over (three settled polls in a row) and `wait_text` shows."""
        deadline, streak = time.monotonic() + timeout_s, 0
        while time.monotonic() < deadline:
            ok = self.page.evaluate(SETTLED_JS) and (
                wait_text is None or wait_text in self.page.inner_text("body"))
            streak = streak + 1 if ok else 0
            if streak >= 3:
                return self
            self.page.wait_for_timeout(250)
        raise AssertionError(f"the app did not settle within {timeout_s:.0f} s"
                             + (f" showing {wait_text!r}" if wait_text else ""))

    def main_text(self) -> str:
        """The main area's text (sidebar left out)."""
        return str(self.page.evaluate(
            "() => (document.querySelector('[data-testid=\"stMain\"]') || document.body).innerText"))

    def exceptions(self) -> list[str]:
        """Texts of every exception block on the page (empty when the page ran cleanly)."""
        blocks = self.page.locator(EXCEPTION_SELECTOR).all_inner_texts()
        text = self.page.inner_text("body")
        return blocks + ([text] if not blocks and TRACEBACK_TEXT.search(text) else [])

    def click(self, label: str, timeout_s: float = 60) -> App:
        self.page.get_by_role("button", name=label, exact=False).first.click()
        self.page.wait_for_timeout(500)
        return self.settle(timeout_s=timeout_s)

    def shot(self, name: str) -> Path:
        """Save the whole main area as screenshots/<name>.png (the window grows to its height:
        streamlit scrolls inside the page, so a plain full-page shot would cut it off)."""
        return save_shot(self.page, SHOTS / f"{name}.png")


def save_shot(page: Page, path: Path, max_height: int = 8000) -> Path:
    size = page.viewport_size or {"width": 1400, "height": 1000}
    height = int(page.evaluate(CONTENT_HEIGHT_JS) or size["height"])
    path.parent.mkdir(parents=True, exist_ok=True)
    tall = min(max(height + 80, size["height"]), max_height)
    page.set_viewport_size({"width": size["width"], "height": tall})
    page.wait_for_timeout(300)  # let plotly re-layout at the new size
    page.screenshot(path=str(path))
    page.set_viewport_size(size)
    return path


@pytest.fixture
def app(app_url: str, browser: Browser, request: pytest.FixtureRequest) -> Iterator[App]:
    """A fresh tab (its own streamlit session) on the app; its last view is saved as
    screenshots/<test name>.png whatever the outcome."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(20_000)  # finding an element; long runs wait in settle()
    try:
        yield App(app_url, page)
    finally:
        try:
            save_shot(page, SHOTS / f"{request.node.name}.png")
        except Exception:  # noqa: BLE001 - a failed screenshot must not hide the test's own outcome
            pass
        context.close()
