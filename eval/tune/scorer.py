"""Per-query scores of a tuning point, from cached heads through the pipeline's tail.

Each point is turned into a config (eval.runs.sweep.point_config) and scored by
eval.runs.sweep.rescore — the run_tail a sweep point uses — over the cached heads of the
queries asked for; heads are searched once per list group (eval.runs.sweep.list_group) at
the deepest depth of the space and kept on disk (eval.runs.candidates.retrieve_all). A point
whose settings change the lists gets its own collection and head run, and a note says so.
Scores are memoized per (point, query, training queries), so folds that propose the same point
do not re-fuse it; a fitted method is fitted only on the training queries it is handed.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from eval.data.evalsets import chunk_unit_lists
from eval.data.shapes import BeirDataset, Qrels
from eval.runs.beir_index import beir_collection
from eval.runs.candidates import QueryLists, retrieve_all
from eval.runs.sweep import list_group, point_config, pooled_lists, rescore, scores_only
from eval.tune.fitting import fitter_for
from eval.tune.space import point_key
from rag.chunking.base import Chunk
from rag.config import PipelineConfig
from rag.index import Collection
from rag.index.hits import retriever_family

Scores = dict[str, dict[str, float]]  # metric -> qid -> value
Note = Callable[[str], None]
ChunkQrels = Callable[[Iterable[Chunk]], Qrels]  # span sets: relevance over a collection's chunks


@dataclass(frozen=True)
class Heads:
    """One list group: its collection, every query's cached head, and the dataset its runs are
    scored on (for span sets, qrels over this collection's chunks)."""

    collection: Collection
    items: Mapping[str, QueryLists]
    dataset: BeirDataset


def _fold_key(qids: Sequence[str] | None) -> str:
    if qids is None:
        return "-"
    return hashlib.sha256("\0".join(sorted(qids)).encode()).hexdigest()[:16]


class PointScorer:
    """Scores points of a space over a dataset's queries; see the module docstring."""

    def __init__(
        self, dataset: BeirDataset, base: PipelineConfig, metrics: Sequence[str], depth: int,
        use_cache: bool = True, note: Note = print, chunk_qrels: ChunkQrels | None = None,
    ) -> None:
        self.dataset = dataset
        self.chunk_qrels = chunk_qrels
        self.base = base
        self.metrics = tuple(metrics)
        self.depth = depth  # heads are searched this deep; points cut their lists
        self.use_cache = use_cache
        self.note = note
        self.groups: dict[str, Heads] = {}
        self.memo: dict[tuple[str, str, str], dict[str, float] | None] = {}
        self.retrieval_s = 0.0
        self.rescoring_s = 0.0
        self.tails = 0  # queries re-scored through the tail (memo misses)

    def config(self, point: Mapping[str, Any]) -> PipelineConfig:
        return point_config(self.base, point, self.dataset)

    def heads(self, config: PipelineConfig) -> Heads:
        """The cached heads of the config's list group (searched on first use). A config that
        runs some of the preset's retrievers alone (a single-retriever baseline) reads their
        lists from the preset's heads: each retriever's list does not depend on the others."""
        key = list_group(config)
        if key not in self.groups:
            wider = self._preset_group(config)
            if wider is not None:
                self.groups[key] = _only(self.groups[wider], set(config.retrieval.retrievers))
                return self.groups[key]
            if self.groups:
                self.note(f"new candidate lists ({config.retrieval.retrievers}, head {key}): "
                          f"collection {config.index.collection} (indexed if new), searched again")
            started = time.perf_counter()
            collection = beir_collection(self.dataset, config)
            cached, _ = retrieve_all(self.dataset, config, collection, self.depth, self.use_cache)
            scored_on = self.dataset
            if self.chunk_qrels is not None:  # span set: every chunk is its own unit
                scored_on = replace(self.dataset, qrels=self.chunk_qrels(collection.chunks()))
                cached = chunk_unit_lists(cached)
            self.retrieval_s += time.perf_counter() - started
            self.groups[key] = Heads(collection, {item.qid: item for item in cached}, scored_on)
        return self.groups[key]

    def _preset_group(self, config: PipelineConfig) -> str | None:
        """The key of already searched heads whose retrievers include the config's and that
        differ from it in nothing else, or None."""
        retrievers = tuple(self.base.retrieval.retrievers)
        if not set(config.retrieval.retrievers) < set(retrievers):
            return None
        widened = config.model_copy(update={"retrieval": config.retrieval.model_copy(
            update={"retrievers": list(retrievers)})})
        key = list_group(widened)
        return key if key in self.groups else None

    def needs_fit(self, point: Mapping[str, Any]) -> bool:
        return fitter_for(self.config(point)) is not None

    def fitted(self, point: Mapping[str, Any], train: Sequence[str],
               config: PipelineConfig | None = None) -> PipelineConfig:
        """`config` (default: the point's eval config) trained on the `train` queries' heads when
        its fusion method learns, else as it is."""
        config = config or self.config(point)
        fit = fitter_for(config)
        if fit is None:
            return config
        heads = self.heads(self.config(point))
        items = [heads.items[q] for q in train if heads.items[q].error is None]
        qrels = {q: heads.dataset.qrels[q] for q in train if q in heads.dataset.qrels}
        return fit(config, items, qrels, heads.collection)

    def scores(
        self, point: Mapping[str, Any], qids: Sequence[str], train: Sequence[str] | None = None
    ) -> Scores:
        """metric -> qid -> value for `qids` (a failed query is left out); a learning method is
        first fitted on `train`, which must not overlap `qids`."""
        if train is not None and set(train) & set(qids):
            raise ValueError("a fitted point must not be scored on its own training queries")
        config = self.config(point)
        if fitter_for(config) is not None and train is None:
            raise ValueError(f"fusion method {config.fusion.method!r} learns: say which queries "
                             "train it")
        pk, fk = point_key(point), _fold_key(train if fitter_for(config) else None)
        missing = [q for q in qids if (pk, q, fk) not in self.memo]
        if missing:
            self._score(point, pk, fk, missing, train)
        return self._collect(pk, fk, qids)

    def in_sample_scores(self, point: Mapping[str, Any], qids: Sequence[str]) -> Scores:
        """What a plain sweep reports: a learning method fitted on `qids` and scored on them."""
        config = self.config(point)
        if fitter_for(config) is None:
            return self.scores(point, qids)
        pk, fk = point_key(point) + "#in-sample", _fold_key(qids)
        self._score(point, pk, fk, qids, qids)
        return self._collect(pk, fk, qids)

    def _collect(self, pk: str, fk: str, qids: Sequence[str]) -> Scores:
        out: Scores = {m: {} for m in self.metrics}
        for q in qids:
            for metric, value in (self.memo[(pk, q, fk)] or {}).items():
                out[metric][q] = value
        return out

    def _score(self, point: Mapping[str, Any], pk: str, fk: str, qids: Sequence[str],
               train: Sequence[str] | None) -> None:
        config = self.config(point)
        heads = self.heads(config)
        if train is not None:
            config = self.fitted(point, train)
        started = time.perf_counter()
        items = [heads.items[q] for q in qids]
        # a scores-only point fuses these queries together, like a sweep point (eval.runs.sweep)
        pooled = pooled_lists(items, heads.dataset.qrels) if scores_only(config) else None
        run = rescore(heads.dataset, config, items, heads.collection, self.metrics, 1, 0,
                      config.name, id_lists=pooled)
        self.rescoring_s += time.perf_counter() - started
        self.tails += len(qids)
        for q in qids:
            row = {m: s.values[q] for m, s in run.scores.items() if q in s.values}
            self.memo[(pk, q, fk)] = row if len(row) == len(self.metrics) else None


def _only(heads: Heads, retrievers: set[str]) -> Heads:
    """The heads with only the lists of these retrievers (query variants' lists included)."""
    def keep(item: QueryLists) -> QueryLists:
        lists = {n: r for n, r in item.lists.items() if retriever_family(n) in retrievers}
        return replace(item, lists=MappingProxyType(lists))

    return Heads(heads.collection, {q: keep(item) for q, item in heads.items.items()},
                 heads.dataset)


def single_retriever_point(name: str) -> dict[str, Any]:
    """The point that runs one retriever of the preset alone (its raw scores, no fusion)."""
    return {"retrieval.retrievers": [name], "fusion.method": "none"}

