"""Parent–child chunks in Axiom's (chars) and EchoMind BOOK's (paragraphs/sentences) styles."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest
from chunk_helpers import make_doc

from rag.chunking import get_chunker, strategy_settings
from rag.chunking.units import sentence_spans

ECHOMIND_BOOK = {
    "parent_unit": "paragraphs",
    "parent_size": 3500,
    "parent_min_size": 2000,
    "parent_overlap": 0,
    "child_unit": "sentences",
    "child_size": 700,
    "child_min_size": 400,
    "child_overlap": 2,
}


def book(paragraphs: int = 12) -> str:
    return "\n\n".join(
        " ".join(f"Paragraph {p} sentence {s} is about the subject at hand." for s in range(9))
        for p in range(paragraphs)
    )


def test_axiom_defaults_parents_then_their_children() -> None:
    doc = make_doc(book().replace("\n\n", " "))  # sentence pieces, so overlap can carry some
    chunks = get_chunker("parent_child").chunk(doc)
    levels = [c.level for c in chunks]
    assert levels[0] == "parent" and "child" in levels
    current_parent = None
    for c in chunks:
        if c.level == "parent":
            assert c.size <= 2000 and c.parent_id is None
            current_parent = c
        else:
            assert c.size <= 400 and c.parent_id == current_parent.chunk_id
            assert current_parent.start <= c.start and c.end <= current_parent.end
    parents = [c for c in chunks if c.level == "parent"]
    assert all(0 < a.end - b.start <= 200 for a, b in pairwise(parents))


def test_echomind_book_parents_are_whole_paragraphs_children_whole_sentences() -> None:
    doc = make_doc(book())
    chunks = get_chunker("parent_child", ECHOMIND_BOOK).chunk(doc)
    parents = [c for c in chunks if c.level == "parent"]
    assert all(c.size <= 3500 for c in parents)
    assert all(c.size >= 2000 for c in parents[:-1])
    assert all(p.text.startswith("Paragraph") and p.text.endswith(".") for p in parents)
    assert all(a.end < b.start for a, b in pairwise(parents))  # no paragraph overlap
    sentence_starts = {a for a, _ in sentence_spans(doc.text, 0, len(doc.text))}
    for parent in parents:
        children = [c for c in chunks if c.parent_id == parent.chunk_id]
        assert all(c.size <= 700 and c.start in sentence_starts for c in children)
        for prev, nxt in pairwise(children):
            shared = doc.text[nxt.start : prev.end]
            assert len(re.findall(r"[.!?](?=\s|$)", shared)) == 2  # two whole sentences


def test_child_must_be_smaller_than_parent() -> None:
    with pytest.raises(
        ValueError, match=re.escape("child_size (2000) must be smaller than parent_size (2000)")
    ):
        strategy_settings("parent_child", {"child_size": 2000})


def test_character_overlap_is_checked_unit_overlap_is_a_count() -> None:
    with pytest.raises(ValueError, match=re.escape("params.parent_overlap: parent_overlap (2500)")):
        strategy_settings("parent_child", {"parent_overlap": 2500})
    strategy_settings("parent_child", ECHOMIND_BOOK)  # 2 sentences of overlap is fine
