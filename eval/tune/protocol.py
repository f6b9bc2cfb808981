"""Nested, out-of-fold tuning: choose on training folds, score on the held-out fold.

Queries are split into K seeded folds. For each fold the search runs on the other K-1 folds
only; the point it chooses scores the held-out fold. Every query is scored exactly once, by a
point chosen (and, for a learning fusion method, fitted) without it: those out-of-fold scores
are the estimate. The same search on all queries gives the in-sample best — the number a plain
sweep would report — and the point `--final` exports; the gap between the two is the optimism.
A learning method's training score is itself cross-validated (inner folds of the training
queries), so selection never rewards a model for scoring the queries it was fitted on.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from eval.data.shapes import BeirDataset
from eval.scoring.metrics import DEFAULT_METRICS, parse_metric
from eval.tune.distributed import StudySpec
from eval.tune.scorer import ChunkQrels, Note, PointScorer, Scores, single_retriever_point
from eval.tune.search import OnTrial, Search, search
from eval.tune.space import Space
from rag.config import PipelineConfig, with_overrides

INNER_FOLDS = 3  # folds inside a training set, for methods that learn


class Scorer(Protocol):
    """Per-query scores of points (eval.tune.scorer.PointScorer runs the pipeline's tail)."""

    metrics: tuple[str, ...]

    def needs_fit(self, point: Mapping[str, Any]) -> bool: ...

    def scores(self, point: Mapping[str, Any], qids: Sequence[str],
               train: Sequence[str] | None = None) -> Scores: ...

    def in_sample_scores(self, point: Mapping[str, Any], qids: Sequence[str]) -> Scores: ...


@dataclass(frozen=True)
class FoldResult:
    fold: int
    test: tuple[str, ...]
    search: Search
    chosen: Mapping[str, Any]
    train_score: float  # the chosen point's objective on the training folds
    test_score: float  # its objective on the held-out fold


@dataclass(frozen=True)
class TuneResult:
    preset: str
    space: Space
    metrics: tuple[str, ...]
    folds: tuple[FoldResult, ...]
    oof: Scores  # every query's out-of-fold scores (metric -> qid -> value)
    fold_of: Mapping[str, int]
    in_sample: Search  # the search on all queries
    in_sample_scores: Scores  # the in-sample best point on all queries
    final: PipelineConfig  # that point applied to the preset (fitted on all queries if it learns)
    baselines: Mapping[str, Scores]  # "default" (out of fold when it learns), each retriever
    n_trials: int
    seed: int
    retrieval_s: float
    rescoring_s: float
    total_s: float
    tails: int
    notes: tuple[str, ...]

    @property
    def objective(self) -> str:
        return self.space.objective


def split_folds(qids: Sequence[str], k: int, seed: int) -> list[tuple[str, ...]]:
    """`qids` shuffled (seeded) into k folds of near-equal size, each sorted."""
    if k < 2:
        raise ValueError(f"folds must be >= 2, got {k}")
    if len(qids) < k:
        raise ValueError(f"{len(qids)} queries cannot make {k} folds")
    order = sorted(qids)
    random.Random(seed).shuffle(order)
    return [tuple(sorted(order[i::k])) for i in range(k)]


def mean_objective(scores: Scores, metric: str, qids: Sequence[str]) -> float:
    """The mean over `qids`; a failed query counts as 0, so failing never helps a point."""
    values = scores[metric]
    return float(np.mean([values.get(q, 0.0) for q in qids])) if qids else math.nan


def training_objective(
    scorer: Scorer, metric: str, train: Sequence[str], seed: int
) -> Callable[[Mapping[str, Any]], float]:
    """A point's score on `train` alone: in-sample for fixed methods, inner-fold out-of-sample
    for methods that learn."""

    def objective(point: Mapping[str, Any]) -> float:
        if not scorer.needs_fit(point):
            return mean_objective(scorer.scores(point, train), metric, train)
        merged: Scores = {m: {} for m in scorer.metrics}
        for part in split_folds(train, min(INNER_FOLDS, len(train)), seed):
            rest = [q for q in train if q not in set(part)]
            for m, values in scorer.scores(point, part, rest).items():
                merged[m].update(values)
        return mean_objective(merged, metric, train)

    return objective


def out_of_fold(scorer: Scorer, folds: Sequence[tuple[str, ...]],
                points: Sequence[Mapping[str, Any]], qids: Sequence[str]) -> Scores:
    """Each fold scored by its own point, fitted (when it learns) on the other folds."""
    merged: Scores = {m: {} for m in scorer.metrics}
    for test, point in zip(folds, points, strict=True):
        train = [q for q in qids if q not in set(test)] if scorer.needs_fit(point) else None
        for m, values in scorer.scores(point, test, train).items():
            merged[m].update(values)
    return merged


@dataclass(frozen=True)
class CrossValidation:
    folds: tuple[FoldResult, ...]
    oof: Scores
    in_sample: Search
    in_sample_scores: Scores
    splits: tuple[tuple[str, ...], ...]


ProgressFn = Callable[[str, int, int, float], None]  # (stage, done, planned, best so far)


def cross_validate(
    scorer: Scorer, qids: Sequence[str], space: Space, folds: int, n_trials: int, seed: int,
    on_trial: ProgressFn | None = None, progress: bool = True, study: StudySpec | None = None,
) -> CrossValidation:
    """Per fold: search on the other folds, score the fold with the choice. Then the same search
    on all queries (the in-sample best)."""
    splits = split_folds(qids, folds, seed)
    metric = space.objective

    def reporter(stage: str) -> OnTrial | None:
        if on_trial is None:
            return None
        return lambda done, planned, best: on_trial(stage, done, planned, best)

    results: list[FoldResult] = []
    for i, test in enumerate(splits):
        train = [q for q in qids if q not in set(test)]
        stage = f"fold {i + 1}/{folds}"
        found = search(space, training_objective(scorer, metric, train, seed), n_trials,
                       seed + i, stage, reporter(stage), progress, study)
        chosen = found.best.point
        held = out_of_fold(scorer, [test], [chosen], qids)
        results.append(FoldResult(i, test, found, chosen, found.best.score,
                                  mean_objective(held, metric, test)))
    oof = out_of_fold(scorer, splits, [r.chosen for r in results], qids)
    everything = search(space, training_objective(scorer, metric, qids, seed), n_trials, seed,
                        "all queries (in-sample)", reporter("all"), progress, study)
    in_sample = scorer.in_sample_scores(everything.best.point, qids)
    return CrossValidation(tuple(results), oof, everything, in_sample, tuple(splits))


def run_tune(
    dataset: BeirDataset,
    base: PipelineConfig,
    space: Space,
    folds: int = 5,
    n_trials: int = 50,
    seed: int = 0,
    metrics: Sequence[str] = DEFAULT_METRICS,
    use_cache: bool = True,
    on_trial: ProgressFn | None = None,
    progress: bool = True,
    note: Note = print,
    chunk_qrels: ChunkQrels | None = None,
    study: StudySpec | None = None,
) -> TuneResult:
    """Tune `base` over `space` with K-fold out-of-fold selection; see the module docstring.
    `on_trial(stage, done, planned, best)` reports progress (stage: "fold i/K" or "all").
    Span sets pass `chunk_qrels` (eval.data.evalsets.EvalSet.qrels_for): each list group is
    then scored chunk by chunk against its own collection's chunks. With `study`, every search is
    an Optuna study in shared storage (eval.tune.distributed) that other processes work on too."""
    started = time.perf_counter()
    metrics = tuple(dict.fromkeys([space.objective, *metrics]))
    for m in metrics:
        parse_metric(m)
    notes: list[str] = []

    def say(text: str) -> None:
        notes.append(text)
        note(text)

    if space.list_changing():
        say("settings " + ", ".join(space.list_changing()) + " change the candidate lists: each "
            "value gets its own collection (indexed if new) and head run")
    scorer = PointScorer(dataset, base, metrics, space.max_depth(base), use_cache, say,
                         chunk_qrels)
    qids = sorted(q for q in dataset.queries if q in dataset.qrels)
    cv = cross_validate(scorer, qids, space, folds, n_trials, seed, on_trial, progress, study)
    best = cv.in_sample.best.point
    final = scorer.fitted(best, qids, with_overrides(base, dict(best)))
    baselines: dict[str, Scores] = {"default": out_of_fold(scorer, cv.splits, [{}] * folds, qids)}
    if len(base.retrieval.retrievers) > 1:
        for name in base.retrieval.retrievers:
            baselines[name] = scorer.scores(single_retriever_point(name), qids)
    return TuneResult(
        base.name, space, metrics, cv.folds, cv.oof,
        {q: r.fold for r in cv.folds for q in r.test}, cv.in_sample, cv.in_sample_scores, final,
        baselines, n_trials, seed, scorer.retrieval_s, scorer.rescoring_s,
        time.perf_counter() - started, scorer.tails, tuple(notes))
