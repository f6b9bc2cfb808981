"""Judging simulated on a fully labelled set: the full labels play the person. A strategy spends
a budget (a share of the depth pool) one judgment at a time; the learned judge, refitted as
labels come in, fills every passage nobody judged with its probability; each system's nDCG@depth
is then estimated over Bernoulli draws of the filled labels and compared with its nDCG on the
full labels: Kendall τ-b of the system ranking (bootstrap CI over questions), the share of
system pairs the full labels separate (paired randomization test, p < 0.05) whose order is
kept, and the largest absolute error. Two baselines spend the same budget on a uniform random
sample: unjudged counted not relevant, and bpref over the judged passages only.

nDCG here is over the pooled units with binary gains (the depth pool is what anyone can judge):
"full labels" means every pooled passage labelled; relevant passages outside the pool, which no
judging finds, are left out of both (`error_vs_qrels` keeps them in the ideal ranking).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
from scipy.stats import kendalltau

from eval.judging.features import context_features
from eval.judging.learned_judge import LearnedJudge, can_learn
from eval.judging.sim_pool import JudgingPool
from eval.judging.strategies.base import JudgingState, make_strategy
from eval.scoring.judged import bpref
from eval.scoring.stats import paired_test

SAMPLES = 64  # Bernoulli draws of the filled labels per estimate
BOOTSTRAP = 1000
SEPARATED_P = 0.05


@dataclass(frozen=True)
class Truth:
    """The full labels: 1/0 per pool item, and per question the relevant units outside it."""

    labels: np.ndarray
    outside: Mapping[str, int] = field(default_factory=dict)
    queries: tuple[str, ...] = ()  # the questions scored (those the full labels cover)


def extra_gains(count: float) -> np.ndarray:
    """`count` relevant units no item stands for, as ideal gains: ⌊count⌋ ones and the
    fraction left (an expected count of 1.4 adds a 1 and a 0.4)."""
    whole = int(np.floor(count))
    part = float(count) - whole
    return np.array([1.0] * whole + ([part] if part > 1e-12 else []))


def ndcg_draws(pool: JudgingPool, gains: np.ndarray, queries: Sequence[str],
               outside: Mapping[str, float] | None = None) -> np.ndarray:
    """nDCG@depth of every system on every query for each row of gains: (rows, systems,
    queries). `gains` is one row of per-item gains, or (draws, items). `outside` adds per
    question relevant units that no pooled item stands for to the ideal ranking only (the
    relevant outside the pool, or an expected count of relevant the judging missed)."""
    g = np.atleast_2d(np.asarray(gains, dtype=np.float64))
    discount = 1.0 / np.log2(np.arange(2, pool.depth + 2))
    out = np.zeros((len(g), len(pool.systems), len(queries)))
    for j, qid in enumerate(queries):
        idx = list(pool.by_question.get(qid, ()))
        extra = extra_gains((outside or {}).get(qid, 0))
        pooled = g[:, idx] if idx else np.zeros((len(g), 0))
        ideal_gains = -np.sort(-np.concatenate([np.tile(extra, (len(g), 1)), pooled], axis=1),
                               axis=1)
        top = ideal_gains[:, :pool.depth]
        ideal = top @ discount[:top.shape[1]]
        for i, s in enumerate(pool.systems):
            ranked = list(pool.runs[s].get(qid, ()))[:pool.depth]
            dcg = g[:, ranked] @ discount[:len(ranked)] if ranked else np.zeros(len(g))
            out[:, i, j] = np.divide(dcg, ideal, out=np.zeros_like(dcg), where=ideal > 0)
    return out


def ndcg_table(pool: JudgingPool, gains: np.ndarray, queries: Sequence[str],
               outside: Mapping[str, float] | None = None) -> np.ndarray:
    """nDCG@depth of every system on every query: (systems, queries). `gains` is one row of
    per-item gains, or (draws, items) for draws of them (the table is then their mean)."""
    return ndcg_draws(pool, gains, queries, outside).mean(axis=0)


def bpref_table(pool: JudgingPool, judged: Mapping[int, int], queries: Sequence[str]) -> np.ndarray:
    """bpref (eval.scoring.judged) of every system on every query over the judged items only."""
    out = np.zeros((len(pool.systems), len(queries)))
    for j, qid in enumerate(queries):
        known = {str(i): judged[i] for i in pool.by_question.get(qid, ()) if i in judged}
        for i, s in enumerate(pool.systems):
            out[i, j] = bpref([str(k) for k in pool.runs[s].get(qid, ())], known)
    return out


def tau(a: np.ndarray, b: np.ndarray) -> float:
    """Kendall τ-b of two score vectors over the same systems (NaN when one is constant)."""
    value = kendalltau(a, b).statistic
    return float(value) if value is not None else float("nan")


def tau_interval(sim: np.ndarray, full: np.ndarray, seed: int,
                 resamples: int = BOOTSTRAP) -> tuple[float, float]:
    """95 % bootstrap interval of τ, resampling questions (columns) with replacement."""
    rng = np.random.default_rng(seed)
    n = sim.shape[1]
    values = []
    for _ in range(resamples):
        cols = rng.integers(0, n, n)
        t = tau(sim[:, cols].mean(axis=1), full[:, cols].mean(axis=1))
        if np.isfinite(t):
            values.append(t)
    if not values:
        return (float("nan"), float("nan"))
    return (float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5)))


def separated_pairs(full: np.ndarray, systems: Sequence[str], queries: Sequence[str],
                    seed: int = 0) -> list[tuple[int, int]]:
    """System pairs whose per-query full-label scores differ by a paired randomization test at
    p < SEPARATED_P."""
    pairs = []
    for a, b in combinations(range(len(systems)), 2):
        test = paired_test(dict(zip(queries, full[a], strict=True)),
                           dict(zip(queries, full[b], strict=True)), n_resamples=2000, seed=seed)
        if test.p_value < SEPARATED_P:
            pairs.append((a, b))
    return pairs


def split_half_tau(full: np.ndarray, seed: int = 0, splits: int = 50) -> float:
    """Mean τ between the system rankings of two random halves of the questions, full labels:
    how stable the ranking itself is (near 0 when the systems are tied within noise)."""
    rng = np.random.default_rng(seed)
    n = full.shape[1]
    values = []
    for _ in range(splits):
        perm = rng.permutation(n)
        t = tau(full[:, perm[: n // 2]].mean(axis=1), full[:, perm[n // 2:]].mean(axis=1))
        if np.isfinite(t):
            values.append(t)
    return float(np.mean(values)) if values else float("nan")


@dataclass(frozen=True)
class Reference:
    """What every simulation on one set compares with (computed once)."""

    full: np.ndarray  # (systems, queries) nDCG on the full labels
    full_qrels: np.ndarray  # the same with relevant units outside the pool in the ideal
    full_bpref: np.ndarray
    pairs: tuple[tuple[int, int], ...]
    split_half: float


def reference(pool: JudgingPool, truth: Truth, seed: int = 0) -> Reference:
    everything = dict(enumerate(truth.labels.astype(int).tolist()))
    full = ndcg_table(pool, truth.labels, truth.queries)
    return Reference(full, ndcg_table(pool, truth.labels, truth.queries, truth.outside),
                     bpref_table(pool, everything, truth.queries),
                     tuple(separated_pairs(full, pool.systems, truth.queries, seed)),
                     split_half_tau(full, seed))


def compare(sim: np.ndarray, ref: Reference, against: np.ndarray | None = None,
            seed: int = 0) -> dict[str, Any]:
    """τ (with CI), separated pairs kept, and the largest error of a (systems, queries) table."""
    full = ref.full if against is None else against
    sim_mean, full_mean = sim.mean(axis=1), full.mean(axis=1)
    low, high = tau_interval(sim, ref.full, seed)
    kept = [np.sign(sim_mean[a] - sim_mean[b]) == np.sign(ref.full.mean(axis=1)[a]
                                                          - ref.full.mean(axis=1)[b])
            for a, b in ref.pairs]
    return {"tau": _num(tau(sim_mean, ref.full.mean(axis=1))), "tau_ci95": [_num(low), _num(high)],
            "separated_pairs": len(ref.pairs),
            "separated_pairs_kept": _num(float(np.mean(kept))) if kept else None,
            "max_abs_error": _num(float(np.max(np.abs(sim_mean - full_mean))))}


def _num(x: float) -> float | None:
    return round(float(x), 4) if np.isfinite(x) else None


def fill_probabilities(pool: JudgingPool, features: np.ndarray, judged: Mapping[int, int],
                       model: str, seed: int) -> np.ndarray | None:
    """The learned judge's P(relevant) for every item, fitted on the judged ones (None: too few
    labels of a kind). Its features: the item's own, and what the person said about the other
    passages of its question (eval.judging.features.context_features)."""
    idx = list(judged)
    y = [judged[i] for i in idx]
    if not can_learn(y):
        return None
    x = np.column_stack([features, context_features(pool, judged)])
    return LearnedJudge(model, seed).fit(x[idx], y).probabilities(x)


FILLS = ("sample", "threshold", "expected")


def draws(judged: Mapping[int, int], probs: np.ndarray | None, n: int, seed: int,
          fill: str = "sample") -> np.ndarray:
    """(SAMPLES, items) label draws: judged items fixed, the rest Bernoulli(p) ("sample"),
    p >= 0.5 ("threshold": one row) or p itself as a graded gain ("expected": one row); 0 with
    no judge."""
    if fill not in FILLS:
        raise ValueError(f"unknown fill {fill!r}; valid: {', '.join(FILLS)}")
    rng = np.random.default_rng(seed)
    p = np.zeros(n) if probs is None else probs.copy()
    if fill == "threshold":
        out = (p >= 0.5).astype(np.float64)[None, :]
    elif fill == "expected":
        out = p[None, :].astype(np.float64)
    else:
        out = (rng.random((SAMPLES, n)) < p).astype(np.float64)
    for i, label in judged.items():
        out[:, i] = label
    return out


def run_strategy(pool: JudgingPool, truth: Truth, features: np.ndarray, strategy: str,
                 budget: float, seed: int, model: str = "logistic",
                 ) -> tuple[dict[int, int], np.ndarray | None]:
    """Spend round(budget × pool) judgments in the strategy's order; the judge is refitted every
    twentieth of the budget (at least every 10 labels) and its probabilities given to the
    strategy. Returns the labels given and the final judge's probabilities."""
    spend = round(budget * len(pool))
    chooser = make_strategy(strategy, pool, seed)
    judged: dict[int, int] = {}
    probs: np.ndarray | None = None
    every, next_fit = max(10, spend // 20), max(10, spend // 20)
    while len(judged) < spend:
        item = chooser.pick(JudgingState(pool, judged, probs))
        if item is None:
            break
        judged[item] = int(truth.labels[item])
        chooser.tell(item, bool(judged[item]))
        if len(judged) >= next_fit:
            probs = fill_probabilities(pool, features, judged, model, seed)
            next_fit += every
    return judged, fill_probabilities(pool, features, judged, model, seed)


def judge_agreement(probs: np.ndarray | None, truth: Truth, judged: Mapping[int, int],
                    ) -> dict[str, float | None]:
    """How the filled labels (p ≥ 0.5) agree with the full labels on the unjudged items."""
    from sklearn.metrics import cohen_kappa_score, precision_score, recall_score

    rest = [i for i in range(len(truth.labels)) if i not in judged]
    if probs is None or not rest:
        return {"kappa": None, "precision": None, "recall": None}
    y, said = truth.labels[rest].astype(int), (probs[rest] >= 0.5).astype(int)
    kappa = cohen_kappa_score(y, said) if len(set(y) | set(said)) > 1 else 1.0
    return {"kappa": _num(kappa), "precision": _num(precision_score(y, said, zero_division=0.0)),
            "recall": _num(recall_score(y, said, zero_division=0.0))}


def simulate(pool: JudgingPool, truth: Truth, features: np.ndarray, ref: Reference,
             strategy: str, budget: float, seed: int, model: str = "logistic",
             fill: str = "threshold") -> dict[str, Any]:
    """One strategy, budget and seed: the figures of FILE.json (see the module docstring)."""
    judged, probs = run_strategy(pool, truth, features, strategy, budget, seed, model)
    sim = ndcg_table(pool, draws(judged, probs, len(pool), seed, fill), truth.queries)
    return {**_spent(judged, truth), **compare(sim, ref, seed=seed),
            "error_vs_qrels": _num(float(np.max(np.abs(sim.mean(axis=1)
                                                       - ref.full_qrels.mean(axis=1))))),
            "judge_filled": probs is not None,
            "judge_on_unjudged": judge_agreement(probs, truth, judged),
            "ndcg": dict(zip(pool.systems, map(_num, sim.mean(axis=1)), strict=True))}


def _spent(judged: Mapping[int, int], truth: Truth) -> dict[str, Any]:
    relevant = int(truth.labels.sum())
    return {"judgments": len(judged), "pool_size": len(truth.labels),
            "relevant_found": _num(sum(judged.values()) / relevant) if relevant else None}


def baselines(pool: JudgingPool, truth: Truth, ref: Reference, budget: float,
              seed: int) -> dict[str, dict[str, Any]]:
    """A uniform random sample of the same size: unjudged = not relevant, and bpref."""
    spend = round(budget * len(pool))
    rng = np.random.default_rng(seed)
    judged = {int(i): int(truth.labels[i]) for i in rng.permutation(len(pool))[:spend]}
    gains = np.zeros(len(pool))
    for i, label in judged.items():
        gains[i] = label
    sampled = ndcg_table(pool, gains, truth.queries)
    with_bpref = bpref_table(pool, judged, truth.queries)
    bpref_figures = compare(with_bpref, ref, against=ref.full_bpref, seed=seed)
    bpref_figures["max_abs_error_is"] = "bpref against bpref on the full labels"
    return {"random_unjudged_nonrelevant": {**_spent(judged, truth),
                                            **compare(sampled, ref, seed=seed)},
            "random_bpref": {**_spent(judged, truth), **bpref_figures}}
