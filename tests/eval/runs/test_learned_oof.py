"""Out-of-fold splitting: every query held out exactly once, reproducibly."""

from __future__ import annotations

import pytest

from eval.runs.learned_oof import query_folds


def test_folds_are_disjoint_cover_every_query_and_repeat_with_the_seed() -> None:
    qids = [f"q{i}" for i in range(23)]
    folds = query_folds(qids, 5, seed=3)
    assert len(folds) == 5
    assert sorted(q for fold in folds for q in fold) == sorted(qids)
    assert {len(fold) for fold in folds} == {4, 5}
    assert query_folds(list(reversed(qids)), 5, seed=3) == folds  # input order does not matter
    assert query_folds(qids, 5, seed=4) != folds


@pytest.mark.parametrize("k", [1, 24])
def test_impossible_fold_counts_are_refused(k: int) -> None:
    with pytest.raises(ValueError, match="folds must be between 2 and the number of queries"):
        query_folds([f"q{i}" for i in range(23)], k)
