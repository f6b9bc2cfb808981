"""The learned judge's uncertainty, weighted by what a label moves: once the judge exists, the
next passage is the unjudged one with the largest w · p(1 − p), where p is the judge's
P(relevant) and w the passage's weight in the systems' nDCG@10 (the sum of its rank discounts
1/log2(rank + 1) over the systems that ranked it). That is the passage whose label removes the
most expected variance from the filled scores (uncertainty sampling, Lewis & Gale 1994, weighted
as in Aslam, Pavlu & Yilmaz 2006's rank-based sampling). Until the judge can be fitted (a few
labels of each kind), multi-armed-bandit pooling picks."""

from __future__ import annotations

import numpy as np

from eval.judging.sim_pool import JudgingPool
from eval.judging.strategies.bandit import Bandit
from eval.judging.strategies.base import STRATEGIES, JudgingState


class JudgeUncertainty:
    def __init__(self, pool: JudgingPool, rng: np.random.Generator) -> None:
        self.fallback = Bandit(pool, rng, sample=False)
        self.weights = pool.weights

    def pick(self, state: JudgingState) -> int | None:
        if state.probabilities is None:
            return self.fallback.pick(state)
        p = state.probabilities
        value = self.weights * p * (1.0 - p)
        if state.judged:
            value[list(state.judged)] = -1.0
        best = int(np.argmax(value)) if len(value) else -1
        return best if best >= 0 and value[best] >= 0.0 and best not in state.judged else None

    def tell(self, item: int, relevant: bool) -> None:
        self.fallback.tell(item, relevant)


@STRATEGIES.register("judge_uncertainty")
def judge_uncertainty(pool: JudgingPool, rng: np.random.Generator) -> JudgeUncertainty:
    return JudgeUncertainty(pool, rng)
