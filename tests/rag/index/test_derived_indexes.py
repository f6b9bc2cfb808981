"""A collection is a set of documents: any preset reads the index its settings need, derived once
from the kept parsed text and kept in step with the collection's documents afterwards."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from index_helpers import PASSAGES, make_doc, passage_docs, unique_name

from rag.config import PipelineConfig, with_overrides
from rag.index import Access, Collection, delete_collection, list_collections, open_collection
from rag.index.derived import (
    IndexSync,
    MissingDocumentTextError,
    derived_indexes,
    index_for,
    needs_sync,
)
from rag.index.document_texts import DocumentTexts
from rag.ingestion.run import ingest_documents as ingest
from rag.pipeline import run_query
from rag.retrieve.stage import SelectOutput

OFFLINE = {"generation.mode": "extractive", "rerank.enabled": False, "abstain.enabled": False}


def config(size: int, sparse: str = "bm25s") -> PipelineConfig:
    """Hashing embeddings (no model), recursive chunks of `size` characters."""
    return PipelineConfig.model_validate({
        "chunking": {"strategy": "recursive", "params": {"size": size, "overlap": 0}},
        "embedding": {"backend": "hashing"},
        "index": {"sparse_backend": sparse},
    })  # fmt: skip


WHOLE, SMALL = config(400), config(40)


@pytest.fixture
def collection() -> Iterator[Collection]:
    collection = open_collection(unique_name("set"), create=True)
    ingest(collection, passage_docs()[:6], WHOLE, progress=False)
    yield collection
    delete_collection(collection.name)


def _syncs(collection: Collection, cfg: PipelineConfig) -> tuple[Collection, list[IndexSync]]:
    heard: list[IndexSync] = []
    return index_for(collection, cfg, on_sync=heard.append), heard


def test_another_preset_gets_its_own_index_once_from_the_kept_text(collection: Collection) -> None:
    assert not needs_sync(collection, WHOLE) and index_for(collection, WHOLE) is collection
    assert needs_sync(collection, SMALL)
    index, heard = _syncs(collection, SMALL)
    assert index is not collection and index.name.startswith(f"{collection.name}.ix-")
    assert [s.added for s in heard] == [6] and heard[0].chunks > 6  # small chunks: more of them
    assert set(index.manifest.documents) == set(collection.manifest.documents)
    assert all(len(c.text) <= 40 for c in index.chunks())
    again, heard = _syncs(collection, SMALL)
    assert again is index and heard == []  # reused: nothing parsed, chunked or embedded again
    assert collection.name in list_collections()
    assert not any(".ix-" in name for name in list_collections())  # indexes are not collections


def test_a_query_with_another_preset_runs_instead_of_failing(collection: Collection) -> None:
    cfg = with_overrides(SMALL, {**OFFLINE, "index.collection": collection.name})
    trace = run_query("Which tool shows service logs?", cfg, collection)
    assert trace.error is None and trace.collection.startswith(f"{collection.name}.ix-")
    top = trace.output(SelectOutput)
    assert top is not None and top.candidates
    assert all(len(c.chunk.text) <= 40 for c in top.candidates)


def test_the_index_follows_added_changed_and_removed_documents(collection: Collection) -> None:
    index = index_for(collection, SMALL)
    changed = make_doc("docs/p00.txt", "APT now verifies every download with signed release files.")
    ingest(collection, [changed, *passage_docs()[6:8]], WHOLE, progress=False)
    collection.remove_document("docs/p01.txt")
    assert needs_sync(collection, SMALL)
    index, heard = _syncs(collection, SMALL)
    assert (heard[0].added, heard[0].removed) == (3, 1)  # p00 changed, p06 and p07 new; p01 gone
    assert set(index.manifest.documents) == set(collection.manifest.documents)
    texts = " ".join(c.text for c in index.chunks())
    assert "signed release" in texts and "dpkg installs" not in texts
    assert "downloads packages from the archive" not in texts  # p00's old text is gone


def test_ingest_with_another_preset_fills_both_indexes(collection: Collection) -> None:
    summary = ingest(collection, passage_docs()[6:9], SMALL, progress=False)
    assert len(summary.added) == 3 and collection.manifest.chunk_count == 9  # its own settings
    assert not needs_sync(collection, SMALL)  # and the preset's index is already up to date
    assert len(index_for(collection, SMALL).manifest.documents) == 9


def test_a_document_made_private_is_private_in_derived_indexes_too(collection: Collection) -> None:
    cfg = with_overrides(SMALL, {**OFFLINE, "index.collection": collection.name})
    query = "Which tool shows service logs?"
    assert any("journalctl" in c.chunk.text
               for c in run_query(query, cfg, collection).output(SelectOutput).candidates)
    collection.remove_document("docs/p04.txt")  # the journalctl passage, again as alice's own
    private = Access(owner="alice", visibility="private")
    ingest(collection, [passage_docs()[4]], WHOLE, access=private, progress=False)
    for user, sees in (("bob", False), (None, False), ("alice", True)):
        top = run_query(query, cfg, collection, user=user).output(SelectOutput)
        assert any("journalctl" in c.chunk.text for c in top.candidates) is sees, user


def test_a_collection_without_kept_text_says_what_to_do(collection: Collection) -> None:
    DocumentTexts(collection.directory).path.unlink()
    with pytest.raises(MissingDocumentTextError, match="ingest those files again"):
        index_for(collection, SMALL)
    assert index_for(collection, WHOLE) is collection  # its own index still serves


def test_deleting_a_collection_drops_its_derived_indexes() -> None:
    collection = open_collection(unique_name("gone"), create=True)
    ingest(collection, passage_docs()[:2], WHOLE, progress=False)
    index = index_for(collection, SMALL)
    assert derived_indexes(collection) == [index] and index.store.exists()
    delete_collection(collection.name)
    assert not index.store.exists() and not collection.directory.exists()
    assert len(PASSAGES) > 2
