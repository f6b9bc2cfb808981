"""Judging simulation: nDCG over the pool against eval's own metric, the strategies' contract
(each registered order picks every item once, never a judged one), move-to-front and bandit
behaviour, the learned judge (never overrides a person, agreement out of fold), and the whole
simulation on a synthetic set whose system order is known."""

from __future__ import annotations

import numpy as np
import pytest
from sim_helpers import synthetic

from eval.judging.features import item_features
from eval.judging.learned_judge import LearnedJudge, cross_validate
from eval.judging.sim_pool import RankedHit, build_pool
from eval.judging.simulate import baselines, draws, ndcg_table, reference, simulate
from eval.judging.strategies.base import STRATEGIES, JudgingState, make_strategy, replay
from eval.scoring.metrics import parse_metric, query_metrics
from rag.registry import UnknownStrategyError


@pytest.fixture(scope="module")
def sim():
    pool, truth = synthetic()
    return pool, truth, item_features(pool).matrix, reference(pool, truth)


def test_pool_ndcg_matches_eval_ndcg_on_full_labels(sim) -> None:
    pool, truth, _, _ = sim
    table = ndcg_table(pool, truth.labels, truth.queries)
    for j, qid in enumerate(truth.queries[:10]):
        judged = {pool.items[i].key: int(truth.labels[i]) for i in pool.by_question[qid]}
        for s_i, system in enumerate(pool.systems):
            ranked = [pool.items[i].key for i in pool.runs[system][qid]]
            scores = {key: float(len(ranked) - r) for r, key in enumerate(ranked)}
            want = query_metrics(judged, scores, [parse_metric("ndcg@10")])["ndcg@10"]
            assert table[s_i, j] == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("name", STRATEGIES.names())
def test_every_strategy_picks_each_item_once_and_never_a_judged_one(name: str, sim) -> None:
    pool, truth, _, _ = sim
    chooser = make_strategy(name, pool, seed=1)
    already = {0: int(truth.labels[0]), 5: int(truth.labels[5])}
    judged = dict(already)
    replay(chooser, judged)
    probs = np.full(len(pool), 0.3) if name == "judge_uncertainty" else None
    picked = []
    while (item := chooser.pick(JudgingState(pool, judged, probs))) is not None:
        assert item not in judged
        judged[item] = int(truth.labels[item])
        chooser.tell(item, bool(judged[item]))
        picked.append(item)
    assert len(picked) == len(set(picked)) == len(pool) - len(already)


def test_an_unknown_strategy_lists_the_valid_ones(sim) -> None:
    with pytest.raises(UnknownStrategyError, match="mtf"):
        make_strategy("depth_first", sim[0])


def test_adaptive_strategies_find_relevant_passages_sooner_than_pool_order(sim) -> None:
    pool, truth, features, ref = sim
    found = {name: simulate(pool, truth, features, ref, name, 0.2, 0)["relevant_found"]
             for name in ("pool_order", "mtf", "bandit")}
    assert found["mtf"] > found["pool_order"] + 0.3
    assert found["bandit"] > found["pool_order"] + 0.3


def test_move_to_front_stays_on_a_run_while_it_gives_relevant_passages() -> None:
    hits = {"good": {f"q{i}": [RankedHit(f"r{i}", 0, 1, "t", 1.0)] for i in range(3)},
            "bad": {f"q{i}": [RankedHit(f"n{i}", 0, 1, "t", 1.0)] for i in range(3)}}
    pool = build_pool({f"q{i}": "x" for i in range(3)}, {"bad": hits["bad"], "good": hits["good"]},
                      10)
    relevant = {i for i, item in enumerate(pool.items) if item.doc.startswith("r")}
    chooser = make_strategy("mtf", pool)
    judged: dict[int, int] = {}
    order = []
    while (item := chooser.pick(JudgingState(pool, judged))) is not None:
        judged[item] = int(item in relevant)
        chooser.tell(item, item in relevant)
        order.append(pool.items[item].doc)
    assert order[0] == "n0"  # the first run in order starts, gives a non-relevant passage …
    assert order[1:4] == ["r0", "r1", "r2"]  # … and the relevant run is then judged through


def test_pooling_merges_overlapping_spans_of_two_systems() -> None:
    hits = {"a": {"q": [RankedHit("d", 0, 100, "x" * 100, 2.0), RankedHit("d", 300, 400, "y", 1.0)]},
            "b": {"q": [RankedHit("d", 50, 150, "z", 0.9)]}}
    pool = build_pool({"q": "?"}, hits, 10, unit="span")
    assert len(pool) == 2
    first = pool.items[pool.runs["b"]["q"][0]]
    assert (first.start, first.end) == (0, 100) and first.ranks == {"a": 1, "b": 1}


def test_relevant_units_outside_the_pool_count_in_the_ideal_only_even_fractional() -> None:
    hits = {"a": {"q": [RankedHit("d1", 0, 1, "x", 2.0), RankedHit("d2", 0, 1, "y", 1.0)]}}
    pool = build_pool({"q": "?"}, hits, 10)
    gains = np.array([1.0, 0.0])
    d2 = 1 / np.log2(3)
    assert ndcg_table(pool, gains, ["q"])[0, 0] == pytest.approx(1.0)
    assert ndcg_table(pool, gains, ["q"], {"q": 1})[0, 0] == pytest.approx(1 / (1 + d2))
    # an expected 0.4 relevant unit more: the ideal gains 1 and 0.4, not 1 and 1
    assert ndcg_table(pool, gains, ["q"], {"q": 0.4})[0, 0] == pytest.approx(1 / (1 + 0.4 * d2))
    assert ndcg_table(pool, gains, ["q"], {"q": 1.5})[0, 0] == pytest.approx(
        1 / (1 + d2 + 0.5 / np.log2(4)))


def test_the_judge_never_overrides_a_human_label(sim) -> None:
    pool, truth, _, _ = sim
    judged = {i: 1 - int(truth.labels[i]) for i in range(0, len(pool), 7)}  # contrary labels
    rows = draws(judged, np.full(len(pool), 0.9), len(pool), 0)
    assert all((rows[:, i] == label).all() for i, label in judged.items())


def test_the_judge_agrees_with_labels_it_can_learn_out_of_fold(sim) -> None:
    pool, truth, features, _ = sim
    groups = [item.qid for item in pool.items]
    agreement = cross_validate(features, truth.labels.astype(int), groups)
    assert agreement is not None and agreement.kappa > 0.8 and agreement.recall > 0.8
    assert cross_validate(features[:4], [1, 0, 1, 0], groups[:4]) is None  # too few labels
    with pytest.raises(ValueError, match="logistic"):
        LearnedJudge("svm")


def test_simulation_keeps_the_known_order_and_beats_the_random_baseline(sim) -> None:
    pool, truth, features, ref = sim
    ours = simulate(pool, truth, features, ref, "judge_uncertainty", 0.2, 0)
    base = baselines(pool, truth, ref, 0.2, 0)["random_unjudged_nonrelevant"]
    assert ours["separated_pairs_kept"] == 1.0 and ours["tau"] == 1.0
    assert ours["max_abs_error"] < 0.02 < base["max_abs_error"]
    assert ours["judgments"] == base["judgments"] == round(0.2 * len(pool))


def test_the_budget_figure_draws_every_strategy_and_baseline(tmp_path) -> None:
    import json

    from eval.judging.sim_plot import budget_figure
    from eval.judging.simulate import reference as ref_of

    pool, truth = synthetic(n_questions=12, systems=3)
    features = item_features(pool).matrix
    ref = ref_of(pool, truth)
    runs = {name: {"0.2": {"mean": simulate(pool, truth, features, ref, name, 0.2, 0)}}
            for name in ("answer_seek", "bandit")}
    base = {k: {"0.2": {"mean": v}} for k, v in baselines(pool, truth, ref, 0.2, 0).items()}
    report = {"set": "synthetic", "questions": 12, "pool_size": len(pool),
              "full_labels": {"split_half_tau": 0.5}, "strategies": runs, "baselines": base}
    path = tmp_path / "simulate_synthetic.json"
    path.write_text(json.dumps(report))
    fig = budget_figure([path])
    names = {t.name for t in fig.data}
    assert {"answer seek + judge fill (default)", "baseline: random, bpref"} <= names
    assert len(fig.data) == 2 * 2 + 2 + 1  # τ and error per strategy; bpref's τ only
