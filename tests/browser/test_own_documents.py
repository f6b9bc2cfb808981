"""Score your own documents, in a real browser: upload two PDFs on Documents and ingest them, mine
a test set on Judge, judge five questions from the keyboard, see a second browser session resume
from disk, save the judged set, and run Evaluate on it with the judged-only figures. Uses the
shared harness (tests/browser/conftest.py: one app server on the hashing embedder, a fresh tab
per test); screenshots in tests/browser/screenshots/own-*.png.

Run: python -m pytest -n 0 -m browser tests/browser/test_own_documents.py
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rag.paths import SAMPLES_DIR

pytestmark = pytest.mark.browser
COLLECTION = "own-docs"  # sorts after the tour's collection: its fresh sessions keep theirs
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


def progress_text(page) -> str:
    return page.locator('[data-testid="stProgress"]').first.inner_text()


def judged_count(page) -> int:
    return int(progress_text(page).split(" of ")[0].strip())


def passages_judged(page) -> int:
    return int(re.search(r"(\d+) passages judged", progress_text(page)).group(1))


def press_until_changed(app, key: str, read: Callable[[Any], int], tries: int = 3) -> int:
    """Press `key` until `read(page)` changes: a key that lands while the page re-mounts its
    shortcut listener (seen under load) is lost and changes nothing, so pressing again is safe."""
    before = read(app.page)
    for _ in range(tries):
        app.page.keyboard.press(key)
        app.settle(timeout_s=120)
        now = read(app.page)
        if now != before:
            return now
    return before


def test_ingest_mine_judge_and_evaluate_own_pdfs(app, browser, tmp_path: Path) -> None:
    pdfs = [shutil.copy(SAMPLES_DIR / "lumen-teams-admin-guide.pdf", tmp_path / "admin.pdf"),
            faq_pdf(tmp_path / "lumen-faq.pdf")]
    page = app.page
    app.ingest_new(pdfs, COLLECTION)
    app.shot("own-1-documents-ingested")

    page.get_by_role("link", name="Judge").click()
    app.settle("Make a test set")
    app.click("Make the set", timeout_s=120)
    app.settle("Saved mined")
    total = int(progress_text(page).split(" of ")[1].split()[0])
    assert total >= 5, progress_text(page)
    depth = page.get_by_role("spinbutton", name="Depth")
    depth.fill("2")
    depth.press("Enter")
    app.settle(timeout_s=180)  # the first question's pool: eight presets, derived indexes
    app.shot("own-2-judge-mined-set")

    for question in range(5):  # judge five questions from the keyboard
        page.evaluate("document.activeElement && document.activeElement.blur()")  # no input
        page.keyboard.press("y")  # the first pooled passage answers it
        app.settle(timeout_s=120)
        for _ in range(40):
            if judged_count(page) > question:
                break
            page.keyboard.press("n")
            app.settle(timeout_s=120)
        assert judged_count(page) == question + 1, progress_text(page)
        if question == 0:
            app.shot("own-3-judging-a-passage")
        # the next open question follows by itself after a question's last passage
    assert progress_text(page).startswith(f"5 of {total} judged")

    # after the question dropdown is used, the keys still judge (nothing typed into its box)
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    box = page.locator('[data-testid="stSelectbox"]').filter(
        has=page.get_by_text("Question", exact=True))
    for _ in range(3):  # a click landing during a page run does not open the list: again
        box.click()
        try:
            page.get_by_role("option").last.wait_for(timeout=5000)
            break
        except PlaywrightTimeout:
            app.settle()
    page.get_by_role("option").last.click()  # the last question: not judged yet
    app.settle(timeout_s=180)
    assert "Passage 1 of" in app.main_text(), app.main_text()[:600]
    before = passages_judged(page)
    after = press_until_changed(app, "y", passages_judged)
    assert after == before + 1, (before, after)  # the key judged, nothing typed into the select
    assert not page.locator('[data-baseweb="select"] input').evaluate_all(
        "els => els.some(e => e.value && e.value.includes('y'))")
    judged_now = judged_count(page)
    # judged enough: counts as judged, the next question follows
    judged_now += 1
    assert press_until_changed(app, "d", judged_count) == judged_now, progress_text(page)
    assert not app.exceptions(), app.exceptions()

    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:  # another browser session: the progress comes from disk
        other = type(app)(app.url, context.new_page()).open("judge", "Judge")
        other.pick_collection(COLLECTION)
        assert progress_text(other.page).startswith(f"{judged_now} of {total} judged")
        other.shot("own-4a-second-session-resumes")
    finally:
        context.close()

    app.click("Save with the collection")
    app.settle("Saved mined (")
    app.shot("own-4-judged-saved")

    page.get_by_role("link", name="Evaluate").click()
    app.settle("Test set")
    page.locator('[data-testid="stSelectbox"]').filter(has_text="Test set").click()
    page.get_by_role("option", name="mined").first.click()
    app.settle()
    app.click("Run", timeout_s=300)
    app.settle("Judged passages only", timeout_s=300)
    text = app.main_text()
    # (tables draw on a canvas: their text is not in the page) a depth-2 pool leaves most of a
    # top 10 unjudged, so every run carries the lower-bound warning
    assert text.count("was never judged (over 30%)") == 2, text[text.find("Judged"):][:800]
    assert not app.exceptions(), app.exceptions()
    app.shot("own-5-evaluate-judged-set")
