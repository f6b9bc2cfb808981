"""Layer 1 of Axiom's intent router: cosine similarity to pre-embedded intent exemplars.

Each intent's score is its best exemplar's cosine with the query (nearest neighbour, as in
Axiom / semantic-router); the caller accepts the best intent when it reaches the threshold (0.85).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from rag.embed.base import Embedder


@dataclass(frozen=True)
class SemanticScores:
    """Best cosine per intent, the winning intent, and the exemplar it matched."""

    scores: Mapping[str, float]
    best_intent: str
    best_score: float
    nearest_exemplar: str


class SemanticRouter:
    """Exemplar embeddings for every intent; `score(text)` compares a query against all of them."""

    def __init__(self, embedder: Embedder, exemplars: Mapping[str, Sequence[str]]) -> None:
        pairs = [(intent, text) for intent, texts in exemplars.items() for text in texts if text.strip()]
        if not pairs:
            raise ValueError("the semantic router needs at least one exemplar")
        self.embedder = embedder
        self.intents = tuple(dict.fromkeys(intent for intent, _ in pairs))
        self._labels = [intent for intent, _ in pairs]
        self._texts = [text for _, text in pairs]
        vectors = np.asarray(embedder.embed_documents(self._texts), dtype=np.float32)
        self._matrix = _unit_rows(vectors)

    @property
    def size(self) -> int:
        return len(self._texts)

    def score(self, text: str) -> SemanticScores:
        return self.score_many([text])[0]

    def score_many(self, texts: Sequence[str]) -> list[SemanticScores]:
        """Scores for many queries at once (one embedding batch: used to re-score a labeled set).

        Queries are embedded like the exemplars (embed_documents): a symmetric short-text match."""
        if not texts:
            return []
        queries = _unit_rows(np.asarray(self.embedder.embed_documents(list(texts)), dtype=np.float32))
        similarity = queries @ self._matrix.T  # (queries, exemplars) cosines
        return [self._best(row) for row in similarity]

    def leave_one_out(self) -> list[tuple[str, str, SemanticScores]]:
        """(exemplar, its intent, scores against all other exemplars) for every exemplar: held-out
        scores for choosing a threshold without touching a labeled test set."""
        similarity = self._matrix @ self._matrix.T
        np.fill_diagonal(similarity, -2.0)  # an exemplar never matches itself
        return [(text, label, self._best(row))
                for text, label, row in zip(self._texts, self._labels, similarity, strict=True)]

    def _best(self, row: np.ndarray) -> SemanticScores:
        per_intent: dict[str, float] = {}
        nearest: dict[str, int] = {}
        for index, (intent, value) in enumerate(zip(self._labels, row.tolist(), strict=True)):
            if value > per_intent.get(intent, -2.0):
                per_intent[intent], nearest[intent] = value, index
        best = max(per_intent, key=per_intent.__getitem__)
        return SemanticScores(MappingProxyType(per_intent), best, per_intent[best],
                              self._texts[nearest[best]])


def _unit_rows(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)
