"""A judge learned from the person's own labels: a small model over cheap passage features
(eval.judging.features) that gives every unjudged pooled passage a probability of being
relevant. It fills only what nobody judged; a human label always wins.

Models: "logistic" (scikit-learn's L2 logistic regression on standardized features: calibrated
enough to use its probabilities as expected labels) and "boosted" (scikit-learn's histogram
gradient-boosted trees, small and shallow for a few hundred labels; lightgbm is not installed
here). Agreement with the person is measured out of fold:
folds split by question, so a question's passages never train the model that judges them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import cohen_kappa_score, precision_score, recall_score
from sklearn.model_selection import GroupKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

MIN_PER_CLASS = 3  # fewer relevant (or not relevant) labels than this: no judge yet
THRESHOLD = 0.5  # probability at which the judge calls a passage relevant (for κ, P, R)


def _logistic(seed: int) -> Any:
    return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=2000,
                                                              random_state=seed))


def _boosted(seed: int) -> Any:
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(max_iter=150, learning_rate=0.05, max_leaf_nodes=7,
                                          min_samples_leaf=5, l2_regularization=1.0,
                                          random_state=seed)


class _BalancedLogisticCV:
    """L2 logistic regression for many dense columns and few labels (the cross-encoder's pair
    vectors): classes weighted equally so a few relevant labels still move it, the strength
    picked by an inner 3-fold cross-validation on the training labels only, and the intercept
    moved back by log(relevant / not relevant) so its probabilities are on the labels' scale
    (the fill uses them as expected labels)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._model: Any = None
        self._shift = 0.0

    def fit(self, x: np.ndarray, y: np.ndarray) -> _BalancedLogisticCV:
        import warnings

        from sklearn.linear_model import LogisticRegressionCV

        positives, negatives = int(y.sum()), int(len(y) - y.sum())
        with warnings.catch_warnings():  # scikit-learn 1.8 announces 1.10's attribute changes
            warnings.simplefilter("ignore", FutureWarning)
            self._model = make_pipeline(StandardScaler(), LogisticRegressionCV(
                Cs=[0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0], cv=min(3, positives, negatives),
                class_weight="balanced", scoring="neg_log_loss", max_iter=2000,
                random_state=self.seed)).fit(x, y)
        self._shift = float(np.log(positives / negatives))
        return self

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        logit = self._model.decision_function(x) + self._shift
        p = 1.0 / (1.0 + np.exp(-logit))
        return np.column_stack([1.0 - p, p])


MODELS: Mapping[str, Callable[[int], Any]] = {"logistic": _logistic, "boosted": _boosted,
                                              "balanced_logistic_cv": _BalancedLogisticCV}


def make_model(name: str, seed: int = 0) -> Any:
    if name not in MODELS:
        raise ValueError(f"unknown judge model {name!r}; valid: {', '.join(MODELS)}")
    return MODELS[name](seed)


def can_learn(labels: Sequence[int]) -> bool:
    """Enough of both classes to fit a judge."""
    y = np.asarray(labels)
    return int((y == 1).sum()) >= MIN_PER_CLASS and int((y == 0).sum()) >= MIN_PER_CLASS


@dataclass(frozen=True)
class Agreement:
    """Out-of-fold agreement of the learned judge with the person's labels."""

    model: str
    labels: int
    relevant: int
    folds: int
    kappa: float  # Cohen's κ at THRESHOLD
    precision: float  # of "relevant"
    recall: float

    def as_json(self) -> dict[str, Any]:
        return {"model": self.model, "labels": self.labels, "relevant": self.relevant,
                "folds": self.folds, "kappa": round(self.kappa, 4),
                "precision": round(self.precision, 4), "recall": round(self.recall, 4)}


class LearnedJudge:
    """Fit on judged passages' features and labels; `probabilities` for any passages."""

    def __init__(self, model: str = "logistic", seed: int = 0) -> None:
        make_model(model, seed)  # an unknown name fails here, listing the valid ones
        self.model, self.seed = model, seed
        self._fitted: Any = None

    def fit(self, features: np.ndarray, labels: Sequence[int]) -> LearnedJudge:
        y = np.asarray(labels, dtype=int)
        if not can_learn(y):
            raise ValueError(f"the judge needs at least {MIN_PER_CLASS} relevant and "
                             f"{MIN_PER_CLASS} not relevant labels (has {int(y.sum())} and "
                             f"{int((y == 0).sum())})")
        with threadpool_limits(1):  # a few hundred rows: BLAS threads only contend on 2 cores
            self._fitted = make_model(self.model, self.seed).fit(features, y)
        return self

    @property
    def fitted(self) -> bool:
        return self._fitted is not None

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """P(relevant) per row."""
        if self._fitted is None:
            raise ValueError("the judge is not fitted yet")
        if len(features) == 0:
            return np.zeros(0)
        with threadpool_limits(1):
            return np.asarray(self._fitted.predict_proba(features)[:, 1], dtype=np.float64)


def out_of_fold(features: np.ndarray, labels: Sequence[int], groups: Sequence[str],
                model: str = "logistic", folds: int = 5, seed: int = 0,
                ) -> tuple[np.ndarray, int] | None:
    """Out-of-fold probabilities (folds by question), and how many folds; None when too few
    labels or questions. A fold whose training part lacks a class predicts its base rate."""
    y = np.asarray(labels, dtype=int)
    g = np.asarray(groups)
    k = min(folds, len(set(g.tolist())))
    if k < 2 or not can_learn(y):
        return None
    probs = np.zeros(len(y))
    for train, test in GroupKFold(n_splits=k).split(features, y, g):
        if can_learn(y[train]):
            probs[test] = LearnedJudge(model, seed).fit(features[train], y[train]) \
                .probabilities(features[test])
        else:
            probs[test] = y[train].mean()
    return probs, k


def cross_validate(features: np.ndarray, labels: Sequence[int], groups: Sequence[str],
                   model: str = "logistic", folds: int = 5, seed: int = 0,
                   name: str | None = None) -> Agreement | None:
    """Cohen's κ, precision and recall of "relevant", out of fold (None: too few labels)."""
    done = out_of_fold(features, labels, groups, model, folds, seed)
    if done is None:
        return None
    probs, k = done
    return agreement_of(probs, labels, k, name or model)


def agreement_of(probs: np.ndarray, labels: Sequence[int], folds: int, model: str) -> Agreement:
    """κ, precision and recall of out-of-fold probabilities called at THRESHOLD."""
    k = folds
    y = np.asarray(labels, dtype=int)
    said = (probs >= THRESHOLD).astype(int)
    kappa = float(cohen_kappa_score(y, said)) if len(set(said.tolist()) | set(y.tolist())) > 1 \
        else 1.0
    return Agreement(model, len(y), int(y.sum()), k, kappa,
                     float(precision_score(y, said, zero_division=0.0)),
                     float(recall_score(y, said, zero_division=0.0)))
