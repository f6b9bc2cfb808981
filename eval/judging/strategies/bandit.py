"""Multi-armed-bandit pooling (Losada, Parapar & Barreiro 2017, "Multi-armed bandits for
adjudicating documents in pooling-based evaluation of information retrieval systems"): each
system's run is an arm; pulling it judges its next unjudged passage and the reward is that
passage's relevance. "bandit" is their best-performing MM-NS: the arm of maximum posterior mean
relevance, Beta(1, 1) prior, with older rewards discounted (non-stationary: a run's relevant
passages thin out as it goes down). "thompson" samples each arm's Beta posterior instead.
A passage reached by an arm after another arm had it judged is that arm's reward for free."""

from __future__ import annotations

import numpy as np

from eval.judging.sim_pool import JudgingPool
from eval.judging.strategies.base import STRATEGIES, JudgingState
from eval.judging.strategies.mtf import SystemRuns

DISCOUNT = 0.95  # weight of a reward one pull older (MM-NS's non-stationary forgetting)


class Bandit:
    def __init__(self, pool: JudgingPool, rng: np.random.Generator, sample: bool,
                 discount: float = DISCOUNT) -> None:
        self.runs = SystemRuns(pool)
        self.rng, self.sample, self.discount = rng, sample, discount
        self.alpha = dict.fromkeys(pool.systems, 1.0)
        self.beta = dict.fromkeys(pool.systems, 1.0)
        self.pending: dict[int, str] = {}
        self.order = {s: pool.system_order(s) for s in pool.systems}

    def _reward(self, arm: str, relevant: bool) -> None:
        self.alpha[arm] = 1.0 + self.discount * (self.alpha[arm] - 1.0) + float(relevant)
        self.beta[arm] = 1.0 + self.discount * (self.beta[arm] - 1.0) + float(not relevant)

    def _advance(self, arm: str, judged: dict[int, int] | object) -> int | None:
        """The arm's next unjudged item; judged items it passes over are free rewards."""
        order, at = self.order[arm], self.runs.at[arm]
        while at < len(order) and order[at] in judged:  # type: ignore[operator]
            self._reward(arm, bool(judged[order[at]]))  # type: ignore[index]
            at += 1
        self.runs.at[arm] = at
        return order[at] if at < len(order) else None

    def value(self, arm: str) -> float:
        a, b = self.alpha[arm], self.beta[arm]
        return float(self.rng.beta(a, b)) if self.sample else a / (a + b)

    def pick(self, state: JudgingState) -> int | None:
        nexts = {s: self._advance(s, state.judged) for s in self.runs.systems}
        live = [s for s, item in nexts.items() if item is not None]
        if not live:
            return None
        arm = max(live, key=lambda s: (self.value(s), -self.runs.systems.index(s)))
        item = nexts[arm]
        assert item is not None
        self.pending[item] = arm
        return item

    def tell(self, item: int, relevant: bool) -> None:
        arm = self.pending.pop(item, None)
        if arm is not None:
            self._reward(arm, relevant)
            self.runs.at[arm] += 1  # the pulled item is behind this arm now


@STRATEGIES.register("bandit")
def max_mean(pool: JudgingPool, rng: np.random.Generator) -> Bandit:
    return Bandit(pool, rng, sample=False)


@STRATEGIES.register("thompson")
def thompson(pool: JudgingPool, rng: np.random.Generator) -> Bandit:
    return Bandit(pool, rng, sample=True)
