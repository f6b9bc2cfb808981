"""Honest scores on incomplete judgments: unjudged@k, bpref and condensed nDCG against small cases
computed by hand, bpref against trec_eval (pytrec_eval), and the lower-bound warning."""

from __future__ import annotations

import math
import random

import pytest
import pytrec_eval

from eval.scoring.judged import (
    UNJUDGED_WARNING,
    bpref,
    condensed,
    condensed_ndcg,
    judged_scores,
    unjudged_at,
)

JUDGED = {"a": 1, "b": 0, "c": 1, "d": 0}
RANKING = ["x", "b", "a", "y", "d", "c"]  # x and y were never judged


def test_unjudged_share_of_the_top_k() -> None:
    assert unjudged_at(RANKING, JUDGED, 4) == pytest.approx(2 / 4)
    assert unjudged_at(RANKING, JUDGED, 10) == pytest.approx(2 / 6)  # only 6 retrieved
    assert unjudged_at(["a", "b"], JUDGED, 2) == 0.0
    assert unjudged_at([], JUDGED, 10) == 0.0


def test_bpref_by_hand() -> None:
    # R = 2, N = 2: a has one judged non-relevant (b) above it -> 1 - 1/2; c has two -> 1 - 2/2
    assert bpref(RANKING, JUDGED) == pytest.approx((0.5 + 0.0) / 2)
    # no judged non-relevant: every retrieved relevant counts 1; a missed relevant counts 0
    assert bpref(["x", "a"], {"a": 1, "c": 1}) == pytest.approx(0.5)
    # R = 2, N = 1: c above a -> 1 - min(1, 2) / min(2, 1) = 0
    assert bpref(["c", "a"], {"a": 1, "b": 1, "c": 0}) == 0.0
    assert bpref(["a"], {"b": 0}) == 0.0  # nothing relevant judged


def test_unjudged_passages_do_not_move_bpref_or_condensed_ndcg() -> None:
    without = [d for d in RANKING if d in JUDGED]
    assert condensed(RANKING, JUDGED) == without == ["b", "a", "d", "c"]
    assert bpref(RANKING, JUDGED) == bpref(without, JUDGED)
    assert condensed_ndcg(RANKING, JUDGED) == condensed_ndcg(without, JUDGED)


def test_condensed_ndcg_by_hand() -> None:
    idcg = 1 + 1 / math.log2(3)
    # condensed list b, a, d, c: relevant at ranks 2 and 4
    assert condensed_ndcg(RANKING, JUDGED) == pytest.approx((1 / math.log2(3) + 1 / math.log2(5)) / idcg)
    # the plain list has them at ranks 3 and 6: plain nDCG is lower, a lower bound
    plain = judged_scores("s", {"q": JUDGED}, {"q": _scores(RANKING)}).ndcg
    assert plain == pytest.approx((1 / math.log2(4) + 1 / math.log2(7)) / idcg)
    assert condensed_ndcg(RANKING, JUDGED, k=2) == pytest.approx((1 / math.log2(3)) / idcg)


def _scores(ranking: list[str]) -> dict[str, float]:
    return {doc: float(len(ranking) - i) for i, doc in enumerate(ranking)}


def test_bpref_agrees_with_trec_eval() -> None:
    rng = random.Random(7)
    for trial in range(40):
        docs = [f"d{i}" for i in range(12)]
        judged = {d: rng.choice([0, 1]) for d in rng.sample(docs, rng.randint(1, 10))}
        if not any(judged.values()):
            judged[next(iter(judged))] = 1
        ranking = rng.sample(docs, rng.randint(1, 12))
        scores = _scores(ranking)
        ref = pytrec_eval.RelevanceEvaluator({"q": judged}, {"bpref"}).evaluate({"q": scores})
        assert bpref(ranking, judged) == pytest.approx(ref["q"]["bpref"]), (trial, judged, ranking)


def test_means_warning_and_json() -> None:
    qrels = {"q1": JUDGED, "q2": {"a": 1}}
    results = {"q1": _scores(RANKING), "q2": _scores(["a", "z1", "z2", "z3"]), "q3": {"a": 1.0}}
    got = judged_scores("bm25", qrels, results, depth=4)
    assert got.queries == 2  # q3 has no judgments
    assert got.unjudged == pytest.approx((2 / 4 + 3 / 4) / 2)
    assert got.bpref == pytest.approx((0.25 + 1.0) / 2)
    assert got.lower_bound and got.unjudged > UNJUDGED_WARNING
    assert "bm25: 62% of its top 4 was never judged" in (got.warning() or "")
    row = got.as_json()
    assert row["unjudged@4"] == pytest.approx(0.625) and row["lower_bound"] is True
    judged_only = judged_scores("dense", {"q1": JUDGED}, {"q1": _scores(["a", "b", "c", "d"])}, 4)
    assert judged_only.unjudged == 0 and judged_only.warning() is None
    assert judged_only.ndcg == judged_only.condensed_ndcg  # nothing to condense
    assert math.isnan(judged_scores("none", {}, {}).ndcg)
