"""Sweep re-scoring: pure-fusion points (scores-only fast path) and points with post-steps (full
Candidates) both give the document rankings fuse_and_filter gives on the same lists."""

from __future__ import annotations

import random

import pytest

from eval.data.shapes import BeirDataset
from eval.runs.candidates import QueryLists, truncate
from eval.runs.preset_run import doc_ranking
from eval.runs.sweep import query_views, rescore
from rag.chunking.base import Chunk
from rag.config import PipelineConfig, load_preset, with_overrides
from rag.pipeline import fuse_and_filter
from rag.retrieve.base import Candidate, RankedList

METRICS = ["ndcg@10", "recall@100"]


def random_lists(rng: random.Random, qid: str) -> QueryLists:
    """bm25 and dense lists over 40 chunks of 8 documents, with tied scores on purpose."""
    chunks = [Chunk(f"{qid}-c{i}", f"d{i % 8}", 0, 1, "x") for i in range(40)]
    lists = {}
    for name in ("bm25", "dense"):
        picked = rng.sample(chunks, 30)
        scores = sorted((rng.choice([0.2, 0.5, 0.5, 0.9, 1.3]) for _ in picked), reverse=True)
        lists[name] = RankedList(name, tuple(map(Candidate, picked, scores)))
    return QueryLists(qid, lists, 1.0)


@pytest.fixture(scope="module")
def cached() -> tuple[QueryLists, ...]:
    rng = random.Random(7)
    return (*(random_lists(rng, f"q{i}") for i in range(12)),
            QueryLists("qerr", {}, 1.0, "RuntimeError: search failed"))


def dataset(cached: tuple[QueryLists, ...]) -> BeirDataset:
    queries = {item.qid: f"question {item.qid}" for item in cached}
    qrels = {qid: {"d1": 1, "d3": 2} for qid in queries}
    corpus = {f"d{i}": {"title": "", "text": "x"} for i in range(8)}
    return BeirDataset("toy", corpus, queries, qrels, "hash")


def config(**overrides: object) -> PipelineConfig:
    return with_overrides(load_preset("hybrid"), {"retrieval.depth": 20, "retrieval.top_k": 15,
                                                  **overrides})


@pytest.mark.parametrize("overrides", [
    {"fusion.k": 1},
    {"fusion.method": "weighted_rrf", "fusion.k": 30,
     "fusion.weights": {"bm25": 0.3, "dense": 0.7}},
    {"fusion.method": "convex", "fusion.alpha": 0.25, "fusion.normalization": "zscore"},
    {"fusion.method": "dbsf"},
    {"postprocess.threshold": 0.02},  # a post-step: the full Candidate path
])
def test_rescore_matches_fuse_and_filter(
    cached: tuple[QueryLists, ...], overrides: dict[str, object]
) -> None:
    point = config(**overrides)
    data = dataset(cached)
    # no de-duplication: the collection is never touched
    run = rescore(data, point, cached, None, METRICS, 10, 0, "p")  # type: ignore[arg-type]
    shared = rescore(data, point, cached, None, METRICS, 10, 0, "p",  # type: ignore[arg-type]
                     query_views(cached, 20))
    for item, outcome, again in zip(cached, run.outcomes, shared.outcomes, strict=True):
        assert outcome.ranking == again.ranking
        if item.error is not None:
            assert outcome.error == item.error and outcome.ranking == {}
            continue
        lists = truncate(item.lists, 20)
        top = fuse_and_filter(lists, point, query=data.queries[item.qid]).top
        assert outcome.ranking == doc_ranking(top, 100)
        assert list(outcome.ranking) == list(doc_ranking(top, 100))  # same order too
    assert run.summary.failed == 1
