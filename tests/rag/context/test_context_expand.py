"""Expansion strategies: as retrieved, parent (Axiom), document (Vexora), summarize (Axiom)."""

from __future__ import annotations

import pytest
from answer_helpers import chunk

from rag.context.base import ChunkTable
from rag.context.expand import EXPANSIONS
from rag.index.hits import Candidate
from rag.registry import UnknownStrategyError
from rag.settings.context import ContextConfig

DOC = (
    "Alpha one is first. Alpha two is second. Alpha three is third. "
    "Beta four is fourth. Beta five is fifth. Beta six is sixth."
)
PARENT_A = chunk("pa", DOC[:62], "d", 0, level="parent")
PARENT_B = chunk("pb", DOC[63:], "d", 63, level="parent")
CHILDREN = [
    chunk(f"c{i}", DOC[s:e], "d", s, parent_id=p, level="child")
    for i, (s, e, p) in enumerate([(0, 19, "pa"), (20, 40, "pa"), (63, 83, "pb"), (84, 104, "pb")])
]
TABLE = ChunkTable([PARENT_A, PARENT_B, *CHILDREN])


def hits(*ids: str, scores: tuple[float, ...] = (0.9, 0.8, 0.7, 0.6)) -> list[Candidate]:
    by_id = {c.chunk_id: c for c in CHILDREN}
    return [Candidate(by_id[i], s) for i, s in zip(ids, scores, strict=False)]


def test_chunk_table_finds_chunks_and_keeps_document_order() -> None:
    assert TABLE.get_chunk("pb") == PARENT_B and TABLE.get_chunk("nope") is None
    assert [c.chunk_id for c in TABLE.document_chunks("d")] == ["pa", "c0", "c1", "pb", "c2", "c3"]
    assert all(DOC[c.start : c.end] == c.text for c in TABLE.document_chunks("d"))


def test_parent_expansion_replaces_children_once_per_parent_keeping_the_best_score() -> None:
    blocks, step = EXPANSIONS.get("parent")(hits("c1", "c2", "c0"), TABLE, ContextConfig())
    assert [(b.chunk_id, b.origin, b.score, b.rank) for b in blocks] == [
        ("pa", "parent", 0.9, 1),
        ("pb", "parent", 0.8, 2),
    ]
    assert blocks[0].hit_ids == ("c1", "c0") and blocks[0].text == PARENT_A.text
    assert step.n_in == 3 and step.n_out == 2


def test_long_parents_are_windowed_around_the_hit_at_word_boundaries() -> None:
    blocks, _ = EXPANSIONS.get("parent")(hits("c1"), TABLE, ContextConfig(parent_max_chars=100))
    assert len(PARENT_A.text) < 100 and blocks[0].text == PARENT_A.text  # short parents stay whole
    long_parent = chunk("lp", "word " * 100, "x", 0, level="parent")
    child = chunk("lc", long_parent.text[250:260], "x", 250, parent_id="lp")
    table = ChunkTable([long_parent, child])
    (block,), _ = EXPANSIONS.get("parent")(
        [Candidate(child, 1.0)], table, ContextConfig(parent_max_chars=100)
    )
    assert len(block.text) <= 100 and block.start <= 250 and block.end >= 260
    assert long_parent.text[block.start : block.end] == block.text and block.text.startswith("word")


def test_missing_parent_keeps_the_child_and_warns() -> None:
    orphan = chunk("o", "Orphan text.", "d", 0, parent_id="gone")
    blocks, step = EXPANSIONS.get("parent")([Candidate(orphan, 1.0)], TABLE, ContextConfig())
    assert blocks[0].chunk_id == "o" and "not found" in step.warnings[0]


def test_document_expansion_adds_siblings_of_documents_above_the_threshold() -> None:
    other = chunk("z", "Unrelated text.", "other", 0)
    table = ChunkTable([*CHILDREN, other])
    cands = [Candidate(CHILDREN[0], 0.9), Candidate(other, 0.2)]
    blocks, step = EXPANSIONS.get("document")(cands, table, ContextConfig())
    assert [b.chunk_id for b in blocks] == ["c0", "z", "c1", "c2", "c3"]  # hits first, then siblings
    assert {b.origin for b in blocks[2:]} == {"document"} and "1 document(s)" in step.reason
    capped, _ = EXPANSIONS.get("document")(cands, table, ContextConfig(expand_max_chunks=1))
    assert [b.chunk_id for b in capped] == ["c0", "z", "c1"]
    none, _ = EXPANSIONS.get("document")(cands, table, ContextConfig(expand_threshold=0.95))
    assert [b.chunk_id for b in none] == ["c0", "z"]


def test_summarize_takes_the_whole_top_document_in_order_once_per_parent() -> None:
    blocks, _ = EXPANSIONS.get("summarize")(hits("c2"), TABLE, ContextConfig())
    assert [b.chunk_id for b in blocks] == ["pa", "pb"] and {b.origin for b in blocks} == {"summary"}


@pytest.mark.parametrize("name", ["none", "parent", "document", "summarize"])
def test_every_expansion_handles_empty_input_and_a_missing_lookup(name: str) -> None:
    expand = EXPANSIONS.get(name)
    assert expand([], TABLE, ContextConfig())[0] == []
    blocks, _ = expand(hits("c0"), None, ContextConfig())
    assert [b.chunk_id for b in blocks] == ["c0"]


def test_unknown_expansion_lists_the_valid_ones() -> None:
    with pytest.raises(UnknownStrategyError, match="document, none, parent, summarize"):
        EXPANSIONS.get("bogus")
