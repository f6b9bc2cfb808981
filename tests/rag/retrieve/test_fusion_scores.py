"""Scores-only fusion twins give exactly the scores and the ranking of the full fusion methods."""

from __future__ import annotations

import random

import pytest
from retrieve_helpers import ranked

from rag.retrieve.base import RankedList
from rag.retrieve.fusion import FUSION, fuse
from rag.retrieve.fusion.scores import FUSION_SCORES, cut_ids, ranked_ids
from rag.retrieve.settings import FusionConfig


def _random_lists(rng: random.Random, names: list[str], pool: int, depth: int) -> list[RankedList]:
    """Lists over a shared pool of chunk ids, some repeated within a list (pool keeps the first)."""
    out = []
    for name in names:
        ids = [f"c{rng.randrange(pool):03d}" for _ in range(depth)]
        out.append(ranked(name, [(cid, float(depth - i)) for i, cid in enumerate(ids)]))
    return out


def _ids(lists: list[RankedList]) -> dict[str, tuple[str, ...]]:
    return {r.retriever: tuple(c.chunk_id for c in r.candidates) for r in lists}


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
        depth = rng.randint(1, 30)
        cut = cut_ids(_ids(lists), 10_000, config.depths)
        scores = FUSION_SCORES.get(config.method)(cut, config)
        assert {c.chunk_id: c.score for c in full} == scores  # exactly, not approximately
        assert ranked_ids(scores) == [c.chunk_id for c in full]
        shallow = fuse([RankedList(r.retriever, r.candidates[:depth]) for r in lists], config)
        top = ranked_ids(FUSION_SCORES.get(config.method)(
            cut_ids(_ids(lists), depth, config.depths), config), 5)
        assert top == [c.chunk_id for c in shallow[:5]]


def test_ties_rank_by_chunk_id_like_full_fusion() -> None:
    lists = [ranked("bm25", [("b", 1.0), ("a", 0.5)]), ranked("dense", [("a", 1.0), ("b", 0.5)])]
    config = FusionConfig(method="rrf", k=60)
    scores = FUSION_SCORES.get("rrf")(_ids(lists), config)
    assert scores["a"] == scores["b"]
    assert ranked_ids(scores) == ["a", "b"] == [c.chunk_id for c in fuse(lists, config)]


def test_every_twin_is_a_registered_fusion_method() -> None:
    assert set(FUSION_SCORES.names()) <= set(FUSION.names())


def test_twins_reject_what_full_fusion_rejects() -> None:
    lists = _ids([ranked("bm25", [("a", 1.0)]), ranked("sparse2", [("a", 1.0)])])
    with pytest.raises(ValueError, match="no weight for list 'sparse2'"):
        FUSION_SCORES.get("weighted_rrf")(lists, FusionConfig(method="weighted_rrf"))
