"""The judging order `answer_seek` (eval.judging.strategies.answer_seek): likely relevant passages
weighted by their share in the question's nDCG@10, and, while a question has no passage labelled
relevant, an answer prior that keeps its heaviest open passages asked for even when the judge
holds them unlikely."""

from __future__ import annotations

import numpy as np
from sim_helpers import synthetic

from eval.judging.features import item_features
from eval.judging.sim_pool import RankedHit, build_pool
from eval.judging.simulate import reference, simulate
from eval.judging.strategies.base import STRATEGIES, JudgingState, make_strategy


def _two_questions(depth: int = 3):
    """Two questions, one system, `depth` passages each: a0.. for q0, b0.. for q1."""
    hits = {"s": {"q0": [RankedHit(f"a{r}", 0, 1, "t", 1.0) for r in range(depth)],
                  "q1": [RankedHit(f"b{r}", 0, 1, "t", 1.0) for r in range(depth)]}}
    pool = build_pool({"q0": "x", "q1": "y"}, hits, 10)
    return pool, {item.doc: i for i, item in enumerate(pool.items)}


def test_it_is_registered() -> None:
    assert "answer_seek" in STRATEGIES.names()


def test_before_a_judge_the_top_of_most_rankings_goes_first() -> None:
    hits = {"s1": {"q0": [RankedHit("a", 0, 1, "t", 1.0), RankedHit("b", 0, 1, "t", 0.5)]},
            "s2": {"q0": [RankedHit("b", 0, 1, "t", 1.0), RankedHit("a", 0, 1, "t", 0.5)]},
            "s3": {"q0": [RankedHit("a", 0, 1, "t", 1.0)]}}
    pool = build_pool({"q0": "x"}, hits, 10)
    at = {item.doc: i for i, item in enumerate(pool.items)}
    assert make_strategy("answer_seek", pool).pick(JudgingState(pool, {})) == at["a"]


def test_a_question_without_an_answer_is_searched_though_the_judge_doubts_it() -> None:
    """q0's answer is found, q1's not: q1's open passage (judge: p 0.01) goes before q0's more
    likely one (p 0.3), where ndcg_gain, which trusts the judge, takes q0's."""
    pool, at = _two_questions()
    judged = {at["a0"]: 1, at["b0"]: 0}
    probs = np.full(len(pool), 0.01)
    probs[at["a1"]] = 0.3
    state = JudgingState(pool, judged, probs)
    assert make_strategy("answer_seek", pool).pick(state) == at["b1"]  # heavier than b2
    assert make_strategy("ndcg_gain", pool).pick(state) == at["a1"]


def test_once_the_answer_is_found_the_judge_decides_again() -> None:
    pool, at = _two_questions()
    judged = {at["a0"]: 1, at["b0"]: 1}
    probs = np.full(len(pool), 0.01)
    probs[at["a1"]] = 0.3
    assert make_strategy("answer_seek", pool).pick(JudgingState(pool, judged, probs)) == at["a1"]


def test_judged_passages_are_never_picked_and_an_exhausted_pool_gives_none() -> None:
    pool, at = _two_questions(depth=1)
    chooser = make_strategy("answer_seek", pool)
    assert chooser.pick(JudgingState(pool, {at["a0"]: 0}, np.zeros(len(pool)))) == at["b0"]
    assert chooser.pick(JudgingState(pool, {at["a0"]: 0, at["b0"]: 1})) is None


def test_on_a_synthetic_set_it_keeps_the_ranking_at_a_fifth() -> None:
    pool, truth = synthetic(n_questions=20, systems=4, seed=3)
    features = item_features(pool).matrix
    ref = reference(pool, truth)
    ours = simulate(pool, truth, features, ref, "answer_seek", 0.2, 0)
    assert ours["judgments"] == round(0.2 * len(pool))
    assert ours["separated_pairs_kept"] == 1.0
    assert ours["max_abs_error"] <= 0.02
