"""The Debian BEIR builder: question headings become queries, their text the relevant passage."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from eval.data.beir import load_beir


@pytest.fixture
def builder(load_script: Callable[[str], ModuleType]) -> ModuleType:
    return load_script("build_beir_debian")


PAGE = b"""<html><head><title>FAQ chapter</title></head><body>
<div class="navheader">Prev Next</div>
<div class="toc"><p>1.1. What is Debian?</p><p>1.2. Installing packages</p></div>
<h2>1.1. What is Debian? \xc2\xb6</h2>
<p>Debian is a free operating system made by volunteers from all over the world, and it ships
tens of thousands of packages. See Section 1.3, "How do I upgrade?" for more.</p>
<h2>1.2. Installing packages</h2>
<p>apt installs packages from the archive and resolves their dependencies for you, which
is what most people use every day on their machines.</p>
<h2>1.3. How do I upgrade?</h2>
<p>Run apt update and then apt full-upgrade; read the release notes first, because a new
release can change configuration files and remove obsolete packages.</p>
<h3>Short?</h3><p>too short</p>
</body></html>"""


def test_question_detection_and_heading_cleanup(builder: ModuleType) -> None:
    assert builder.clean_heading("2.7.11. Who uploaded the package? \u00b6") == (
        "Who uploaded the package?")
    assert builder.clean_heading("Chapter 6. Choosing a distribution") == "Choosing a distribution"
    assert builder.is_question("What about sid?") and builder.is_question("How to pick packages")
    assert builder.is_question("OK, now I know... what is Linux?!")
    assert not builder.is_question("Do not abuse debconf")
    assert not builder.is_question("Installing packages")


def test_sections_drop_navigation_and_split_at_headings(builder: ModuleType) -> None:
    sections = builder.sections_from_html(PAGE, "faq--ch1")
    assert [s.heading for s in sections] == [
        "What is Debian?", "Installing packages", "How do I upgrade?", "Short?"]
    assert sections[0].title == "FAQ chapter"
    assert sections[0].body.startswith("Debian is a free operating system")
    assert "Prev" not in " ".join(s.body for s in sections)


def test_rows_and_written_folder_load_as_beir(builder: ModuleType, tmp_path: Path) -> None:
    rows = builder.build_rows(builder.sections_from_html(PAGE, "faq--ch1"))
    assert [q["text"] for q in rows.queries] == ["What is Debian?", "How do I upgrade?"]
    texts = {row["_id"]: row["text"] for row in rows.corpus}
    # no passage contains a question's text: not the heading, not a cross-reference
    assert not any(q["text"] in t for q in rows.queries for t in texts.values())
    answer = {q: d for q, d, _ in rows.qrels}
    assert texts[answer["q0001"]].startswith("Debian is a free operating system")
    assert texts[answer["q0002"]].startswith("Run apt update")
    distractor = next(t for t in texts.values() if t.startswith("Installing packages"))
    assert "apt installs packages" in distractor
    builder.write_beir(rows, tmp_path / "beir", {"packages": {}})
    dataset = load_beir(tmp_path / "beir")
    assert len(dataset.queries) == 2 and len(dataset.corpus) == len(rows.corpus)


def test_split_words_packs_paragraphs(builder: ModuleType) -> None:
    text = "\n\n".join(" ".join(["w"] * 70) for _ in range(4))
    assert [len(p.split()) for p in builder.split_words(text, words=100)] == [100, 100, 80]
