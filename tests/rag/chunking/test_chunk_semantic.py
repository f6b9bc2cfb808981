"""Semantic breakpoints: with a cheap hashing embedder, and once with the real MiniLM."""

from __future__ import annotations

import numpy as np
import pytest
from chunk_helpers import HashingEmbedder, make_doc

from rag.chunking import get_chunker
from rag.chunking.semantic import neighbour_distances

# Sentences of one topic share words (so bag-of-words vectors are close), topics share none.
CATS = [
    "Cats purr when cats are content.",
    "Cats sleep most of their day.",
    "Kittens and cats love warm laps.",
    "Cats groom their fur with rough tongues.",
]
ROCKETS = [
    "Rockets burn liquid fuel in engines.",
    "Rockets with big engines produce huge thrust.",
    "Rockets need fuel and oxygen to launch.",
    "Engine nozzles shape the exhaust of rockets.",
]


class CountingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[str]] = []

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return super().embed_documents(texts)


def test_neighbour_distances_are_cosine_distances() -> None:
    vectors = np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 3.0], [0.0, 0.0]])
    assert np.allclose(neighbour_distances(vectors), [0.0, 1.0, 1.0])


def test_breaks_where_the_topic_changes() -> None:
    doc = make_doc(" ".join(CATS + ROCKETS))
    embedder = CountingEmbedder()
    chunker = get_chunker("semantic", {"buffer_size": 0, "min_size": 0}, embedder=embedder)
    chunks = chunker.chunk(doc)
    assert [c.text for c in chunks] == [" ".join(CATS), " ".join(ROCKETS)]
    assert embedder.calls == [CATS + ROCKETS]  # one batch, one window per sentence
    assert chunks[1].metadata["breakpoint_distance"] > chunks[1].metadata["threshold"]
    assert chunks[0].metadata["breakpoint_distance"] is None


def test_buffer_embeds_each_sentence_with_its_neighbours() -> None:
    embedder = CountingEmbedder()
    get_chunker("semantic", {"buffer_size": 1}, embedder=embedder).chunk(
        make_doc(" ".join(CATS[:3]))
    )
    assert embedder.calls == [[" ".join(CATS[:2]), " ".join(CATS[:3]), " ".join(CATS[1:3])]]


def test_size_bounds_hold_over_topic_groups() -> None:
    doc = make_doc(" ".join(CATS * 3 + ROCKETS * 3))
    chunks = get_chunker(
        "semantic", {"max_size": 150, "min_size": 60}, embedder=HashingEmbedder()
    ).chunk(doc)
    assert all(c.size <= 150 for c in chunks)
    for prev, short, nxt in zip([None, *chunks[:-1]], chunks, [*chunks[1:], None], strict=True):
        if short.size < 60:  # only when joining either neighbour would pass the maximum
            assert all(
                n is None or max(n.end, short.end) - min(n.start, short.start) > 150
                for n in (prev, nxt)
            )


def test_one_sentence_needs_no_embedding() -> None:
    embedder = CountingEmbedder()
    chunks = get_chunker("semantic", embedder=embedder).chunk(make_doc("Just one sentence."))
    assert [c.text for c in chunks] == ["Just one sentence."] and embedder.calls == []


@pytest.mark.slow
def test_real_minilm_finds_the_topic_change() -> None:
    chunks = get_chunker("semantic", {"buffer_size": 0, "min_size": 0}).chunk(
        make_doc(" ".join(CATS + ROCKETS))
    )
    assert any(c.text.startswith(ROCKETS[0]) for c in chunks)
    assert all(not (CATS[-1] in c.text and ROCKETS[0] in c.text) for c in chunks)
