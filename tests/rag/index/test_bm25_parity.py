"""Sparse backends against rank-bm25 on the same tokens (after bm25s's tests/comparison).

bm25s ("robertson") must equal BM25Okapi exactly while every query term is in fewer than half
the documents; Qdrant's sparse vectors must equal BM25Okapi's term-frequency part times the
Lucene idf ln(1 + (N - n + 0.5)/(n + 0.5)).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator

import pytest
from index_helpers import PASSAGES, index_config, passage_docs, unique_name
from rank_bm25 import BM25Okapi

from rag.index import Collection, delete_collection, open_collection
from rag.index.tokenizer import Tokenizer

QUERIES = [
    "packages dependencies",
    "download packages packages",  # a repeated term counts twice everywhere
    "systemd journal logs",
    "remote password server",
    "archive compresses files",
    "nothing matches zebra",
]


@pytest.fixture(scope="module")
def collections() -> Iterator[dict[str, Collection]]:
    built = {}
    for backend in ("rank-bm25", "bm25s", "qdrant"):
        collection = open_collection(unique_name(backend), create=True)
        collection.add_documents(passage_docs(), index_config(backend), progress=False)
        built[backend] = collection
    yield built
    for collection in built.values():
        delete_collection(collection.name)


def _tokens() -> list[list[str]]:
    return Tokenizer(index_config().index.tokenizer).many(PASSAGES)


def _scores(collection: Collection, query: str) -> dict[str, float]:
    ranked = collection.sparse_search(query, depth=100)
    return {c.chunk.text: c.score for c in ranked.candidates}


def _okapi(query: str) -> dict[str, float]:
    model = BM25Okapi(_tokens(), k1=1.5, b=0.75)
    scores = model.get_scores(Tokenizer(index_config().index.tokenizer)(query))
    return {text: float(s) for text, s in zip(PASSAGES, scores, strict=True) if s > 0}


def _okapi_with_lucene_idf(query: str) -> dict[str, float]:
    tokens = _tokens()
    n_docs, avgdl = len(tokens), sum(map(len, tokens)) / len(tokens)
    df = Counter(t for doc in tokens for t in set(doc))
    out = {}
    for text, doc in zip(PASSAGES, tokens, strict=True):
        tf, score = Counter(doc), 0.0
        for term in Tokenizer(index_config().index.tokenizer)(query):
            if tf[term]:
                idf = math.log(1 + (n_docs - df[term] + 0.5) / (df[term] + 0.5))
                score += idf * tf[term] * 2.5 / (tf[term] + 1.5 * (0.25 + 0.75 * len(doc) / avgdl))
        if score > 0:
            out[text] = score
    return out


def test_no_query_term_is_in_half_the_corpus() -> None:
    """The precondition of exact rank-bm25/bm25s parity (see rag/index/sparse/base.py)."""
    df = Counter(t for doc in _tokens() for t in set(doc))
    terms = {t for q in QUERIES for t in Tokenizer(index_config().index.tokenizer)(q)}
    assert all(df[t] < len(PASSAGES) / 2 for t in terms)


@pytest.mark.parametrize("backend", ["rank-bm25", "bm25s"])
@pytest.mark.parametrize("query", QUERIES)
def test_in_process_backends_equal_bm25okapi(
    collections: dict[str, Collection], backend: str, query: str
) -> None:
    ours, reference = _scores(collections[backend], query), _okapi(query)
    assert list(ours) == sorted(reference, key=lambda t: (-reference[t], PASSAGES.index(t)))
    assert ours == pytest.approx(reference, rel=1e-5)


@pytest.mark.parametrize("query", QUERIES)
def test_qdrant_sparse_equals_bm25_with_lucene_idf(
    collections: dict[str, Collection], query: str
) -> None:
    ours, reference = _scores(collections["qdrant"], query), _okapi_with_lucene_idf(query)
    assert ours == pytest.approx(reference, rel=1e-4)
    assert [round(s, 4) for s in ours.values()] == sorted(
        (round(s, 4) for s in reference.values()), reverse=True
    )


def test_a_term_in_most_documents_is_where_the_variants_part() -> None:
    """rank-bm25 floors a negative idf at 0.25 x mean idf; bm25s floors it at 0."""
    common = ["apt dpkg"] * 3 + ["apt"] * 2 + ["other words"]
    okapi = BM25Okapi([d.split() for d in common])
    assert okapi.get_scores(["apt"])[0] > 0  # 'apt' is in 5 of 6 docs: idf < 0, floored > 0
