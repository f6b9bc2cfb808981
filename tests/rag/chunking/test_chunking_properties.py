"""Properties every registered chunking strategy must keep, on generated text (hypothesis).

A new strategy is picked up from the registry automatically; it only needs an entry in
BOUNDS saying how its configured sizes and overlaps limit its chunks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import pytest
from chunk_helpers import HashingEmbedder, make_doc
from hypothesis import given, settings
from hypothesis import strategies as st

from rag.chunking import STRATEGIES, Chunk, get_chunker, strategy_settings
from rag.chunking.models import count_tokens
from rag.documents.base import Document

EMBEDDER = HashingEmbedder()

# Small sizes, so generated texts of a few hundred characters really get split.
SMALL_PARAMS: dict[str, list[dict[str, Any]]] = {
    "fixed": [{"size": 40, "overlap": 10}, {"size": 7, "overlap": 0}],
    "recursive": [{"size": 40, "overlap": 10}],
    "sentence": [
        {"max_size": 60, "min_size": 20, "overlap_sentences": 1},
        {"max_size": 45, "min_size": 0, "overlap_sentences": 0},
    ],
    "parent_child": [
        {"parent_size": 120, "parent_overlap": 20, "child_size": 40, "child_overlap": 10},
        {
            "parent_unit": "paragraphs",
            "parent_size": 150,
            "parent_min_size": 60,
            "parent_overlap": 1,
            "child_unit": "sentences",
            "child_size": 50,
            "child_min_size": 20,
            "child_overlap": 2,
        },
    ],
    "faq": [{"max_chars": 80}],
    "markdown": [{"max_size": 80, "overlap": 10}],
    "semantic": [{"max_size": 80, "min_size": 10, "breakpoint_percentile": 70}],
    "hierarchical": [{"section_size": 150, "paragraph_size": 50, "paragraph_min_size": 10}],
    "token": [{"size": 16, "overlap": 4}],
    "doc_type": [
        {
            "faq": {"strategy": "faq", "params": {"max_chars": 80}},
            "book": {
                "strategy": "parent_child",
                "params": {
                    "parent_unit": "paragraphs",
                    "parent_size": 150,
                    "parent_overlap": 0,
                    "child_unit": "sentences",
                    "child_size": 50,
                    "child_overlap": 2,
                },
            },
            "sensitive": {
                "strategy": "sentence",
                "params": {"max_size": 45, "min_size": 20, "overlap_sentences": 0},
            },
            "user": {"strategy": "sentence", "params": {"max_size": 60, "min_size": 30}},
        }
    ],
}

CASES = [
    pytest.param(name, params, id=f"{name}-{i}")
    for name in STRATEGIES.names()
    for i, params in enumerate(SMALL_PARAMS.get(name, [{}]))
]

PIECES = [
    "alpha",
    "Beta",
    "gamma.",
    "delta?",
    "eps!",
    "ζeta",
    "漢字",
    "😀",
    "naïve",
    "e\u0301",
    "\u0301",
    "\x00",
    "-",
    ",",
    " ",
    "  ",
    "\t",
    "\n",
    "\n\n",
    "\n \n",
    "# Head\n",
    "## Why not?\n",
    "Q: ",
    "A: ",
    "1. ",
    "Question 2: ",
    "```\n# code\n```\n",
    "x" * 130,
]
TEXTS = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=120).map("".join),
    st.text(max_size=300),
)
DOC_TYPES = st.sampled_from(["USER", "FAQ", "BOOK", "SENSITIVE"])


def chunk(name: str, params: dict[str, Any], document: Document) -> list[Chunk]:
    return get_chunker(name, params, embedder=EMBEDDER).chunk(document)


# ---- bounds: how each strategy's settings limit its chunks --------------------------------


def by_level(chunks: list[Chunk], level: str) -> list[Chunk]:
    return [c for c in chunks if c.level == level]


def overlaps(chunks: list[Chunk]) -> list[tuple[Chunk, Chunk, int]]:
    """(previous, next, shared chars) for consecutive chunks in document order."""
    ordered = sorted(chunks, key=lambda c: (c.start, c.end))
    return [(a, b, a.end - b.start) for a, b in pairwise(ordered) if a.end > b.start]


def check_sizes_and_overlap(chunks: list[Chunk], size: int, overlap: int) -> None:
    assert all(c.size <= size for c in chunks), [c.size for c in chunks]
    assert all(shared <= overlap for _, _, shared in overlaps(chunks))


def check_disjoint(chunks: list[Chunk]) -> None:
    assert overlaps(chunks) == []


def check_short_ones_could_not_join(chunks: list[Chunk], min_size: int, max_size: int) -> None:
    """A chunk under `min_size` exists only if joining a neighbour would pass `max_size`."""
    for i, c in enumerate(chunks):
        if c.size < min_size:
            for n in chunks[max(0, i - 1) : i] + chunks[i + 1 : i + 2]:
                assert max(n.end, c.end) - min(n.start, c.start) > max_size


def check_units(chunks: list[Chunk], unit: str, size: int, overlap: int, text: str) -> None:
    if unit == "chars":
        check_sizes_and_overlap(chunks, size, overlap)
        return
    assert all(c.size <= size for c in chunks)
    boundary = r"(?<=[.!?])\s+|\n\n+" if unit == "sentences" else r"\n\s*\n"
    for _, nxt, shared in overlaps(chunks):
        region = text[nxt.start : nxt.start + shared]
        assert len([p for p in re.split(boundary, region) if p.strip()]) <= overlap


def bounds_fixed(chunks: list[Chunk], s: Any, doc: Document) -> None:
    check_sizes_and_overlap(chunks, s.size, s.overlap)


def bounds_sentence(chunks: list[Chunk], s: Any, doc: Document) -> None:
    check_units(chunks, "sentences", s.max_size, s.overlap_sentences, doc.text)
    if s.overlap_sentences == 0:
        check_disjoint(chunks)


def bounds_parent_child(chunks: list[Chunk], s: Any, doc: Document) -> None:
    parents = {c.chunk_id: c for c in by_level(chunks, "parent")}
    children = by_level(chunks, "child")
    assert len(parents) + len(children) == len(chunks)
    check_units(list(parents.values()), s.parent_unit, s.parent_size, s.parent_overlap, doc.text)
    for parent in parents.values():
        own = [c for c in children if c.parent_id == parent.chunk_id]
        check_units(own, s.child_unit, s.child_size, s.child_overlap, doc.text)
    assert all(c.parent_id in parents for c in children)


def bounds_faq(chunks: list[Chunk], s: Any, doc: Document) -> None:
    assert all(c.size <= s.max_chars for c in chunks)
    check_disjoint(chunks)


def bounds_markdown(chunks: list[Chunk], s: Any, doc: Document) -> None:
    check_sizes_and_overlap(chunks, s.max_size, s.overlap)
    assert all(isinstance(c.metadata["heading_path"], tuple) for c in chunks)


def bounds_semantic(chunks: list[Chunk], s: Any, doc: Document) -> None:
    assert all(c.size <= s.max_size for c in chunks)
    check_disjoint(chunks)
    check_short_ones_could_not_join(chunks, s.min_size, s.max_size)


def bounds_hierarchical(chunks: list[Chunk], s: Any, doc: Document) -> None:
    if not doc.text.strip():
        assert chunks == []
        return
    (root,) = by_level(chunks, "document")
    assert root.text == doc.text.strip() and root.parent_id is None
    sections = by_level(chunks, "section")
    assert all(c.size <= s.section_size and c.parent_id == root.chunk_id for c in sections)
    check_disjoint(sections)
    ids = {c.chunk_id for c in sections}
    paragraphs = by_level(chunks, "paragraph")
    assert all(c.size <= s.paragraph_size and c.parent_id in ids for c in paragraphs)
    check_disjoint(paragraphs)
    for section in sections:
        own = [c for c in paragraphs if c.parent_id == section.chunk_id]
        check_short_ones_could_not_join(own, s.paragraph_min_size, s.paragraph_size)


def bounds_token(chunks: list[Chunk], s: Any, doc: Document) -> None:
    assert all(c.metadata["tokens"] <= s.size for c in chunks)
    for _, nxt, shared in overlaps(chunks):
        assert count_tokens(doc.text[nxt.start : nxt.start + shared], s.tokenizer) <= s.overlap


def bounds_doc_type(chunks: list[Chunk], s: Any, doc: Document) -> None:
    route = getattr(s, doc.metadata.doc_type.lower())
    BOUNDS[route.strategy](chunks, strategy_settings(route.strategy, route.params), doc)
    assert all(c.metadata["doc_type"] == doc.metadata.doc_type for c in chunks)


def bounds_whole(chunks: list[Chunk], s: Any, doc: Document) -> None:
    assert len(chunks) == (1 if doc.text.strip() else 0)
    assert all(c.text == doc.text.strip() for c in chunks)


BOUNDS: dict[str, Callable[[list[Chunk], Any, Document], None]] = {
    "fixed": bounds_fixed,
    "recursive": bounds_fixed,
    "sentence": bounds_sentence,
    "parent_child": bounds_parent_child,
    "faq": bounds_faq,
    "markdown": bounds_markdown,
    "semantic": bounds_semantic,
    "hierarchical": bounds_hierarchical,
    "token": bounds_token,
    "doc_type": bounds_doc_type,
    "whole": bounds_whole,
}


# ---- the properties -----------------------------------------------------------------------


def check_spans(chunks: list[Chunk], doc: Document) -> None:
    ids = [c.chunk_id for c in chunks]
    assert len(ids) == len(set(ids)), "chunk ids must be unique"
    by_id = dict(zip(ids, chunks, strict=True))
    for c in chunks:
        assert 0 <= c.start < c.end <= len(doc.text)
        assert c.text == doc.text[c.start : c.end]
        assert not c.text[0].isspace() and not c.text[-1].isspace()
        assert c.doc_id == doc.doc_id
        if c.parent_id is not None:
            parent = by_id[c.parent_id]
            assert parent.start <= c.start and c.end <= parent.end
            assert ids.index(c.parent_id) < ids.index(c.chunk_id), "parents come first"


def check_coverage(chunks: list[Chunk], doc: Document) -> None:
    """Every level on its own covers every non-whitespace character."""
    for level in {c.level for c in chunks} or {"chunk"}:
        covered = [False] * len(doc.text)
        for c in by_level(chunks, level):
            covered[c.start : c.end] = [True] * c.size
        missing = [i for i, ch in enumerate(doc.text) if not ch.isspace() and not covered[i]]
        assert missing == [], f"level {level}: uncovered offsets {missing[:10]}"


def test_every_strategy_declares_its_bounds() -> None:
    assert sorted(BOUNDS) == STRATEGIES.names()


@pytest.mark.parametrize(("name", "params"), CASES)
@settings(max_examples=50, deadline=None)
@given(text=TEXTS, doc_type=DOC_TYPES)
def test_chunks_are_exact_covering_bounded_and_deterministic(
    name: str, params: dict[str, Any], text: str, doc_type: str
) -> None:
    doc = make_doc(text, doc_type)  # type: ignore[arg-type]
    chunks = chunk(name, params, doc)
    check_spans(chunks, doc)
    check_coverage(chunks, doc)
    BOUNDS[name](chunks, strategy_settings(name, params), doc)
    assert chunk(name, params, doc) == chunks  # a fresh chunker gives the same chunks


@pytest.mark.parametrize(("name", "params"), CASES)
@pytest.mark.parametrize("text", ["", " ", "\n\n\t \u3000 \n"])
def test_empty_and_blank_documents_give_no_chunks(
    name: str, params: dict[str, Any], text: str
) -> None:
    assert chunk(name, params, make_doc(text)) == []


@pytest.mark.parametrize(("name", "params"), CASES)
@pytest.mark.parametrize(
    "text",
    [
        "x" * 5000,  # one huge word
        "  " + "Ünïcödé 漢字テキスト 😀 " * 40 + "\n\n" + "ñ" * 300,
        "\u0301\x00 tail",  # characters a tokenizer drops still end up in a chunk
    ],
    ids=["huge-word", "unicode", "dropped-chars"],
)
def test_special_texts(name: str, params: dict[str, Any], text: str) -> None:
    doc = make_doc(text)
    chunks = chunk(name, params, doc)
    check_spans(chunks, doc)
    check_coverage(chunks, doc)
    BOUNDS[name](chunks, strategy_settings(name, params), doc)


@pytest.mark.parametrize("name", STRATEGIES.names())
def test_default_settings_on_a_long_document(name: str) -> None:
    paragraphs = [
        f"## Part {i}\n\n"
        + " ".join(f"Sentence {j} of part {i} talks about topic {i % 4}." for j in range(12))
        for i in range(30)
    ]
    doc = make_doc("\n\n".join(paragraphs), "BOOK")
    chunks = chunk(name, {}, doc)
    check_spans(chunks, doc)
    check_coverage(chunks, doc)
    BOUNDS[name](chunks, strategy_settings(name, {}), doc)
    assert len(chunks) == 1 if name == "whole" else len(chunks) > 1
