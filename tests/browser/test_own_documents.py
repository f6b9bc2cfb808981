"""Score your own documents, in a real browser: upload two PDFs on Documents and ingest them, mine
a test set on Judge, judge five questions from the keyboard, save the judged set, and run
Evaluate on it (headless chromium via Playwright against `streamlit run app.py`, hashing
embedder, a fresh data folder). Screenshots go to tests/browser/screenshots/ (git-ignored).

Run: python -m pytest -n 0 -m browser tests/browser/test_own_documents.py
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.paths import PROJECT_ROOT, SAMPLES_DIR

pytestmark = pytest.mark.browser
playwright = pytest.importorskip("playwright.sync_api")

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
SHOTS = Path(__file__).resolve().parent / "screenshots"
# the app has finished a run: nothing stale, no running indicator, no skeletons
SETTLED_JS = """() => {
  const running = document.querySelector('[data-testid="stStatusWidgetRunningIcon"]');
  const stale = document.querySelector('[data-stale="true"]');
  const skeleton = document.querySelector('[data-testid="stSkeleton"]');
  return Boolean(document.querySelector('[data-testid="stApp"]')) && !running && !stale
    && !skeleton;
}"""
FAQ = (  # a second PDF: a product FAQ whose entries are questions with the answer under them
    ("How do I export a notebook?", "Open the notebook menu and choose Export. Lumen Notes "
     "writes a Markdown file per note and a ZIP archive for the whole notebook."),
    ("Can I restore a deleted note?", "Deleted notes stay in the Trash for 30 days. Open Trash, "
     "select the note and press Restore to bring it back with its attachments."),
    ("How many devices can sync one account?", "The Free plan syncs two devices. Plus and Teams "
     "accounts sync up to ten devices at the same time."),
    ("Where are offline copies stored?", "Offline copies are kept in an encrypted local "
     "database in your profile folder; clearing the cache removes them."),
    ("Who can see a shared workspace?", "Only members invited by a workspace admin can see a "
     "shared workspace; guests see the notes shared with them and nothing else."),
    ("What happens when two people edit the same note?", "LumenSync merges both edits line by "
     "line and keeps a conflict copy when the same line changed on both sides."),
)


def faq_pdf(path: Path) -> Path:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 16)
    pdf.cell(0, 10, "Lumen Notes - Frequently asked questions", new_x="LMARGIN", new_y="NEXT")
    for question, answer in FAQ:
        pdf.set_font("Helvetica", "B", 12)
        pdf.multi_cell(0, 8, question, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "", 11)
        pdf.multi_cell(0, 6, answer, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(3)
    pdf.output(str(path))
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A running app on a free port over a fresh data folder (minimal fixture: the shared
    browser harness, when tests/browser/conftest.py provides one, can replace it)."""
    data = tmp_path_factory.mktemp("browser-data")
    port = _free_port()
    env = {**os.environ, "RAG_WORKBENCH_DATA": str(data), "HF_HUB_OFFLINE": "1",
           "HF_DATASETS_OFFLINE": "1", "RAG_WORKBENCH_PRESET_OVERRIDES":
           "{embedding.backend: hashing}", "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    env.pop("OPENAI_BASE_URL", None)
    log = (data / "streamlit.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port)], cwd=PROJECT_ROOT, env=env, stdout=log,
        stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("the app did not start: " + (data / "streamlit.log").read_text())
        yield url
    finally:
        server.terminate()
        server.wait(timeout=20)
        log.close()


def settle(page, timeout_s: float = 240) -> None:
    page.wait_for_timeout(400)  # let the click's rerun begin
    page.wait_for_function(SETTLED_JS, timeout=timeout_s * 1000)


def shot(page, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def progress_text(page) -> str:
    return page.locator('[data-testid="stProgress"]').first.inner_text()


def judged_count(page) -> int:
    return int(progress_text(page).split(" of ")[0].strip())


def test_ingest_mine_judge_and_evaluate_own_pdfs(app_url: str, tmp_path: Path) -> None:
    pdfs = [shutil.copy(SAMPLES_DIR / "lumen-teams-admin-guide.pdf", tmp_path / "admin.pdf"),
            faq_pdf(tmp_path / "lumen-faq.pdf")]
    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            drive(page, app_url, pdfs)
        except Exception:
            shot(page, "failure")
            raise
        finally:
            browser.close()


def drive(page, app_url: str, pdfs: list) -> None:
    """Documents -> Judge -> Evaluate, as a user would."""
    page.goto(f"{app_url}/documents")
    settle(page)
    page.get_by_text("Upload files", exact=True).click()
    settle(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        [str(p) for p in pdfs])
    page.get_by_role("button", name="Ingest 2 documents").wait_for(timeout=120_000)
    settle(page)
    page.get_by_role("button", name="Ingest 2 documents").click()
    settle(page)
    page.get_by_text("admin.pdf").first.wait_for()
    shot(page, "1-documents-ingested")

    page.get_by_role("link", name="Judge").click()
    settle(page)
    page.get_by_role("button", name="Make the set").click()
    settle(page)
    page.get_by_text("Saved mined").wait_for()
    total = int(progress_text(page).split(" of ")[1].split()[0])
    assert total >= 5, progress_text(page)
    depth = page.get_by_role("spinbutton", name="Depth")
    depth.fill("2")
    depth.press("Enter")
    settle(page)
    shot(page, "2-judge-mined-set")

    for question in range(5):  # judge five questions from the keyboard
        page.evaluate("document.activeElement && document.activeElement.blur()")  # no input
        page.keyboard.press("y")  # the first pooled passage answers it
        settle(page)
        for _ in range(40):
            if judged_count(page) > question:
                break
            page.keyboard.press("n")
            settle(page)
        assert judged_count(page) == question + 1, progress_text(page)
        if question == 0:
            shot(page, "3-judging-a-passage")
        page.keyboard.press("j")
        settle(page)
    assert progress_text(page).startswith(f"5 of {total} judged")
    resumed = page.context.browser.new_page(viewport={"width": 1400, "height": 1000})
    resumed.goto(f"{app_url}/judge")  # another browser session: the progress comes from disk
    settle(resumed)
    assert progress_text(resumed).startswith(f"5 of {total} judged"), progress_text(resumed)
    shot(resumed, "4a-second-session-resumes")
    resumed.close()
    page.get_by_role("button", name="Save with the collection").click()
    settle(page)
    page.get_by_text("Saved mined-judged").wait_for()
    shot(page, "4-judged-saved")

    page.get_by_role("link", name="Evaluate").click()
    settle(page)
    page.get_by_text("mined-judged").first.wait_for()
    page.locator('[data-testid="stSelectbox"]').filter(has_text="Test set").click()
    page.get_by_role("option", name="mined-judged").first.click()
    settle(page)
    page.get_by_role("button", name="Run").click()
    settle(page, 600)
    heading = page.get_by_text("Judged passages only")
    heading.wait_for()
    heading.scroll_into_view_if_needed()
    shot(page, "5-evaluate-judged-set")
    assert page.get_by_text("unjudged@10").count() >= 1
