from types import MappingProxyType

from pages.ui.figures import (
    rank_movement,
    retriever_color,
    score_breakdown,
    size_histogram,
)
from rag.chunking.base import Chunk
from rag.index.hits import Candidate


def _cand(cid: str, contributions: dict[str, float]) -> Candidate:
    chunk = Chunk(cid, "d", 0, 1, "t")
    return Candidate(chunk, sum(contributions.values()), contributions=MappingProxyType(contributions))


def test_size_histogram_has_one_trace_per_strategy() -> None:
    fig = size_histogram({"recursive": [100, 200], "fixed": [300]})
    assert [t.name for t in fig.data] == ["recursive", "fixed"]
    assert list(fig.data[1].x) == [300]


def test_rank_movement_puts_missing_and_deep_ranks_on_the_floor() -> None:
    ranks = {"bm25": {"a": 1, "b": 40}, "dense": {"b": 1}, "fused": {"a": 2, "b": 1}}
    fig = rank_movement(ranks, ["a", "b"], {"a": "A"}, cap=10)
    a, b = fig.data
    assert a.name == "A" and list(a.y) == [1, 11, 2]
    assert list(b.y) == [11, 1, 1]
    assert list(a.x) == ["bm25", "dense", "fused"]
    assert list(a.text) == ["", "", "A"]  # each line is labelled at its end, no legend needed


def test_score_breakdown_stacks_contributions_and_draws_threshold() -> None:
    cands = [_cand("a", {"bm25": 0.02, "dense": 0.01}), _cand("b", {"dense": 0.015})]
    fig = score_breakdown(cands, {}, threshold=0.02)
    bars = {t.name: list(t.y) for t in fig.data if t.type == "bar"}
    assert bars == {"bm25": [0.02, 0.0], "dense": [0.01, 0.015]}
    assert fig.layout.shapes[0].y0 == 0.02
    assert not score_breakdown(cands, {}).layout.shapes


def test_retriever_variants_share_colour() -> None:
    assert retriever_color("dense#q2") == retriever_color("dense")
