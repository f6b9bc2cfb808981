"""The entry point: pages grouped by stage, overview, sidebar with presets and the sample button."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pages.ui.nav import available_pages
from rag.config import available_presets
from rag.paths import SAMPLES_DIR

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hashing_presets: None) -> Path:
    """An empty data folder; presets embed with the hashing backend (the shell is under test)."""
    monkeypatch.setenv("RAG_WORKBENCH_DATA", str(tmp_path))
    return tmp_path


def test_overview_lists_every_existing_page_and_sidebar_offers_presets(data_dir: Path) -> None:
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    assert at.title[0].value == "RAG Workbench"
    stages = available_pages(Path(APP).parent)
    assert [h.value for h in at.main.subheader] == list(stages)
    preset = at.sidebar.selectbox(key="app_preset")
    assert preset.options == available_presets()
    assert preset.value == "hybrid"
    assert "No collection yet." in [i.value for i in at.sidebar.info]
    assert [b.label for b in at.sidebar.button] == ["Build sample collection"]


def test_preset_choice_is_shared_with_pages(data_dir: Path) -> None:
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.sidebar.selectbox(key="app_preset").select("bm25").run()
    assert not at.exception
    assert at.session_state["app_preset"] == "bm25"
    assert "bm25" in at.main.caption[-1].value


@pytest.mark.parametrize("page", ["pages/documents.py", "pages/chunk_lab.py", "pages/retrieval.py"])
def test_each_page_opens_from_the_navigation(data_dir: Path, page: str) -> None:
    at = AppTest.from_file(APP, default_timeout=90).run()
    at.switch_page(page).run()
    assert not at.exception
    assert at.title[0].value != "RAG Workbench"


def test_sidebar_builds_the_sample_collection_and_selects_it(data_dir: Path) -> None:
    at = AppTest.from_file(APP, default_timeout=300).run()
    at.sidebar.button(key="app_build_samples").click().run()
    assert not at.exception
    assert at.sidebar.selectbox(key="app_collection").value == "samples"
    summary = at.sidebar.caption[0].value
    samples = sum(1 for p in SAMPLES_DIR.iterdir() if p.is_file())
    assert summary.startswith(f"{samples} documents") and "recursive" in summary
    assert not at.sidebar.button  # the build button is gone once the collection exists
    assert "samples" in at.main.caption[-1].value
