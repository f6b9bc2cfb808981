"""The training script's threshold rule and rates (the model itself is committed)."""

from __future__ import annotations

from eval.guard_detector.benign import load_pool, split_of
from eval.guard_detector.train import choose_threshold, rates


def test_the_threshold_keeps_validation_false_positives_at_the_limit() -> None:
    scores, labels = [0.9, 0.8, 0.7, 0.6, 0.3, 0.2], [1, 1, 0, 1, 0, 0]
    threshold = choose_threshold(scores, labels)
    assert 0.7 < threshold <= 0.8  # above the highest negative: no false positive on 3 negatives
    found = rates(scores, labels, threshold)
    assert found["false_positives"] == 0 and found["recall"] == 2 / 3


def test_the_benign_pool_is_big_split_and_of_several_domains() -> None:
    pool = load_pool()
    test = [r for r in pool if r["split"] == "test"]
    assert len(test) >= 300 and len({r["domain"] for r in test}) >= 4
    assert all(r["split"] == split_of(r["text"]) for r in pool)
