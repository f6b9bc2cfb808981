"""The Judge page's learned judge, fitted off the script thread (eval.judging.background_fit):
each run asks for the fit of the labels so far and uses the last one that finished, so a key
never waits for a fit. A second worker compares the two judges (features vs the frozen MiniLM
cross-encoder with a trained head) every CV_EVERY labels and stores the better one with the
collection (eval.judging.judge_choice); the refit uses the judge kept."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from eval.judging.background_fit import BackgroundFitter
from eval.judging.cross_judge import pool_vectors
from eval.judging.features import Features
from eval.judging.judge_choice import JudgeChoice, compare, load_choice, save_choice
from eval.judging.learned_judge import can_learn
from eval.judging.live import JudgeState, LivePool, pool_features
from eval.judging.live_fit import LiveFit, aligned, refit
from pages.ui.state import session_cache
from rag.config import load_preset
from rag.embed import get_embedder

CV_EVERY = 10  # labels between two cross-validations of the judge (the fit itself is per label)
EVERY = 10  # labels between two computations of the scores so far and the stopping check
LAST = 20  # judgments the "did the ranking move" check leaves out
FITTER, COMPARER = "judge_fitter", "judge_comparer"
COMPARE_WORKER = "judge-compare"


@dataclass(frozen=True)
class PageJudge:
    """What the page uses: the last finished fit (aligned to the pool as it is now), whether a
    newer one is running, and the judge comparison kept for the collection."""

    state: JudgeState
    fit: LiveFit | None
    busy: bool
    error: str | None
    choice: JudgeChoice | None
    comparing: bool


def _fitter(key: str, worker: str | None = None) -> BackgroundFitter:  # type: ignore[type-arg]
    if key not in st.session_state:
        st.session_state[key] = BackgroundFitter() if worker is None else \
            BackgroundFitter(worker=worker)
    fitter: BackgroundFitter = st.session_state[key]  # type: ignore[type-arg]
    return fitter


def _choice(collection: str, set_key: str, live: LivePool,
            features_of, vectors_of) -> tuple[JudgeChoice | None, bool]:  # noqa: ANN001
    """The stored comparison, refreshed in the background every CV_EVERY labels."""
    comparer: BackgroundFitter[JudgeChoice | None] = _fitter(COMPARER, COMPARE_WORKER)
    if can_learn(list(live.trained.values())):
        def job() -> JudgeChoice | None:
            found = compare(live, features_of(live), vectors_of(live), set_key)
            if found is not None:
                save_choice(collection, found)
            return found

        comparer.request((collection, set_key, live.where, len(live.trained) // CV_EVERY), job)
    done = comparer.latest
    if done is not None and done.key[0] == collection and done.value is not None:
        return done.value, comparer.busy
    return load_choice(collection), comparer.busy


def current_judge(collection: str, set_key: str, live: LivePool) -> PageJudge:
    """Ask for the fit of the labels so far (refit, cross-validation every CV_EVERY labels,
    scores every EVERY) and use the last finished one for this set."""
    fitter: BackgroundFitter[LiveFit] = _fitter(FITTER)
    features = session_cache(st.session_state, "judge_features", max_entries=2)

    def features_of(pool: LivePool) -> Features:  # runs in a worker
        return features.get_or_compute((set_key, pool.where), lambda: pool_features(
            pool, get_embedder(load_preset("dense").embedding)))

    def vectors_of(pool: LivePool) -> np.ndarray:  # cached per pair inside
        return pool_vectors(pool.pool)

    choice, comparing = _choice(collection, set_key, live, features_of, vectors_of)
    chosen = choice.chosen if choice is not None else None

    def job() -> LiveFit:
        done = fitter.latest
        previous = done.value if done is not None and done.key[0] == set_key else None
        return refit(live, features_of, previous, CV_EVERY, EVERY, LAST, choice, vectors_of)

    fitter.request((set_key, live.where, tuple(live.trained.items()), chosen), job)
    done = fitter.latest
    fit = done.value if done is not None and done.key[0] == set_key else None
    state = aligned(fit, live) if fit is not None else JudgeState(None, None, ())
    return PageJudge(state, fit, fitter.busy, fitter.error, choice, comparing)
