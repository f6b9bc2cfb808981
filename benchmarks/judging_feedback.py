"""Relevance feedback for the learned judge (Rocchio 1971: "more like the ones you marked"),
tried on the development sets only (judge6; not in the product: it did not help there, see
docs/judging.md "judge6"): how similar a passage is to the passages of its own question that
the person judged relevant, and to those judged not relevant. A second relevant passage of a
question whose first was found tends to resemble the first; the judge's question-level
features cannot see that.

Similarity is the TF-IDF cosine of the passages' content words, document frequencies over the
whole pool (no model: cheap enough to recompute at every refit). A passage's own label never
enters its own row, so the training rows are cross-fitted the same way as the rows the judge
fills. judge7 added `fbs` (another passage of the question from the same source judged
relevant, and not relevant): it helped on the development sets and is in the product since, as
two of the judge's question-context features (eval.judging.features.context_features), so on
the current main `fbs` adds the same columns twice.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping

import numpy as np

from eval.judging.sim_pool import JudgingPool
from rag.text import content_words

FEEDBACK_NAMES = ("feedback_relevant_max", "feedback_relevant_mean",
                  "feedback_not_relevant_max", "feedback_not_relevant_mean")
VARIANT_NAMES = {"fb": FEEDBACK_NAMES, "fbr": ("feedback_rocchio",),
                 "fbk": ("feedback_relevant_max", "feedback_relevant_relative"),
                 "fba": (*FEEDBACK_NAMES, "feedback_rocchio", "feedback_relevant_relative"),
                 "fbd": tuple(f"dense_{name}" for name in FEEDBACK_NAMES),
                 "fbs": ("same_source_as_relevant", "same_source_as_not_relevant")}
ROCCHIO_BETA, ROCCHIO_GAMMA = 0.75, 0.15  # Rocchio's usual weights (Manning et al. 2008, 9.1.1)

_CACHE: list[tuple[JudgingPool, dict[str, np.ndarray]]] = []  # a few recent pools, by identity
_CACHE_SIZE = 4


def _similarities(pool: JudgingPool) -> dict[str, np.ndarray]:
    """Per question, the TF-IDF cosine matrix of its pooled passages (in by_question order);
    the last row and column are the question's own text."""
    tokens = [Counter(content_words(f"{item.title} {item.text}")) for item in pool.items]
    n = len(tokens)
    df: Counter[str] = Counter(t for tf in tokens for t in tf)
    vocab = {t: k for k, t in enumerate(df)}
    idf = np.array([math.log((1 + n) / (1 + df[t])) + 1.0 for t in vocab])
    out: dict[str, np.ndarray] = {}
    for qid, idx in pool.by_question.items():
        rows = np.zeros((len(idx) + 1, len(vocab)))
        bags = [tokens[i] for i in idx] + [Counter(content_words(pool.questions[qid]))]
        for r, bag in enumerate(bags):
            for term, count in bag.items():
                if term in vocab:
                    rows[r, vocab[term]] = (1.0 + math.log(count)) * idf[vocab[term]]
        norms = np.linalg.norm(rows, axis=1)
        rows /= np.maximum(norms, 1e-12)[:, None]
        out[qid] = rows @ rows.T
    return out


def similarities(pool: JudgingPool) -> dict[str, np.ndarray]:
    """`_similarities`, kept for the last few pools (a refit reuses them)."""
    for cached, sims in _CACHE:
        if cached is pool:
            return sims
    sims = _similarities(pool)
    _CACHE.append((pool, sims))
    del _CACHE[:-_CACHE_SIZE]
    return sims


VECTORS: dict[str, np.ndarray] = {}  # passage text -> its dense vector ("fbd"; set by the caller)
_DENSE: list[tuple[JudgingPool, dict[str, np.ndarray]]] = []


def dense_similarities(pool: JudgingPool) -> dict[str, np.ndarray]:
    """Per question, the cosine matrix of its passages' dense vectors (from VECTORS)."""
    for cached, sims in _DENSE:
        if cached is pool:
            return sims
    out = {}
    for qid, idx in pool.by_question.items():
        rows = np.array([VECTORS[pool.items[i].text] for i in idx]).reshape(len(idx), -1)
        out[qid] = rows @ rows.T
    _DENSE.append((pool, out))
    del _DENSE[:-_CACHE_SIZE]
    return out


def clear_cache() -> None:
    """Forget the kept similarities (a benchmark timing the first refit of a pool)."""
    _CACHE.clear()
    _DENSE.clear()


def _masked(sim: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row, max and mean of `sim` over the columns in `mask` other than the row itself
    (0 where there is none)."""
    take = np.broadcast_to(mask[None, :], sim.shape).copy()
    np.fill_diagonal(take, False)
    count = take.sum(axis=1)
    total = np.where(take, sim, 0.0).sum(axis=1)
    best = np.where(take, sim, -np.inf).max(axis=1, initial=-np.inf)
    return np.where(count > 0, best, 0.0), total / np.maximum(count, 1)


def _rocchio(sim: np.ndarray, rel: np.ndarray, non: np.ndarray) -> np.ndarray:
    """Cosine-like score of each passage to Rocchio's moved query q + β·mean(relevant) −
    γ·mean(not relevant), the passage itself left out of both means (inner products only:
    the rows are unit vectors)."""
    n = len(rel)
    score = sim[:n, n].copy()
    for mask, weight in ((rel, ROCCHIO_BETA), (non, -ROCCHIO_GAMMA)):
        take = np.broadcast_to(mask[None, :], (n, n)).copy()
        np.fill_diagonal(take, False)
        count = take.sum(axis=1)
        score += weight * np.where(take, sim[:n, :n], 0.0).sum(axis=1) / np.maximum(count, 1)
    return score


def feedback_features(pool: JudgingPool, judged: Mapping[int, int],
                      variant: str = "fb") -> np.ndarray:
    """One row per pool item ("fb"): max and mean similarity to the other judged-relevant
    passages of its question, then to the other judged-not-relevant ones (0 when there are
    none). Other variants: see VARIANT_NAMES."""
    full = np.zeros((len(pool), 10))
    sims = similarities(pool)
    dense = dense_similarities(pool) if variant == "fbd" else {}
    for qid, idx in pool.by_question.items():
        if not idx:
            continue
        labels = np.array([judged.get(i, -1) for i in idx])
        rows = list(idx)
        sim = sims[qid]
        n = len(rows)
        full[rows, 4] = _rocchio(sim, labels == 1, labels == 0)
        if not (labels >= 0).any():
            continue
        full[rows, 0], full[rows, 1] = _masked(sim[:n, :n], labels == 1)
        full[rows, 2], full[rows, 3] = _masked(sim[:n, :n], labels == 0)
        top = full[rows, 0].max()
        full[rows, 5] = full[rows, 0] / top if top > 0 else 0.0
        if dense:
            full[rows, 6], full[rows, 7] = _masked(dense[qid], labels == 1)
            full[rows, 8], full[rows, 9] = _masked(dense[qid], labels == 0)
    if variant == "fbs":
        return same_source(pool, judged)
    cols = {"fb": [0, 1, 2, 3], "fbr": [4], "fbk": [0, 5], "fba": [0, 1, 2, 3, 4, 5],
            "fbd": [6, 7, 8, 9]}[variant]
    return full[:, cols]


def same_source(pool: JudgingPool, judged: Mapping[int, int]) -> np.ndarray:
    """judge7: per item, 1 when another passage of its question from the same source (the same
    document for spans, the same page title for documents) was judged relevant, and the same
    for judged not relevant (relevant text clusters in a source: the cluster hypothesis)."""
    out = np.zeros((len(pool), 2))

    def source(i: int) -> str:
        item = pool.items[i]
        return item.doc if pool.unit == "span" else item.title

    for idx in pool.by_question.values():
        for col, label in ((0, 1), (1, 0)):
            marked = [i for i in idx if judged.get(i) == label and source(i)]
            for i in idx:
                out[i, col] = float(any(j != i and source(j) == source(i) for j in marked))
    return out
