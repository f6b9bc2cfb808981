"""The entry point: pages grouped by stage, overview, sidebar with presets and the sample button."""

from pathlib import Path

import pytest
import streamlit as st
from fake_openai import FakeOpenAI
from streamlit.testing.v1 import AppTest

from pages.ui.nav import available_pages
from rag.config import available_presets, load_preset
from rag.documents import ingest_paths
from rag.index import open_collection
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
    assert [b.label for b in at.sidebar.button] == ["Build sample collection", "Refresh collections"]


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
    # the build button is gone once the collection exists
    assert [b.label for b in at.sidebar.button] == ["Refresh collections"]
    assert "samples" in at.main.caption[-1].value


def test_sidebar_shows_documents_another_process_added(data_dir: Path) -> None:
    """A CLI ingest writes through its own Collection object; the app's cached one re-reads."""
    config = load_preset("hybrid")
    faq, handbook = SAMPLES_DIR / "lumen-notes-faq.txt", SAMPLES_DIR / "lumen-notes-handbook.md"
    open_collection("mine", create=True).add_documents(
        ingest_paths([faq]).documents, config, progress=False)
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert at.sidebar.caption[0].value.startswith("1 documents")
    open_collection("mine").add_documents(ingest_paths([handbook]).documents, config,
                                          progress=False)  # "the command line"
    at.sidebar.button(key="app_refresh").click().run()
    assert not at.exception
    assert at.sidebar.caption[0].value.startswith("2 documents")


def test_sidebar_names_the_connected_llm_or_none(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = AppTest.from_file(APP, default_timeout=60).run()
    line = at.sidebar.caption[-1].value
    assert line.startswith("LLM: none") and "OPENAI_BASE_URL is not set" in line
    with FakeOpenAI() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        at = AppTest.from_file(APP, default_timeout=60).run()
        assert not at.exception
        assert at.sidebar.caption[-1].value == f"LLM: **fake-model** at {server.base_url}"
    dead = server.base_url  # closed now: nothing listens there
    monkeypatch.setenv("OPENAI_BASE_URL", dead)
    st.cache_data.clear()  # the status is cached for 30 s
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert at.sidebar.caption[-1].value.startswith(f"LLM: none — {dead} does not answer")


PAGE_FILES = [e.file for entries in available_pages(Path(APP).parent).values() for e in entries
              if e.file.startswith("pages/")]


@pytest.mark.parametrize("page", PAGE_FILES)
def test_a_page_opened_by_its_address_first_still_gets_the_apps_sidebar(data_dir: Path,
                                                                         page: str) -> None:
    """A bookmark (`/retrieval`) as the first visit after the server starts: Streamlit would run
    the page file on its own (its old pages-folder mode: no preset, no collection picker)."""
    at = AppTest.from_file(APP, default_timeout=90)
    at.switch_page(page).run()
    assert not at.exception
    assert at.title[0].value != "RAG Workbench"  # the page itself, not the overview
    assert "Session" in [h.value for h in at.sidebar.subheader]  # app.py's sidebar ran
    assert at.sidebar.selectbox(key="app_preset").value == "hybrid"
