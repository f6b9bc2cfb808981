"""Fixed-size windows."""

from __future__ import annotations

import pytest
from chunk_helpers import make_doc

from rag.chunking import get_chunker, strategy_settings
from rag.chunking.fixed import windows


def test_windows_step_by_size_minus_overlap() -> None:
    assert windows(10, 4, 1) == [(0, 4), (3, 7), (6, 10)]
    assert windows(8, 4, 0) == [(0, 4), (4, 8)]
    assert windows(3, 4, 2) == [(0, 3)]


def test_windows_are_trimmed_and_not_repeated() -> None:
    # Windows [0, 10) and [5, 15) both trim to "ab"; [10, 20) is blank.
    text = " " * 8 + "ab" + " " * 10
    chunks = get_chunker("fixed", {"size": 10, "overlap": 5}).chunk(make_doc(text))
    assert [(c.start, c.end, c.text) for c in chunks] == [(8, 10, "ab")]


def test_overlap_must_be_smaller_than_size() -> None:
    with pytest.raises(
        ValueError, match=r"params\.overlap: overlap \(600\) must be smaller than size \(512\)"
    ):
        strategy_settings("fixed", {"size": 512, "overlap": 600})
