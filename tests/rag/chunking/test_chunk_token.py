"""Token windows counted in MiniLM's tokenizer (the real one: it loads in well under a second)."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest
from chunk_helpers import make_doc

from rag.chunking import get_chunker, strategy_settings
from rag.chunking.models import count_tokens, load_tokenizer
from rag.chunking.token import token_windows

PROSE = " ".join(
    f"Paragraph {i}: tokenization of unbelievably hyphenated-words, numbers like {i * 1234} "
    "and naïve café menus keeps offsets exact."
    for i in range(40)
)


def test_windows_cut_between_words() -> None:
    # word ids of 3 two-piece words and one five-piece word
    word_ids = [0, 0, 1, 1, 2, 2, 3, 3, 3, 3, 3]
    assert token_windows(word_ids, size=5, overlap=0) == [(0, 4), (4, 6), (6, 11)]
    # Ending at word 3's start again would repeat (2, 6): the long word is cut instead.
    assert token_windows(word_ids, size=5, overlap=2) == [(0, 4), (2, 6), (4, 9), (9, 11)]


def test_window_overlap_and_progress() -> None:
    word_ids = list(range(20))  # one token per word
    windows = token_windows(word_ids, size=8, overlap=3)
    assert windows == [(0, 8), (5, 13), (10, 18), (15, 20)]
    assert token_windows([], 8, 3) == [(0, 0)]
    # A word longer than the window is cut inside it; overlap restarts only at word starts.
    assert token_windows([0] * 10, 4, 1) == [(0, 4), (4, 8), (8, 10)]


def test_chunks_fit_the_token_budget_when_re_tokenized() -> None:
    doc = make_doc(PROSE)
    chunks = get_chunker("token", {"size": 64, "overlap": 8}).chunk(doc)
    assert len(chunks) > 5
    for c in chunks:
        assert count_tokens(c.text) == c.metadata["tokens"] <= 64
        before = doc.text[c.start - 1] if c.start else " "
        assert not re.match(r"\w", before) or not re.match(r"\w", c.text[0])  # starts on a word
    for prev, nxt in pairwise(chunks):
        assert 0 < count_tokens(doc.text[nxt.start : prev.end]) <= 8


def test_default_is_256_minilm_tokens() -> None:
    chunks = get_chunker("token").chunk(make_doc(PROSE * 3))
    assert max(c.metadata["tokens"] for c in chunks) == 256
    assert load_tokenizer() is load_tokenizer()  # loaded once per process


def test_unknown_tokenizer_names_the_setting() -> None:
    with pytest.raises(
        ValueError, match=r"tokenizer 'no/such-model' is not available offline.*`tokenizer`"
    ):
        get_chunker("token", {"tokenizer": "no/such-model"}).chunk(make_doc("text"))


def test_overlap_must_be_smaller_than_size() -> None:
    with pytest.raises(
        ValueError, match=re.escape("overlap (256) must be smaller than size (256)")
    ):
        strategy_settings("token", {"overlap": 256})
