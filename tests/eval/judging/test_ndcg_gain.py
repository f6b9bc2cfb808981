"""The selectable judging order `ndcg_gain` (eval.judging.strategies.impact): the top of many
systems' rankings first, then the passages likely relevant where a label moves nDCG@10 most —
weighed against the question's ideal DCG — and, on a synthetic set, a smaller error at 10 % than
the default judge-uncertainty order. It is registered but not the default (docs/judging.md:
better at 10 % of the pool, mixed at 20 %; the default is answer_seek since judge5)."""

from __future__ import annotations

import numpy as np
import pytest
from sim_helpers import synthetic

from eval.judging.features import item_features
from eval.judging.sim_pool import RankedHit, build_pool
from eval.judging.simulate import reference, simulate
from eval.judging.strategies.base import (
    DEFAULT_STRATEGY,
    STRATEGIES,
    JudgingState,
    make_strategy,
)
from eval.judging.strategies.impact import ideal_dcg


def _two_questions():
    """q0: doc a is rank 1 of both systems, b rank 2 of one; q1: c rank 1 of one system only."""
    hits = {"s1": {"q0": [RankedHit("a", 0, 1, "t", 1.0), RankedHit("b", 0, 1, "t", 0.5)],
                   "q1": [RankedHit("c", 0, 1, "t", 1.0)]},
            "s2": {"q0": [RankedHit("a", 0, 1, "t", 1.0)], "q1": [RankedHit("d", 0, 1, "t", 1.0)]}}
    pool = build_pool({"q0": "x", "q1": "y"}, hits, 10)
    return pool, {item.doc: i for i, item in enumerate(pool.items)}


def test_it_is_selectable_but_not_the_default() -> None:
    assert "ndcg_gain" in STRATEGIES.names()
    assert DEFAULT_STRATEGY == "answer_seek"


def test_ideal_dcg_counts_a_fractional_relevant_passage_in_part() -> None:
    got = ideal_dcg(np.array([0.0, 1.0, 1.5, 2.0, 40.0]), 10)
    assert got[0] == 0.0 and got[1] == pytest.approx(1.0)
    assert got[3] == pytest.approx(1.0 + 1.0 / np.log2(3))
    assert got[2] == pytest.approx((got[1] + got[3]) / 2)
    assert got[4] == pytest.approx(sum(1.0 / np.log2(r + 1) for r in range(1, 11)))


def test_before_a_judge_the_top_of_most_rankings_goes_first() -> None:
    pool, at = _two_questions()
    chooser = make_strategy("ndcg_gain", pool)
    assert chooser.pick(JudgingState(pool, {})) == at["a"]  # rank 1 of both systems


def test_the_likely_relevant_passage_goes_before_the_uncertain_one() -> None:
    pool, at = _two_questions()
    chooser = make_strategy("ndcg_gain", pool)
    probs = np.zeros(len(pool))
    probs[at["c"]], probs[at["d"]] = 0.9, 0.5  # same rank, same question: p decides
    judged = {at["a"]: 0, at["b"]: 0}
    assert chooser.pick(JudgingState(pool, judged, probs)) == at["c"]


def test_a_question_with_its_answer_found_weighs_less() -> None:
    """Same rank, same p: the passage of the question with more relevant passages already
    labelled (a larger ideal DCG) moves that question's nDCG less, so the other goes first."""
    hits = {"s": {"q0": [RankedHit(f"a{r}", 0, 1, "t", 1.0) for r in range(4)],
                  "q1": [RankedHit(f"b{r}", 0, 1, "t", 1.0) for r in range(4)]}}
    pool = build_pool({"q0": "x", "q1": "y"}, hits, 10)
    at = {item.doc: i for i, item in enumerate(pool.items)}
    judged = {at["a0"]: 1, at["a1"]: 1, at["a2"]: 1, at["b0"]: 0, at["b1"]: 0, at["b2"]: 0}
    probs = np.full(len(pool), 0.4)
    assert make_strategy("ndcg_gain", pool).pick(JudgingState(pool, judged, probs)) == at["b3"]


def test_on_a_synthetic_set_it_errs_less_than_the_uncertainty_order_it_replaced() -> None:
    pool, truth = synthetic(n_questions=16, systems=4, seed=3)
    features = item_features(pool).matrix
    ref = reference(pool, truth)
    ours = simulate(pool, truth, features, ref, "ndcg_gain", 0.1, 0)
    before = simulate(pool, truth, features, ref, "judge_uncertainty", 0.1, 0)
    assert ours["max_abs_error"] < 0.03 < before["max_abs_error"]
    assert ours["separated_pairs_kept"] == 1.0 and ours["tau"] == 1.0
