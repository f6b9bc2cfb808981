"""Pipeline stages of the retrieval family: retrieve, fuse, postprocess, select (top_k).

Each is a thin adapter: it calls the pure functions in rag.retrieve and returns a typed output.
`fuse → postprocess → authority → select` run no model, so pages and sweeps re-run that slice
over cached lists (rag.pipeline.run_slice) on every slider move.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from pydantic import BaseModel

from rag.records.hits import Candidate, RankedList
from rag.retrieve.fusion import fuse, passthrough
from rag.retrieve.fusion.base import cut_to_depths
from rag.retrieve.post import PostContext, StepReport, enabled_steps, postprocess
from rag.retrieve.search import Retrieved, candidate_vectors, retrieve_lists
from rag.settings.pipeline import PipelineConfig
from rag.stages import STAGES, PipelineState, StageEnv, StageInput, StageResult, StageSpec


@dataclass(frozen=True)
class FuseOutput:
    """The fused ranking at full depth, each candidate with every retriever's contribution."""

    method: str
    candidates: tuple[Candidate, ...]


@dataclass(frozen=True)
class PostprocessOutput:
    """What each post-retrieval step decided, and the ranking after all of them."""

    steps: tuple[StepReport, ...]
    candidates: tuple[Candidate, ...]


@dataclass(frozen=True)
class SelectOutput:
    """The final retrieval ranking: the first top_k candidates."""

    top_k: int
    dropped: int
    candidates: tuple[Candidate, ...]


def select_top(candidates: tuple[Candidate, ...], k: int) -> tuple[Candidate, ...]:
    """The first k candidates (all of them when k exceeds their number)."""
    if k < 0:
        raise ValueError(f"top_k must be >= 0, got {k}")
    return candidates[:k]


def _sizes(lists: Mapping[str, RankedList]) -> dict[str, int]:
    return {name: len(ranked.candidates) for name, ranked in lists.items()}


def run_retrieve(state: PipelineState, env: StageEnv) -> StageResult:
    ref = env.index_ref()  # checked against this run's index settings (StageEnv.index_ref)
    collection = ref.index
    retrieval, note = env.config.retrieval.routed()  # a route's retrievers, if the preset has them
    config = env.config.model_copy(update={"retrieval": retrieval})
    got = retrieve_lists(state.queries, config, collection, state.filters, ref.version, env.shared)
    everything_cached = bool(got.lists) and len(got.cached) == len(got.lists)
    inputs = {"collection": collection.name, "queries": state.queries, "filters": state.filters}
    return StageResult(
        replace(state, lists=got.lists),
        got,
        inputs,
        status="cache_hit" if everything_cached else "ok",
        warnings=(note,) if note else (),
        reason="every list came from the candidate cache" if everything_cached else "",
    )


def run_fuse(state: PipelineState, env: StageEnv) -> StageResult:
    config = env.config.fusion
    lists = state.lists
    inputs = {"lists": _sizes(lists)}
    if config.method == "none" and len(lists) > 1:
        # "none" means one retriever; several lists (e.g. query variants) keep only the first.
        first = next(iter(lists))
        fused = passthrough(cut_to_depths([lists[first]], config.depths))
        why = f"fusion 'none' got {len(lists)} lists ({', '.join(lists)}); passed {first!r} through"
        output = FuseOutput("none", fused)
        return StageResult(
            replace(state, candidates=fused), output, inputs, "fallback", (why,), why
        )
    fused = fuse(lists, config, state.query)
    return StageResult(replace(state, candidates=fused), FuseOutput(config.method, fused), inputs)


def _post_off(config: PipelineConfig) -> str | None:
    if enabled_steps(config.postprocess):
        return None
    return "no post-retrieval step is enabled in postprocess"


def run_postprocess(state: PipelineState, env: StageEnv) -> StageResult:
    config = env.config
    vectors = {}
    if config.postprocess.dedupe_threshold is not None:
        vectors = candidate_vectors(state.candidates, env.shared.embedding, env.index_ref().stored)
    text = state.queries[0].text if state.queries else state.query
    context = PostContext(query=text, now=env.now, vectors=vectors)
    kept, reports = postprocess(state.candidates, config.postprocess, context)
    degraded = [r for r in reports if r.status == "fallback"]
    warnings = tuple(f"{r.step}: {r.reason}" for r in degraded)
    return StageResult(
        replace(state, candidates=kept),
        PostprocessOutput(tuple(reports), kept),
        {"candidates": len(state.candidates), "steps": enabled_steps(config.postprocess)},
        status="fallback" if degraded else "ok",
        warnings=warnings,
        reason="; ".join(warnings),
    )


def run_select(state: PipelineState, env: StageEnv) -> StageResult:
    k, capped = env.config.retrieval.selected_k()  # top_k, or a route's within retrieval.depth
    top = select_top(state.candidates, k)
    output = SelectOutput(k, len(state.candidates) - len(top), top)
    return StageResult(replace(state, candidates=top), output, {"candidates": len(state.candidates)},
                       reason=capped)


class _TopK(BaseModel):
    top_k: int


STAGES.add("retrieve", StageSpec("retrieve", run_retrieve, Retrieved,
                                 settings=lambda c: c.retrieval))
STAGES.add("fuse", StageSpec("fuse", run_fuse, FuseOutput, settings=lambda c: c.fusion,
                             inputs=(StageInput("retrieve", Retrieved),)))  # its lists: state.lists
STAGES.add("postprocess", StageSpec("postprocess", run_postprocess, PostprocessOutput, _post_off,
                                    settings=lambda c: c.postprocess))
STAGES.add("select", StageSpec("select", run_select, SelectOutput,
                               settings=lambda c: _TopK(top_k=c.retrieval.selected_k()[0])))
