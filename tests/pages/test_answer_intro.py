"""Answer page for a newcomer: one line on what it does, example questions from the collection
(a click asks one), and the conversation's message count right after every exchange."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rag.config import load_preset
from rag.documents import ingest_paths
from rag.index import open_collection
from rag.paths import SAMPLES_DIR

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "answer.py")


@pytest.fixture
def page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hashing_presets: None) -> AppTest:
    monkeypatch.setenv("RAG_WORKBENCH_DATA", str(tmp_path))
    files = [SAMPLES_DIR / "lumen-notes-faq.txt", SAMPLES_DIR / "lumen-notes-handbook.md"]
    open_collection("mine", create=True).add_documents(
        ingest_paths(files).documents, load_preset("hybrid"), progress=False)
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["app_collection"] = "mine"
    return at.run()


def count(at: AppTest) -> str:
    return next(c.value for c in at.caption if c.value.endswith("messages in this conversation"))


def test_intro_offers_questions_from_the_collection_and_a_click_asks_one(page: AppTest) -> None:
    at = page
    assert at.caption[0].value.startswith("Ask questions about your documents")
    examples = [b for b in at.button if b.key and b.key.startswith("ans_example_")]
    assert 2 <= len(examples) <= 3
    faq = (SAMPLES_DIR / "lumen-notes-faq.txt").read_text()
    assert examples[0].label in faq  # a question the documents themselves ask
    assert count(at) == "0 messages in this conversation"
    examples[0].click().run()
    assert not at.exception
    assert at.chat_message[0].markdown[0].value == examples[0].label
    assert count(at) == "2 messages in this conversation"
    at.chat_input(key="ans_input").set_value("How do I export my notes?").run()
    assert count(at) == "4 messages in this conversation"  # right after every exchange
