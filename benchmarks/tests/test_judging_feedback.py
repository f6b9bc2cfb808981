"""The relevance-feedback features tried for the learned judge (benchmarks.judging_feedback):
similarity to the question's other judged passages, never to the passage's own label."""

from __future__ import annotations

import numpy as np

from benchmarks.judging_feedback import FEEDBACK_NAMES, VARIANT_NAMES, VECTORS, feedback_features
from eval.judging.sim_pool import RankedHit, build_pool


def _pool():
    texts = {"a": "kernel module signing keys", "b": "signing kernel module keys policy",
             "c": "printer queue paper", "d": "printer paper jam"}
    hits = {"s": {"q1": [RankedHit(k, 0, 10, texts[k], 1.0 - r / 4)
                         for r, k in enumerate(texts)]}}
    pool = build_pool({"q1": "how are kernel modules signed"}, hits, 10)
    return pool, {item.key: i for i, item in enumerate(pool.items)}


def test_similar_to_the_relevant_one_found_scores_high_and_own_label_never_counts() -> None:
    pool, at = _pool()
    a, b, c, d = at["a"], at["b"], at["c"], at["d"]
    x = feedback_features(pool, {a: 1, c: 0})
    assert x.shape == (4, len(FEEDBACK_NAMES))
    assert x[b, 0] > 0.3 > x[d, 0]  # b is like the relevant a; d is not
    assert x[d, 2] > x[b, 2]  # d is like the not-relevant c
    assert x[a, 0] == 0.0  # a's own relevant label does not feed a's row
    assert x[c, 2] == 0.0  # nor c's own not-relevant label c's row
    assert not feedback_features(pool, {}).any()  # nothing judged: no feedback


def test_every_variant_has_its_named_columns() -> None:
    pool, at = _pool()
    for item in pool.items:  # "fbd" reads dense vectors the caller provides
        VECTORS[item.text] = np.ones(3) / np.sqrt(3)
    for variant, names in VARIANT_NAMES.items():
        x = feedback_features(pool, {at["a"]: 1}, variant)
        assert x.shape == (4, len(names)) and np.isfinite(x).all()
