"""Chunk scores to document scores: MaxP, FirstP, SumP over the top N."""

from __future__ import annotations

import pytest

from eval.runs.doc_scores import doc_ranking, parse_doc_score
from rag.chunking.base import Chunk
from rag.index.hits import Candidate


def hit(cid: str, doc: str, start: int, score: float) -> Candidate:
    return Candidate(Chunk(cid, doc, start, start + 5, "xxxxx"), score)


HITS = [hit("a", "d1", 50, 0.9), hit("b", "d2", 0, 0.8), hit("c", "d1", 0, 0.5),
        hit("d", "d1", 100, 0.4), hit("e", "d3", 0, 0.1)]


@pytest.mark.parametrize(("how", "expected"), [
    ("max", {"d1": 0.9, "d2": 0.8, "d3": 0.1}),
    ("first", {"d1": 0.5, "d2": 0.8, "d3": 0.1}),  # d1's chunk at offset 0
    ("sum:2", {"d1": pytest.approx(1.4), "d2": 0.8, "d3": 0.1}),
    ("sum:3", {"d1": pytest.approx(1.8), "d2": 0.8, "d3": 0.1}),
])
def test_each_aggregate(how: str, expected: dict[str, float]) -> None:
    assert doc_ranking(HITS, None, parse_doc_score(how)) == expected
    assert list(doc_ranking(HITS, 2, parse_doc_score(how))) == ["d1", "d2"]  # first two met


@pytest.mark.parametrize("text", ["mean", "sum", "sum:0", "first:2"])
def test_bad_names_list_the_valid_forms(text: str) -> None:
    with pytest.raises(ValueError, match="max, first, sum:N"):
        parse_doc_score(text)
