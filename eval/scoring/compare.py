"""Two runs query by query: wins and losses on a metric, and drill-down from a query to its trace.

The paired test itself is eval.scoring.stats.paired_test; this module lines the runs up per query so a
user can see *which* queries moved, then re-run one through the pipeline (rag.pipeline.run_query)
to read every stage's candidates and scores.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from eval.data.evalsets import EvalSet
from eval.runs.beir_index import beir_collection, eval_config
from eval.runs.preset_run import PresetRun
from eval.scoring.stats import PairedComparison, paired_test
from rag.chunking.base import Chunk
from rag.config import PipelineConfig
from rag.pipeline import run_query
from rag.trace import Trace

Outcome = Literal["win", "loss", "tie"]


@dataclass(frozen=True)
class QueryDelta:
    """One query's metric under run A and run B; a win means B scored higher."""

    qid: str
    query: str
    a: float
    b: float

    @property
    def delta(self) -> float:
        return self.b - self.a

    @property
    def outcome(self) -> Outcome:
        return "win" if self.b > self.a else "loss" if self.b < self.a else "tie"


def query_deltas(
    a: PresetRun, b: PresetRun, metric: str, queries: Mapping[str, str]
) -> tuple[QueryDelta, ...]:
    """Per-query values of `metric` on the queries both runs scored, biggest change first."""
    va, vb = _values(a, metric), _values(b, metric)
    rows = [QueryDelta(q, queries.get(q, ""), va[q], vb[q]) for q in va.keys() & vb.keys()]
    return tuple(sorted(rows, key=lambda r: (-abs(r.delta), r.qid)))


def compare(
    a: PresetRun, b: PresetRun, metric: str, n_resamples: int = 10_000, seed: int = 0
) -> PairedComparison:
    """B minus A on `metric`: mean difference, its bootstrap CI and a randomization p-value."""
    return paired_test(_values(a, metric), _values(b, metric), n_resamples=n_resamples, seed=seed)


def _values(run: PresetRun, metric: str) -> Mapping[str, float]:
    scores = run.scores.get(metric)
    if scores is None:
        raise KeyError(f"run {run.summary.preset!r} has no metric {metric!r}; "
                       f"it has: {', '.join(run.scores)}")
    return scores.values


def ranked_queries(run: PresetRun, metric: str, queries: Mapping[str, str]) -> list[str]:
    """Query ids worst first on `metric` (failed queries first of all): where to drill down."""
    values = run.scores[metric].values if metric in run.scores else {}
    return sorted(queries, key=lambda q: (q in values, values.get(q, 0.0), q))


def trace_query(evalset: EvalSet, config: PipelineConfig, qid: str) -> Trace:
    """Run one query of the set through every stage of `config` over the set's collection."""
    if qid not in evalset.dataset.queries:
        raise KeyError(f"no query {qid!r} in {evalset.name!r}")
    config = eval_config(config, evalset.dataset)
    collection = beir_collection(evalset.dataset, config, progress=False)
    return run_query(evalset.dataset.queries[qid], config, collection)


def is_relevant(evalset: EvalSet, qid: str, chunk: Chunk) -> bool:
    """Whether `chunk` counts as relevant for `qid`: its document is judged relevant, or (span
    sets) it overlaps a labeled span."""
    if evalset.unit == "chunk":
        return any(s.doc == chunk.doc_id and s.overlaps(chunk.start, chunk.end)
                   for s in evalset.spans.get(qid, ()))
    return evalset.dataset.qrels.get(qid, {}).get(chunk.doc_id, 0) > 0
