"""Several metrics' paired tests at once agree with eval.scoring.stats.paired_test."""

from __future__ import annotations

import math

import numpy as np
import pytest

from eval.scoring.paired import paired_tests
from eval.scoring.stats import paired_test


def test_agrees_with_the_one_metric_test_within_resampling_error() -> None:
    rng = np.random.default_rng(0)
    a = rng.random((200, 3))
    b = a + rng.normal([0.0, 0.03, 0.1], 0.2, (200, 3))
    for j, got in enumerate(paired_tests(a, b)):
        ref = paired_test({str(i): a[i, j] for i in range(200)}, {str(i): b[i, j] for i in range(200)})
        assert got.diff == pytest.approx(ref.diff, abs=1e-12)
        assert (got.wins, got.losses, got.n) == (ref.wins, ref.losses, ref.n)
        assert abs(got.p_value - ref.p_value) < 0.02 + 0.2 * ref.p_value
        assert abs(got.ci.low - ref.ci.low) < 0.01 and abs(got.ci.high - ref.ci.high) < 0.01


def test_identical_runs_have_p_one_and_a_zero_interval() -> None:
    a = np.random.default_rng(1).random((50, 2))
    for t in paired_tests(a, a.copy()):
        assert t.p_value == 1.0 and t.diff == 0 and (t.ci.low, t.ci.high) == (0.0, 0.0)


def test_nan_queries_are_left_out_per_metric() -> None:
    a = np.array([[0.1, 0.5], [0.2, np.nan], [0.3, 0.5]])
    b = np.array([[0.2, 0.6], [0.3, 0.9], [np.nan, 0.7]])
    first, second = paired_tests(a, b, n_resamples=200)
    assert first.n == 2 and first.diff == pytest.approx(0.1)
    assert second.n == 2 and second.diff == pytest.approx(0.15)
    empty = paired_tests(np.array([[np.nan]]), np.array([[1.0]]))[0]
    assert empty.n == 0 and math.isnan(empty.p_value)
    with pytest.raises(ValueError, match="one shape"):
        paired_tests(a, b[:, :1])
