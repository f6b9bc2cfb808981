"""Heading-aware chunks and the heading parser they share with the hierarchical strategy."""

from __future__ import annotations

from chunk_helpers import make_doc

from rag.chunking import get_chunker
from rag.chunking.headings import find_headings

DOC = """Preamble text.

# Guide

Intro to the guide.

## Install
### Linux
Run the installer.

```bash
# not a heading
```

## Use
Start it.

Setext Title
============
Under setext.
"""


def test_headings_skip_code_fences_and_read_setext() -> None:
    found = [(h.level, h.title) for h in find_headings(DOC)]
    assert found == [(1, "Guide"), (2, "Install"), (3, "Linux"), (2, "Use"), (1, "Setext Title")]


def test_sections_carry_their_heading_path() -> None:
    chunks = get_chunker("markdown").chunk(make_doc(DOC))
    paths = [c.metadata["heading_path"] for c in chunks]
    assert paths == [
        (),
        ("Guide",),
        ("Guide", "Install", "Linux"),
        ("Guide", "Use"),
        ("Setext Title",),
    ]
    # "## Install" has no body of its own: it joins "### Linux" instead of being a lone title.
    assert (
        chunks[2].text.startswith("## Install\n### Linux") and "# not a heading" in chunks[2].text
    )
    assert chunks[3].metadata["section"] == "Guide > Use"


def test_a_big_section_is_split_and_keeps_its_path() -> None:
    body = "\n\n".join(f"Paragraph {i} " + "text " * 40 for i in range(10))
    doc = make_doc(f"# Big\n\n{body}\n\n# Small\n\nTiny.")
    chunks = get_chunker("markdown", {"max_size": 300, "overlap": 0}).chunk(doc)
    big = [c for c in chunks if c.metadata["heading_path"] == ("Big",)]
    assert len(big) > 3 and all(c.size <= 300 for c in big)
    assert chunks[-1].text == "# Small\n\nTiny."


def test_max_depth_keeps_deeper_headings_inside() -> None:
    chunks = get_chunker("markdown", {"max_depth": 1}).chunk(make_doc(DOC))
    assert [c.metadata["heading_path"] for c in chunks] == [(), ("Guide",), ("Setext Title",)]
