"""The array metrics (eval.scoring.hit_arrays) equal the per-query definitions
(eval.scoring.metrics.evaluate) exactly — not approximately — on random runs with many ties."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval.scoring.hit_arrays import QueryConstants, RunHits, hit_metrics, run_hits
from eval.scoring.metrics import evaluate, parse_metric

NAMES = ("ndcg", "recall", "precision", "mrr", "map", "hit")


def _random_case(rng: random.Random) -> tuple[dict, dict]:
    docs = [f"d{i}" for i in range(rng.randint(1, 40))]
    qrels, results = {}, {}
    for q in range(rng.randint(1, 8)):
        qid = f"q{q}"
        judged = rng.sample(docs, rng.randint(1, len(docs)))
        qrels[qid] = {d: rng.choice([-1, 0, 0, 1, 1, 2, 3]) for d in judged}
        retrieved = rng.sample(docs, rng.randint(0, len(docs)))
        results[qid] = {d: float(rng.randint(0, 4)) / 3 for d in retrieved}  # many ties
    return qrels, results


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 45))
def test_array_metrics_equal_the_per_query_definitions(seed: int, k: int) -> None:
    qrels, results = _random_case(random.Random(seed))
    metrics = [f"{name}@{k}" for name in NAMES] + list(NAMES)  # with and without a cutoff
    expected = evaluate(qrels, results, metrics)
    qids = sorted(qrels.keys() & results.keys())
    constants = QueryConstants([qrels[q] for q in qids])
    got = hit_metrics(run_hits(qrels, results, qids), constants, [parse_metric(m) for m in metrics])
    for key, scores in expected.items():
        assert dict(zip(qids, got[key].tolist(), strict=True)) == scores.values, key


def test_a_query_without_hits_or_relevant_documents_scores_zero() -> None:
    constants = QueryConstants([{"a": 0}, {"b": 2}])
    none = np.array([], dtype=np.int64)
    hits = RunHits(none, none, none, np.array([3, 0]))
    got = hit_metrics(hits, constants, [parse_metric(m) for m in ("ndcg@10", "mrr@10", "map")])
    assert all(values.tolist() == [0.0, 0.0] for values in got.values())


def test_a_metric_without_an_array_form_is_refused() -> None:
    from eval.scoring.metrics import MetricSpec

    constants = QueryConstants([{"a": 1}])
    hits = RunHits(*(np.array([0]),) * 2, np.array([1]), np.array([1]))
    with pytest.raises(ValueError, match="no array form"):
        hit_metrics(hits, constants, [MetricSpec("bogus", 5)])
