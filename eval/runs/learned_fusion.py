"""Fit learned fusion (rag.retrieve.fusion.learned) on training queries' cached heads and qrels.

    model = fit_learned_fusion(heads, qrels, "fold1.model.json", depth=100)
    config = with_overrides(config, {"fusion.method": "learned", "fusion.model": "fold1.model.json"})

`heads` are eval.runs.candidates.retrieve_all's QueryLists of the queries to train on (never the
ones the model will be scored on); each list is cut to `depth`, the depth the tail will fuse at.
A candidate is a positive when qrels judge its chunk's document relevant (> 0), so the model
learns what a document-level run rewards. Features are built by the same function that scores
(rag.retrieve.fusion.learned.candidate_features), so training and serving cannot drift apart.
The fit is scikit-learn's LogisticRegression on standardized features (L2, C); the model file
is plain JSON (lists, means, scales, coefficients, intercept, what it was trained on).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import numpy as np

from eval.data.shapes import Qrels
from eval.runs.candidates import QueryLists, truncate
from rag.retrieve.fusion.base import cut_to_depths, pool
from rag.retrieve.fusion.learned import (
    LearnedModel,
    LearnedModelError,
    candidate_features,
    feature_names,
)


@dataclass(frozen=True)
class TrainingSet:
    """One row per (query, candidate): features, label (document judged relevant), query id."""

    lists: tuple[str, ...]
    x: np.ndarray
    y: np.ndarray
    qids: tuple[str, ...]


def list_names(heads: Sequence[QueryLists]) -> tuple[str, ...]:
    """Every list name the heads produced, in first-seen order (the model's list order)."""
    names: dict[str, None] = {}
    for item in heads:
        names.update(dict.fromkeys(item.lists))
    return tuple(names)


def training_set(heads: Sequence[QueryLists], qrels: Qrels, depth: int | None = None,
                 depths: Mapping[str, int] | None = None) -> TrainingSet:
    """Rows for every candidate of every head with qrels (failed heads are skipped); lists cut
    to `depth`, then each to its `depths` entry (fusion.depths), as the fusion will read them."""
    usable = [h for h in heads if h.error is None and h.head is not None and qrels.get(h.qid)]
    lists = list_names(usable)
    xs, ys, qids = [], [], []
    for item in usable:
        cut = truncate(item.lists, depth) if depth is not None else dict(item.lists)
        found = pool(cut_to_depths(tuple(cut.values()), depths or {}))
        query = item.head.query if item.head is not None else ""
        ids, x = candidate_features(found, lists, query)
        judged = qrels[item.qid]
        xs.append(x)
        ys.append(np.array([judged.get(found.chunks[cid].doc_id, 0) > 0 for cid in ids], dtype=int))
        qids += [item.qid] * len(ids)
    x_all = np.vstack(xs) if xs else np.zeros((0, len(feature_names(lists))))
    y_all = np.concatenate(ys) if ys else np.zeros(0, dtype=int)
    return TrainingSet(lists, x_all, y_all, tuple(qids))


def fit_model(data: TrainingSet, c: float = 1.0, depth: int | None = None) -> LearnedModel:
    """Standardize, fit L2 logistic regression; an unlearnable set is a LearnedModelError."""
    from sklearn.linear_model import LogisticRegression  # heavy: only when fitting

    positives = int(data.y.sum())
    if positives == 0 or positives == len(data.y):
        raise LearnedModelError(
            f"cannot fit learned fusion: {positives} relevant of {len(data.y)} candidates "
            f"in {len(set(data.qids))} queries — training needs both relevant and other candidates"
        )
    mean = data.x.mean(axis=0)
    scale = data.x.std(axis=0)
    scale[scale == 0] = 1.0  # a constant feature gets weight 0 and divides by nothing
    fitted = LogisticRegression(C=c, max_iter=2000).fit((data.x - mean) / scale, data.y)
    trained = {"queries": len(set(data.qids)), "candidates": len(data.y), "positives": positives,
               "C": c, "depth": depth, "library": "scikit-learn LogisticRegression"}
    return LearnedModel(
        lists=data.lists, mean=tuple(map(float, mean)), scale=tuple(map(float, scale)),
        coef=tuple(map(float, fitted.coef_[0])), intercept=float(fitted.intercept_[0]),
        trained=MappingProxyType(trained),
    )


def fit_learned_fusion(
    heads: Sequence[QueryLists], qrels: Qrels, out: str | Path | None = None,
    depth: int | None = None, c: float = 1.0, depths: Mapping[str, int] | None = None,
) -> LearnedModel:
    """Fit on `heads` (training queries only) and, when `out` is given, write the model file
    that `fusion.model` names. Returns the model (its `weights()` are readable per feature)."""
    model = fit_model(training_set(heads, qrels, depth, depths), c, depth)
    if out is not None:
        model.save(out)
    return model
