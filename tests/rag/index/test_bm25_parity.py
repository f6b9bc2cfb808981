"""Sparse backends against rank-bm25 on the same tokens (after bm25s's tests/comparison).

bm25s must equal BM25Okapi exactly, also for a term in more than half the documents; Qdrant's
sparse vectors must equal BM25Okapi's term-frequency part times the
Lucene idf ln(1 + (N - n + 0.5)/(n + 0.5)).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from index_helpers import PASSAGES, index_config, passage_docs, unique_name
from rank_bm25 import BM25Okapi

from rag.index import Collection, delete_collection, open_collection
from rag.index.sparse.base import BM25Params, SparseContext
from rag.index.sparse.bm25s_backend import BM25sIndex
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


@pytest.mark.parametrize("query", [["apt"], ["apt", "dpkg"], ["dpkg", "dpkg"], ["words"]])
def test_bm25s_equals_bm25okapi_when_a_term_is_in_most_documents(
    tmp_path: Path, query: list[str]
) -> None:
    """'apt' is in 5 of 6 documents: its idf is negative and BM25Okapi floors it at 0.25 x the
    mean idf (not at 0), which bm25s must reproduce for whole-passage corpora."""
    tokens = [d.split() for d in ["apt dpkg apt", "apt", "apt dpkg", "apt other", "other words",
                                  "apt apt apt x"]]
    index = BM25sIndex(SparseContext(tmp_path, BM25Params()))
    index.add([f"c{i}" for i in range(len(tokens))], tokens)
    index.save()
    reference = {f"c{i}": float(s)
                 for i, s in enumerate(BM25Okapi(tokens, k1=1.5, b=0.75).get_scores(query))
                 if s > 0}
    assert reference  # the case is not vacuous
    for searched in (index, BM25sIndex(SparseContext(tmp_path, BM25Params()))):  # also reloaded
        assert dict(searched.search(query, 10, None)) == pytest.approx(reference, rel=1e-6)


def test_saved_model_reads_back_as_bm25s_loads_it(tmp_path: Path) -> None:
    """A query reads the saved matrix with numpy alone (no bm25s import): the same arrays and
    vocabulary bm25s.BM25.load reads, and a reopened index saved again after a change refits."""
    import bm25s

    from rag.index.sparse.bm25s_backend import ScoreMatrix

    tokens = [d.split() for d in ["apt dpkg apt", "apt", "other words"]]
    index = BM25sIndex(SparseContext(tmp_path, BM25Params()))
    index.add(["c0", "c1", "c2"], tokens)
    index.save()
    model_dir = tmp_path / "bm25s" / "model"
    ours, theirs = ScoreMatrix.load(model_dir), bm25s.BM25.load(str(model_dir), show_progress=False)
    for part in ("data", "indices", "indptr"):
        assert np.array_equal(getattr(ours, part), theirs.scores[part])
    assert ours.num_docs == theirs.scores["num_docs"] and ours.vocab == theirs.vocab_dict

    reopened = BM25sIndex(SparseContext(tmp_path, BM25Params()))
    assert reopened.is_built and reopened.model is None  # loaded, not fitted
    reopened.save()  # unchanged: the saved files stay as they are
    assert reopened.model is None and ScoreMatrix.load(model_dir).vocab == ours.vocab
    reopened.add(["c3"], [["fresh", "words"]])
    reopened.save()
    assert reopened.model is not None  # refitted to the changed corpus
    again = BM25sIndex(SparseContext(tmp_path, BM25Params()))
    assert [hit.chunk_id for hit in again.search(["fresh"], 10, None)] == ["c3"]
