"""Regenerate the README's screenshots (docs/img/*.png): start the app on a temp data folder, build
the sample collection, and photograph the tour's pages in headless chromium via Playwright.

    python docs/make_screenshots.py [--out docs/img] [--chromium /usr/bin/chromium]

Presets embed with MiniLM as shipped (not the tests' hashing embedder), so answers and scores look
as a user sees them; the first run builds the ONNX model once (about 10 s of CPU)."""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]
SETTLED_JS = """() => {
  const busy = document.querySelector('[data-testid="stStatusWidgetRunningIcon"]')
    || document.querySelector('[data-stale="true"]') || document.querySelector('[data-testid="stSkeleton"]');
  return Boolean(document.querySelector('[data-testid="stApp"]')) && !busy;
}"""


def settle(page: Page, text: str | None = None, timeout_s: float = 240) -> None:
    deadline, streak = time.monotonic() + timeout_s, 0
    while time.monotonic() < deadline:
        ok = page.evaluate(SETTLED_JS) and (text is None or text in page.inner_text("body"))
        streak = streak + 1 if ok else 0
        if streak >= 3:
            return
        page.wait_for_timeout(400)
    raise TimeoutError(f"page did not settle{f' with {text!r}' if text else ''}")


def to_top(page: Page, text: str) -> None:
    """Scroll the app so the first element showing `text` is at the top of the window."""
    page.get_by_text(text).first.evaluate("e => e.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(500)


def shot(page: Page, path: Path, height: int = 1000) -> None:
    page.set_viewport_size({"width": 1400, "height": height})
    page.wait_for_timeout(800)
    page.screenshot(path=str(path))
    print(path)


def start_app(data: Path) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "RAG_WORKBENCH_DATA": str(data), "HF_HUB_OFFLINE": "1"}
    env.pop("RAG_WORKBENCH_PRESET_OVERRIDES", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1",
         "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                return proc, url
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError("streamlit did not start")


def tour(page: Page, url: str, out: Path) -> None:
    page.goto(url)
    settle(page, "RAG Workbench")
    page.get_by_role("button", name="Build sample collection").click()
    settle(page, "Collection: **samples**".replace("**", ""), timeout_s=600)
    shot(page, out / "overview.png", 760)

    page.goto(f"{url}/documents")
    settle(page, "Parsed files")
    page.get_by_role("combobox", name="Document", exact=True).click()
    page.keyboard.type("support-escalations")
    page.keyboard.press("Enter")
    page.wait_for_timeout(1000)
    settle(page, "Why SENSITIVE")
    to_top(page, "Inspect a document")
    shot(page, out / "documents.png", 900)

    page.goto(f"{url}/retrieval")
    settle(page, "Fused", timeout_s=300)
    shot(page, out / "retrieval.png", 1450)

    page.goto(f"{url}/answer")
    settle(page, "messages in this conversation")
    box = page.get_by_placeholder("Ask about your documents")
    box.fill("How long do deleted notes stay in the trash?")
    box.press("Enter")
    page.wait_for_timeout(1000)
    settle(page, "Last answer, checked", timeout_s=300)
    page.set_viewport_size({"width": 1400, "height": 1750})  # the question, the answer and its check
    to_top(page, "Conversation")
    shot(page, out / "answer.png", 1750)

    page.goto(f"{url}/evaluate")
    settle(page, "Test set")
    page.get_by_role("button", name="Run").click()
    page.wait_for_timeout(1000)
    settle(page, "Results on", timeout_s=600)
    to_top(page, "Presets")
    shot(page, out / "evaluate.png", 1100)
    runs(page, url, out)


def runs(page: Page, url: str, out: Path) -> None:
    """Runs: the two presets Evaluate just ran, compared, with the worst question's traces."""
    page.goto(f"{url}/runs")
    settle(page, "Two runs side by side")
    page.get_by_text("Open both traces").click()
    page.wait_for_timeout(1000)
    settle(page, "candidates are relevant")
    to_top(page, "Two runs side by side")
    shot(page, out / "runs.png", 1500)


def runs_only(page: Page, url: str, out: Path) -> None:
    """Only runs.png: two presets on Evaluate (the BEIR sample), then the Runs page."""
    page.goto(f"{url}/evaluate")
    settle(page, "Test set")
    page.get_by_role("button", name="Run").click()
    page.wait_for_timeout(1000)
    settle(page, "Results on", timeout_s=600)
    runs(page, url, out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--only-runs", action="store_true", help="make runs.png alone")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    data = Path(tempfile.mkdtemp(prefix="rag-workbench-shots-"))
    proc, url = start_app(data)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=args.chromium, args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(60_000)
            (runs_only if args.only_runs else tour)(page, url, args.out)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        shutil.rmtree(data, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
