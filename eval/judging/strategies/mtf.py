"""Move-to-front pooling (Cormack, Palmer & Clarke 1998, as run by Losada, Parapar & Barreiro
2016): keep judging down the run that just gave a relevant passage; after a non-relevant one,
its priority drops and the run with the highest priority goes next. A run here is one system's
ranking across every question, read breadth-first (every question's rank 1, then rank 2, …)."""

from __future__ import annotations

import numpy as np

from eval.judging.sim_pool import JudgingPool
from eval.judging.strategies.base import STRATEGIES, JudgingState


class SystemRuns:
    """Each system's items in run order and a cursor past the ones already judged."""

    def __init__(self, pool: JudgingPool) -> None:
        self.systems = pool.systems
        self.order = {s: pool.system_order(s) for s in pool.systems}
        self.at = dict.fromkeys(pool.systems, 0)

    def next_item(self, system: str, judged: dict[int, int] | object) -> int | None:
        order, at = self.order[system], self.at[system]
        while at < len(order) and order[at] in judged:  # type: ignore[operator]
            at += 1
        self.at[system] = at
        return order[at] if at < len(order) else None


class MoveToFront:
    def __init__(self, pool: JudgingPool) -> None:
        self.runs = SystemRuns(pool)
        self.priority = dict.fromkeys(pool.systems, 0)
        self.current: str | None = None
        self.pending: dict[int, str] = {}

    def pick(self, state: JudgingState) -> int | None:
        live = [s for s in self.runs.systems if self.runs.next_item(s, state.judged) is not None]
        if not live:
            return None
        arm = self.current if self.current in live else max(
            live, key=lambda s: (self.priority[s], -self.runs.systems.index(s)))
        self.current = arm
        item = self.runs.next_item(arm, state.judged)
        assert item is not None
        self.pending[item] = arm
        return item

    def tell(self, item: int, relevant: bool) -> None:
        arm = self.pending.pop(item, None)
        if arm is not None and not relevant:
            self.priority[arm] -= 1
            self.current = None


@STRATEGIES.register("mtf")
def move_to_front(pool: JudgingPool, rng: np.random.Generator) -> MoveToFront:
    return MoveToFront(pool)
