"""Bootstrap CIs cover the mean, are seeded and paired; paired tests separate real differences."""

from __future__ import annotations

import math

import numpy as np
import pytest

from eval.scoring.stats import bootstrap_ci, bootstrap_cis, bootstrap_means, paired_test


def test_ci_brackets_the_mean_and_narrows_with_more_queries() -> None:
    rng = np.random.default_rng(1)
    small = rng.random(30)
    large = rng.random(3000)
    ci_small, ci_large = bootstrap_ci(small), bootstrap_ci(large)
    assert ci_small.low < small.mean() < ci_small.high
    assert ci_large.high - ci_large.low < ci_small.high - ci_small.low


def test_ci_is_seeded() -> None:
    values = list(np.linspace(0, 1, 50))
    assert bootstrap_ci(values, seed=3) == bootstrap_ci(values, seed=3)
    assert bootstrap_ci(values, seed=3) != bootstrap_ci(values, seed=4)


def test_same_seed_resamples_are_paired_across_configurations() -> None:
    a = np.random.default_rng(0).random(40)
    # B = A + 0.1 on every query: with shared resamples every bootstrap mean differs by 0.1
    diff = bootstrap_means(a + 0.1, 500, seed=7) - bootstrap_means(a, 500, seed=7)
    assert np.allclose(diff, 0.1)


def test_empty_values_give_nan_interval() -> None:
    ci = bootstrap_ci([])
    assert math.isnan(ci.low) and math.isnan(ci.high)


def test_non_finite_values_rejected() -> None:
    with pytest.raises(ValueError, match="finite"):
        bootstrap_ci([0.1, math.nan])


@pytest.mark.parametrize("method", ["randomization", "bootstrap"])
def test_paired_test_detects_consistent_gain(method: str) -> None:
    rng = np.random.default_rng(2)
    a = {f"q{i}": float(v) for i, v in enumerate(rng.random(60))}
    b = {q: v + 0.05 + rng.normal(0, 0.01) for q, v in a.items()}
    result = paired_test(a, b, method=method, n_resamples=2000)
    assert result.p_value < 0.01
    assert result.ci.low > 0 and result.diff == pytest.approx(np.mean([b[q] - a[q] for q in a]))
    assert result.wins > result.losses


@pytest.mark.parametrize("method", ["randomization", "bootstrap"])
def test_paired_test_no_difference_is_not_significant(method: str) -> None:
    rng = np.random.default_rng(5)
    a = {f"q{i}": float(v) for i, v in enumerate(rng.random(80))}
    b = {q: float(v) for q, v in zip(a, rng.permutation(list(a.values())), strict=True)}
    result = paired_test(a, b, method=method, n_resamples=2000)
    assert result.p_value > 0.05
    assert result.ci.low < 0 < result.ci.high


def test_paired_test_uses_shared_queries_only() -> None:
    result = paired_test({"q1": 0.0, "q2": 1.0}, {"q2": 1.0, "q3": 0.0}, n_resamples=100)
    assert result.n == 1 and result.diff == 0.0


def test_paired_test_errors() -> None:
    with pytest.raises(ValueError, match="share no"):
        paired_test({"q1": 1.0}, {"q2": 1.0})
    with pytest.raises(ValueError, match="valid: randomization"):
        paired_test({"q1": 1.0}, {"q1": 0.0}, method="t-test")  # type: ignore[arg-type]


def test_bootstrap_cis_equal_bootstrap_ci_column_by_column() -> None:
    rng = np.random.default_rng(3)
    columns = [list(rng.random(n)) for n in (20, 20, 7, 0, 1)] + [[0.5] * 20]
    got = bootstrap_cis(columns, 0.9, 500, seed=4)
    for values, interval in zip(columns, got, strict=True):
        expected = bootstrap_ci(values, 0.9, 500, seed=4)
        assert (math.isnan(expected.low) and math.isnan(interval.low)) or interval == expected
    assert bootstrap_cis([], 0.95, 10) == []


def test_bootstrap_cis_of_many_lengths_and_a_large_draw_equal_bootstrap_ci() -> None:
    rng = np.random.default_rng(5)
    sizes = (8, 9, 20, 57, 20, 131, 1200)  # 1200 x 1000 resamples is drawn per call, not kept
    columns = [list(rng.random(n)) for n in sizes]
    got = bootstrap_cis(columns, 0.95, 1000, seed=2)
    assert got == [bootstrap_ci(values, 0.95, 1000, seed=2) for values in columns]


def test_a_memo_shares_intervals_of_equal_columns_and_keeps_them_exact() -> None:
    rng = np.random.default_rng(6)
    a, b = list(rng.random(20)), list(rng.random(20))
    memo: dict = {}
    first = bootstrap_cis([a, b], 0.95, 300, seed=1, memo=memo)
    assert len(memo) == 2
    again = bootstrap_cis([b, a, [*a[:-1], 0.25]], 0.95, 300, seed=1, memo=memo)
    assert again[:2] == [first[1], first[0]] and len(memo) == 3
    assert again == [bootstrap_ci(v, 0.95, 300, seed=1) for v in (b, a, [*a[:-1], 0.25])]
    other_seed = bootstrap_cis([a], 0.95, 300, seed=2, memo=memo)
    assert other_seed == [bootstrap_ci(a, 0.95, 300, seed=2)] and len(memo) == 4
