"""The fast query path returns what the plain one did: the same chunks, scores, ranks and
metadata as the store's own answers assembled the straightforward way, under the privacy filter.

The search layer was cut for speed (benchmarks/results/store_engines_edge50k.json): payloads
become chunks by copy-and-pop, point ids are uuid5 spelled out, the Edge filter is built once
per filter. These tests hold each of those to the reference it replaced.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

import pytest
from index_helpers import PASSAGES, index_config, make_doc, passage_docs, unique_name
from rank_bm25 import BM25Okapi

from rag.chunking.base import Chunk
from rag.embed import get_embedder
from rag.index import Access, Collection, delete_collection, open_collection
from rag.index.edge_filters import to_edge
from rag.index.filters import build_filter, point_id
from rag.index.payload import chunk_from_payload
from rag.index.tokenizer import Tokenizer
from rag.settings.retrieval import FilterConfig

PRIVATE = {3, 4, 8, 14}  # passages private to "ann"; the rest are public
QUERIES = ["packages dependencies", "systemd journal logs", "rsync backups files", "zebra"]


def _reference_chunk(payload: Mapping[str, Any]) -> Chunk:
    """chunk_from_payload as it was before the fast path."""
    fields = ("chunk_id", "doc_id", "start", "end", "text", "parent_id", "level")
    extra = {k: v for k, v in payload.items() if k not in fields}
    if isinstance(extra.get("tags"), list):
        extra["tags"] = tuple(extra["tags"])
    return Chunk(chunk_id=str(payload["chunk_id"]), doc_id=str(payload["doc_id"]),
                 start=int(payload["start"]), end=int(payload["end"]), text=str(payload["text"]),
                 parent_id=payload.get("parent_id"), level=str(payload.get("level", "chunk")),
                 metadata=MappingProxyType(extra))  # fmt: skip


@pytest.fixture(scope="module")
def collection() -> Iterator[Collection]:
    collection = open_collection(unique_name("paths"), create=True)
    config = index_config()
    public = [d for i, d in enumerate(passage_docs()) if i not in PRIVATE]
    collection.add_documents(public, config, progress=False)
    private = [make_doc(f"docs/p{i:02d}.txt", PASSAGES[i], tags=("ops", "x"))
               for i in sorted(PRIVATE)]  # fmt: skip
    collection.add_documents(private, config, access=Access(owner="ann", visibility="private"),
                             progress=False)  # fmt: skip
    yield collection
    delete_collection(collection.name)


@pytest.mark.parametrize("chunk_id", ["", "a", "docs/p01.txt#0f3a:0-88", "ünï cödé ✓", "x" * 300])
def test_point_id_is_uuid5_of_the_chunk_id(chunk_id: str) -> None:
    assert point_id(chunk_id) == str(uuid.uuid5(uuid.NAMESPACE_URL, chunk_id))


@pytest.mark.parametrize("payload", [
    {"chunk_id": "c", "doc_id": "d", "start": 0, "end": 3, "text": "abc", "parent_id": None,
     "level": "chunk", "tags": ["b", "a"], "owner": None, "visibility": "public", "index": 2},
    {"chunk_id": "c", "doc_id": "d", "start": 1, "end": 2, "text": "b", "parent_id": "p",
     "source": "s.txt", "tags": "solo", "created_at": 1.5},
    {"chunk_id": 7, "doc_id": "d", "start": "0", "end": "1", "text": "x"},  # coerced the same way
])  # fmt: skip
def test_chunk_from_payload_equals_the_reference(payload: dict[str, Any]) -> None:
    ours, reference = chunk_from_payload(payload), _reference_chunk(payload)
    assert ours == reference
    assert list(ours.metadata) == list(reference.metadata)  # same order too


def test_the_edge_filter_is_built_once_per_filter() -> None:
    qfilter = build_filter(FilterConfig(owner="ann"))
    assert to_edge(qfilter) is to_edge(build_filter(FilterConfig(owner="ann")))
    assert to_edge(qfilter) is not to_edge(build_filter(FilterConfig(owner="bob")))


@pytest.mark.parametrize("owner", [None, "ann", "bob"])
@pytest.mark.parametrize("query", QUERIES)
def test_dense_search_equals_the_stores_answer(
    collection: Collection, owner: str | None, query: str
) -> None:
    vector = get_embedder(index_config().embedding).embed_query(query)
    filters = FilterConfig(owner=owner)
    ranked = collection.dense_search(vector, depth=10, filters=filters)
    raw = collection.store.search_dense(vector, 10, build_filter(filters, privacy=True))
    assert [c.chunk for c in ranked.candidates] == [_reference_chunk(h.payload) for h in raw]
    assert [c.score for c in ranked.candidates] == [h.score for h in raw]
    assert [(h.rank, h.raw_score) for c in ranked.candidates for h in c.hits.values()] == [
        (rank, h.score) for rank, h in enumerate(raw, start=1)
    ]
    assert all(not c.contributions and not c.stage_scores for c in ranked.candidates)
    private_seen = {c.chunk.metadata["owner"] for c in ranked.candidates} - {None}
    assert private_seen == ({"ann"} if owner == "ann" else set())


@pytest.mark.parametrize("owner", [None, "ann"])
@pytest.mark.parametrize("query", QUERIES)
def test_sparse_search_equals_bm25okapi_over_what_the_filter_lets_through(
    collection: Collection, owner: str | None, query: str
) -> None:
    """Scores over the whole corpus (as before), then only visible chunks, best first, ties by
    corpus order; each chunk as the store's payload reads."""
    ranked = collection.sparse_search(query, depth=100, filters=FilterConfig(owner=owner))
    corpus = collection.sparse.corpus  # type: ignore[attr-defined]  # bm25s keeps its corpus
    tokenizer = Tokenizer(index_config().index.tokenizer)
    scores = BM25Okapi(corpus.tokens, k1=1.5, b=0.75).get_scores(tokenizer(query))
    payloads = collection.store.payloads(corpus.chunk_ids)
    visible = [i for i, c in enumerate(corpus.chunk_ids)
               if payloads[c]["visibility"] == "public" or payloads[c]["owner"] == owner]
    expected = sorted((i for i in visible if scores[i] > 0), key=lambda i: (-scores[i], i))
    assert [c.chunk_id for c in ranked.candidates] == [corpus.chunk_ids[i] for i in expected]
    assert [c.score for c in ranked.candidates] == pytest.approx([scores[i] for i in expected],
                                                                 rel=1e-6)  # fmt: skip
    assert [c.chunk for c in ranked.candidates] == [
        _reference_chunk(payloads[corpus.chunk_ids[i]]) for i in expected
    ]
    assert [c.hits["bm25"].rank for c in ranked.candidates] == list(range(1, len(expected) + 1))
    if query == "zebra":
        assert not ranked.candidates


def _view(ranked: Any) -> list[tuple[str, float, dict[str, Any]]]:
    return [(c.chunk_id, c.score, dict(c.chunk.metadata)) for c in ranked.candidates]


def test_a_warm_search_equals_a_cold_one(collection: Collection) -> None:
    """Chunks come from a cache after the first search: a second search, and a search through a
    freshly opened collection (empty cache), return the same lists."""
    vector = get_embedder(index_config().embedding).embed_query("packages")
    filters = FilterConfig(owner="ann")
    first = (collection.dense_search(vector, 10, filters), collection.sparse_search("files", 10, filters))
    again = (collection.dense_search(vector, 10, filters), collection.sparse_search("files", 10, filters))
    cold = open_collection(collection.name)
    fresh = (cold.dense_search(vector, 10, filters), cold.sparse_search("files", 10, filters))
    for a, b, c in zip(first, again, fresh, strict=True):
        assert a.candidates and _view(a) == _view(b) == _view(c)


def test_a_write_that_changes_access_is_seen_by_the_next_search() -> None:
    """The cached chunk of a document whose access changed (same text, so the same chunk ids)
    is not served after the write: tags, owner and visibility are the new ones."""
    collection = open_collection(unique_name("paths-access"), create=True)
    try:
        config = index_config()
        collection.add_documents(passage_docs()[:5], config, progress=False)
        vector = get_embedder(config.embedding).embed_query("packages dependencies")
        before = collection.dense_search(vector, 10, FilterConfig(owner="ann"))
        assert {c.chunk.metadata["visibility"] for c in before.candidates} == {"public"}
        moved = passage_docs()[:1]
        collection.add_documents(moved, config, access=Access(owner="ann", visibility="private",
                                                              tags=("moved",)), progress=False)  # fmt: skip
        for owner, sees in (("ann", True), ("bob", False)):
            ranked = collection.dense_search(vector, 10, FilterConfig(owner=owner))
            mine = [c for c in ranked.candidates if c.chunk.doc_id == moved[0].doc_id]
            assert bool(mine) == sees
            for c in mine:
                assert c.chunk.metadata["owner"] == "ann" and "moved" in c.chunk.metadata["tags"]
        sparse = collection.sparse_search("downloads packages", 10, FilterConfig(owner="ann"))
        mine = [c for c in sparse.candidates if c.chunk.doc_id == moved[0].doc_id]
        assert mine and all(c.chunk.metadata["visibility"] == "private" for c in mine)
    finally:
        delete_collection(collection.name)
