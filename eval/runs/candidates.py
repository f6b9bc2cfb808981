"""The head of every query's run (guard … retrieve), computed once at the deepest depth, cached.

Sweeps and tuning re-run only the pipeline's tail (fuse → postprocess → authority → rerank →
select, rag.pipeline.run_tail) over these, without running a model: a list searched at depth D,
cut to its first d candidates, is the list a search at depth d returns (exact search). What the
tail reads besides the lists — the queries searched (rewritten or expanded), filters, routing
overrides, an early halt — is kept with them. The cache lives under <data dir>/cache/eval-heads,
keyed by the dataset hash, the collection and its last update, and every setting a head depends
on (rag.pipeline.head_key).
"""

from __future__ import annotations

import gzip
import hashlib
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pydantic import TypeAdapter
from tqdm import tqdm

from eval.data.shapes import BeirDataset
from rag.config import PipelineConfig, with_overrides
from rag.index import Collection
from rag.index.hits import RankedList, SearchQuery
from rag.paths import cache_dir
from rag.pipeline import PipelineState, head_key, run_head
from rag.settings.retrieval import FilterConfig


@dataclass(frozen=True)
class QueryLists:
    """One query's ranked lists (by retriever), the head state the tail continues from, the
    search time, or the error the head raised."""

    qid: str
    lists: Mapping[str, RankedList]
    latency_ms: float
    error: str | None = None
    head: PipelineState | None = None

    def seed(self) -> PipelineState:
        """The state the tail starts from: the head's, with these (possibly cut) lists."""
        if self.head is None:
            raise ValueError(f"query {self.qid!r} has no head state ({self.error or 'no run'})")
        return replace(self.head, lists=MappingProxyType(dict(self.lists)))


def truncate(lists: Mapping[str, RankedList], depth: int) -> dict[str, RankedList]:
    """Each list cut to its first `depth` candidates (new RankedLists; inputs untouched)."""
    return {name: RankedList(r.retriever, r.candidates[:depth]) for name, r in lists.items()}


@dataclass(frozen=True)
class _Stored:
    """A QueryLists as stored on disk: the head state without its artifacts (no tail stage up
    to select reads them; the parity tests in tests/eval/runs would catch one that did)."""

    qid: str
    latency_ms: float
    error: str | None
    query: str
    queries: tuple[SearchQuery, ...]
    filters: FilterConfig
    lists: dict[str, RankedList]
    answer: str | None
    halted: str
    overrides: dict[str, Any]


_STORED = TypeAdapter(list[_Stored])


def _to_stored(item: QueryLists) -> _Stored:
    head = item.head
    if head is None:
        return _Stored(item.qid, item.latency_ms, item.error, "", (), FilterConfig(), {}, None,
                       "", {})
    return _Stored(item.qid, item.latency_ms, item.error, head.query, head.queries, head.filters,
                   dict(item.lists), head.answer, head.halted, dict(head.overrides))


def _from_stored(row: _Stored) -> QueryLists:
    lists = MappingProxyType(row.lists)
    if row.error is not None:
        return QueryLists(row.qid, MappingProxyType({}), row.latency_ms, row.error)
    head = PipelineState(row.query, row.queries, row.filters, lists, answer=row.answer,
                         halted=row.halted, overrides=MappingProxyType(row.overrides))
    return QueryLists(row.qid, lists, row.latency_ms, None, head)


def _plain(value: object) -> object:
    """What pydantic-core cannot serialise by itself: read-only mappings."""
    if isinstance(value, MappingProxyType):
        return dict(value)
    raise TypeError(f"cannot store {type(value).__name__} in the heads cache")


def _store(path: Path, heads: list[QueryLists]) -> None:
    """Write the heads in one pydantic-core call (a generic Python walk over every candidate
    cost about as much as the search), to a temporary file renamed into place: a run killed
    mid-write leaves no half file that later runs would read."""
    data = _STORED.dump_json([_to_stored(item) for item in heads], fallback=_plain, warnings=False)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    with gzip.open(partial, "wb", compresslevel=1) as handle:
        handle.write(data)
    os.replace(partial, path)


def _load(path: Path) -> list[_Stored] | None:
    """The stored heads, or None when there are none or they cannot be read (then recomputed)."""
    try:
        with gzip.open(path, "rb") as handle:
            return _STORED.validate_json(handle.read())
    except (OSError, EOFError, ValueError):  # none yet, truncated gzip, bad JSON, an older shape
        return None


def cache_path(dataset: BeirDataset, config: PipelineConfig, collection: Collection) -> Path:
    parts = [dataset.content_hash, collection.name, collection.manifest.updated_at,
             head_key(config), ",".join(sorted(dataset.queries))]
    key = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]
    return cache_dir("eval-heads") / f"{key}.json.gz"


def at_depth(config: PipelineConfig, depth: int) -> PipelineConfig:
    """The config whose heads `retrieve_all` runs and caches for `depth`."""
    return with_overrides(config, {"retrieval.depth": depth,
                                   "retrieval.top_k": min(config.retrieval.top_k, depth)})


def retrieve_all(
    dataset: BeirDataset, config: PipelineConfig, collection: Collection, depth: int,
    use_cache: bool = True, now: datetime | None = None,
) -> tuple[tuple[QueryLists, ...], bool]:
    """Every query's head run at `depth` (at `now`); returns (heads, came_from_disk_cache)."""
    config = at_depth(config, depth)
    path = cache_path(dataset, config, collection)
    if use_cache and (rows := _load(path)) is not None:
        return tuple(_from_stored(row) for row in rows), True
    out = []
    for qid, text in tqdm(dataset.queries.items(), desc=f"retrieving (depth {depth})", unit="q"):
        start = time.perf_counter()
        head = run_head(text, config, collection, now=now)
        elapsed = (time.perf_counter() - start) * 1000
        error = head.trace.error
        if error is not None:  # kept per query; every grid point counts it
            out.append(QueryLists(qid, MappingProxyType({}), elapsed, error))
            continue
        out.append(QueryLists(qid, head.state.lists, elapsed, None, head.state))
    if use_cache:
        _store(path, out)
    return tuple(out), False
