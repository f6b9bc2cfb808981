"""Every registered fusion method against the same contract and edge cases."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import pytest
from retrieve_helpers import ranked, snapshot

from rag.index.hits import RankedList
from rag.retrieve.fusion import FUSION, fuse
from rag.retrieve.fusion.learned import BIAS, PER_LIST, SHARED, LearnedModel, feature_names
from rag.retrieve.stage import select_top
from rag.settings.retrieval import FusionConfig

METHODS = FUSION.names()
MULTI = [m for m in METHODS if m != "none"]  # "none" takes exactly one list

BM25 = ranked("bm25", [("a", 12.0), ("b", 7.5), ("c", 7.5), ("d", 1.0)])
DENSE = ranked("dense", [("c", 0.91), ("e", 0.80), ("a", 0.42)])

# Learned fusion runs from a model file: one that treats both lists alike and rewards being
# ranked high (the real fit is tested in tests/eval/runs/test_learned_fusion.py).
_LISTS = ("bm25", "dense")
_COEF = {"raw": 0.1, "norm": 1.0, "inv_rank": 1.0, "present": 0.5, "norm*query_words": 0.0}
_N = len(feature_names(_LISTS))
MODEL = LearnedModel(_LISTS, (0.0,) * _N, (1.0,) * _N,
                     tuple(_COEF[f] for _ in _LISTS for f in PER_LIST) + (0.0,) * len(SHARED), -1.0)
MODEL_FILE = MODEL.save(Path(tempfile.mkdtemp()) / "symmetric.model.json")


def config(method: str, **extra: object) -> FusionConfig:
    settings: dict[str, object] = {"weights": {"bm25": 0.4, "dense": 0.6}, **extra}
    if method == "learned":
        settings["model"] = str(MODEL_FILE)
    return FusionConfig(method=method, **settings)


def contributors(method: str, lists: list[RankedList]) -> set[str]:
    """Who a fused score is split among: each list, or (learned) each model feature + the bias."""
    if method == "learned":
        return {*MODEL.features, BIAS}
    return {r.retriever for r in lists}


def check_contract(lists: list[RankedList], method: str, **extra: object) -> None:
    """Contributions add up to the score, order is (-score, chunk_id), every chunk appears once,
    hits hold each list's 1-based rank and raw score, and the inputs are unchanged."""
    before = snapshot(lists)
    fused = fuse(lists, config(method, **extra))
    assert snapshot(lists) == before
    union = {c.chunk_id for ranked_list in lists for c in ranked_list.candidates}
    assert sorted(c.chunk_id for c in fused) == sorted(union)
    assert [c.chunk_id for c in fused] == [
        c.chunk_id for c in sorted(fused, key=lambda c: (-c.score, c.chunk_id))
    ]
    for cand in fused:
        assert math.isfinite(cand.score)
        assert math.isclose(sum(cand.contributions.values()), cand.score, abs_tol=1e-12)
        assert set(cand.contributions) == contributors(method, lists)
        assert cand.stage_scores["fusion"] == cand.score
        for ranked_list in lists:
            ids = [c.chunk_id for c in ranked_list.candidates]
            if cand.chunk_id in ids:
                hit = cand.hits[ranked_list.retriever]
                assert hit.rank == ids.index(cand.chunk_id) + 1
                assert hit.raw_score == ranked_list.candidates[hit.rank - 1].score
            else:
                assert ranked_list.retriever not in cand.hits


@pytest.mark.parametrize("method", MULTI)
def test_two_lists_keep_the_contract(method: str) -> None:
    check_contract([BM25, DENSE], method)


@pytest.mark.parametrize("method", METHODS)
def test_single_list_keeps_its_order(method: str) -> None:
    single = ranked("dense", [("x", 0.9), ("y", 0.7), ("z", 0.2)])
    check_contract([single], method)
    assert [c.chunk_id for c in fuse([single], config(method))] == ["x", "y", "z"]


@pytest.mark.parametrize("method", METHODS)
def test_no_lists_and_empty_lists_give_nothing(method: str) -> None:
    assert fuse([], config(method)) == ()
    empties = (
        [RankedList("bm25", ())]
        if method == "none"
        else [RankedList("bm25", ()), RankedList("dense", ())]
    )
    assert fuse(empties, config(method)) == ()


@pytest.mark.parametrize("method", MULTI)
def test_one_empty_list_beside_a_full_one(method: str) -> None:
    check_contract([RankedList("bm25", ()), DENSE], method)
    fused = fuse([RankedList("bm25", ()), DENSE], config(method))
    assert [c.chunk_id for c in fused] == ["c", "e", "a"]


@pytest.mark.parametrize("method", MULTI)
def test_a_candidate_missing_from_one_list(method: str) -> None:
    fused = {c.chunk_id: c for c in fuse([BM25, DENSE], config(method))}
    assert set(fused["e"].hits) == {"dense"}  # BM25 never saw "e"
    assert set(fused["b"].hits) == {"bm25"}
    assert set(fused["c"].hits) == {"bm25", "dense"}


@pytest.mark.parametrize("method", MULTI)
def test_ties_break_by_chunk_id_whatever_the_list_order(method: str) -> None:
    # Mirror images: each chunk gets the same treatment from one list or the other.
    left = ranked("bm25", [("q", 1.0), ("p", 0.5)])
    right = ranked("dense", [("p", 1.0), ("q", 0.5)])
    fused = fuse([left, right], config(method, alpha=0.5, weights={"bm25": 1, "dense": 1}))
    assert math.isclose(fused[0].score, fused[1].score)
    assert [c.chunk_id for c in fused] == ["p", "q"]
    swapped = fuse([right, left], config(method, alpha=0.5, weights={"bm25": 1, "dense": 1}))
    assert [c.chunk_id for c in swapped] == ["p", "q"]


@pytest.mark.parametrize("method", METHODS)
def test_identical_scores_do_not_divide_by_zero(method: str) -> None:
    flat = ranked("dense", [("a", 0.5), ("b", 0.5), ("c", 0.5)])
    check_contract([flat], method)
    assert [c.chunk_id for c in fuse([flat], config(method))] == ["a", "b", "c"]


@pytest.mark.parametrize("method", METHODS)
def test_top_k_larger_than_the_candidates_returns_them_all(method: str) -> None:
    lists = [DENSE] if method == "none" else [BM25, DENSE]
    fused = fuse(lists, config(method, k=10_000))
    assert select_top(fused, 1000) == fused
    assert select_top(fused, 2) == fused[:2]


@pytest.mark.parametrize("method", MULTI)
def test_repeated_list_names_are_an_error(method: str) -> None:
    with pytest.raises(ValueError, match="repeated: bm25"):
        fuse([BM25, BM25], config(method))


def test_none_refuses_several_lists() -> None:
    with pytest.raises(ValueError, match="exactly one list"):
        fuse([BM25, DENSE], config("none"))


def test_unknown_method_lists_the_valid_ones() -> None:
    bad = FusionConfig.model_construct(method="borda")
    with pytest.raises(KeyError, match="valid: convex, dbsf, learned, none, relative_score, rrf"):
        fuse([BM25], bad)


def test_every_config_method_is_registered() -> None:
    from typing import get_args

    from rag.settings.retrieval import FusionMethod

    assert sorted(get_args(FusionMethod)) == METHODS


@pytest.mark.parametrize("method", MULTI)
def test_depths_cut_each_list_before_fusion_as_a_shallower_search_would(method: str) -> None:
    """fusion.depths {bm25: 2}: bm25 gives its first two candidates; dense (not named) all."""
    cut = fuse([BM25, DENSE], config(method, depths={"bm25": 2}))
    shallow = ranked("bm25", [("a", 12.0), ("b", 7.5)])
    assert snapshot(cut) == snapshot(fuse([shallow, DENSE], config(method)))
    assert {c.chunk_id for c in cut} == {"a", "b", "c", "e"}  # d (bm25 rank 4) is gone
    by_family = fuse([BM25, DENSE], config(method, depths={"dense": 1}))
    assert "e" not in {c.chunk_id for c in by_family}  # dense's rank 2


def test_depths_must_be_positive() -> None:
    with pytest.raises(ValueError, match="depths must be >= 1"):
        FusionConfig(depths={"bm25": 0})
