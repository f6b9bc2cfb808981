"""Scores-only sweep points (eval.runs.sweep_scores) rank and score every query exactly as a
plain run does — the full fusion method, the first top_k chunks, documents at their best chunk
(doc_ranking), then evaluate — on random lists with many score ties and many chunks per
document, so trec_eval's doc-id tie order and MaxP are both exercised."""

from __future__ import annotations

import random
from types import MappingProxyType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval.runs.candidates import QueryLists, truncate
from eval.runs.doc_scores import doc_ranking
from eval.runs.sweep_scores import _trec_positions, pooled_lists, score_point
from eval.scoring.metrics import evaluate, parse_metric
from rag.chunking.base import Chunk
from rag.config import PipelineConfig, with_overrides
from rag.index.hits import Candidate, RankedList
from rag.retrieve.fusion import fuse
from rag.settings.retrieval import FilterConfig
from rag.stages import PipelineState

METRICS = ["ndcg@10", "recall@5", "recall@100", "mrr@10", "map@100", "precision@3", "hit@2"]
HEAD = PipelineState(query="q", queries=(), filters=FilterConfig())


def _random_heads(rng: random.Random) -> tuple[list[QueryLists], dict[str, dict[str, int]]]:
    heads, qrels = [], {}
    for q in range(rng.randint(1, 6)):
        n_docs = rng.randint(1, 12)
        chunks = [Chunk(f"c{q}-{d}-{i}", f"d{d:02d}", 0, 1, "x")
                  for d in range(n_docs) for i in range(rng.randint(1, 4))]
        lists = {}
        for name in ("bm25", "dense"):
            picked = rng.sample(chunks, rng.randint(0, len(chunks)))
            lists[name] = RankedList(name, tuple(Candidate(c, 1.0) for c in picked))
        heads.append(QueryLists(f"q{q}", MappingProxyType(lists), 1.0, None, HEAD))
        if rng.random() < 0.85:  # some queries have no qrels: ranked, not scored
            qrels[f"q{q}"] = {f"d{d:02d}": rng.choice([0, 1, 1, 2]) for d in range(n_docs)
                              if rng.random() < 0.4}
    return heads, qrels


def _plain(item: QueryLists, config: PipelineConfig, limit: int) -> dict[str, float]:
    lists = truncate(item.lists, config.retrieval.depth)
    fused = fuse(lists, config.fusion)
    return doc_ranking(fused[: config.retrieval.top_k], limit)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), method=st.sampled_from(["rrf", "weighted_rrf"]),
       k=st.sampled_from([1, 2, 60]), depth=st.integers(1, 40), limit=st.integers(1, 30))
def test_points_rank_and_score_as_plain_runs(seed: int, method: str, k: int, depth: int,
                                             limit: int) -> None:
    rng = random.Random(seed)
    heads, qrels = _random_heads(rng)
    top_k = rng.randint(1, depth)
    config = with_overrides(PipelineConfig(), {
        "fusion.method": method, "fusion.k": k,
        "fusion.weights": {"bm25": 0.5, "dense": rng.choice([0.5, 0.25])},  # 0.5: many ties
        "retrieval.depth": depth, "retrieval.top_k": top_k})
    point = score_point(pooled_lists(heads, qrels), config, limit, [parse_metric(m) for m in METRICS])
    plain = {item.qid: _plain(item, config, limit) for item in heads}
    assert point.rankings == plain
    expected = evaluate(qrels, plain, METRICS)
    for key, scores in expected.items():
        assert point.values[key] == scores.values, key  # exactly, and in the same qid order
        assert list(point.values[key]) == list(scores.values)


def test_trec_positions_reorder_only_tied_runs_by_doc_id_descending() -> None:
    import numpy as np

    owner = np.array([0, 0, 0, 0, 1, 1])
    score = np.array([3.0, 2.0, 2.0, 1.0, 2.0, 2.0])
    doc = np.array([5, 1, 4, 0, 2, 3])
    # query 0: 3.0 first, then the 2.0 tie with doc 4 before doc 1; query 1: doc 3 before 2
    assert _trec_positions(owner, score, doc).tolist() == [0, 2, 1, 3, 5, 4]


def test_pooled_lists_leave_out_queries_the_tail_must_run() -> None:
    heads, qrels = _random_heads(random.Random(1))
    failed = QueryLists("bad", MappingProxyType({}), 1.0, "boom", None)
    routed = QueryLists("routed", heads[0].lists, 1.0, None,
                        PipelineState(query="q", queries=(), filters=FilterConfig(),
                                      overrides=MappingProxyType({"fusion.k": 3})))
    pooled = pooled_lists([*heads, failed, routed], qrels)
    assert pooled.pooled.queries == tuple(h.qid for h in heads)
    no_dense_weight = with_overrides(PipelineConfig(), {"fusion.method": "weighted_rrf",
                                                        "fusion.weights": {"bm25": 1.0}})
    with pytest.raises(ValueError, match="dense"):  # the twin's error: the caller runs the tail
        score_point(pooled, no_dense_weight, 10, [parse_metric("ndcg@10")])
