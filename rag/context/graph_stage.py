"""Pipeline stage "graph": add chunks related to the query through the collection's entity graph
(Vexora `GraphService.refineRAGResults`, max depth 2; Adaptive "KG enhancement: 2-hop neighbours").

Related chunks join the candidates after the retrieved ones, scored just below the last of them,
so context building reads them after what retrieval chose. They pass the run's payload filters
here too (owner / visibility, levels, sources, types, tags): the graph never shows a user a chunk
retrieval would have hidden.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

from rag.context.graph import Related, enrich, graph_for
from rag.privacy import visible_to
from rag.query.entities import extract_entities
from rag.query.understand import Understanding
from rag.records.chunk import Chunk
from rag.records.hits import Candidate
from rag.settings.pipeline import PipelineConfig
from rag.settings.retrieval import FilterConfig
from rag.stages import STAGES, PipelineState, StageEnv, StageInput, StageResult, StageSpec


@dataclass(frozen=True)
class GraphOutput:
    """The walk from the query's entities: where it started, what it reached, what it added."""

    entities: tuple[str, ...]
    seeds: tuple[str, ...]
    unknown_entities: tuple[str, ...]
    reached: Mapping[str, int]
    hubs_skipped: tuple[str, ...]
    paths: tuple[str, ...]
    added: tuple[Candidate, ...]
    candidates: tuple[Candidate, ...]
    graph_entities: int
    graph_edges: int


def _tags(chunk: Chunk) -> set[str]:
    raw = chunk.metadata.get("tags") or ()
    return {str(t) for t in (raw.split(",") if isinstance(raw, str) else raw)}


def allowed(chunk: Chunk, filters: FilterConfig) -> bool:
    """The payload-filter rule of rag.index.filters.build_filter, on a chunk in memory: public or
    owned by `filters.owner`, and every listed field matching one of its values."""
    meta = chunk.metadata
    if not visible_to(meta, filters.owner):
        return False
    checks = ((filters.sources, meta.get("source")), (filters.doc_types, meta.get("doc_type")),
              (filters.levels, chunk.level))
    if any(values and value not in values for values, value in checks):
        return False
    return not filters.tags or bool(_tags(chunk) & set(filters.tags))


def as_candidate(found: Related, score: float) -> Candidate:
    note = f"graph: {found.hops} hop(s) via {found.entity!r}"
    return Candidate(chunk=found.chunk, score=score,
                     stage_scores=MappingProxyType({"graph": found.weight}), notes=(note,))


def run_graph(state: PipelineState, env: StageEnv) -> StageResult:
    cfg = env.config.context.graph
    understood = state.artifact("understand", Understanding)
    route = understood.route if understood is not None else None
    text = state.queries[0].text if state.queries else state.query
    entities = route.entities if route is not None else extract_entities(text)
    ref = env.index_ref()
    graph = graph_for(ref.index, ref.version)
    present = {c.chunk_id for c in state.candidates}
    hidden = {cid for cid, chunk in graph.chunks.items() if not allowed(chunk, state.filters)}
    found = enrich(graph, entities, [c.chunk for c in state.candidates], present | hidden, cfg)
    floor = min((c.score for c in state.candidates), default=1.0)
    # just below the last retrieved score, in the walk's order
    added = tuple(as_candidate(r, floor * (1 - 0.01 * i)) for i, r in enumerate(found.related, 1))
    ranked = (*state.candidates, *added)
    output = GraphOutput(
        tuple(entities), tuple(found.seeds), tuple(found.unknown), dict(found.reached),
        tuple(found.skipped_hubs), tuple(found.paths), added, ranked, graph.n_entities,
        graph.n_edges)
    next_state = replace(state, candidates=ranked)
    reason = "" if added else (
        "no entity to start from" if not found.seeds else "the walk reached no new chunk")
    return StageResult(next_state, output,
                       {"candidates": len(state.candidates)}, reason=reason)


def _off(config: PipelineConfig) -> str | None:
    return None if config.context.graph.enabled else "context.graph.enabled is false"


STAGES.add("graph", StageSpec("graph", run_graph, GraphOutput, _off, settings=lambda c: c.context.graph,
                              inputs=(StageInput("understand", Understanding),)))
