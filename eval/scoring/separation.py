"""Can this test set rank these systems at all? Which pairs of systems it separates, and how many
questions it would take to separate the closest pair.

Every pair is compared on the questions both scored: a paired randomization test of the
per-question differences (eval.scoring.stats.paired_test; Smucker et al. 2007 recommend it for
IR), separated when p < alpha. Separating is not ranking: with eight systems there are 28 pairs,
and at alpha = 0.05 about one pair in twenty "separates" by chance, so a set that separates few
pairs is read as ranking nothing.

The power estimate takes the closest pair (smallest mean difference) and asks how many questions
a paired t-test would need to find that difference with the given power, at the effect the set
shows: Cohen's d_z = mean / sd of the paired differences, power from the noncentral t
distribution (Cohen 1988, ch. 2). It assumes new questions behave like these.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any

import numpy as np
from scipy import stats

from eval.scoring.stats import paired_test

ALPHA = 0.05
POWER = 0.8
MAX_QUESTIONS = 1_000_000  # beyond this the estimate says "more than"


@dataclass(frozen=True)
class PairResult:
    a: str
    b: str
    diff: float  # mean of b - a over shared questions
    p_value: float
    separated: bool


@dataclass(frozen=True)
class Separation:
    metric: str
    questions: int
    systems: tuple[str, ...]
    pairs: tuple[PairResult, ...]
    closest: PairResult | None
    effect_size: float | None  # d_z of the closest pair
    questions_needed: int | None  # for the closest pair at `power` (None: no difference at all)
    alpha: float
    power: float

    @property
    def separated(self) -> tuple[PairResult, ...]:
        return tuple(p for p in self.pairs if p.separated)

    def words(self) -> str:
        """The finding in words, ties first: what a reader must not miss."""
        n_pairs, n_sys = len(self.pairs), len(self.systems)
        if n_pairs == 0:
            return "One system only: nothing to separate."
        test = f"paired randomization test, p < {self.alpha:g}, over {self.questions} questions"
        if not self.separated:
            head = (f"These {n_sys} systems are tied within noise on this set: no pair of them "
                    f"differs ({test}).")
        else:
            tied = [f"{p.a}–{p.b}" for p in self.pairs if not p.separated]
            head = (f"This set separates {len(self.separated)} of {n_pairs} system pairs ({test})"
                    + (f"; tied within noise: {', '.join(tied[:8])}"
                       + (f" and {len(tied) - 8} more" if len(tied) > 8 else "") if tied else "")
                    + ".")
        if self.closest is None:
            return head
        c = self.closest
        if self.questions_needed is None:
            need = "they score the same on every question, so no number of such questions separates them"
        elif self.questions_needed >= MAX_QUESTIONS:
            need = f"separating them would take more than {MAX_QUESTIONS:,} such questions"
        else:
            need = (f"separating them at that effect would take about {self.questions_needed:,} "
                    f"questions ({self.power:.0%} power)")
        return (f"{head} The closest pair, {c.a} and {c.b}, differ by {abs(c.diff):.3f} "
                f"{self.metric}: {need}.")

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "words": self.words()}


NORMAL_DF = 300  # past this many degrees of freedom the t test is the z test (and scipy's nct
# loses precision far in the tail)


def paired_power(n: int, effect: float, alpha: float = ALPHA) -> float:
    """Power of a two-sided paired t-test on `n` questions at effect size d_z = `effect`."""
    nc = effect * math.sqrt(n)
    if n - 1 > NORMAL_DF:
        z = stats.norm.ppf(1 - alpha / 2)
        return float(stats.norm.sf(z - nc) + stats.norm.cdf(-z - nc))
    crit = stats.t.ppf(1 - alpha / 2, n - 1)
    return float(stats.nct.sf(crit, n - 1, nc) + stats.nct.cdf(-crit, n - 1, nc))


def questions_needed(diffs: Sequence[float], alpha: float = ALPHA, power: float = POWER) -> int | None:
    """Questions a two-sided paired t-test needs to detect the mean of `diffs` with `power`
    (None when every difference is zero)."""
    d = np.asarray(diffs, dtype=float)
    sd = float(d.std(ddof=1)) if len(d) > 1 else 0.0
    if sd == 0.0:
        return None if float(np.abs(d).sum()) == 0.0 else 2
    effect = abs(float(d.mean())) / sd
    if effect == 0.0:
        return MAX_QUESTIONS

    def reached(n: int) -> bool:
        return paired_power(n, effect, alpha) >= power

    if not reached(MAX_QUESTIONS):
        return MAX_QUESTIONS
    low, high = 2, MAX_QUESTIONS
    while low < high:
        mid = (low + high) // 2
        low, high = (low, mid) if reached(mid) else (mid + 1, high)
    return low


def separation(per_system: Mapping[str, Mapping[str, float]], metric: str = "ndcg@10",
               alpha: float = ALPHA, power: float = POWER, n_resamples: int = 2000,
               seed: int = 0) -> Separation:
    """Every pair of systems compared on their per-question `metric` values ({system: {qid:
    value}}), and the power estimate for the closest pair."""
    systems = tuple(per_system)
    pairs: list[PairResult] = []
    diffs_of: dict[tuple[str, str], list[float]] = {}
    for a, b in combinations(systems, 2):
        shared = sorted(per_system[a].keys() & per_system[b].keys())
        if len(shared) < 2:
            continue
        test = paired_test(per_system[a], per_system[b], n_resamples=n_resamples, seed=seed)
        pairs.append(PairResult(a, b, test.diff, test.p_value, test.p_value < alpha))
        diffs_of[(a, b)] = [per_system[b][q] - per_system[a][q] for q in shared]
    questions = len(set.intersection(*(set(v) for v in per_system.values()))) if per_system else 0
    closest = min(pairs, key=lambda p: (abs(p.diff), p.a, p.b)) if pairs else None
    effect = needed = None
    if closest is not None:
        d = np.asarray(diffs_of[(closest.a, closest.b)])
        sd = float(d.std(ddof=1))
        effect = abs(float(d.mean())) / sd if sd else None
        needed = questions_needed(d, alpha, power)
    return Separation(metric, questions, systems, tuple(pairs), closest, effect, needed, alpha, power)
