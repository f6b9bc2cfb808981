"""The recursive splitter: LangChain parity on texts, exact offsets, and its settings."""

from __future__ import annotations

from itertools import pairwise

import pytest
from chunk_helpers import make_doc
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_text_splitters import RecursiveCharacterTextSplitter

from rag.chunking import get_chunker, strategy_settings
from rag.chunking.recursive import DEFAULT_SEPARATORS, split_recursive

ALPHABET = st.sampled_from([*"ab .\n!?é漢", "\n\n", ". ", "  "])


@settings(max_examples=200, deadline=None)
@given(st.lists(ALPHABET, max_size=80).map("".join), st.integers(1, 20), st.data())
def test_same_texts_as_langchain(text: str, size: int, data: st.DataObject) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    theirs = RecursiveCharacterTextSplitter(
        chunk_size=size, chunk_overlap=overlap, separators=list(DEFAULT_SEPARATORS)
    ).split_text(text)
    # LangChain leaves an oversized single piece unstripped; we trim every chunk. With an
    # all-whitespace overlap it can also emit the same piece twice in a row; we emit it once.
    ours = [text[a:b] for a, b in split_recursive(text, 0, len(text), size, overlap)]
    assert _collapse(ours) == _collapse([t.strip() for t in theirs if t.strip()])


def _collapse(pieces: list[str]) -> list[str]:
    """Drop a piece equal to the one before it (LangChain's whitespace-overlap repeat)."""
    return [t for i, t in enumerate(pieces) if i == 0 or t != pieces[i - 1]]


def test_prefers_paragraph_then_sentence_boundaries() -> None:
    first = "First paragraph has words. It has two sentences."
    second = "Second paragraph is here. Also two sentences."
    doc = make_doc(f"{first}\n\n{second}")
    chunks = get_chunker("recursive", {"size": 60, "overlap": 0}).chunk(doc)
    assert [c.text for c in chunks] == [first, second]
    small = get_chunker("recursive", {"size": 30, "overlap": 0}).chunk(make_doc(first))
    assert [c.text for c in small] == ["First paragraph has words", ". It has two sentences."]


def test_repeated_text_keeps_true_offsets() -> None:
    # A text.find()-based start index would place both copies at offset 0.
    doc = make_doc("same words here\n\nsame words here\n\nsame words here")
    chunks = get_chunker("recursive", {"size": 16, "overlap": 0}).chunk(doc)
    assert [c.start for c in chunks] == [0, 17, 34]
    assert len({c.chunk_id for c in chunks}) == 3


def test_overlap_carries_whole_pieces_back() -> None:
    doc = make_doc(" ".join(f"w{i:02d}" for i in range(30)))  # 4-char pieces after the first
    chunks = get_chunker("recursive", {"size": 20, "overlap": 8}).chunk(doc)
    for prev, nxt in pairwise(chunks):
        assert 0 < prev.end - nxt.start <= 8


def test_separators_must_end_with_the_empty_string() -> None:
    with pytest.raises(ValueError, match=r"params\.separators: separators must end with \"\""):
        strategy_settings("recursive", {"separators": ["\n\n", " "]})
