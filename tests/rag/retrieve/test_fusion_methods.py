"""Each fusion method's numbers: against values worked out by hand from its formula, and against
qdrant-client's own fusion functions where they define the same thing."""

from __future__ import annotations

import math

import pytest
from qdrant_client.http import models
from qdrant_client.hybrid.fusion import distribution_based_score_fusion, reciprocal_rank_fusion
from retrieve_helpers import by_id, ranked

from rag.index.hits import RankedList
from rag.retrieve.fusion import convex, dbsf, passthrough, relative_score, rrf, weighted_rrf

BM25 = ranked("bm25", [("a", 9.0), ("b", 6.0), ("c", 3.0)])
DENSE = ranked("dense", [("c", 0.8), ("a", 0.6), ("d", 0.5)])


def test_rrf_matches_the_formula_by_hand() -> None:
    fused = by_id(rrf([BM25, DENSE], k=60))
    assert fused["a"].score == pytest.approx(1 / 61 + 1 / 62, abs=1e-15)
    assert fused["c"].score == pytest.approx(1 / 63 + 1 / 61, abs=1e-15)
    assert fused["b"].score == pytest.approx(1 / 62, abs=1e-15)
    assert fused["d"].score == pytest.approx(1 / 63, abs=1e-15)
    assert dict(fused["c"].contributions) == pytest.approx({"bm25": 1 / 63, "dense": 1 / 61})
    assert fused["c"].hits["bm25"].normalized == pytest.approx(1 / 63)
    assert [c.chunk_id for c in rrf([BM25, DENSE], k=60)] == ["a", "c", "b", "d"]


def test_rrf_reproduces_the_axiom_worked_example() -> None:
    # Axiom: ranks 3 and 5 with k = 60 give 0.0159 + 0.0154 = 0.0313.
    one = ranked("bm25", [("x", 3), ("y", 2), ("doc", 1)])
    two = ranked("dense", [("p", 5), ("q", 4), ("r", 3), ("s", 2), ("doc", 1)])
    assert round(by_id(rrf([one, two], k=60))["doc"].score, 4) == 0.0313


def test_rrf_k_changes_how_much_the_top_rank_counts() -> None:
    assert by_id(rrf([BM25], k=1))["a"].score == pytest.approx(1 / 2)
    with pytest.raises(ValueError, match="k must be >= 1"):
        rrf([BM25], k=0)


def _points(ranked_list: RankedList) -> list[models.ScoredPoint]:
    return [
        models.ScoredPoint(id=i, version=0, score=c.score)
        for i, c in enumerate(ranked_list.candidates)
    ]


def test_rrf_agrees_with_qdrant_client_shifted_by_one() -> None:
    # qdrant-client scores 1 / (k' + position) with 0-based positions, i.e. our k = k' - 1.
    ids = {"bm25": ["a", "b", "c"], "dense": ["c", "a", "d"]}
    responses = [
        [models.ScoredPoint(id=ord(cid), version=0, score=0.0) for cid in ids[n]] for n in ids
    ]
    theirs = {
        chr(p.id): p.score for p in reciprocal_rank_fusion(responses, 10, ranking_constant_k=61)
    }
    ours = {c.chunk_id: c.score for c in rrf([BM25, DENSE], k=60)}
    assert ours == pytest.approx(theirs, abs=1e-12)


def test_weighted_rrf_uses_echomind_weights() -> None:
    weights = {"dense": 0.6, "bm25": 0.4}
    fused = by_id(weighted_rrf([BM25, DENSE], weights, k=60))
    assert fused["a"].score == pytest.approx(0.4 / 61 + 0.6 / 62, abs=1e-15)
    assert fused["c"].contributions["dense"] == pytest.approx(0.6 / 61)
    assert fused["c"].hits["dense"].normalized == pytest.approx(1 / 61)  # unweighted term
    # Dense counts more: its top hit "c" now beats BM25's top hit "a" (they swap vs plain RRF).
    assert [c.chunk_id for c in weighted_rrf([BM25, DENSE], {"dense": 0.9, "bm25": 0.1})][:2] == [
        "c",
        "a",
    ]


def test_weighted_rrf_weights_query_variants_by_family() -> None:
    variant = RankedList("dense#q2", DENSE.candidates)
    fused = by_id(weighted_rrf([BM25, DENSE, variant], {"dense": 0.6, "bm25": 0.4}))
    assert fused["c"].contributions["dense#q2"] == pytest.approx(0.6 / 61)
    with pytest.raises(ValueError, match="no weight for list 'dense'"):
        weighted_rrf([DENSE], {"bm25": 1.0})


@pytest.mark.parametrize(("alpha", "leader"), [(1.0, DENSE), (0.0, BM25)])
def test_relative_score_at_alpha_extremes_is_one_retriever(
    alpha: float, leader: RankedList
) -> None:
    fused = relative_score([BM25, DENSE], alpha=alpha)
    leader_ids = [c.chunk_id for c in leader.candidates]
    assert [c.chunk_id for c in fused if c.chunk_id in leader_ids] == leader_ids
    other = "bm25" if leader is DENSE else "dense"
    assert all(c.contributions[other] == 0 for c in fused)


def test_relative_score_is_weaviates_min_max_blend() -> None:
    # Vexora: alpha = 0.3 -> 30 % vector, 70 % BM25. BM25 9/6/3 -> 1/0.5/0; dense .8/.6/.5 -> 1/⅓/0.
    fused = by_id(relative_score([BM25, DENSE], alpha=0.3))
    assert fused["a"].score == pytest.approx(0.7 * 1.0 + 0.3 * (0.1 / 0.3))
    assert fused["b"].score == pytest.approx(0.7 * 0.5)
    assert fused["c"].score == pytest.approx(0.7 * 0.0 + 0.3 * 1.0)
    assert fused["d"].score == pytest.approx(0.0)
    assert fused["a"].hits["dense"].normalized == pytest.approx(1 / 3)


def test_dbsf_agrees_with_qdrant_client() -> None:
    lists = [BM25, DENSE, ranked("bm25#q2", [("d", 4.0)])]
    theirs: dict[str, float] = {}
    for ranked_list in lists:  # qdrant-client keys points by id; run each list's ids through it
        pts = [
            models.ScoredPoint(id=ord(c.chunk_id), version=0, score=c.score)
            for c in ranked_list.candidates
        ]
        for p in distribution_based_score_fusion([pts], limit=100):
            theirs[chr(p.id)] = theirs.get(chr(p.id), 0.0) + p.score
    ours = {c.chunk_id: c.score for c in dbsf(lists)}
    assert ours == pytest.approx(theirs, abs=1e-12)


def test_dbsf_is_three_sigma_normalization() -> None:
    mean, std = 6.0, 3.0  # 9, 6, 3: sample std = 3
    fused = by_id(dbsf([BM25]))
    assert fused["a"].score == pytest.approx((9.0 - (mean - 3 * std)) / (6 * std))


def test_convex_zscore_gives_absent_chunks_the_lowest_score() -> None:
    fused = by_id(convex([BM25, DENSE], alpha=0.5, normalization="zscore"))
    z_top = (9.0 - 6.0) / math.sqrt(6.0)  # population std of 9, 6, 3 is sqrt(6)
    assert fused["a"].hits["bm25"].normalized == pytest.approx(z_top)
    lowest_dense = min(c.hits["dense"].normalized for c in fused.values() if "dense" in c.hits)
    assert fused["b"].contributions["dense"] == pytest.approx(0.5 * lowest_dense)


def test_convex_minmax_equals_relative_score_when_nothing_is_missing() -> None:
    both = ranked("dense", [("a", 0.9), ("b", 0.5), ("c", 0.1)])
    full = [BM25, both]
    assert [c.score for c in convex(full, 0.3, "minmax")] == pytest.approx(
        [c.score for c in relative_score(full, 0.3)]
    )


def test_passthrough_keeps_raw_scores() -> None:
    fused = passthrough([DENSE])
    assert [(c.chunk_id, c.score) for c in fused] == [("c", 0.8), ("a", 0.6), ("d", 0.5)]
    assert fused[0].contributions == {"dense": 0.8}
