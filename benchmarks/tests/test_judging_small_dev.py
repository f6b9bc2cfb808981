"""The fills judge7 tried on the development sets (benchmarks.judging_small_dev): the ideal
grown by the expected missed relevant, classify-and-count matched, and the same-source feedback
feature (benchmarks.judging_feedback, variant fbs)."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.judging_feedback import feedback_features
from benchmarks.judging_small_dev import count_matched, missing_mass
from eval.judging.sim_pool import RankedHit, build_pool


def _pool():
    hits = {"s": {"q1": [RankedHit(f"d{k}", 0, 10, f"text {k}", 1.0 - k / 10, title=t)
                         for k, t in enumerate(["A", "A", "B", "A"])],
                  "q2": [RankedHit("e0", 0, 10, "other", 1.0, title="A")]}}
    return build_pool({"q1": "?", "q2": "?"}, hits, 10)


def test_count_matching_fills_as_many_as_the_probabilities_add_up_to() -> None:
    p = np.array([0.9, 0.45, 0.35, 0.2, 0.1])
    labels = count_matched({0: 0}, p)  # Σ p over the unjudged 1..4 = 1.1: one passage filled
    assert labels.tolist() == [0.0, 1.0, 0.0, 0.0, 0.0]  # the person's 0 stays, p 0.9 or not
    assert count_matched({}, np.full(4, 0.3)).sum() == 1  # 1.2 rounds to 1: below 0.5 still filled


def test_missing_mass_sums_p_over_unfilled_unjudged_passages_per_question() -> None:
    pool = _pool()
    p = np.array([0.0, 0.6, 0.2, 0.1, 0.3])
    filled = np.array([1.0, 1.0, 0.0, 0.0, 0.0])  # item 0 judged relevant, item 1 filled
    mass = missing_mass(pool, {0: 1}, p, filled)
    assert [item.qid for item in pool.items] == ["q1"] * 4 + ["q2"]
    assert mass == {"q1": pytest.approx(0.3), "q2": pytest.approx(0.3)}


def test_same_source_marks_passages_sharing_a_title_with_a_judged_one_of_their_question() -> None:
    pool = _pool()
    at = {(item.qid, item.doc): i for i, item in enumerate(pool.items)}
    x = feedback_features(pool, {at["q1", "d0"]: 1, at["q1", "d2"]: 0}, "fbs")
    assert x[at["q1", "d1"]].tolist() == [1.0, 0.0]  # title A, like the relevant d0
    assert x[at["q1", "d0"]].tolist() == [0.0, 0.0]  # its own label never counts
    assert x[at["q1", "d2"]].tolist() == [0.0, 0.0]
    assert x[at["q2", "e0"]].tolist() == [0.0, 0.0]  # title A, but another question
