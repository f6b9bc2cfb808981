"""Scores-only sweep points: every query fused, mapped to documents and scored as arrays.

A point whose tail is fuse → select alone with a scores-only fusion twin
(eval.runs.sweep.scores_only) needs no Candidate, trace or per-query Python: its queries'
lists, pooled once per list group (`pooled_lists`), are fused together
(rag.retrieve.fusion.scores), cut to top_k chunks, mapped to documents at their best chunk
(MaxP, as eval.runs.doc_scores.doc_ranking), cut to `limit` documents, ranked as trec_eval ranks
them (score descending, ties by doc id descending: eval.scoring.metrics.trec_ranking) and scored
from their relevant hits (eval.scoring.hit_arrays), whose per-query constants the pool keeps for
every point. tests/eval/runs/test_sweep.py checks such points equal plain runs of their configs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from eval.data.shapes import Qrels
from eval.runs.candidates import QueryLists
from eval.scoring.hit_arrays import QueryConstants, RunHits, hit_metrics
from eval.scoring.metrics import MetricSpec
from rag.config import PipelineConfig
from rag.retrieve.fusion.scores import FUSION_SCORES, PooledIds, cuts, pool_batch


@dataclass(frozen=True)
class PooledLists:
    """The queries whose head left nothing else for the tail to read (no error, no routing
    overrides, no halt), their lists pooled once (rag.retrieve.fusion.scores.pool_batch), each
    pooled chunk's document, and what scoring them against `qrels` needs at every point."""

    pooled: PooledIds
    doc_of: tuple[str, ...]  # pool index -> doc_id
    qrels: Qrels
    doc_ids: tuple[str, ...]  # the pool's documents, sorted (trec_eval's tie order)
    doc_index: np.ndarray  # pool index -> position of its document in doc_ids
    gain: np.ndarray  # pool index -> its query's judged relevance of its document (0: none)
    constants: QueryConstants  # per pooled query: relevant count, ideal DCG


def pooled_lists(cached: Sequence[QueryLists], qrels: Qrels) -> PooledLists:
    """The scores-only input of eval.runs.sweep.rescore for these heads, built once per list
    group; `qrels` are the ones the points are scored against."""
    lists: dict[str, dict[str, list[str]]] = {}
    doc_id: dict[str, str] = {}
    for item in cached:
        head = item.head
        if item.error is not None or head is None or head.overrides or head.halted:
            continue  # these always run the tail
        lists[item.qid] = {name: [c.chunk.chunk_id for c in r.candidates]
                           for name, r in item.lists.items()}
        doc_id.update((c.chunk.chunk_id, c.chunk.doc_id) for r in item.lists.values()
                      for c in r.candidates)
    pooled = pool_batch(lists)
    doc_of = tuple(doc_id[cid] for cid in pooled.ids)
    doc_ids = tuple(sorted(set(doc_of)))
    where = {d: i for i, d in enumerate(doc_ids)}
    judged = [qrels.get(qid, {}) for qid in pooled.queries]
    gain = [judged[q].get(d, 0) for q, d in zip(pooled.owner.tolist(), doc_of, strict=True)]
    return PooledLists(pooled, doc_of, qrels, doc_ids,
                       np.array([where[d] for d in doc_of], dtype=np.int64),
                       np.array(gain, dtype=np.int64), QueryConstants(judged))


@dataclass(frozen=True)
class PointScores:
    """One point over the pooled queries: each query's document ranking (best first) and, for
    the queries with qrels, each metric's value by qid (in qid order, as evaluate gives them)."""

    rankings: Mapping[str, dict[str, float]]
    values: Mapping[str, dict[str, float]]


def _within(owner: np.ndarray, n_queries: int, limit: int | None) -> np.ndarray:
    """Mask of the first `limit` entries of each query (entries grouped by query, in order)."""
    if limit is None:
        return np.ones(owner.size, dtype=bool)
    starts = np.searchsorted(owner, np.arange(n_queries))
    return np.arange(owner.size) - starts[owner] < limit


def _best_first(owner: np.ndarray, score: np.ndarray) -> np.ndarray:
    """The order that sorts entries by query, then score descending, ties kept in place (the
    pool's chunk id order): np.lexsort((-score, owner)), as two stable sorts, the second on
    small integers (numpy radix-sorts 16-bit keys: a third of lexsort's time)."""
    by_score = np.argsort(-score, kind="stable")
    small = owner.astype(np.int16) if owner.size and owner.max() < 2**15 else owner
    return by_score[np.argsort(small[by_score], kind="stable")]


def _trec_positions(owner: np.ndarray, score: np.ndarray, doc: np.ndarray) -> np.ndarray:
    """Where each entry (grouped by query, score descending) stands in trec_eval's order, which
    breaks score ties by doc id descending: only runs of equal scores are re-sorted."""
    size = owner.size
    position = np.arange(size)
    if size < 2:
        return position
    starts_run = np.ones(size, dtype=bool)
    starts_run[1:] = (owner[1:] != owner[:-1]) | (score[1:] != score[:-1])
    run = np.cumsum(starts_run) - 1
    run_size = np.bincount(run)
    tied = np.flatnonzero(run_size[run] > 1)  # ascending: each tied run's places, in order
    if tied.size:
        position[tied[np.lexsort((-doc[tied], run[tied]))]] = tied
    return position


def score_point(ids: PooledLists, config: PipelineConfig, limit: int,
                specs: Sequence[MetricSpec]) -> PointScores:
    """Rankings and metrics of every pooled query at `config` (a scores-only point); raises
    ValueError where the fusion twin does (e.g. no weight for a list)."""
    pooled = ids.pooled
    n = len(pooled.queries)
    read = cuts(pooled, config.retrieval.depth, config.fusion.depths)
    fused = FUSION_SCORES.get(config.fusion.method)(pooled, read, config.fusion)
    found = np.flatnonzero(fused.present)
    owner = pooled.owner[found]
    order = _best_first(owner, fused.scores[found])
    chunk, owner = found[order], owner[order]
    kept = _within(owner, n, config.retrieval.top_k)
    chunk, owner = chunk[kept], owner[kept]
    doc = ids.doc_index[chunk]
    # MaxP: a document at its first (best) chunk; np.unique's first index per (query, doc)
    _, first = np.unique(owner * len(ids.doc_ids) + doc, return_index=True)
    first.sort()
    chunk, owner, doc = chunk[first], owner[first], doc[first]
    kept = _within(owner, n, limit)
    chunk, owner, doc = chunk[kept], owner[kept], doc[kept]
    score = fused.scores[chunk]
    bounds = np.searchsorted(owner, np.arange(n + 1)).tolist()
    names = [ids.doc_ids[d] for d in doc.tolist()]
    scores = score.tolist()
    rankings = {qid: dict(zip(names[lo:hi], scores[lo:hi], strict=True))
                for qid, lo, hi in zip(pooled.queries, bounds, bounds[1:], strict=False)}
    starts = np.asarray(bounds[:-1], dtype=np.int64)
    hit = np.flatnonzero(ids.gain[chunk] > 0)
    query = owner[hit]
    rank = _trec_positions(owner, score, doc)[hit] - starts[query]
    by_rank = np.argsort(query * (len(scores) + 1) + rank)  # hits in query, then rank order
    hits = RunHits(query[by_rank], rank[by_rank], ids.gain[chunk[hit]][by_rank],
                   np.bincount(owner, minlength=n))
    arrays = hit_metrics(hits, ids.constants, specs)
    scored = sorted((qid, q) for q, qid in enumerate(pooled.queries) if qid in ids.qrels)
    values = {key: {qid: column[q] for qid, q in scored}
              for key, column in ((k, a.tolist()) for k, a in arrays.items())}
    return PointScores(rankings, values)
