"""Which system pairs a set separates and how many questions the closest pair would need
(issue 36, item 5); "tied within noise" said in words."""

from __future__ import annotations

import numpy as np
import pytest

from eval.scoring.separation import paired_power, questions_needed, separation


def _scores(rng: np.random.Generator, mean: float, n: int) -> dict[str, float]:
    return {f"q{i}": float(np.clip(rng.normal(mean, 0.2), 0, 1)) for i in range(n)}


def test_clearly_different_systems_are_separated() -> None:
    rng = np.random.default_rng(0)
    base = _scores(rng, 0.3, 60)
    better = {q: min(1.0, v + 0.3) for q, v in base.items()}
    found = separation({"bm25": base, "dense": better})
    assert [p.separated for p in found.pairs] == [True]
    assert "separates 1 of 1 system pairs" in found.words()


def test_systems_within_noise_are_tied_and_the_words_say_so() -> None:
    rng = np.random.default_rng(1)
    systems = {name: _scores(rng, 0.5, 27) for name in ("a", "b", "c")}
    found = separation(systems)
    assert not found.separated
    assert found.words().startswith("These 3 systems are tied within noise on this set")
    assert found.closest is not None and found.questions_needed is not None
    assert found.questions_needed > 27  # the set is too small for the closest pair


def test_questions_needed_matches_the_noncentral_t_power() -> None:
    rng = np.random.default_rng(2)
    diffs = rng.normal(0.05, 0.2, 40)
    n = questions_needed(diffs)
    assert n is not None
    effect = abs(diffs.mean()) / diffs.std(ddof=1)

    assert paired_power(n, effect) >= 0.8 > paired_power(n - 1, effect)
    # small n: the noncentral t, which a textbook value checks: d = 0.5 needs 34 pairs (Cohen 1988)
    assert questions_needed([0.5 + x for x in (-1.0, 1.0) * 20]) is not None
    assert paired_power(34, 0.5) >= 0.8 > paired_power(33, 0.5)
    # normal approximation ((1.96 + 0.84) / d)^2, within a couple of questions
    assert n == pytest.approx(((1.96 + 0.8416) / effect) ** 2, abs=3)


def test_identical_systems_can_never_be_separated() -> None:
    same = {f"q{i}": 0.5 for i in range(10)}
    found = separation({"a": same, "b": dict(same)})
    assert found.questions_needed is None
    assert "score the same on every question" in found.words()
