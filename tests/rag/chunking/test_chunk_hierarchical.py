"""Vexora's document → section → paragraph levels."""

from __future__ import annotations

from chunk_helpers import make_doc

from rag.chunking import get_chunker


def test_levels_link_to_the_level_above() -> None:
    text = "# One\n\nFirst para of one.\n\nSecond para of one.\n\n# Two\n\nOnly para of two."
    chunks = get_chunker("hierarchical", {"paragraph_min_size": 0}).chunk(make_doc(text))
    assert [(c.level, c.text) for c in chunks] == [
        ("document", text),
        ("section", "# One\n\nFirst para of one.\n\nSecond para of one."),
        ("paragraph", "# One"),
        ("paragraph", "First para of one."),
        ("paragraph", "Second para of one."),
        ("section", "# Two\n\nOnly para of two."),
        ("paragraph", "# Two"),
        ("paragraph", "Only para of two."),
    ]
    doc_chunk, s1, s2 = chunks[0], chunks[1], chunks[5]
    assert s1.parent_id == s2.parent_id == doc_chunk.chunk_id
    assert {c.parent_id for c in chunks[2:5]} == {s1.chunk_id}
    assert [c.metadata["depth"] for c in chunks] == [0, 1, 2, 2, 2, 1, 2, 2]
    assert s2.metadata["heading_path"] == ("Two",)


def test_short_paragraphs_join_until_the_minimum() -> None:
    text = "# T\n\nab\n\ncd\n\n" + "long paragraph " * 10
    chunks = get_chunker("hierarchical", {"paragraph_min_size": 10}).chunk(make_doc(text))
    paragraphs = [c.text for c in chunks if c.level == "paragraph"]
    assert paragraphs[0] == "# T\n\nab\n\ncd"
    assert len(paragraphs) == 2


def test_without_headings_sections_are_sized_groups_of_paragraphs() -> None:
    text = "\n\n".join(f"Paragraph {i}. " + "filler " * 30 for i in range(20))  # ~4.5k chars
    chunks = get_chunker("hierarchical", {"section_size": 1000, "paragraph_size": 500}).chunk(
        make_doc(text)
    )
    sections = [c for c in chunks if c.level == "section"]
    assert len(sections) >= 5 and all(c.size <= 1000 for c in sections)
    assert all(c.text.startswith("Paragraph") for c in sections)  # cut at paragraph breaks
    assert all(c.metadata["heading_path"] == () for c in sections)
