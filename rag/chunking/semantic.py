"""Semantic chunking: cut where neighbouring sentences' embeddings diverge (Kamradt, "5 Levels
of Text Splitting", 2024; LangChain SemanticChunker): each sentence is embedded with
`buffer_size` neighbours on each side, and a boundary falls where the cosine distance to the
next window exceeds the `breakpoint_percentile`-th percentile of all such distances. Groups
are then held to `max_size` (packed) and `min_size` (short ones join a neighbour)."""

from __future__ import annotations

from itertools import pairwise
from typing import ClassVar

import numpy as np
from pydantic import Field, ValidationInfo, field_validator

from rag.chunking.models import default_embedder
from rag.chunking.registry import STRATEGIES
from rag.chunking.spans import Span, make_chunk
from rag.chunking.units import merge_short, pack_units, sentence_spans, split_long
from rag.embed.base import Embedder
from rag.records.chunk import Chunk
from rag.records.document import Document
from rag.settings.chunking import StrategySettings, at_most


class SemanticSettings(StrategySettings):
    needs_embedder: ClassVar[bool] = True  # get_chunker passes the shared embedder in

    breakpoint_percentile: float = Field(95.0, gt=0, lt=100, description="distance percentile")
    buffer_size: int = Field(1, ge=0, description="neighbour sentences embedded with each one")
    max_size: int = Field(1000, ge=1, description="a longer group is packed into pieces")
    min_size: int = Field(100, ge=0, description="a shorter group joins its neighbour")

    @field_validator("min_size")
    @classmethod
    def _min_within_max(cls, value: int, info: ValidationInfo) -> int:
        return at_most("max_size", value, info)


def neighbour_distances(vectors: np.ndarray) -> np.ndarray:
    """Cosine distance between each row and the next (length n - 1)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = vectors / np.where(norms == 0, 1.0, norms)
    return 1.0 - np.sum(unit[:-1] * unit[1:], axis=1)


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


class SemanticChunker:
    """Sentence groups split at embedding breakpoints; the embedder is injectable."""

    name = "semantic"

    def __init__(self, settings: SemanticSettings, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self._embedder = embedder

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = default_embedder()  # loaded on first use, never at import
        return self._embedder

    def _windows(self, text: str, units: list[Span]) -> list[str]:
        b, last = self.settings.buffer_size, len(units) - 1
        return [
            text[units[max(0, i - b)].start : units[min(last, i + b)].end] for i in range(last + 1)
        ]

    def chunk(self, document: Document) -> list[Chunk]:
        s = self.settings
        text = document.text
        units = split_long(text, sentence_spans(text, 0, len(text)), s.max_size)
        if not units:
            return []
        distances = np.zeros(0)
        threshold = 0.0
        if len(units) > 1:
            vectors = np.asarray(self.embedder.embed_documents(self._windows(text, units)))
            distances = neighbour_distances(vectors.astype(np.float64))
            threshold = float(np.percentile(distances, s.breakpoint_percentile))
        cuts = [0, *[i + 1 for i, d in enumerate(distances) if d > threshold], len(units)]
        groups: list[Span] = []
        for a, b in pairwise(cuts):
            groups.extend(pack_units(units[a:b], s.max_size))
        spans = merge_short(groups, s.min_size, s.max_size)
        # The distance at each chunk's first sentence says how sharp the topic change was.
        distance_at = {units[i + 1].start: float(d) for i, d in enumerate(distances)}
        return [
            make_chunk(
                document,
                span,
                strategy=self.name,
                index=i,
                metadata={
                    "breakpoint_distance": _rounded(distance_at.get(span.start)),
                    "threshold": round(threshold, 4),
                },
            )
            for i, span in enumerate(spans)
        ]


STRATEGIES.add("semantic", (SemanticSettings, SemanticChunker))
