"""Sweep config fields over a grid, re-scoring cached candidate lists instead of re-searching.

Grid points whose heads would be the same (every setting up to and including retrieve:
rag.pipeline.head_key) share one head run per query at the deepest depth any of them asks for;
each point then only re-runs the pipeline's tail — fuse → postprocess → authority → rerank →
select, through rag.pipeline.run_tail, the same stages a full run uses — over the lists cut to
its own depth. Points that change the lists themselves (a chunk size, an embedding model, query
understanding) get their own head run (and collection), so any field can be swept, the cheap
ones cheaply.

A point whose tail is fuse → select alone (no post-step, authority or rerank on) with a method
that has a scores-only twin (rag.retrieve.fusion.scores) skips the tail's stages: it fuses chunk
ids and scores straight into the document ranking, with no Candidate, breakdown or trace per
query; tests/eval/runs/test_sweep.py checks its metrics equal plain runs of the same configs.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import yaml

from eval.data.evalsets import chunk_unit_lists
from eval.data.shapes import BeirDataset, Qrels
from eval.diagnostics.ceiling import DEPTHS, Ceiling, OracleMemo, ceiling, recall_at_depth
from eval.runs.beir_index import beir_collection, collection_name, eval_config
from eval.runs.candidates import QueryLists, retrieve_all
from eval.runs.preset_run import PresetRun, QueryOutcome, deepest_cutoff, doc_ranking, summarize_scores
from eval.runs.sweep_scores import PointScores, PooledLists, pooled_lists, score_point
from eval.scoring.metrics import DEFAULT_METRICS, MetricScores, evaluate, parse_metric
from eval.scoring.stats import CiMemo
from rag.chunking.base import Chunk
from rag.config import PipelineConfig, with_overrides
from rag.index import Collection
from rag.pipeline import STAGES, TAIL_SECTIONS, head_key, run_tail
from rag.retrieve.fusion.scores import FUSION_SCORES
from rag.retrieve.search import clear_candidate_cache
from rag.retrieve.stage import SelectOutput
from rag.stages import stage_slice

# the tail stages between fuse and select: all off is what lets a point skip the tail's stages
_BETWEEN = tuple(n for n in stage_slice("fuse", "select") if n not in ("fuse", "select"))


@dataclass(frozen=True)
class GridAxis:
    key: str  # dotted config field, e.g. "fusion.k"
    values: tuple[Any, ...]


@dataclass(frozen=True)
class SweepPoint:
    overrides: Mapping[str, Any]
    run: PresetRun
    ceiling: Ceiling | None = None  # recall at depth of its lists, oracle nDCG@10 of its run


@dataclass(frozen=True)
class SweepResult:
    preset: str
    axes: tuple[GridAxis, ...]
    points: tuple[SweepPoint, ...]
    retrieval_s: float  # searching (0 when every list came from the disk cache)
    rescoring_s: float  # fusing, post-steps and metrics for every point
    from_cache: bool


def _split_values(text: str) -> list[str]:
    """Split on commas outside brackets and braces: '1,5,{a: 1, b: 2}' -> 3 values."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def parse_grid(items: Sequence[str]) -> tuple[GridAxis, ...]:
    """CLI `--grid key=v1,v2,…` items; values are YAML ({bm25: 0.6, dense: 0.4}, [bm25], 60)."""
    axes = []
    for item in items:
        key, sep, values = item.partition("=")
        if not sep or not key.strip() or not values.strip():
            raise ValueError(f"--grid expects key=value1,value2,…, got {item!r}")
        axes.append(GridAxis(key.strip(), tuple(yaml.safe_load(v) for v in _split_values(values))))
    keys = [a.key for a in axes]
    if len(set(keys)) != len(keys):
        raise ValueError(f"--grid names a field twice: {keys}")
    return tuple(axes)


def grid_points(axes: Sequence[GridAxis]) -> list[dict[str, Any]]:
    """The cartesian product of the axes, as override dicts (one empty point for no axes)."""
    return [dict(zip((a.key for a in axes), combo, strict=True))
            for combo in itertools.product(*(a.values for a in axes))]


def point_config(
    base: PipelineConfig, point: Mapping[str, Any], dataset: BeirDataset
) -> PipelineConfig:
    """The base config with a grid point applied; top_k follows depth (eval scores everything
    the preset fused), so a point may lower the depth below the preset's top_k."""
    depth = point.get("retrieval.depth", base.retrieval.depth)
    # the base's collection name, right unless the point changes index settings (then
    # eval_config renames it): one validation per point instead of two
    anchored = {"retrieval.top_k": depth, "index.collection": collection_name(dataset, base)}
    return eval_config(with_overrides(base, {**anchored, **point}), dataset)


def list_group(config: PipelineConfig) -> str:
    """Points with equal keys share one head run (depth excluded: its lists are cut). A copy,
    not with_overrides: the config is valid already and only its dump is hashed."""
    retrieval = config.retrieval.model_copy(update={"depth": 1, "top_k": 1})
    return head_key(config.model_copy(update={"retrieval": retrieval}))


def _head_overrides(point: Mapping[str, Any]) -> str:
    """The point's settings that may change its lists (every field outside TAIL_SECTIONS but
    retrieval.depth, whose lists are cut): points equal here are in one list group, so
    list_group is hashed once per distinct value, not per point."""
    head = {k: v for k, v in point.items()
            if k.split(".", 1)[0] not in TAIL_SECTIONS and k != "retrieval.depth"}
    return json.dumps(head, sort_keys=True, default=repr)


def scores_only(config: PipelineConfig) -> bool:
    """True when the tail at `config` is fuse → select alone, with a scores-only fusion twin."""
    if config.fusion.method not in FUSION_SCORES:
        return False
    for name in _BETWEEN:
        spec = STAGES.find(name)
        if spec is not None and (spec.off_reason is None or spec.off_reason(config) is None):
            return False
    return True


def _ranking(
    item: QueryLists, config: PipelineConfig, collection: Collection, limit: int, now: datetime
) -> tuple[dict[str, float], str | None]:
    """A query's document ranking at one point: the pipeline's tail over its cached head."""
    tail = run_tail(item.seed(), config, collection, depth=config.retrieval.depth, now=now)
    if tail.trace.error is not None:
        return {}, tail.trace.error
    selected = tail.trace.output(SelectOutput)
    return doc_ranking(selected.candidates if selected is not None else (), limit), None


def rescore(
    dataset: BeirDataset,
    config: PipelineConfig,
    cached: Sequence[QueryLists],
    collection: Collection,
    metrics: Sequence[str],
    n_resamples: int,
    seed: int,
    label: str,
    now: datetime | None = None,
    id_lists: PooledLists | None = None,
    ci_memo: CiMemo | None = None,
) -> PresetRun:
    """Score one grid point from cached heads: the tail (fuse … select) over each query's lists
    cut to the point's depth, mapped to documents; every query at the same `now`. With
    `id_lists` (from pooled_lists(cached, dataset.qrels)) and a scores-only point, its queries
    skip the tail's stages: fused, ranked and scored together (eval.runs.sweep_scores), with the
    same rankings and metrics. `ci_memo` shares bootstrap intervals between points."""
    limit = deepest_cutoff(metrics)
    clock = now or datetime.now(UTC)
    fast = PointScores({}, {})
    fast_ms = 0.0
    if (id_lists is not None and id_lists.pooled.queries and id_lists.qrels is dataset.qrels
            and scores_only(config)):
        start = time.perf_counter()
        try:
            fast = score_point(id_lists, config, limit, [parse_metric(m) for m in metrics])
        except ValueError:  # e.g. no weight for a list: the tail records it per query, as a run
            fast = PointScores({}, {})
        fast_ms = (time.perf_counter() - start) * 1000 / len(id_lists.pooled.queries)
    outcomes = []
    for item in cached:
        if item.error is not None:
            outcomes.append(QueryOutcome(item.qid, {}, item.latency_ms, item.error))
            continue
        if item.qid in fast.rankings:  # its share of the batch's time
            outcomes.append(QueryOutcome(item.qid, fast.rankings[item.qid],
                                         item.latency_ms + fast_ms))
            continue
        start = time.perf_counter()
        ranking, error = _ranking(item, config, collection, limit, clock)
        fuse_ms = (time.perf_counter() - start) * 1000
        outcomes.append(QueryOutcome(item.qid, ranking, item.latency_ms + fuse_ms, error))
    others = {o.qid: o.ranking for o in outcomes
              if o.error is None and o.qid not in fast.rankings}
    if not fast.values:
        scores = evaluate(dataset.qrels, others, metrics)
    elif not others:  # every query scored as arrays (values in qid order, as evaluate's)
        scores = {key: MetricScores(key, values, {}) for key, values in fast.values.items()}
    else:  # merged in qid order
        scores = {key: MetricScores(key, dict(sorted({**s.values, **fast.values[key]}.items())),
                                    s.failed)
                  for key, s in evaluate(dataset.qrels, others, metrics).items()}
    return summarize_scores(label, outcomes, scores, n_resamples, seed, ci_memo)


def _diagnose(
    dataset: BeirDataset, cached: Sequence[QueryLists], run: PresetRun, depth: int,
    recalls: dict[tuple[int, ...], dict[int, float]], oracles: OracleMemo,
) -> Ceiling | None:
    """Ceiling figures for one point; depths beyond the point's own depth are left out.
    `recalls` keeps recall at depth per depths and `oracles` each query's oracle nDCG per
    relevant documents found, which points on the same lists share."""
    if "ndcg@10" not in run.scores:
        return None
    depths = tuple(n for n in DEPTHS if n <= depth) or (depth,)
    if depths not in recalls:
        recalls[depths] = recall_at_depth(dataset.qrels, cached, depths)
    return ceiling(dataset.qrels, cached, run, 10, depths, recalls[depths], oracles)


def run_sweep(
    dataset: BeirDataset,
    base: PipelineConfig,
    axes: Sequence[GridAxis],
    metrics: Sequence[str] = DEFAULT_METRICS,
    n_resamples: int = 2000,
    seed: int = 0,
    use_cache: bool = True,
    chunk_qrels: Callable[[Iterable[Chunk]], Qrels] | None = None,
) -> SweepResult:
    """Score every grid point; lists are retrieved once per list group at its deepest depth.

    `chunk_qrels` (span-labeled sets, eval.data.evalsets.EvalSet.qrels_for) judges each group's
    collection chunk by chunk: its chunks get qrels and every chunk is its own unit."""
    points = grid_points(axes)
    configs = [point_config(base, p, dataset) for p in points]
    groups: dict[str, list[int]] = {}
    keys: dict[str, str] = {}  # the point's head settings -> its list group
    for index, config in enumerate(configs):
        head = _head_overrides(points[index])
        if head not in keys:
            keys[head] = list_group(config)
        groups.setdefault(keys[head], []).append(index)
    results: dict[int, SweepPoint] = {}
    retrieval_s = rescoring_s = 0.0
    all_cached = True
    for members in groups.values():
        first = configs[members[0]]
        collection = beir_collection(dataset, first)
        depth = max(configs[i].retrieval.depth for i in members)
        clear_candidate_cache()  # searches are timed for real, never served from memory
        started = time.perf_counter()
        cached, from_disk = retrieve_all(dataset, first, collection, depth, use_cache)
        retrieval_s += time.perf_counter() - started
        all_cached &= from_disk
        scored_on = dataset
        if chunk_qrels is not None:
            scored_on = replace(dataset, qrels=chunk_qrels(collection.chunks()))
            cached = chunk_unit_lists(cached)
        started = time.perf_counter()
        recalls: dict[tuple[int, ...], dict[int, float]] = {}
        oracles: OracleMemo = {}
        intervals: CiMemo = {}
        id_lists = pooled_lists(cached, scored_on.qrels)
        for i in members:
            label = f"{base.name} " + " ".join(f"{k}={v}" for k, v in points[i].items())
            cut = configs[i].retrieval.depth
            run = rescore(scored_on, configs[i], cached, collection, metrics, n_resamples, seed,
                          label.strip(), id_lists=id_lists, ci_memo=intervals)
            diagnosis = _diagnose(scored_on, cached, run, cut, recalls, oracles)
            results[i] = SweepPoint(points[i], run, diagnosis)
        rescoring_s += time.perf_counter() - started
    return SweepResult(base.name, tuple(axes), tuple(results[i] for i in range(len(points))),
                       retrieval_s, rescoring_s, all_cached)
