"""The Judge page's judging order and learned judge, over what is stored: the pooled passages of
every open question (eval.judging.store.Snapshot) as a JudgingPool, the person's labels so far,
the judge fitted on them (with its out-of-fold agreement) and the passage a strategy picks next.

Skipped passages count as judged for the order (they are not shown again) and are left out of
the judge's training: a skip says nothing about relevance.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from eval.judging.features import CONTEXT_NAMES, Features, context_features, item_features
from eval.judging.learned_judge import Agreement, LearnedJudge, can_learn, cross_validate
from eval.judging.sim_pool import JudgingPool, PoolItem, span_key
from eval.judging.store import Snapshot
from eval.judging.strategies.base import JudgingState, make_strategy, replay
from rag.embed.base import Embedder

Key = tuple[str, int, int]


@dataclass(frozen=True)
class LivePool:
    pool: JudgingPool
    where: tuple[tuple[str, Key], ...]  # item index -> (question id, passage key)
    judged: Mapping[int, int]  # item -> 1 relevant / 0 otherwise, in the order given
    trained: Mapping[int, int]  # the labels the judge learns from (skips left out)

    def index(self) -> dict[tuple[str, Key], int]:
        return {w: i for i, w in enumerate(self.where)}


def live_pool(snap: Snapshot, depth: int = 10) -> LivePool:
    """Every open question's stored pool (dropped and not-answerable questions left out; of a
    question the person said is judged, only its judged passages)."""
    questions = {q.qid: q.question for q in snap.questions
                 if not (q.dropped or q.unanswerable) and snap.pool(q.qid)}
    done = {q.qid for q in snap.questions if q.done}
    answers = {q.qid: q.answer for q in snap.questions if q.qid in questions}
    items: list[PoolItem] = []
    where: list[tuple[str, Key]] = []
    runs: dict[str, dict[str, list[tuple[int, int]]]] = {}
    for qid in questions:
        for p in snap.pool(qid):
            if qid in done and p.key not in snap.labels_of(qid):
                continue
            ranks = {s: r for s, r in p.systems.items() if r > 0}  # imported passages: no rank
            for s, r in ranks.items():
                runs.setdefault(s, {}).setdefault(qid, []).append((r, len(items)))
            items.append(PoolItem(qid, span_key(*p.key), p.doc, p.start, p.end, p.text, "",
                                  ranks, {}))
            where.append((qid, p.key))
    ordered = {s: {q: tuple(i for _, i in sorted(v)) for q, v in by_q.items()}
               for s, by_q in runs.items()}
    for s in ordered:
        for qid in questions:
            ordered[s].setdefault(qid, ())
    pool = JudgingPool(questions, answers, tuple(sorted(ordered)), tuple(items), ordered, depth,
                       "span")
    at = {w: i for i, w in enumerate(where)}
    judged: dict[int, int] = {}
    trained: dict[int, int] = {}
    for qid, labels in snap.labels.items():
        for key, label in labels.items():
            i = at.get((qid, key))
            if i is None:
                continue
            judged[i] = int(label == "relevant")
            if label != "skip":
                trained[i] = judged[i]
    return LivePool(pool, tuple(where), judged, trained)


@dataclass(frozen=True)
class JudgeState:
    """The judge fitted on the labels so far: P(relevant) per pool item, and its out-of-fold
    agreement with the person (None until there are enough labels of each kind)."""

    probabilities: np.ndarray | None
    agreement: Agreement | None
    features: tuple[str, ...]


def pool_features(live: LivePool, embedder: Embedder | None = None) -> Features:
    return item_features(live.pool, embedder)


def fit_judge(live: LivePool, features: Features | None = None, model: str = "logistic",
              ) -> JudgeState:
    """Fit the judge on the person's labels; cross-validate it by question."""
    features = features if features is not None else item_features(live.pool)
    names = (*features.names, *CONTEXT_NAMES)
    idx = list(live.trained)
    y = [live.trained[i] for i in idx]
    if not can_learn(y):
        return JudgeState(None, None, names)
    x = np.column_stack([features.matrix, context_features(live.pool, live.trained)])
    groups = [live.pool.items[i].qid for i in idx]
    agreement = cross_validate(x[idx], y, groups, model)
    probs = LearnedJudge(model).fit(x[idx], y).probabilities(x)
    return JudgeState(probs, agreement, names)


def next_passage(live: LivePool, strategy: str, probabilities: np.ndarray | None = None,
                 seed: int = 0) -> tuple[str, Key] | None:
    """The (question, passage) the strategy picks next, after replaying the labels so far."""
    chooser = replay(make_strategy(strategy, live.pool, seed), live.judged)
    item = chooser.pick(JudgingState(live.pool, live.judged, probabilities))
    return None if item is None else live.where[item]
