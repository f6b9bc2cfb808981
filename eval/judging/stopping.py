"""Scores over the judged pool while judging, and whether judging can stop.

Per system, nDCG@10 over the pooled passages two ways: on the person's labels only (condensed:
passages nobody judged are left out of the ranking, Sakai 2007), and on the person's labels with
every unjudged passage filled by the learned judge, with a 95 % interval that resamples the
questions *and* draws the filled labels from their probabilities in each resample, so the
judge's doubt widens it. Judging can stop when few relevant passages are expected among the
unjudged (the sum of their probabilities) and the system ranking no longer moves: τ between the
ranking now and the ranking without the last N judgments.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from eval.judging.live import LivePool, fit_judge
from eval.judging.simulate import SAMPLES, draws, ndcg_draws, tau

RESAMPLES = 1000
STABLE_TAU = 1.0  # the ranking "did not move" when τ to the earlier ranking is this


@dataclass(frozen=True)
class SystemScore:
    system: str
    human_only: float  # condensed nDCG@10 on the person's labels
    unjudged: float  # share of its top 10 nobody judged
    filled: float | None  # human + judge-filled nDCG@10 (None: no judge yet)
    low: float | None
    high: float | None


@dataclass(frozen=True)
class Stopping:
    expected_relevant_unjudged: float | None  # sum of P(relevant) over unjudged passages
    last: int  # N: the judgments left out for the earlier ranking
    tau_to_earlier: float | None  # τ between the ranking now and without the last N
    moved: bool | None

    def describe(self) -> str:
        if self.expected_relevant_unjudged is None:
            return "Judge on: the learned judge needs a few labels of each kind first."
        if self.tau_to_earlier is None:
            moved = f"fewer than {self.last} judgments to tell whether the ranking still moves"
        elif not self.moved:
            moved = f"the system ranking is unchanged over the last {self.last} judgments"
        else:
            moved = (f"the system ranking still moved over the last {self.last} judgments "
                     f"(τ {self.tau_to_earlier:.2f} to the ranking before them)")
        verdict = ("judging can stop" if not self.moved and self.expected_relevant_unjudged < 1.0
                   else "keep judging")
        return (f"About {self.expected_relevant_unjudged:.1f} relevant passages are expected "
                f"among those nobody judged; {moved}: {verdict}.")


def _condensed(live: LivePool) -> tuple[np.ndarray, np.ndarray]:
    """(systems,) mean condensed nDCG@10 and mean unjudged share of the top 10, over the
    questions with a judged relevant passage (human labels only)."""
    pool, judged = live.pool, live.trained
    discount = 1.0 / np.log2(np.arange(2, pool.depth + 2))
    scored = [q for q, idx in pool.by_question.items() if any(judged.get(i) for i in idx)]
    ndcg = np.zeros((len(pool.systems), max(len(scored), 1)))
    unjudged = np.zeros((len(pool.systems), max(len(pool.by_question), 1)))
    for j, qid in enumerate(pool.by_question):
        for i, s in enumerate(pool.systems):
            top = list(pool.runs[s].get(qid, ()))[:pool.depth]
            unjudged[i, j] = sum(k not in judged for k in top) / len(top) if top else 0.0
    for j, qid in enumerate(scored):
        rel = sorted((judged[k] for k in pool.by_question[qid] if k in judged), reverse=True)
        ideal = float(np.dot(rel[:pool.depth], discount[:min(len(rel), pool.depth)]))
        for i, s in enumerate(pool.systems):
            kept = [judged[k] for k in pool.runs[s].get(qid, ()) if k in judged][:pool.depth]
            dcg = float(np.dot(kept, discount[:len(kept)]))
            ndcg[i, j] = dcg / ideal if ideal > 0 else 0.0
    return (ndcg.mean(axis=1) if scored else np.zeros(len(pool.systems)),
            unjudged.mean(axis=1))


def pool_scores(live: LivePool, probabilities: np.ndarray | None, seed: int = 0,
                resamples: int = RESAMPLES) -> list[SystemScore]:
    """Every system's human-only and judge-filled nDCG@10 over the pool (see the docstring)."""
    human, unjudged = _condensed(live)
    systems = live.pool.systems
    if probabilities is None:
        return [SystemScore(s, float(human[i]), float(unjudged[i]), None, None, None)
                for i, s in enumerate(systems)]
    queries = list(live.pool.by_question)
    table = ndcg_draws(live.pool, draws(live.trained, probabilities, len(live.pool), seed),
                       queries)  # (SAMPLES, systems, queries)
    rng = np.random.default_rng(seed)
    means = np.empty((resamples, len(systems)))
    for b in range(resamples):
        cols = rng.integers(0, len(queries), len(queries))
        means[b] = table[b % SAMPLES][:, cols].mean(axis=1)
    point = ndcg_draws(live.pool, draws(live.trained, probabilities, len(live.pool), seed,
                                        "threshold"), queries).mean(axis=(0, 2))
    low, high = np.percentile(means, [2.5, 97.5], axis=0)
    return [SystemScore(s, float(human[i]), float(unjudged[i]), float(point[i]), float(low[i]),
                        float(high[i])) for i, s in enumerate(systems)]


def stopping(live: LivePool, probabilities: np.ndarray | None, last: int = 20,
             seed: int = 0) -> Stopping:
    """Expected relevant passages still unjudged, and whether the ranking moved over the last
    `last` judgments (the judge refitted without them)."""
    if probabilities is None:
        return Stopping(None, last, None, None)
    rest = [i for i in range(len(live.pool)) if i not in live.judged]
    expected = float(probabilities[rest].sum()) if rest else 0.0
    order = list(live.trained)
    if len(order) <= last:
        return Stopping(expected, last, None, True)
    earlier = LivePool(live.pool, live.where,
                       {i: live.judged[i] for i in list(live.judged)[:-last]},
                       {i: live.trained[i] for i in order[:-last]})
    before = fit_judge(earlier, agreement=False).probabilities
    now = [s.filled for s in pool_scores(live, probabilities, seed, resamples=10)]
    then = [s.filled for s in pool_scores(earlier, before, seed, resamples=10)] \
        if before is not None else None
    if then is None or any(v is None for v in [*now, *then]):
        return Stopping(expected, last, None, True)
    t = tau(np.array(now, dtype=float), np.array(then, dtype=float))
    return Stopping(expected, last, t if np.isfinite(t) else None,
                    not (np.isfinite(t) and t >= STABLE_TAU))
