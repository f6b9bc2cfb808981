"""Score a preset on a BEIR dataset: search every query, map chunks to documents, summarize.

Chunk hits map to their BEIR document by the best chunk score (MaxP, Dai & Callan 2019) unless
`doc_score` says otherwise (eval.runs.doc_scores), so document-level qrels score any chunker.
A query that raises is kept with its error and counted in `failed`; the run goes on. A query the
pipeline refuses (the input guard) is kept with an empty ranking, scored 0 and named in
`blocked_by`: the refusal is the system's answer, not a harness failure.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from eval.data.shapes import BeirDataset
from eval.runs.doc_scores import MAX, DocScore, doc_ranking
from eval.scoring.metrics import DEFAULT_METRICS, MetricScores, evaluate, parse_metric, trec_ranking
from eval.scoring.stats import CiMemo, bootstrap_cis
from rag.index.hits import Candidate
from rag.retrieve.search import clear_candidate_cache

# query text -> candidates best first (one searcher per preset, built by eval.runs.beir_index)
Searcher = Callable[[str], Sequence[Candidate]]


class QueryBlocked(Exception):
    """A searcher's query the pipeline refused; the message names the stage and its reason."""


def unless_refused(searcher: Searcher, query: str) -> Sequence[Candidate]:
    """The searcher's ranking, or none when the pipeline refuses the query (pools and mining
    treat a refusal as finding nothing; a scored run records it: search_all)."""
    try:
        return searcher(query)
    except QueryBlocked:
        return ()


@dataclass(frozen=True)
class QueryOutcome:
    """One query's document ranking {doc_id: score}, its latency, or the error it raised;
    `blocked` names the stage that refused it (its ranking is then empty)."""

    qid: str
    ranking: Mapping[str, float]
    latency_ms: float
    error: str | None = None
    blocked: str | None = None


@dataclass(frozen=True)
class RunSummary:
    """The figures of one preset's run, in the report's JSON shape (see `as_json`)."""

    preset: str
    n_queries: int
    failed: int
    metrics: Mapping[str, float]  # NaN when every query failed
    ci95: Mapping[str, tuple[float, float]]
    latency_ms: Mapping[str, float]
    blocked: int = 0  # refused by the pipeline: scored 0, not failed

    def as_json(self) -> dict[str, Any]:
        def num(x: float) -> float | None:  # JSON has no NaN: a failed figure is null
            return x if math.isfinite(x) else None

        return {
            "preset": self.preset,
            "n_queries": self.n_queries,
            "failed": self.failed,
            "blocked": self.blocked,
            "metrics": {k: num(v) for k, v in self.metrics.items()},
            "ci95": {k: [num(lo), num(hi)] for k, (lo, hi) in self.ci95.items()},
            "latency_ms": {k: num(v) for k, v in self.latency_ms.items()},
        }


@dataclass(frozen=True)
class PresetRun:
    summary: RunSummary
    outcomes: tuple[QueryOutcome, ...]
    scores: Mapping[str, MetricScores]

    def per_query_rows(self, queries: Mapping[str, str]) -> list[dict[str, Any]]:
        """One JSON-ready row per query: metrics, latency, error, ranking (best first)."""
        rows = []
        for outcome in self.outcomes:
            failures = [s.failed[outcome.qid] for s in self.scores.values()
                        if outcome.qid in s.failed]
            scores = outcome.ranking
            ranking = [[d, scores[d] if math.isfinite(scores[d]) else None]
                       for d in trec_ranking(scores)]
            rows.append({
                "preset": self.summary.preset,
                "qid": outcome.qid,
                "query": queries.get(outcome.qid, ""),
                "metrics": {k: s.values.get(outcome.qid) for k, s in self.scores.items()},
                "latency_ms": outcome.latency_ms,
                "error": outcome.error or (failures[0] if failures else None),
                "blocked_by": outcome.blocked,
                "ranking": ranking,
            })
        return rows


def search_all(
    dataset: BeirDataset, searcher: Searcher, label: str = "", limit: int | None = None,
    doc_score: DocScore = MAX,
) -> tuple[QueryOutcome, ...]:
    """Run every query through `searcher` with a progress bar; errors are kept per query."""
    outcomes = []
    for qid, text in tqdm(dataset.queries.items(), desc=label or "queries", unit="q"):
        start = time.perf_counter()
        try:
            candidates = searcher(text)
        except QueryBlocked as refusal:
            elapsed = (time.perf_counter() - start) * 1000
            outcomes.append(QueryOutcome(qid, {}, elapsed, blocked=str(refusal)))
            continue
        except Exception as exc:  # noqa: BLE001 -- recorded per query, counted in "failed"
            elapsed = (time.perf_counter() - start) * 1000
            outcomes.append(QueryOutcome(qid, {}, elapsed, f"{type(exc).__name__}: {exc}"))
            continue
        elapsed = (time.perf_counter() - start) * 1000
        outcomes.append(QueryOutcome(qid, doc_ranking(candidates, limit, doc_score), elapsed))
    return tuple(outcomes)


def summarize(
    preset: str,
    dataset: BeirDataset,
    outcomes: Sequence[QueryOutcome],
    metrics: Sequence[str] = DEFAULT_METRICS,
    n_resamples: int = 2000,
    seed: int = 0,
) -> PresetRun:
    """Metrics, bootstrap CIs and latency percentiles over the queries that did not fail."""
    results = {o.qid: o.ranking for o in outcomes if o.error is None}
    return summarize_scores(preset, outcomes, evaluate(dataset.qrels, results, metrics),
                            n_resamples, seed)


def summarize_scores(
    preset: str,
    outcomes: Sequence[QueryOutcome],
    scores: Mapping[str, MetricScores],
    n_resamples: int = 2000,
    seed: int = 0,
    ci_memo: CiMemo | None = None,
) -> PresetRun:
    """summarize with the outcomes' metrics already computed (`scores`, as evaluate gives them:
    values in qid order); `ci_memo` shares intervals between runs (a sweep's points)."""
    failed = {o.qid for o in outcomes if o.error is not None}
    failed |= {qid for s in scores.values() for qid in s.failed}
    columns = [[s.values[q] for q in sorted(s.values)] for s in scores.values()]
    intervals = bootstrap_cis(columns, 0.95, n_resamples, seed, ci_memo)
    ci95 = {key: (i.low, i.high) for key, i in zip(scores, intervals, strict=True)}
    latencies = [o.latency_ms for o in outcomes if o.error is None]
    p50, p95 = np.percentile(latencies, [50, 95]) if latencies else (math.nan, math.nan)
    summary = RunSummary(
        preset=preset,
        n_queries=len(outcomes),
        failed=len(failed),
        blocked=sum(o.blocked is not None for o in outcomes),
        metrics={k: s.mean for k, s in scores.items()},
        ci95=ci95,
        latency_ms={"p50": float(p50), "p95": float(p95)},
    )
    return PresetRun(summary, tuple(outcomes), scores)


def run_preset(
    dataset: BeirDataset,
    preset: str,
    searcher: Searcher,
    metrics: Sequence[str] = DEFAULT_METRICS,
    n_resamples: int = 2000,
    seed: int = 0,
    doc_score: DocScore = MAX,
) -> PresetRun:
    """Search every query and score the run (chunks to documents by `doc_score`). The in-memory
    candidate cache is emptied first, so a preset never reuses another's lists and its latencies
    are its own."""
    clear_candidate_cache()
    outcomes = search_all(dataset, searcher, preset, deepest_cutoff(metrics), doc_score)
    return summarize(preset, dataset, outcomes, metrics, n_resamples, seed)


def deepest_cutoff(metrics: Sequence[str]) -> int:
    """How many documents a run must return for every metric (100 for recall@100)."""
    return max((parse_metric(m).k or 0 for m in metrics), default=0) or 1000


def perquery_path(out: Path) -> Path:
    return out.with_name(out.stem + ".perquery.jsonl")


def write_report(runs: Sequence[PresetRun], queries: Mapping[str, str], out: Path) -> Path:
    """Write {"runs": [...]} to `out` and one JSON line per (preset, query) beside it."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"runs": [r.summary.as_json() for r in runs]}, indent=2) + "\n")
    side = perquery_path(out)
    with side.open("w", encoding="utf-8") as handle:
        for run in runs:
            for row in run.per_query_rows(queries):
                handle.write(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n")
    return side
