"""The app follows the user's collection: eval's working indexes are never listed as collections
(nor opened by a fresh session), and the stage pages open with a question from the collection."""

from __future__ import annotations

from pathlib import Path

import pytest
from hashing_presets import use_hashing_presets
from own_collection import build_collection
from streamlit.testing.v1 import AppTest

from eval.data.beir import load_beir
from eval.runs.beir_index import beir_collection
from pages.ui.state import current_collection
from rag.config import load_preset
from rag.index import list_collections, open_collection
from rag.paths import PROJECT_ROOT

PAGES = Path(__file__).resolve().parents[2] / "pages"


@pytest.fixture
def own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    use_hashing_presets(monkeypatch, tmp_path)
    return build_collection(tmp_path / "files")


def test_a_scored_set_leaves_no_collection_in_the_list(own: str) -> None:
    working = beir_collection(load_beir(PROJECT_ROOT / "datasets" / "beir_sample"),
                              load_preset("bm25"), progress=False)
    assert working.manifest.documents  # built, and it opens by name
    assert open_collection(working.name).manifest.documents == working.manifest.documents
    assert list_collections() == [own]  # only the user's collection is listed
    assert current_collection({}, list_collections()) == own  # a fresh session opens on it
    beir_collection(load_beir(PROJECT_ROOT / "datasets" / "beir_sample"), load_preset("bm25"),
                    progress=False)  # reused, still unlisted
    assert list_collections() == [own]


@pytest.mark.parametrize(("page", "key"), [("retrieval.py", "ret_query"), ("rerank.py", "rr_query"),
                                           ("systems.py", "sys_query"), ("query_lab.py", "ql_query")])
def test_stage_pages_open_with_a_question_from_the_users_collection(own: str, page: str,
                                                                    key: str) -> None:
    at = AppTest.from_file(str(PAGES / page), default_timeout=300)
    at.session_state["app_collection"] = own
    at.run()
    assert not at.exception, at.exception
    asked = at.text_input(key=key).value
    kept = " ".join(c.text for c in open_collection(own).chunks())
    assert asked.endswith("?") and asked in kept  # a question the collection's documents ask
