"""Sentence grouping (EchoMind USER / SENSITIVE) and the shared unit helpers."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest
from chunk_helpers import make_doc

from rag.chunking import get_chunker, strategy_settings
from rag.chunking.spans import Span
from rag.chunking.units import merge_short, pack_units, paragraph_spans, sentence_spans


def sentences(n: int, length: int = 100) -> list[str]:
    """n distinct sentences of exactly `length` characters."""
    out = []
    for i in range(n):
        head = f"Sentence {i} says"
        out.append(
            head + " x" * ((length - len(head) - 1) // 2) + "." * (1 + (length - len(head) - 1) % 2)
        )
    return out


def test_sentence_spans_follow_echomind_boundaries() -> None:
    text = "One. Two?  Three! Four\nstill four.\n\nFive"
    assert [text[a:b] for a, b in sentence_spans(text, 0, len(text))] == [
        "One.",
        "Two?",
        "Three!",
        "Four\nstill four.",
        "Five",
    ]
    assert [text[a:b] for a, b in paragraph_spans(text, 0, len(text))] == [
        "One. Two?  Three! Four\nstill four.",
        "Five",
    ]


def test_user_preset_packs_400_to_800_with_one_sentence_overlap() -> None:
    parts = sentences(20)
    assert {len(p) for p in parts} == {100}
    doc = make_doc(" ".join(parts))
    chunks = get_chunker(
        "sentence", {"max_size": 800, "min_size": 400, "overlap_sentences": 1}
    ).chunk(doc)
    assert all(c.size <= 800 for c in chunks)
    assert all(c.size >= 400 for c in chunks[:-1])  # the last may be short if it cannot join
    for prev, nxt in pairwise(chunks):
        shared = doc.text[nxt.start : prev.end]
        assert shared in parts  # exactly one whole sentence repeated


def test_sensitive_preset_has_no_overlap() -> None:
    doc = make_doc(" ".join(sentences(12, 60)))
    chunks = get_chunker(
        "sentence", {"max_size": 450, "min_size": 225, "overlap_sentences": 0}
    ).chunk(doc)
    assert all(c.size <= 450 for c in chunks)
    assert all(prev.end < nxt.start for prev, nxt in pairwise(chunks))


def test_a_sentence_longer_than_max_is_cut() -> None:
    long_sentence = "word " * 100 + "end."
    doc = make_doc(f"Short one. {long_sentence} Short two.")
    chunks = get_chunker(
        "sentence", {"max_size": 120, "min_size": 0, "overlap_sentences": 0}
    ).chunk(doc)
    assert all(c.size <= 120 for c in chunks)
    assert len(chunks) >= 5


def test_pack_units_never_repeats_a_whole_group() -> None:
    units = [Span(0, 50), Span(51, 100), Span(101, 150)]
    assert pack_units(units, max_size=100, overlap_units=5) == [Span(0, 100), Span(51, 150)]
    # Overlap units that would not fit beside the next unit are dropped.
    assert pack_units([Span(0, 60), Span(61, 120)], 100, overlap_units=1) == [
        Span(0, 60),
        Span(61, 120),
    ]


def test_short_tails_join_their_predecessor() -> None:
    units = [Span(0, 40), Span(41, 80), Span(81, 90)]
    assert pack_units(units, max_size=80, min_size=20) == [Span(0, 80), Span(81, 90)]  # no room
    assert pack_units(units, max_size=95, min_size=20) == [Span(0, 90)]
    assert merge_short(units, min_size=50, max_size=200) == [Span(0, 90)]
    assert merge_short(units, min_size=30, max_size=200) == [Span(0, 40), Span(41, 90)]


def test_min_size_may_not_exceed_max_size() -> None:
    with pytest.raises(
        ValueError,
        match=re.escape("params.min_size: min_size (900) must not exceed max_size (800)"),
    ):
        strategy_settings("sentence", {"max_size": 800, "min_size": 900})
