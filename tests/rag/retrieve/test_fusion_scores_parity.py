"""The scores-only fast path (`fused_ranking`, FUSION_SCORES) ranks and scores exactly as `fuse`."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from retrieve_helpers import ranked

from rag.retrieve.base import RankedList
from rag.retrieve.fusion import FUSION, FUSION_SCORES, fuse, fused_ranking
from rag.retrieve.settings import FusionConfig

IDS = [f"c{i:02d}" for i in range(30)]
NAMES = ["bm25", "dense", "sparse", "dense#q2"]
# Few distinct scores, so ties (within and across lists) are common.
SCORES = st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.5, 1.0, 2.0, 7.5, -1.0])


@st.composite
def lists_and_config(draw: st.DrawFn, method: str) -> tuple[list[RankedList], FusionConfig]:
    n_lists = 1 if method == "none" else draw(st.integers(1, len(NAMES)))
    lists = []
    for name in NAMES[:n_lists]:
        # duplicates allowed: a chunk listed twice keeps its first rank in both paths
        ids = draw(st.lists(st.sampled_from(IDS), min_size=0, max_size=25))
        scores = sorted((draw(SCORES) for _ in ids), reverse=True)
        lists.append(ranked(name, list(zip(ids, scores, strict=True))))
    config = FusionConfig(
        method=method,
        k=draw(st.integers(1, 200)),
        weights={"bm25": draw(st.floats(0, 1)), "dense": draw(st.floats(0, 1)),
                 "sparse": draw(st.floats(0, 1))},
        alpha=draw(st.floats(0, 1)),
        normalization=draw(st.sampled_from(["minmax", "zscore"])),
    )
    return lists, config


def test_every_fusion_method_has_a_scores_function() -> None:
    assert FUSION_SCORES.names() == FUSION.names()


@pytest.mark.parametrize("method", FUSION.names())
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_fast_path_matches_fuse(method: str, data: st.DataObject) -> None:
    lists, config = data.draw(lists_and_config(method))
    full = fuse(lists, config)
    fast = fused_ranking(lists, config)
    assert [cid for cid, _ in fast] == [c.chunk_id for c in full]
    for (_, score), cand in zip(fast, full, strict=True):
        assert math.isclose(score, cand.score, rel_tol=0, abs_tol=1e-12)


def test_unregistered_scores_fall_back_to_fuse(monkeypatch: pytest.MonkeyPatch) -> None:
    lists = [ranked("bm25", [("a", 3.0), ("b", 2.0)]), ranked("dense", [("b", 0.9), ("c", 0.1)])]
    config = FusionConfig(method="rrf", k=1)
    monkeypatch.delitem(FUSION_SCORES._entries, "rrf")
    assert "rrf" not in FUSION_SCORES
    assert fused_ranking(lists, config) == tuple((c.chunk_id, c.score) for c in fuse(lists, config))
    # b: 1/3 + 1/2 beats a: 1/2 and c: 1/3
    assert [cid for cid, _ in fused_ranking(lists, config)] == ["b", "a", "c"]
