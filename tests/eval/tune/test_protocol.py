"""The out-of-fold protocol on constructed scores: selection never sees the fold it is scored
on, a learning method is fitted only on training queries, and the winner's curse shows up as
optimism when points differ only by noise."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

from eval.tune.protocol import cross_validate, split_folds
from eval.tune.scorer import Scores
from eval.tune.space import Space, parse_space

QIDS = [f"q{i:03d}" for i in range(100)]


class TableScorer:
    """Per-query scores read from a table (point index x query); records every call."""

    metrics = ("ndcg@10",)

    def __init__(self, table: np.ndarray, learns: bool = False) -> None:
        self.table = table
        self.learns = learns
        self.calls: list[tuple[tuple[str, ...], tuple[str, ...] | None]] = []

    def needs_fit(self, point: Mapping[str, Any]) -> bool:
        return self.learns

    def scores(self, point: Mapping[str, Any], qids: Sequence[str],
               train: Sequence[str] | None = None) -> Scores:
        self.calls.append((tuple(qids), None if train is None else tuple(train)))
        row = self.table[point["p"]]
        return {"ndcg@10": {q: float(row[QIDS.index(q)]) for q in qids}}

    def in_sample_scores(self, point: Mapping[str, Any], qids: Sequence[str]) -> Scores:
        row = self.table[point["p"]]
        return {"ndcg@10": {q: float(row[QIDS.index(q)]) for q in qids}}


def _space(n: int) -> Space:
    return parse_space({"settings": {"p": list(range(n))}})


def test_folds_partition_the_queries_and_follow_the_seed() -> None:
    folds = split_folds(QIDS, 5, seed=3)
    assert sorted(q for f in folds for q in f) == QIDS
    assert {len(f) for f in folds} == {20}
    assert folds == split_folds(QIDS, 5, seed=3) != split_folds(QIDS, 5, seed=4)
    with pytest.raises(ValueError, match="folds"):
        split_folds(QIDS, 1, 0)


def test_each_fold_is_scored_by_the_point_best_on_the_other_folds() -> None:
    # every query prefers "its own" point: leaking the held-out fold into selection would
    # change the choice, so the choice must equal the argmax over training queries alone
    rng = np.random.default_rng(0)
    table = rng.uniform(size=(8, len(QIDS)))
    cv = cross_validate(TableScorer(table), QIDS, _space(8), 5, 50, 0, progress=False)
    for fold in cv.folds:
        train = [QIDS.index(q) for q in QIDS if q not in fold.test]
        assert fold.chosen["p"] == int(np.argmax(table[:, train].mean(axis=1)))
        for q in fold.test:  # scored once, by its fold's choice
            assert cv.oof["ndcg@10"][q] == table[fold.chosen["p"], QIDS.index(q)]
    assert sorted(cv.oof["ndcg@10"]) == QIDS
    assert cv.in_sample.best.point["p"] == int(np.argmax(table.mean(axis=1)))


def test_noise_alone_gives_a_positive_optimism_and_a_real_gain_gives_none() -> None:
    rng = np.random.default_rng(1)
    noise = rng.uniform(size=(30, len(QIDS)))  # 30 points, no real difference
    cv = cross_validate(TableScorer(noise), QIDS, _space(30), 5, 30, 0, progress=False)
    in_sample = float(np.mean(list(cv.in_sample_scores["ndcg@10"].values())))
    oof = float(np.mean(list(cv.oof["ndcg@10"].values())))
    assert in_sample - oof > 0.03  # the winner's curse
    real = noise.copy()
    real[7] += 0.5  # point 7 is truly better on every query
    cv = cross_validate(TableScorer(real), QIDS, _space(30), 5, 30, 0, progress=False)
    assert {f.chosen["p"] for f in cv.folds} == {7}
    assert cv.oof["ndcg@10"] == cv.in_sample_scores["ndcg@10"]


def test_a_learning_method_is_never_fitted_on_the_queries_it_is_scored_on() -> None:
    scorer = TableScorer(np.random.default_rng(2).uniform(size=(3, len(QIDS))), learns=True)
    cv = cross_validate(scorer, QIDS, _space(3), 5, 3, 0, progress=False)
    assert all(train is not None and not set(train) & set(qids) for qids, train in scorer.calls)
    for fold in cv.folds:  # the held-out fold was scored with a model trained on the rest
        assert (fold.test, tuple(q for q in QIDS if q not in fold.test)) in scorer.calls


def test_tpe_samples_conditional_settings_only_where_they_apply() -> None:
    from eval.tune.search import search

    space = parse_space({"settings": {
        "method": ["a", "b"], "x": {"low": 0.0, "high": 1.0, "when": {"method": ["a"]}}}})
    found = search(space, lambda p: p.get("x", 0.5), 12, seed=0, progress=False)
    assert found.method == "tpe"
    assert all(("x" in t.point) == (t.point["method"] == "a") for t in found.trials)
