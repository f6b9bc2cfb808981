"""Retrieved lists for every query of a dataset, computed once at the deepest depth and cached.

Sweeps over fusion, post-processing, weights or depth re-score these lists without running a
model: a list searched at depth D, cut to its first d candidates, is the list a search at depth
d returns (exact search). The cache lives under <data dir>/cache/eval-candidates, keyed by the
dataset hash, the collection and its last update, and every setting that changes a list.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from tqdm import tqdm

from eval.data.shapes import BeirDataset
from rag.config import PipelineConfig, with_overrides
from rag.index import Collection
from rag.paths import cache_dir
from rag.retrieve.base import Candidate, RankedList, candidate_from_dict
from rag.retrieve.search import list_settings_hash, retrieve_candidates


@dataclass(frozen=True)
class QueryLists:
    """One query's ranked lists (by retriever), the search time, or the error it raised."""

    qid: str
    lists: Mapping[str, RankedList]
    latency_ms: float
    error: str | None = None


def truncate(lists: Mapping[str, RankedList], depth: int) -> dict[str, RankedList]:
    """Each list cut to its first `depth` candidates (new RankedLists; inputs untouched)."""
    return {name: RankedList(r.retriever, r.candidates[:depth]) for name, r in lists.items()}


def _candidate_json(c: Candidate) -> dict[str, Any]:
    chunk = c.chunk
    return {
        "chunk": {"chunk_id": chunk.chunk_id, "doc_id": chunk.doc_id, "start": chunk.start,
                  "end": chunk.end, "text": chunk.text, "parent_id": chunk.parent_id,
                  "level": chunk.level, "metadata": dict(chunk.metadata)},
        "score": c.score,
        "hits": {name: {"retriever": h.retriever, "rank": h.rank, "raw_score": h.raw_score,
                        "normalized": h.normalized} for name, h in c.hits.items()},
        "contributions": dict(c.contributions),
        "stage_scores": dict(c.stage_scores),
        "notes": list(c.notes),
    }


def _to_json(item: QueryLists) -> dict[str, Any]:
    lists = {name: {"retriever": r.retriever, "candidates": [_candidate_json(c)
                                                              for c in r.candidates]}
             for name, r in item.lists.items()}
    return {"qid": item.qid, "lists": lists, "latency_ms": item.latency_ms, "error": item.error}


def _from_json(raw: Mapping[str, Any]) -> QueryLists:
    lists = {name: RankedList(r["retriever"], tuple(candidate_from_dict(c)
                                                    for c in r["candidates"]))
             for name, r in raw["lists"].items()}
    return QueryLists(raw["qid"], MappingProxyType(lists), raw["latency_ms"], raw["error"])


def cache_path(dataset: BeirDataset, config: PipelineConfig, collection: Collection) -> Path:
    parts = [dataset.content_hash, collection.name, collection.manifest.updated_at,
             list_settings_hash(config), ",".join(config.retrieval.retrievers),
             ",".join(sorted(dataset.queries))]
    key = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]
    return cache_dir("eval-candidates") / f"{key}.json.gz"


def retrieve_all(
    dataset: BeirDataset, config: PipelineConfig, collection: Collection, depth: int,
    use_cache: bool = True,
) -> tuple[tuple[QueryLists, ...], bool]:
    """Every query's lists at `depth`; returns (lists, came_from_disk_cache)."""
    config = with_overrides(config, {"retrieval.depth": depth,
                                     "retrieval.top_k": min(config.retrieval.top_k, depth)})
    path = cache_path(dataset, config, collection)
    if use_cache and path.exists():
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            return tuple(_from_json(row) for row in json.load(handle)), True
    out = []
    for qid, text in tqdm(dataset.queries.items(), desc=f"retrieving (depth {depth})", unit="q"):
        start = time.perf_counter()
        try:
            lists = retrieve_candidates(text, config, collection)
        except Exception as exc:  # noqa: BLE001 -- kept per query; every grid point counts it
            elapsed = (time.perf_counter() - start) * 1000
            out.append(QueryLists(qid, MappingProxyType({}), elapsed,
                                  f"{type(exc).__name__}: {exc}"))
            continue
        out.append(QueryLists(qid, MappingProxyType(lists),
                              (time.perf_counter() - start) * 1000))
    if use_cache:
        with gzip.open(path, "wt", encoding="utf-8") as handle:
            json.dump([_to_json(item) for item in out], handle)
    return tuple(out), False
