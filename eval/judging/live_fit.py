"""One background refit for the Judge page (run by eval.judging.background_fit): the learned
judge on the labels so far, its out-of-fold agreement every `cv_every` labels, and the scores
so far with the when-to-stop check every `scores_every` labels. What was measured at an earlier
step is carried over from the previous fit, so most refits are a single fit.

The page keeps using the last finished fit while the next one runs; its probabilities belong to
the pool as it was (`where`), so `aligned` maps them onto the pool as it is now (a passage the
fit never saw gets 0.5: nothing known yet, the most uncertain).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from eval.judging.cross_judge import NAME as CROSS
from eval.judging.cross_judge import fit_probabilities
from eval.judging.features import Features
from eval.judging.judge_choice import FEATURES, JudgeChoice
from eval.judging.learned_judge import can_learn
from eval.judging.live import JudgeState, Key, LivePool, fit_judge
from eval.judging.stopping import Stopping, SystemScore, pool_scores, stopping

UNKNOWN = 0.5


@dataclass(frozen=True)
class LiveFit:
    where: tuple[tuple[str, Key], ...]
    labels: int  # labels the judge was fitted on
    judge: JudgeState
    cv_step: tuple[int, bool]
    scores_step: tuple[int, bool]
    scores: tuple[SystemScore, ...]
    stop: Stopping
    scored_labels: int  # labels when the scores were computed


def refit(live: LivePool, features: Callable[[LivePool], Features], previous: LiveFit | None,
          cv_every: int = 10, scores_every: int = 10, last: int = 20,
          choice: JudgeChoice | None = None,
          vectors: Callable[[LivePool], np.ndarray] | None = None) -> LiveFit:
    """The fit for the labels in `live` (see the module docstring), by the judge `choice`
    kept (the feature judge until a comparison chose the cross-encoder)."""
    n = len(live.trained)
    learnable = can_learn(list(live.trained.values()))
    cv_step = (n // cv_every, learnable)
    same_pool = previous is not None and previous.where == live.where
    if choice is not None and choice.chosen == CROSS and vectors is not None:
        judge = JudgeState(fit_probabilities(vectors(live), dict(live.trained)),
                           choice.agreements.get(CROSS), (f"{CROSS} pair vector",))
    elif previous is not None and previous.cv_step == cv_step and same_pool and \
            previous.judge.agreement is not None and previous.judge.agreement.model == FEATURES:
        judge = fit_judge(live, features(live), agreement=previous.judge.agreement)
    else:
        judge = fit_judge(live, features(live), agreement=cv_step[1])
    scores_step = (n // scores_every, judge.probabilities is None)
    if previous is not None and previous.scores_step == scores_step and same_pool:
        scores, stop, scored = previous.scores, previous.stop, previous.scored_labels
    else:
        scores = tuple(pool_scores(live, judge.probabilities))
        stop, scored = stopping(live, judge.probabilities, last), n
    return LiveFit(live.where, n, judge, cv_step, scores_step, scores, stop, scored)


def aligned(fit: LiveFit, live: LivePool) -> JudgeState:
    """The fit's judge with its probabilities on the current pool's items."""
    probs = fit.judge.probabilities
    if probs is None or fit.where == live.where:
        return fit.judge
    at = {w: i for i, w in enumerate(fit.where)}
    mapped = np.array([probs[at[w]] if w in at else UNKNOWN for w in live.where],
                      dtype=np.float64)
    return replace(fit.judge, probabilities=mapped)
