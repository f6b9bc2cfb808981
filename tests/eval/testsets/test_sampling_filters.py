"""Chunk sampling spreads over documents and positions; each question filter rejects what it
names and passes a plain question."""

from __future__ import annotations

import random

import pytest

from eval.testsets.filters import (
    copied_share,
    copies_passage,
    duplicate_of,
    is_question,
    length_problem,
    standalone,
)
from eval.testsets.sampling import allocate, leaf_chunks, sample_chunks, spread, stratified_picks
from rag.chunking.base import Chunk


def _chunks(doc: str, count: int, size: int = 250) -> list[Chunk]:
    return [Chunk(f"{doc}-{i}", doc, i * size, (i + 1) * size, "x" * size) for i in range(count)]


def test_round_robin_gives_every_document_a_chunk_before_any_gets_a_second() -> None:
    shares = allocate({"a": 10, "b": 2, "c": 30}, 9, random.Random(0))
    assert shares["b"] == 2 and sum(shares.values()) == 9
    assert abs(shares["a"] - shares["c"]) <= 1  # the big file does not dominate


def test_allocation_stops_when_the_documents_run_out() -> None:
    assert allocate({"a": 1, "b": 2}, 10, random.Random(0)) == {"a": 1, "b": 2}


def test_picks_cover_each_stratum_of_a_document() -> None:
    picks = stratified_picks(40, 4, random.Random(3))
    assert [p // 10 for p in sorted(picks)] == [0, 1, 2, 3]
    assert stratified_picks(3, 5, random.Random(0)) == [0, 1, 2]


def test_sample_spreads_over_documents_skips_short_chunks_and_is_seeded() -> None:
    by_doc = {"big.md": _chunks("big.md", 50), "small.txt": _chunks("small.txt", 3),
              "tiny.csv": _chunks("tiny.csv", 4, size=50)}  # every chunk under 200 characters
    sampled = sample_chunks(by_doc, 8, seed=1)
    assert spread(sampled) == {"big.md": 5, "small.txt": 3}
    assert [s.chunk.chunk_id for s in sampled] == [s.chunk.chunk_id for s in sample_chunks(by_doc, 8, seed=1)]
    assert sampled[0].doc != sampled[1].doc  # interleaved: a run cut short still covers files
    big = sorted(s.position for s in sampled if s.doc == "big.md")
    assert big[0] < 10 and big[-1] >= 40  # beginning and end of the big file
    with pytest.raises(ValueError, match="at least 1"):
        sample_chunks(by_doc, 0)


def test_leaf_chunks_drop_parents() -> None:
    parent = Chunk("p", "d", 0, 100, "x" * 100, level="parent")
    child = Chunk("c", "d", 0, 50, "x" * 50, parent_id="p", level="child")
    assert leaf_chunks([parent, child]) == [child]


@pytest.mark.parametrize(("text", "expected"), [
    ("How long do deleted notes stay in the Trash?", True),
    ("what is the plus plan price", True),
    ("Deleted notes stay in the Trash for 30 days.", False),
    ("Explain the sync engine.", False),
])
def test_is_question(text: str, expected: bool) -> None:
    assert is_question(text) is expected


def test_length_bars() -> None:
    assert length_problem("Why sync?") == "too_short"
    assert length_problem("What is " + "very " * 30 + "long?") == "too_long"
    assert length_problem("How much does the Plus plan cost?") is None


def test_copying_the_passage_is_caught_and_a_paraphrase_is_not() -> None:
    passage = "Deleted notes stay in the Trash for 30 days before they are removed for good."
    assert copies_passage("Deleted notes stay in the Trash for 30 days?", passage)
    assert not copies_passage("How long can I get back a note I threw away?", passage)
    assert copied_share("Why?", passage) == 0.0


def test_duplicates_exact_and_near() -> None:
    kept = ["How much does the Plus plan cost per month?"]
    assert duplicate_of("how much does the plus plan cost per month", kept) == "exact_duplicate"
    assert duplicate_of("Per month, how much does the Plus plan cost?", kept) == "near_duplicate"
    assert duplicate_of("Can support reset a forgotten vault passphrase?", kept) is None


@pytest.mark.parametrize(("text", "expected"), [
    ("What is the purpose of this passage?", False),
    ("What is the answer to this question?", False),
    ("What does the author recommend for backups?", False),
    ("Which of the plans mentioned above includes version history?", False),
    ("Which documents does a vault encrypt?", True),
    ("How long do deleted notes stay in the Trash?", True),
])
def test_standalone(text: str, expected: bool) -> None:
    assert standalone(text) is expected
