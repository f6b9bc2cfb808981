"""Metrics agree with trec_eval (through pytrec_eval) to 1e-6 on randomized runs with many ties."""

from __future__ import annotations

import math
import random

import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from eval.scoring.metrics import evaluate, parse_metric, trec_ranking

# our metric -> pytrec_eval measure (mrr@k is checked on a run cut at k: trec_eval has no RR cut)
REFERENCE = {"ndcg": "ndcg_cut", "recall": "recall", "precision": "P", "map": "map_cut",
             "hit": "success"}


def _random_case(rng: random.Random) -> tuple[dict, dict]:
    docs = [f"d{i}" for i in range(rng.randint(1, 25))]
    qrels, results = {}, {}
    for q in range(rng.randint(1, 6)):
        qid = f"q{q}"
        judged = rng.sample(docs, rng.randint(1, len(docs)))
        qrels[qid] = {d: rng.choice([0, 0, 1, 1, 2, 3]) for d in judged}
        retrieved = rng.sample(docs, rng.randint(0, len(docs)))
        # few distinct scores, so ties are common and the tie rule matters
        results[qid] = {d: float(rng.randint(0, 4)) / 2 for d in retrieved}
    return qrels, results


def _reference(qrels: dict, results: dict, measure: str, k: int) -> dict[str, float]:
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {f"{measure}.{k}"})
    return {qid: row[f"{measure}_{k}"] for qid, row in evaluator.evaluate(results).items()}


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 30))
def test_metrics_match_trec_eval(seed: int, k: int) -> None:
    qrels, results = _random_case(random.Random(seed))
    ours = evaluate(qrels, results, [f"{name}@{k}" for name in REFERENCE] + [f"mrr@{k}"])
    for name, measure in REFERENCE.items():
        expected = _reference(qrels, results, measure, k)
        got = ours[f"{name}@{k}"].values
        assert set(got) == set(expected)
        for qid, value in expected.items():
            assert got[qid] == pytest.approx(value, abs=1e-6), (name, qid)
    cut = {qid: {d: scores[d] for d in trec_ranking(scores)[:k]} for qid, scores in results.items()}
    rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(cut)
    for qid, row in rr.items():
        assert ours[f"mrr@{k}"].values[qid] == pytest.approx(row["recip_rank"], abs=1e-6)


def test_ties_rank_higher_doc_id_first_like_trec_eval() -> None:
    assert trec_ranking({"a": 1.0, "b": 1.0, "c": 2.0, "d10": 1.0, "d2": 1.0}) == [
        "c", "d2", "d10", "b", "a"]
    scores = evaluate({"q": {"a": 1}}, {"q": {"a": 1.0, "b": 1.0}}, ["mrr@10", "precision@1"])
    assert scores["mrr@10"].values["q"] == 0.5
    assert scores["precision@1"].values["q"] == 0.0


def test_hand_computed_ndcg() -> None:
    scores = evaluate({"q": {"a": 2, "b": 1}}, {"q": {"x": 3.0, "a": 2.0, "b": 1.0}}, ["ndcg@3"])
    dcg = 2 / math.log2(3) + 1 / math.log2(4)
    assert scores["ndcg@3"].values["q"] == pytest.approx(dcg / (2 + 1 / math.log2(3)))


def test_nan_score_is_failed_not_averaged() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"a": 1}}
    results = {"q1": {"a": 1.0}, "q2": {"a": math.nan, "b": 0.5}}
    scores = evaluate(qrels, results, ["ndcg@10"])["ndcg@10"]
    assert scores.values == {"q1": 1.0}
    assert "q2" in scores.failed and "nan" in scores.failed["q2"]
    assert scores.mean == 1.0 and scores.n_failed == 1


def test_all_failed_mean_is_nan_not_zero() -> None:
    scores = evaluate({"q": {"a": 1}}, {"q": {"a": math.inf}}, ["recall@5"])["recall@5"]
    assert math.isnan(scores.mean) and scores.n_failed == 1


def test_queries_outside_qrels_ignored_and_empty_results_score_zero() -> None:
    scores = evaluate({"q1": {"a": 1}}, {"q1": {}, "q9": {"a": 1.0}}, ["hit@3", "map"])
    assert scores["hit@3"].values == {"q1": 0.0}
    assert scores["map"].values == {"q1": 0.0}


@pytest.mark.parametrize("bad", ["ndcg@0", "bleu@10", "ndcg@x", ""])
def test_unknown_metric_lists_valid_names(bad: str) -> None:
    with pytest.raises(ValueError, match=r"ndcg|cutoff"):
        parse_metric(bad)


def test_parse_metric_normalizes_case() -> None:
    assert parse_metric("NDCG@10").key == "ndcg@10"
    assert parse_metric("map").k is None
