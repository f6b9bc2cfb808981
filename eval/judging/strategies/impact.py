"""The passage whose label moves the systems' nDCG@10 most: judge next the unjudged passage with
the largest expected squared change of the systems' per-question nDCG,

    p(1 − p) · Σ_s (d_s / IDCG_q)²,

where d_s = 1/log2(rank + 1) is the passage's discount in system s's top 10 (0 when s did not
rank it), p the learned judge's P(relevant) (0.5 before a judge exists, so the first labels go
to the passages at the top of many systems' rankings) and IDCG_q the question's ideal DCG@10 for
the relevant passages expected so far (labelled relevant + the judge's p over the unjudged, at
least one). That is the variance a label removes from the sum of squared nDCG errors over
systems: a top-ranked passage of a question with one relevant passage counts far more than a
rank-9 passage of a question with six (rank-biased selection in the spirit of Aslam, Pavlu &
Yilmaz 2006 and the DCG-weighted pooling of Moffat, Webber & Zobel 2007; `judge_uncertainty`
weighs by Σ_s d_s alone, without the question's ideal). p is clipped to [0.02, 0.98] so a
confidently wrong judge cannot hide a top-ranked passage from the person for ever.
"""

from __future__ import annotations

import numpy as np

from eval.judging.sim_pool import JudgingPool
from eval.judging.strategies.base import STRATEGIES, JudgingState

CLIP = 0.02  # the least uncertainty any unjudged passage keeps


def ideal_dcg(relevant: np.ndarray, depth: int) -> np.ndarray:
    """Ideal DCG@depth for a (possibly fractional) expected number of relevant passages:
    the discounts of the first ⌊r⌋ ranks plus the fractional part of the next one."""
    discount = 1.0 / np.log2(np.arange(2, depth + 2))
    cumulative = np.concatenate([[0.0], np.cumsum(discount)])
    r = np.clip(relevant, 0.0, float(depth))
    whole = np.floor(r).astype(int)
    nxt = np.minimum(whole, depth - 1)
    return cumulative[whole] + (r - whole) * np.where(whole < depth, discount[nxt], 0.0)


class NdcgImpact:
    def __init__(self, pool: JudgingPool, mode: str = "variance") -> None:
        self.mode = mode
        self.depth = pool.depth
        self.question = np.zeros(len(pool), dtype=int)
        qids = list(pool.by_question)
        for q, idx in enumerate(pool.by_question.values()):
            self.question[list(idx)] = q
        self.questions = len(qids)
        self.squared = np.array([sum((1.0 / np.log2(r + 1)) ** 2 for r in item.ranks.values())
                                 for item in pool.items])
        self.linear = pool.weights

    def values(self, state: JudgingState) -> np.ndarray:
        """Each item's expected squared nDCG change (judged items: -1)."""
        n = len(self.question)
        p = np.full(n, 0.5) if state.probabilities is None \
            else np.clip(state.probabilities, CLIP, 1.0 - CLIP)
        expected = np.zeros(n) if state.probabilities is None \
            else np.asarray(state.probabilities, dtype=np.float64).copy()
        judged = np.zeros(n, dtype=bool)
        if state.judged:
            judged[list(state.judged)] = True
            for i, label in state.judged.items():
                expected[i] = float(label)
        relevant = np.bincount(self.question, weights=expected, minlength=self.questions)
        ideal = ideal_dcg(np.maximum(relevant, 1.0), self.depth)[self.question]
        if self.mode == "gain":
            value = p * self.squared / ideal ** 2
        elif self.mode == "gain_plain":
            value = p * self.squared
        elif self.mode == "gain_w":
            value = p * self.linear / ideal
        elif self.mode == "linear":
            value = p * (1.0 - p) * self.linear / ideal
        else:
            value = p * (1.0 - p) * self.squared / ideal ** 2
        value[judged] = -1.0
        return value

    def pick(self, state: JudgingState) -> int | None:
        if len(self.question) == 0:
            return None
        value = self.values(state)
        best = int(np.argmax(value))
        return best if value[best] >= 0.0 and best not in state.judged else None

    def tell(self, item: int, relevant: bool) -> None:
        """Stateless: every pick reads the labels and the judge afresh."""


@STRATEGIES.register("ndcg_impact")
def ndcg_impact(pool: JudgingPool, rng: np.random.Generator) -> NdcgImpact:
    return NdcgImpact(pool)


@STRATEGIES.register("ndcg_gain")
def ndcg_gain(pool: JudgingPool, rng: np.random.Generator) -> NdcgImpact:
    return NdcgImpact(pool, "gain")


@STRATEGIES.register("ndcg_linear")
def ndcg_linear(pool: JudgingPool, rng: np.random.Generator) -> NdcgImpact:
    return NdcgImpact(pool, "linear")


@STRATEGIES.register("gain_plain")
def gain_plain(pool: JudgingPool, rng: np.random.Generator) -> NdcgImpact:
    return NdcgImpact(pool, "gain_plain")


@STRATEGIES.register("gain_w")
def gain_w(pool: JudgingPool, rng: np.random.Generator) -> NdcgImpact:
    return NdcgImpact(pool, "gain_w")
