"""The labeled intent set and the router's accuracy on it with the real default embedder."""

from __future__ import annotations

from collections import Counter

import pytest

from rag.embed import get_embedder
from rag.query.intent import EXEMPLARS, INTENTS, SemanticRouter
from rag.query.intent.evaluate import (
    THRESHOLD_GRID,
    calibrate,
    evaluate,
    leaked,
    load_labeled,
    semantic_scores,
)
from rag.settings.embedding import EmbeddingConfig


def test_the_labeled_set_is_big_varied_and_disjoint_from_the_exemplars() -> None:
    labeled = load_labeled()
    counts = Counter(item.intent for item in labeled)
    assert len(labeled) >= 150 and set(counts) == set(INTENTS)
    assert min(counts.values()) >= 10 and counts["question"] / len(labeled) < 0.4
    assert len({item.query.lower() for item in labeled}) == len(labeled)  # no duplicates
    assert leaked(labeled, EXEMPLARS) == []


@pytest.mark.slow
def test_rules_plus_semantic_accuracy_with_minilm() -> None:
    labeled = load_labeled()
    router = SemanticRouter(get_embedder(EmbeddingConfig()), EXEMPLARS)
    scores = semantic_scores(labeled, router)
    threshold, _ = calibrate(router, THRESHOLD_GRID)  # chosen on exemplars, never on the labels
    tuned = evaluate(labeled, scores, threshold)
    axiom = evaluate(labeled, scores, 0.85)
    assert tuned.accuracy >= 0.9, tuned.confusion()
    # Axiom's 0.85 was set for bge-small; with MiniLM most paraphrases fall below it and get
    # the default intent, so the seed's number is measured, not assumed, to be worse here.
    assert axiom.accuracy < tuned.accuracy
    assert axiom.layer_counts()["default"] > tuned.layer_counts().get("default", 0)
