"""EchoMind's routing: each detected document type gets its own chunker."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest
from chunk_helpers import make_doc

from rag.chunking import get_chunker, strategy_settings

FAQ_TEXT = "Q: One?\nA: Yes.\n\nQ: Two?\nA: No."


@pytest.mark.parametrize(
    ("doc_type", "strategy", "levels"),
    [
        ("FAQ", "faq", {"chunk"}),
        ("BOOK", "parent_child", {"parent", "child"}),
        ("SENSITIVE", "sentence", {"chunk"}),
        ("USER", "sentence", {"chunk"}),
    ],
)
def test_each_type_uses_its_route(doc_type: str, strategy: str, levels: set[str]) -> None:
    chunks = get_chunker("doc_type").chunk(make_doc(FAQ_TEXT, doc_type))  # type: ignore[arg-type]
    assert {c.metadata["strategy"] for c in chunks} == {strategy}
    assert {c.level for c in chunks} == levels
    assert {c.metadata["doc_type"] for c in chunks} == {doc_type}


def test_faq_route_gives_one_chunk_per_pair() -> None:
    chunks = get_chunker("doc_type").chunk(make_doc(FAQ_TEXT, "FAQ"))
    assert [c.text for c in chunks] == ["Q: One?\nA: Yes.", "Q: Two?\nA: No."]


def test_sensitive_and_user_sizes_are_echomind_numbers() -> None:
    text = " ".join(f"Sentence number {i} is here." for i in range(200))
    sensitive = get_chunker("doc_type").chunk(make_doc(text, "SENSITIVE"))
    user = get_chunker("doc_type").chunk(make_doc(text, "USER"))
    assert max(c.size for c in sensitive) <= 450 and all(
        a.end < b.start for a, b in pairwise(sensitive)
    )
    assert max(c.size for c in user) <= 800 and all(a.end > b.start for a, b in pairwise(user))


def test_route_errors_name_the_route_and_the_rule() -> None:
    bad = {"user": {"strategy": "sentence", "params": {"max_size": 100, "min_size": 200}}}
    with pytest.raises(
        ValueError, match=re.escape("params.user: chunking strategy 'sentence': params.min_size")
    ):
        strategy_settings("doc_type", bad)
    with pytest.raises(ValueError, match="cannot be doc_type itself"):
        strategy_settings("doc_type", {"faq": {"strategy": "doc_type"}})
