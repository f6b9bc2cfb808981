"""Collections on local Qdrant: search, filters, privacy, named vectors, re-ingest, config checks."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from index_helpers import PASSAGES, index_config, make_doc, passage_docs, unique_name

from rag.embed import get_embedder
from rag.index import (
    Access,
    Collection,
    CollectionNotFoundError,
    IncompatibleConfigError,
    delete_collection,
    get_client,
    list_collections,
    open_collection,
)
from rag.index.sparse.bm25s_backend import BM25sIndex
from rag.settings.retrieval import FilterConfig


@pytest.fixture
def collection() -> Iterator[Collection]:
    collection = open_collection(unique_name(), create=True)
    yield collection
    delete_collection(collection.name)


def _query(text: str):  # a numpy vector
    return get_embedder(index_config().embedding).embed_query(text)


def _sources(collection: Collection, filters: FilterConfig | None = None) -> set[str]:
    ranked = collection.dense_search(_query("packages"), depth=50, filters=filters)
    return {c.chunk.metadata["source"] for c in ranked.candidates}


def test_dense_and_sparse_search_find_the_right_passage(collection: Collection) -> None:
    summary = collection.add_documents(passage_docs(), index_config(), progress=False)
    assert summary.chunks_added == len(PASSAGES) and len(summary.added) == len(PASSAGES)

    dense = collection.dense_search(_query("how do I read service logs?"), depth=3)
    assert dense.retriever == "dense" and len(dense.candidates) == 3
    assert "journalctl" in dense.candidates[0].chunk.text
    top = dense.candidates[0]
    assert top.hits["dense"].rank == 1 and top.hits["dense"].raw_score == pytest.approx(top.score)
    assert [c.score for c in dense.candidates] == sorted(
        (c.score for c in dense.candidates), reverse=True
    )

    sparse = collection.sparse_search("rsync backups", depth=5)
    assert sparse.retriever == "bm25" and sparse.candidates[0].chunk.text.startswith("rsync")
    assert sparse.candidates[0].hits["bm25"].rank == 1


def test_points_carry_named_dense_and_sparse_vectors(collection: Collection) -> None:
    collection.add_documents(passage_docs()[:2], index_config(), progress=False)
    schema = get_client().describe(collection.name)
    assert set(schema.dense) == {"dense"} and schema.sparse == ("sparse",)
    assert {"owner", "visibility", "tags", "doc_id"} <= set(schema.indexed)
    chunk = collection.chunks()[0]
    assert collection.get_chunk(chunk.chunk_id) == chunk
    stored = collection.vectors([chunk.chunk_id, "missing"])
    assert list(stored) == [chunk.chunk_id]
    expected = get_embedder(index_config().embedding).embed_documents([chunk.text])[0]
    assert np.allclose(stored[chunk.chunk_id], expected, atol=1e-5)
    assert chunk.metadata["source"] == "docs/p00.txt" and chunk.text == PASSAGES[0]


def test_reingesting_unchanged_files_adds_nothing(collection: Collection) -> None:
    collection.add_documents(passage_docs()[:5], index_config(), progress=False)
    again = collection.add_documents(passage_docs()[:6], index_config(), progress=False)
    assert again.added == ("docs/p05.txt",) and len(again.unchanged) == 5
    assert again.chunks_added == 1 and again.chunks_removed == 0
    assert len(collection.chunks()) == 6 == collection.manifest.chunk_count


def test_a_changed_file_replaces_its_old_chunks(collection: Collection) -> None:
    collection.add_documents(passage_docs()[:3], index_config(), progress=False)
    changed = make_doc("docs/p01.txt", "dpkg was rewritten: it now speaks Esperanto.")
    summary = collection.add_documents([changed], index_config(), progress=False)
    assert summary.replaced == ("docs/p01.txt",) and summary.chunks_removed == 1
    texts = [c.text for c in collection.chunks()]
    assert changed.text in texts and PASSAGES[1] not in texts and len(texts) == 3
    assert collection.sparse_search("Esperanto", depth=5).candidates[0].chunk.text == changed.text
    assert not collection.sparse_search("fetch missing single", depth=5).candidates


def test_owners_never_see_each_others_private_chunks(collection: Collection) -> None:
    cfg = index_config()
    collection.add_documents(passage_docs()[:2], cfg, progress=False)
    collection.add_documents(
        [make_doc("alice/notes.txt", "alice private packages notes")],
        cfg,
        access=Access(owner="alice", visibility="private"),
        progress=False,
    )
    collection.add_documents(
        [make_doc("bob/notes.txt", "bob private packages notes")],
        cfg,
        access=Access(owner="bob", visibility="private"),
        progress=False,
    )
    public = {"docs/p00.txt", "docs/p01.txt"}
    assert _sources(collection) == public
    assert _sources(collection, FilterConfig(owner="alice")) == public | {"alice/notes.txt"}
    assert _sources(collection, FilterConfig(owner="bob")) == public | {"bob/notes.txt"}
    sparse = collection.sparse_search("alice bob", depth=10, filters=FilterConfig(owner="alice"))
    assert [c.chunk.metadata["source"] for c in sparse.candidates] == ["alice/notes.txt"]
    with pytest.raises(ValueError, match="owner"):
        Access(visibility="private")


def test_payload_filters_on_source_type_tags_level_and_time(collection: Collection) -> None:
    old = datetime(2020, 1, 1, tzinfo=UTC)
    docs = [
        make_doc("a.txt", "apt packages faq", doc_type="FAQ", tags=("apt",), modified=old),
        make_doc("b.txt", "dpkg packages book", doc_type="BOOK", tags=("dpkg", "core")),
        make_doc("c.txt", "pip packages notes"),
    ]
    collection.add_documents(docs, index_config(), access=Access(tags=("batch1",)), progress=False)
    assert _sources(collection, FilterConfig(sources=["a.txt", "c.txt"])) == {"a.txt", "c.txt"}
    assert _sources(collection, FilterConfig(doc_types=["BOOK"])) == {"b.txt"}
    assert _sources(collection, FilterConfig(tags=["apt", "core"])) == {"a.txt", "b.txt"}
    assert _sources(collection, FilterConfig(tags=["batch1"])) == {"a.txt", "b.txt", "c.txt"}
    assert _sources(collection, FilterConfig(levels=["parent"])) == set()
    since = (datetime.now(UTC) - timedelta(days=1)).timestamp()
    recent = collection.dense_search(_query("packages"), depth=10, since=since)
    assert {c.chunk.metadata["source"] for c in recent.candidates} == {"b.txt", "c.txt"}
    sparse = collection.sparse_search("apt dpkg", depth=10, filters=FilterConfig(doc_types=["FAQ"]))
    assert [c.chunk.metadata["source"] for c in sparse.candidates] == ["a.txt"]


def test_querying_with_other_index_settings_names_the_fields(collection: Collection) -> None:
    collection.add_documents(passage_docs()[:2], index_config(), progress=False)
    collection.check_compatible(index_config().model_copy(update={"name": "other-preset"}))
    with pytest.raises(
        IncompatibleConfigError, match=r"index\.sparse_backend: 'bm25s' \(collection\)"
    ):
        collection.check_compatible(index_config("rank-bm25"))
    wider = index_config()
    wider.chunking.params = {"size": 800, "overlap": 0}
    with pytest.raises(IncompatibleConfigError, match=r"chunking\.params\.size"):
        collection.add_documents(passage_docs()[2:3], wider, progress=False)


def test_querying_with_another_embedder_explains_the_mismatch(collection: Collection) -> None:
    collection.add_documents(passage_docs()[:1], index_config(), progress=False)  # fastembed
    onnx = index_config().model_copy(deep=True)
    onnx.embedding.backend = "onnx"
    with pytest.raises(IncompatibleConfigError) as raised:
        collection.check_compatible(onnx)
    message = str(raised.value)
    assert "embedding.backend: 'fastembed' (collection) vs 'onnx' (config)" in message
    assert "its vectors were made by fastembed all-MiniLM-L6-v2" in message
    assert "--set embedding.backend=fastembed" in message


def test_collections_persist_list_and_delete() -> None:
    name = unique_name("persist")
    open_collection(name, create=True).add_documents(
        passage_docs()[:4], index_config(), progress=False
    )
    reopened = open_collection(name)  # a new object reads the manifest and the saved BM25 index
    assert name in list_collections() and reopened.manifest.chunk_count == 4
    sparse = reopened.sparse
    assert isinstance(sparse, BM25sIndex) and sparse.is_built  # loaded, not rebuilt
    assert reopened.sparse_search("cron schedule", depth=3).candidates == ()
    assert reopened.sparse_search("dpkg", depth=3).candidates[0].chunk.text == PASSAGES[1]
    delete_collection(name)
    assert name not in list_collections()
    with pytest.raises(CollectionNotFoundError, match="python -m rag ingest"):
        open_collection(name)


def test_empty_collection_searches_return_nothing(collection: Collection) -> None:
    assert collection.sparse_search("anything", depth=5).candidates == ()
    assert collection.dense_search(np.ones(384, dtype=np.float32), depth=5).candidates == ()
    assert collection.chunks() == []
    with pytest.raises(KeyError):
        collection.get_chunk("missing")


def test_bad_collection_names_are_refused() -> None:
    with pytest.raises(ValueError, match="collection name"):
        open_collection("../escape", create=True)
