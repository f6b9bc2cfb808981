"""Score configurations on an EvalSet with a progress callback: what the Evaluate page and the
notebooks call. Document sets go through eval.runs.preset_run / eval.runs.sweep unchanged; span sets
are scored chunk by chunk against the span labels of each configuration's own chunks."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from eval.data.evalsets import EvalSet, as_chunk_units
from eval.runs.beir_index import (
    MODES,
    Mode,
    beir_collection,
    eval_config,
    full_searcher,
    retrieval_searcher,
)
from eval.runs.preset_run import PresetRun, Searcher, run_preset
from eval.runs.sweep import GridAxis, SweepResult, point_config, run_sweep
from eval.scoring.judged import DEPTH, JudgedScores, judged_scores
from eval.scoring.metrics import DEFAULT_METRICS
from rag.config import PipelineConfig
from rag.index.hits import Candidate

Progress = Callable[[int, int, str], None]  # (queries done, queries in all, what is running)


@dataclass(frozen=True)
class ScoredRun:
    """A configuration's run on a set: its label, the config as scored, the per-query results."""

    label: str
    config: PipelineConfig
    run: PresetRun


@dataclass(frozen=True)
class SweepRun:
    """A sweep (eval.runs.sweep.SweepResult) with each point as a ScoredRun, for drill-down."""

    result: SweepResult
    runs: tuple[ScoredRun, ...]


def _reporting(searcher: Searcher, total: int, label: str, progress: Progress | None) -> Searcher:
    """`searcher`, calling `progress` after each query (so a page can move its bar)."""
    if progress is None:
        return searcher
    done = 0

    def search(query: str) -> Sequence[Candidate]:
        nonlocal done
        try:
            return searcher(query)
        finally:  # a failed query is done too: eval.runs.preset_run records its error
            done += 1
            progress(done, total, label)

    return search


def _by_chunk(searcher: Searcher) -> Searcher:
    """Span sets judge chunks: each candidate's chunk becomes its own unit (as_chunk_units)."""

    def search(query: str) -> Sequence[Candidate]:
        return as_chunk_units(searcher(query))

    return search


def score_config(
    evalset: EvalSet,
    config: PipelineConfig,
    label: str | None = None,
    *,
    metrics: Sequence[str] = DEFAULT_METRICS,
    mode: Mode = "retrieval",
    n_resamples: int = 1000,
    seed: int = 0,
    progress: Progress | None = None,
) -> ScoredRun:
    """Index the set for `config` (once per index settings), search every query, score it."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; valid: {', '.join(MODES)}")
    label = label or config.name
    collection = beir_collection(evalset.dataset, config, progress=False)
    scored = eval_config(config, evalset.dataset)
    searcher = (retrieval_searcher if mode == "retrieval" else full_searcher)(scored, collection)
    dataset = evalset.scoring_dataset(collection.chunks())
    if evalset.unit == "chunk":
        searcher = _by_chunk(searcher)
    searcher = _reporting(searcher, len(dataset.queries), label, progress)
    run = run_preset(dataset, label, searcher, metrics, n_resamples, seed)
    return ScoredRun(label, scored, run)


def score_configs(
    evalset: EvalSet,
    configs: Mapping[str, PipelineConfig],
    *,
    metrics: Sequence[str] = DEFAULT_METRICS,
    mode: Mode = "retrieval",
    n_resamples: int = 1000,
    seed: int = 0,
    progress: Progress | None = None,
) -> tuple[ScoredRun, ...]:
    """`score_config` for each (label, config), in order."""
    return tuple(
        score_config(evalset, config, label, metrics=metrics, mode=mode,
                     n_resamples=n_resamples, seed=seed, progress=progress)
        for label, config in configs.items()
    )


def sweep_grid(
    evalset: EvalSet,
    base: PipelineConfig,
    axes: Sequence[GridAxis],
    *,
    metrics: Sequence[str] = DEFAULT_METRICS,
    n_resamples: int = 1000,
    seed: int = 0,
    use_cache: bool = True,
) -> SweepRun:
    """Score `base` at every point of the grid (eval.runs.sweep.run_sweep): fusion, weight, threshold
    and depth values re-score one cached retrieval; other fields re-index. Span sets are
    judged chunk by chunk against each collection's chunks."""
    chunk_qrels = evalset.qrels_for if evalset.unit == "chunk" else None
    result = run_sweep(evalset.dataset, base, axes, metrics, n_resamples, seed, use_cache,
                       chunk_qrels)
    runs = tuple(
        ScoredRun(point.run.summary.preset, point_config(base, point.overrides, evalset.dataset),
                  point.run)
        for point in result.points
    )
    return SweepRun(result, runs)


def honest_scores(evalset: EvalSet, scored: ScoredRun, depth: int = DEPTH) -> JudgedScores:
    """A run's share of unjudged passages in its top `depth`, with bpref and condensed nDCG
    beside nDCG (eval.scoring.judged), judged against the chunks of the collection it ran on."""
    collection = beir_collection(evalset.dataset, scored.config, progress=False)
    qrels = evalset.qrels_for(collection.chunks())
    results = {o.qid: o.ranking for o in scored.run.outcomes if o.error is None}
    return judged_scores(scored.label, qrels, results, depth)
