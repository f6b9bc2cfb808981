"""Vexora's per-user permissions end to end: private chunks of one user never reach another user's
run — not in any stage's output, not through the entity graph, not in the answer."""

import hashlib
import os
from collections.abc import Iterator

import pytest
from fake_openai import FakeOpenAI

from rag.config import PipelineConfig, load_preset, with_overrides
from rag.documents.base import Document, DocumentMetadata
from rag.index import Access, Collection, open_collection
from rag.pipeline import run_query
from rag.retrieve.search import clear_candidate_cache

PUBLIC = ("LumenSync keeps every vault encrypted. Recovery of a LumenSync vault needs the "
          "recovery sheet.")
ALICE = "Alice Private Memo: the LumenSync vault code for Payroll Archive is AZURE-4471."
BOB = "Bob Private Memo: the LumenSync vault code for Medical Records is ZEBRA-9."
QUERY = "What is the LumenSync vault code?"
Setup = tuple[PipelineConfig, Collection]


def doc(source: str, text: str) -> Document:
    digest = hashlib.sha256(text.encode()).hexdigest()
    meta = DocumentMetadata(source=source, title=source, content_hash=digest, format="txt")
    return Document(f"{source}#{digest[:8]}", text, meta)


@pytest.fixture(scope="module")
def setup() -> Iterator[Setup]:
    with FakeOpenAI() as server:  # hashed bag-of-words embeddings over HTTP: no model to load
        saved = {k: os.environ.get(k) for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
        os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"] = server.base_url, "sk-test"
        config = with_overrides(load_preset("vexora"), {
            "embedding.backend": "openai", "embedding.model": "hashed-bow-permissions",
            "generation.mode": "extractive", "grounding.model_check": "none",
            "query.guard.rate_limit": None, "index.collection": "vexora-permissions",
            "rerank.enabled": False,  # no cross-encoder ships offline; not what this test is about
        })
        collection = open_collection("vexora-permissions", create=True)
        collection.add_documents([doc("handbook.md", PUBLIC)], config, progress=False)
        collection.add_documents([doc("alice.md", ALICE)], config, progress=False,
                                 access=Access(owner="alice", visibility="private"))
        collection.add_documents([doc("bob.md", BOB)], config, progress=False,
                                 access=Access(owner="bob", visibility="private"))
        clear_candidate_cache()
        yield config, collection
        for key, value in saved.items():
            os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)


@pytest.mark.parametrize(("user", "sees", "never"), [
    ("alice", "AZURE-4471", "ZEBRA-9"),
    ("bob", "ZEBRA-9", "AZURE-4471"),
])
def test_a_user_sees_their_own_private_chunks_and_never_another_users(
    setup: Setup, user: str, sees: str, never: str
) -> None:
    config, collection = setup
    trace = run_query(QUERY, config, collection, user=user)
    assert trace.status == "ok", [(r.stage, r.reason) for r in trace.records]
    exported = trace.to_json()
    assert never not in exported  # no stage, graph walk, context block or answer holds it
    assert sees in exported
    assert trace.stage("graph").status == "ok"  # the graph ran, and hid the other user's chunks


def test_without_a_user_only_public_chunks_are_visible(setup: Setup) -> None:
    config, collection = setup
    exported = run_query(QUERY, config, collection).to_json()
    assert "AZURE-4471" not in exported and "ZEBRA-9" not in exported
    assert "recovery sheet" in exported
