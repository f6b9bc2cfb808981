"""Judge next the unjudged passage most likely to be a relevant passage that moves the systems'
nDCG@10: the largest

    p · Σ_s (d_s / IDCG_q)²,

where d_s = 1/log2(rank + 1) is the passage's discount in system s's top 10 (0 when s did not
rank it), p the learned judge's P(relevant) (0.5 before a judge exists, so the first labels go
to the passages at the top of many systems' rankings) and IDCG_q the question's ideal DCG@10
for the relevant passages expected so far (labelled relevant + the judge's p over its unjudged
passages, at least one; p clipped to [0.02, 0.98]): a top-ranked passage of a question with one
relevant passage counts far more than a rank-9 passage of a question with six.

This is continuous active learning (Cormack & Grossman 2014: judge what the model, refitted on
every label, ranks most likely relevant; used to build test collections by Abualsaud et al.
2018 and Rahman et al. 2020) weighted by each passage's share in the systems' nDCG (the
rank-biased weighting of Aslam, Pavlu & Yilmaz 2006 and Moffat, Webber & Zobel 2007). Why p and
not p(1 − p): the judge is fitted on the passages the person was shown, never a random sample,
so its probabilities on the rest cannot be trusted to be calibrated (on the development set its
calls on unjudged passages at 10 % had precision 0.005); asking for the likely relevant ones
turns the judge's guesses into the person's labels, and what is left unjudged is what the judge
and the systems' rankings both hold unlikely, where a wrong fill costs least.
"""

from __future__ import annotations

import numpy as np

from eval.judging.sim_pool import JudgingPool
from eval.judging.strategies.base import STRATEGIES, JudgingState

CLIP = 0.02  # p kept in [CLIP, 1 - CLIP]: a passage the judge holds impossible is still asked
# once its weight is large enough


def ideal_dcg(relevant: np.ndarray, depth: int) -> np.ndarray:
    """Ideal DCG@depth for a (possibly fractional) expected number of relevant passages: the
    discounts of the first ⌊r⌋ ranks plus the fractional part of the next one."""
    discount = 1.0 / np.log2(np.arange(2, depth + 2))
    cumulative = np.concatenate([[0.0], np.cumsum(discount)])
    r = np.clip(np.asarray(relevant, dtype=np.float64), 0.0, float(depth))
    whole = np.floor(r).astype(int)
    nxt = np.minimum(whole, depth - 1)
    return cumulative[whole] + (r - whole) * np.where(whole < depth, discount[nxt], 0.0)


class ValueOrder:
    """An order that asks for the unjudged passage of largest `values` (the subclass's worth),
    reading the labels and the judge afresh at every pick."""

    def __init__(self, pool: JudgingPool) -> None:
        self.depth = pool.depth
        self.question = np.zeros(len(pool), dtype=int)
        for q, idx in enumerate(pool.by_question.values()):
            self.question[list(idx)] = q
        self.questions = len(pool.by_question)

    def values(self, state: JudgingState) -> np.ndarray:
        raise NotImplementedError

    def beliefs(self, state: JudgingState) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(p: the judge's clipped P(relevant), 0.5 before a judge; expected: each item's label,
        or the judge's p while unjudged, 0 before a judge; judged: which items are labelled)."""
        n = len(self.question)
        if state.probabilities is None:
            p, expected = np.full(n, 0.5), np.zeros(n)  # no judge: only labels count
        else:
            expected = np.asarray(state.probabilities, dtype=np.float64).copy()
            p = np.clip(expected, CLIP, 1.0 - CLIP)
        judged = np.zeros(n, dtype=bool)
        for i, label in state.judged.items():
            judged[i], expected[i] = True, float(label)
        return p, expected, judged

    def ideal(self, expected: np.ndarray) -> np.ndarray:
        """Each item's question's ideal DCG@depth for its expected relevant passages (≥ 1)."""
        relevant = np.bincount(self.question, weights=expected, minlength=self.questions)
        return ideal_dcg(np.maximum(relevant, 1.0), self.depth)[self.question]

    def pick(self, state: JudgingState) -> int | None:
        if len(self.question) == 0:
            return None
        value = self.values(state)
        best = int(np.argmax(value))
        return best if value[best] >= 0.0 and best not in state.judged else None

    def tell(self, item: int, relevant: bool) -> None:
        """Nothing to keep: every pick reads the labels and the judge afresh."""


class NdcgGain(ValueOrder):
    def __init__(self, pool: JudgingPool) -> None:
        super().__init__(pool)
        self.squared = np.array([sum((1.0 / np.log2(r + 1)) ** 2 for r in item.ranks.values())
                                 for item in pool.items])

    def values(self, state: JudgingState) -> np.ndarray:
        """Each item's worth now (judged items: -1)."""
        p, expected, judged = self.beliefs(state)
        value = p * self.squared / self.ideal(expected) ** 2
        value[judged] = -1.0
        return value


@STRATEGIES.register("ndcg_gain")
def ndcg_gain(pool: JudgingPool, rng: np.random.Generator) -> NdcgGain:
    return NdcgGain(pool)
