"""Pipeline stages of the retrieval family: retrieve, fuse, postprocess, select (top_k).

Each is a thin adapter: it calls the pure functions in rag.retrieve and says what the trace shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pydantic import BaseModel

from rag.config import PipelineConfig
from rag.pipeline import STAGES, PipelineState, StageEnv, StageResult, StageSpec
from rag.retrieve.base import RankedList
from rag.retrieve.fuse_filter import select_top
from rag.retrieve.fusion import fuse, passthrough
from rag.retrieve.post import PostContext, enabled_steps, postprocess
from rag.retrieve.search import candidate_vectors, retrieve_lists


def _check_compatible(collection: object, config: PipelineConfig) -> None:
    """A collection built with other chunking/embedding/index settings raises, naming them."""
    check = getattr(collection, "check_compatible", None)
    if callable(check):
        check(config)


def _sizes(lists: Mapping[str, RankedList]) -> dict[str, int]:
    return {name: len(ranked.candidates) for name, ranked in lists.items()}


def run_retrieve(state: PipelineState, env: StageEnv) -> StageResult:
    collection = env.collection()
    _check_compatible(collection, env.config)
    got = retrieve_lists(state.queries, env.config, collection, state.filters)
    everything_cached = bool(got.lists) and len(got.cached) == len(got.lists)
    outputs: dict[str, Any] = {
        "lists": dict(got.lists),
        "cached": got.cached,
        "timings_ms": got.timings_ms,
    }
    inputs = {"collection": collection.name, "queries": state.queries, "filters": state.filters}
    return StageResult(
        replace(state, lists=got.lists),
        outputs,
        inputs,
        status="cache_hit" if everything_cached else "ok",
        reason="every list came from the candidate cache" if everything_cached else "",
    )


def run_fuse(state: PipelineState, env: StageEnv) -> StageResult:
    config = env.config.fusion
    lists = state.lists
    inputs = {"lists": _sizes(lists)}
    if config.method == "none" and len(lists) > 1:
        # "none" means one retriever; several lists (e.g. query variants) keep only the first.
        first = next(iter(lists))
        fused = passthrough([lists[first]])
        why = f"fusion 'none' got {len(lists)} lists ({', '.join(lists)}); passed {first!r} through"
        outputs = {"method": "none", "candidates": fused}
        return StageResult(
            replace(state, candidates=fused), outputs, inputs, "fallback", (why,), why
        )
    fused = fuse(lists, config)
    outputs = {"method": config.method, "candidates": fused}
    return StageResult(replace(state, candidates=fused), outputs, inputs)


def _post_off(config: PipelineConfig) -> str | None:
    if enabled_steps(config.postprocess):
        return None
    return "no post-retrieval step is enabled in postprocess"


def run_postprocess(state: PipelineState, env: StageEnv) -> StageResult:
    config = env.config
    vectors = {}
    if config.postprocess.dedupe_threshold is not None:
        vectors = candidate_vectors(state.candidates, config, env.collection())
    text = state.queries[0].text if state.queries else state.query
    context = PostContext(query=text, now=env.now, vectors=vectors)
    kept, reports = postprocess(state.candidates, config.postprocess, context)
    degraded = [r for r in reports if r.status == "fallback"]
    warnings = tuple(f"{r.step}: {r.reason}" for r in degraded)
    outputs = {"steps": reports, "candidates": kept}
    return StageResult(
        replace(state, candidates=kept),
        outputs,
        {"candidates": len(state.candidates), "steps": enabled_steps(config.postprocess)},
        status="fallback" if degraded else "ok",
        warnings=warnings,
        reason="; ".join(warnings),
    )


def run_select(state: PipelineState, env: StageEnv) -> StageResult:
    k = env.config.retrieval.top_k
    top = select_top(state.candidates, k)
    outputs = {"top_k": k, "dropped": len(state.candidates) - len(top), "candidates": top}
    return StageResult(
        replace(state, candidates=top), outputs, {"candidates": len(state.candidates)}
    )


class _TopK(BaseModel):
    top_k: int


STAGES.add("retrieve", StageSpec("retrieve", run_retrieve, settings=lambda c: c.retrieval))
STAGES.add("fuse", StageSpec("fuse", run_fuse, settings=lambda c: c.fusion))
STAGES.add(
    "postprocess",
    StageSpec("postprocess", run_postprocess, _post_off, settings=lambda c: c.postprocess),
)
STAGES.add(
    "select",
    StageSpec("select", run_select, settings=lambda c: _TopK(top_k=c.retrieval.top_k)),
)
