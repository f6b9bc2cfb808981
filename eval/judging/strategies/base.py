"""Which pooled passage a person should judge next. A strategy sees the pool, what has been
judged so far (in order) and, once the learned judge exists, its probabilities; it names the
next passage, across every system and question. Strategies are registered by name
(`STRATEGIES`), and built fresh per judging session: `tell` replays the judgments already made,
so a resumed session (or a second one) continues where the labels stand.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from eval.judging.sim_pool import JudgingPool
from rag.registry import Registry


@dataclass(frozen=True)
class JudgingState:
    """What a strategy may read: the pool, the labels so far (item -> 1 relevant / 0 not, in the
    order they were given) and the learned judge's P(relevant) per item when it exists."""

    pool: JudgingPool
    judged: Mapping[int, int]
    probabilities: np.ndarray | None = None


class Strategy(Protocol):
    def pick(self, state: JudgingState) -> int | None:
        """The next item to judge (None: nothing left)."""
        ...

    def tell(self, item: int, relevant: bool) -> None:
        """A judgment was made (of the picked item, or of any other)."""
        ...


StrategyFactory = Callable[[JudgingPool, np.random.Generator], Strategy]
STRATEGIES: Registry[StrategyFactory] = Registry("judging order")
# The Judge page's default (judge5): answer_seek erred less than judge_uncertainty at 20 % of
# the pool on the development sets subsampled to 20 questions (docs/judging.md, "judge5");
# judge_uncertainty and ndcg_gain (better at 10 % of the pool) stay selectable.
DEFAULT_STRATEGY = "answer_seek"
for _name, _module in (("pool_order", "eval.judging.strategies.simple"),
                       ("random", "eval.judging.strategies.simple"),
                       ("mtf", "eval.judging.strategies.mtf"),
                       ("bandit", "eval.judging.strategies.bandit"),
                       ("thompson", "eval.judging.strategies.bandit"),
                       ("judge_uncertainty", "eval.judging.strategies.uncertainty"),
                       ("ndcg_gain", "eval.judging.strategies.impact"),
                       ("answer_seek", "eval.judging.strategies.answer_seek")):
    STRATEGIES.add_lazy(_name, _module)


def make_strategy(name: str, pool: JudgingPool, seed: int = 0) -> Strategy:
    """A fresh strategy `name` over `pool` (an unknown name lists the valid ones)."""
    return STRATEGIES.get(name)(pool, np.random.default_rng(seed))


def replay(strategy: Strategy, judged: Mapping[int, int]) -> Strategy:
    """Tell the strategy every judgment already made, in order."""
    for item, label in judged.items():
        strategy.tell(item, bool(label))
    return strategy
