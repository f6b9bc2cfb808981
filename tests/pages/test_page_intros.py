"""Every page opens with one line saying what it is for and what to do first — even before a
collection exists (an empty data folder)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

PAGES = sorted((Path(__file__).resolve().parents[2] / "pages").glob("*.py"))
PAGES = [p for p in PAGES if p.name != "__init__.py"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_page_opens_with_a_one_line_intro(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hashing_presets: None
) -> None:
    monkeypatch.setenv("RAG_WORKBENCH_DATA", str(tmp_path))
    at = AppTest.from_file(str(page), default_timeout=120).run()
    assert not at.exception
    title, intro = list(at.main.children.values())[:2]  # title, then the intro line
    assert type(title).__name__ == "Title" and type(intro).__name__ == "Caption"
    assert 40 <= len(intro.value) <= 220 and "\n" not in intro.value, intro.value
