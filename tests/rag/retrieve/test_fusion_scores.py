"""Scores-only fusion twins give exactly the scores and the ranking of the full fusion methods."""

from __future__ import annotations

import random

import pytest
from retrieve_helpers import ranked

from rag.index.hits import RankedList
from rag.retrieve.fusion import FUSION, fuse
from rag.retrieve.fusion.scores import (
    FUSION_SCORES,
    Fused,
    best_first,
    cuts,
    pool_batch,
    pool_ids,
)
from rag.settings.retrieval import FusionConfig


def _random_lists(rng: random.Random, names: list[str], pool: int, depth: int) -> list[RankedList]:
    """Lists over a shared pool of chunk ids, some repeated within a list (pool keeps the first)."""
    out = []
    for name in names:
        ids = [f"c{rng.randrange(pool):03d}" for _ in range(depth)]
        out.append(ranked(name, [(cid, float(depth - i)) for i, cid in enumerate(ids)]))
    return out


def _ids(lists: list[RankedList]) -> dict[str, tuple[str, ...]]:
    return {r.retriever: tuple(c.chunk_id for c in r.candidates) for r in lists}


def _twin(lists: list[RankedList], config: FusionConfig, depth: int = 10_000
          ) -> tuple[dict[str, float], list[str]]:
    """The twin's scores by chunk id (fused chunks only) and its ranking, lists read to depth."""
    pooled = pool_ids(_ids(lists))
    fused: Fused = FUSION_SCORES.get(config.method)(pooled, cuts(pooled, depth, config.depths),
                                                    config)
    best = best_first(pooled, fused)[0]
    return ({pooled.ids[i]: float(fused.scores[i]) for i in best},
            [pooled.ids[i] for i in best])


CONFIGS = [
    FusionConfig(method="rrf", k=1),
    FusionConfig(method="rrf", k=60),
    FusionConfig(method="weighted_rrf", k=5, weights={"bm25": 0.4, "dense": 0.6}),
    FusionConfig(method="weighted_rrf", k=60, weights={"bm25": 0.3, "dense": 0.3, "extra": 0.4},
                 depths={"dense": 7}),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.method}-k{c.k}")
@pytest.mark.parametrize("names", [["bm25", "dense"], ["bm25", "dense", "dense#q2"],
                                   ["bm25", "dense", "extra"]])
def test_twin_scores_and_ranking_equal_full_fusion(config: FusionConfig, names: list[str]) -> None:
    if config.method == "weighted_rrf" and "extra" in names and "extra" not in config.weights:
        pytest.skip("no weight for the extra list")
    rng = random.Random(f"{config}{names}")
    for _ in range(20):
        lists = _random_lists(rng, names, pool=40, depth=rng.randint(0, 30))
        full = fuse(lists, config)
        scores, order = _twin(lists, config)
        assert {c.chunk_id: c.score for c in full} == scores  # exactly, not approximately
        assert order == [c.chunk_id for c in full]
        depth = rng.randint(1, 30)
        shallow = fuse([RankedList(r.retriever, r.candidates[:depth]) for r in lists], config)
        cut_scores, cut_order = _twin(lists, config, depth)
        assert cut_order == [c.chunk_id for c in shallow]
        assert cut_scores == {c.chunk_id: c.score for c in shallow}


def test_ties_rank_by_chunk_id_like_full_fusion() -> None:
    lists = [ranked("bm25", [("b", 1.0), ("a", 0.5)]), ranked("dense", [("a", 1.0), ("b", 0.5)])]
    config = FusionConfig(method="rrf", k=60)
    scores, order = _twin(lists, config)
    assert scores["a"] == scores["b"]
    assert order == ["a", "b"] == [c.chunk_id for c in fuse(lists, config)]


def test_top_k_keeps_the_best() -> None:
    lists = [ranked("bm25", [("a", 3.0), ("b", 2.0), ("c", 1.0)])]
    pooled = pool_ids(_ids(lists))
    fused = FUSION_SCORES.get("rrf")(pooled, cuts(pooled, 3, {}), FusionConfig(method="rrf"))
    assert [pooled.ids[i] for i in best_first(pooled, fused, 2)[0]] == ["a", "b"]
    empty = pool_ids({})
    assert best_first(empty, FUSION_SCORES.get("rrf")(empty, {}, FusionConfig()))[0].size == 0


def test_a_batch_ranks_each_query_as_alone() -> None:
    rng = random.Random(7)
    config = FusionConfig(method="weighted_rrf", k=3, weights={"bm25": 0.3, "dense": 0.7})
    queries = {f"q{i}": _random_lists(rng, ["bm25", "dense"], pool=15, depth=rng.randint(0, 12))
               for i in range(8)}
    batch = pool_batch({q: _ids(lists) for q, lists in queries.items()})
    fused = FUSION_SCORES.get("weighted_rrf")(batch, cuts(batch, 6, {}), config)
    for qid, best in zip(batch.queries, best_first(batch, fused, 4), strict=True):
        alone = fuse([RankedList(r.retriever, r.candidates[:6]) for r in queries[qid]], config)
        assert [batch.ids[i] for i in best] == [c.chunk_id for c in alone[:4]]
        assert [float(fused.scores[i]) for i in best] == [c.score for c in alone[:4]]


def test_every_twin_is_a_registered_fusion_method() -> None:
    assert set(FUSION_SCORES.names()) <= set(FUSION.names())


def test_twins_reject_what_full_fusion_rejects() -> None:
    lists = [ranked("bm25", [("a", 1.0)]), ranked("sparse2", [("a", 1.0)])]
    with pytest.raises(ValueError, match="no weight for list 'sparse2'"):
        _twin(lists, FusionConfig(method="weighted_rrf"))
