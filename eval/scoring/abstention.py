"""Abstention scores: did the pipeline decline the questions its corpus cannot answer, and only
those? Unanswerable questions (QA rows with `"answerable": false`) are the positive class.

- abstain precision: of the declined questions, the share that were unanswerable;
- abstain recall: of the unanswerable questions, the share declined;
- abstain F1: their harmonic mean;
- false-abstention rate: of the answerable questions, the share declined (1 − answer rate).

95% CIs: percentile bootstrap over questions, resampled within the answerable and unanswerable
strata (each resample keeps the set's mix, so every ratio stays defined).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

METRICS = ("abstain_precision", "abstain_recall", "abstain_f1", "false_abstention_rate", "answer_rate")


@dataclass(frozen=True)
class AbstainOutcome:
    """One question: whether the corpus can answer it, and whether the run declined it."""

    qid: str
    answerable: bool
    abstained: bool
    kind: str = ""  # the abstain rule that fired, when declined


def _ratio(num: float, den: float) -> float:
    return num / den if den else math.nan


def abstention_figures(answerable: np.ndarray, abstained: np.ndarray) -> dict[str, float]:
    """The five figures for aligned boolean arrays (NaN where the denominator is 0)."""
    unanswerable = ~answerable
    tp = float(np.sum(abstained & unanswerable))
    fp = float(np.sum(abstained & answerable))
    fn = float(np.sum(~abstained & unanswerable))
    precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else (
        0.0 if tp + fp + fn > 0 else math.nan)
    false_rate = _ratio(fp, float(np.sum(answerable)))
    return {"abstain_precision": precision, "abstain_recall": recall, "abstain_f1": f1,
            "false_abstention_rate": false_rate, "answer_rate": 1 - false_rate}


def _stratified_bootstrap(
    answerable: np.ndarray,
    abstained: np.ndarray,
    statistic: Callable[[np.ndarray, np.ndarray], Mapping[str, float]],
    n_resamples: int,
    seed: int,
) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    strata = [np.flatnonzero(answerable), np.flatnonzero(~answerable)]
    draws: dict[str, list[float]] = {}
    for _ in range(n_resamples):
        index = np.concatenate([rng.choice(s, size=len(s), replace=True) for s in strata if len(s)])
        for key, value in statistic(answerable[index], abstained[index]).items():
            draws.setdefault(key, []).append(value)
    return {key: np.asarray(values) for key, values in draws.items()}


def abstention_report(
    outcomes: Sequence[AbstainOutcome], n_resamples: int = 2000, seed: int = 0
) -> dict[str, Any]:
    """Per figure: value and 95% CI (null where undefined, e.g. no unanswerable questions), plus
    the counts and the declined questions' reasons."""
    answerable = np.array([o.answerable for o in outcomes], dtype=bool)
    abstained = np.array([o.abstained for o in outcomes], dtype=bool)
    point = abstention_figures(answerable, abstained)
    draws = _stratified_bootstrap(answerable, abstained, abstention_figures, n_resamples, seed) \
        if len(outcomes) else {}
    report: dict[str, Any] = {}
    for key in METRICS:
        values = draws.get(key, np.array([]))
        values = values[np.isfinite(values)]
        finite = math.isfinite(point[key])
        low, high = np.percentile(values, [2.5, 97.5]) if finite and len(values) else (math.nan,) * 2
        report[key] = {"value": point[key] if finite else None,
                       "ci95": [float(low), float(high)] if finite and len(values) else [None, None]}
    kinds: dict[str, int] = {}
    for o in outcomes:
        if o.abstained:
            kinds[o.kind or "?"] = kinds.get(o.kind or "?", 0) + 1
    report["counts"] = {
        "answerable": int(answerable.sum()), "unanswerable": int((~answerable).sum()),
        "declined_unanswerable": int((abstained & ~answerable).sum()),
        "declined_answerable": int((abstained & answerable).sum()), "reasons": kinds,
    }
    report["declined"] = {o.qid: o.kind for o in outcomes if o.abstained}  # per question
    return report


__all__ = ["METRICS", "AbstainOutcome", "abstention_figures", "abstention_report"]
