"""Judge a fifth in a real browser, on real PDFs: five pages of Debian's FAQ (the debian-faq
package: fetched by datasets/build_beir_debian.py, or here with `apt-get download debian-faq`,
half a megabyte, when it is missing, so CI runs it too) printed to PDF by Chromium, uploaded and
ingested; a set mined on Judge; 20 passages judged from the keyboard in the order the strategy
picks across questions; the learned judge's agreement and when-to-stop shown; the set saved
with the judge's fill and Evaluate showing human + judge-filled scores. Screenshots:
tests/browser/screenshots/judge-real-*.png.

Run: python -m pytest -n 0 -m browser tests/browser/test_judge_real_pdfs.py
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rag.paths import PROJECT_ROOT

pytestmark = pytest.mark.browser
FAQ = PROJECT_ROOT / "datasets/build/debian_docs/_extract/debian-faq/usr/share/doc/debian/FAQ"
PAGES = ("pkg-basics", "pkgtools", "customizing", "software", "uptodate")
COLLECTION = "zz-debian-faq-pdfs"  # sorts last: the other browser tests keep their collections


def _faq() -> Path | None:
    """Debian's FAQ pages: already extracted, else fetched the way the dataset builders fetch
    Debian documentation (apt-get download + dpkg-deb -x into datasets/build/debian_docs/, git-
    ignored; an `apt-get update` first when the package lists are missing). None: no apt or no
    network here."""
    if FAQ.is_dir():
        return FAQ
    import shutil
    import subprocess
    import sys

    if shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None:
        return None
    sys.path.insert(0, str(PROJECT_ROOT / "datasets"))
    from build_debian_docs import DEFAULT_OUT, download, extract_pages

    for attempt in range(2):
        try:
            debs = download(["debian-faq"], DEFAULT_OUT / "_debs")
            extract_pages("debian-faq", debs["debian-faq"], DEFAULT_OUT / "_extract")
            break
        except SystemExit:  # the builders report a failed apt-get this way
            if attempt == 0:
                subprocess.run(["apt-get", "update", "-qq"], capture_output=True, check=False)
    return FAQ if FAQ.is_dir() else None


def _pdfs(browser, out: Path) -> list[Path]:
    page = browser.new_page()
    made = []
    for name in PAGES:
        page.goto((FAQ / f"{name}.en.html").as_uri())
        target = out / f"debian-faq-{name}.pdf"
        page.pdf(path=str(target))
        made.append(target)
    page.close()
    return made


def _progress(page) -> str:
    return page.locator('[data-testid="stProgress"]').first.inner_text()


def test_judge_a_fifth_of_real_pdfs_and_see_the_filled_scores(app, browser, tmp_path: Path) -> None:
    if _faq() is None:
        pytest.skip("Debian's FAQ could not be fetched (apt-get download debian-faq failed)")
    page = app.page
    app.ingest_new(_pdfs(browser, tmp_path), COLLECTION)
    page.get_by_role("link", name="Judge").click()
    app.settle("Make a test set")
    app.click("Make the set", timeout_s=240)
    app.click("Pool all", timeout_s=400)  # every question pooled once, eight systems
    app.settle("Learned judge", timeout_s=400)
    assert page.get_by_role("combobox", name="Judging order").input_value().startswith("most useful next")
    app.shot("judge-real-1-strategy-order")

    questions, said_yes = set(), 0
    for judged in range(60):  # the person: relevant when the passage holds the question's heading
        if judged >= 20 and "agrees with your" in app.main_text():
            break
        shown = page.locator('[data-testid="stHtml"]').filter(has_text=re.compile(r"\w")).first
        passage = " ".join((shown.inner_text() if shown.count() else "").lower().split())
        asked = page.get_by_label("Question text").input_value()
        questions.add(asked)
        said = " ".join(asked.lower().rstrip("?").split()) in passage
        said_yes += said
        page.keyboard.press("y" if said else "n")
        app.settle(timeout_s=120)
    assert 20 <= judged < 60 and 0 < said_yes < judged, (judged, said_yes)
    assert len(questions) > 1, questions  # the strategy moved across questions
    text = app.main_text()
    assert "agrees with your" in text and "Cohen's κ" in text, text[:1500]
    assert "relevant passages are expected among those nobody judged" in text
    assert not app.exceptions(), app.exceptions()
    page.get_by_text("Scores so far", exact=False).first.click()
    app.settle()
    app.shot("judge-real-2-after-20-judgments")

    app.click("Save with the collection")
    app.settle("Saved mined (")
    page.get_by_role("link", name="Evaluate").click()
    app.settle("Test set")
    page.locator('[data-testid="stSelectbox"]').filter(has_text="Test set").click()
    page.get_by_role("option", name=f"{COLLECTION} / mined").first.click()
    app.settle()
    app.click("Run", timeout_s=400)
    app.settle("Human + judge-filled", timeout_s=400)
    text = app.main_text()
    assert "Cohen's κ" in text and not app.exceptions(), app.exceptions()
    app.shot("judge-real-3-evaluate-filled")
