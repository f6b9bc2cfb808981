"""The two orders without adaptation: pool order (question by question, best-ranked passage
first, as the Judge page always showed them) and a uniform random order (the sampling
baseline)."""

from __future__ import annotations

import numpy as np

from eval.judging.sim_pool import JudgingPool
from eval.judging.strategies.base import STRATEGIES, JudgingState


class FixedOrder:
    """Judge items in a fixed order, skipping those judged already."""

    def __init__(self, order: list[int]) -> None:
        self.order, self.at = order, 0

    def pick(self, state: JudgingState) -> int | None:
        while self.at < len(self.order) and self.order[self.at] in state.judged:
            self.at += 1
        return self.order[self.at] if self.at < len(self.order) else None

    def tell(self, item: int, relevant: bool) -> None:
        """Fixed orders learn nothing from a label."""


@STRATEGIES.register("pool_order")
def pool_order(pool: JudgingPool, rng: np.random.Generator) -> FixedOrder:
    """Question by question in set order; within one, by best rank, then system order."""
    index = {s: i for i, s in enumerate(pool.systems)}
    order = []
    for idx in pool.by_question.values():
        order += sorted(idx, key=lambda i: (min(pool.items[i].ranks.values()),
                                            min(index[s] for s in pool.items[i].ranks)))
    return FixedOrder(order)


@STRATEGIES.register("random")
def random_order(pool: JudgingPool, rng: np.random.Generator) -> FixedOrder:
    """A uniform random order over the whole pool."""
    return FixedOrder([int(i) for i in rng.permutation(len(pool))])
