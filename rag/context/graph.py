"""An embedded entity graph per collection, standing in for Vexora's Neo4j (and 002's KG).

Nodes are entities spotted in chunks by the offline heuristics of rag.query.entities (quoted
phrases, capitalized runs, acronyms, versions); two entities are linked when one chunk mentions
both, weighted by how many chunks do (co-occurrence graph, as in GraphRAG's entity graph,
Edge et al. 2024, without the LLM extraction). Built in memory from the collection's chunks and
kept per collection version. Enrichment walks up to `max_depth` hops from the query's entities
and returns chunks that mention the entities reached, best connected first.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from rag.chunking.base import Chunk
from rag.context.enrich_settings import GraphConfig
from rag.query.entities import extract_entities

_MAX_ENTITIES_PER_CHUNK = 40  # a chunk listing hundreds of names (an index page) adds noise


def entity_key(entity: str) -> str:
    return " ".join(entity.lower().split())


def chunk_entities(text: str) -> tuple[str, ...]:
    """Normalized entities of one chunk (at most 40, in order of appearance)."""
    keys = dict.fromkeys(entity_key(e) for e in extract_entities(text) if len(e) > 1)
    return tuple(keys)[:_MAX_ENTITIES_PER_CHUNK]


@dataclass(frozen=True)
class EntityGraph:
    """entity -> chunk ids that mention it; entity -> {neighbour: co-mention count}."""

    mentions: Mapping[str, tuple[str, ...]]
    edges: Mapping[str, Mapping[str, int]]
    chunks: Mapping[str, Chunk] = field(repr=False)

    @classmethod
    def build(cls, chunks: Iterable[Chunk]) -> EntityGraph:
        mentions: dict[str, list[str]] = defaultdict(list)
        edges: dict[str, Counter[str]] = defaultdict(Counter)
        by_id: dict[str, Chunk] = {}
        for chunk in chunks:
            by_id[chunk.chunk_id] = chunk
            found = chunk_entities(chunk.text)
            for entity in found:
                mentions[entity].append(chunk.chunk_id)
            for i, a in enumerate(found):
                for b in found[i + 1 :]:
                    edges[a][b] += 1
                    edges[b][a] += 1
        return cls(
            MappingProxyType({e: tuple(ids) for e, ids in mentions.items()}),
            MappingProxyType({e: MappingProxyType(dict(n)) for e, n in edges.items()}),
            MappingProxyType(by_id),
        )

    @property
    def n_entities(self) -> int:
        return len(self.mentions)

    @property
    def n_edges(self) -> int:
        return sum(len(n) for n in self.edges.values()) // 2


@dataclass(frozen=True)
class Related:
    """A chunk the walk reached: through which entity, how many hops out, and its weight."""

    chunk: Chunk
    entity: str
    hops: int
    weight: float  # co-mention strength along the path, discounted by 1/hops


@dataclass(frozen=True)
class Enrichment:
    seeds: tuple[str, ...]  # entities the walk started from (query first, then top hits)
    unknown: tuple[str, ...]  # query entities the graph has never seen
    reached: Mapping[str, int]  # entity -> hops from the nearest seed
    related: tuple[Related, ...]
    skipped_hubs: tuple[str, ...]  # entities too common to walk through
    paths: tuple[str, ...]  # "a → b (3 chunks)" edges walked, for the trace


def _walk(graph: EntityGraph, seeds: Sequence[str], cfg: GraphConfig
          ) -> tuple[dict[str, int], dict[str, float], list[str], set[str]]:
    """Breadth-first to `max_depth`: hops and path weight per entity, edges taken, hubs met."""
    hops = {s: 0 for s in seeds}
    weight = {s: 1.0 for s in seeds}
    paths: list[str] = []
    hubs: set[str] = set()
    frontier = list(seeds)
    for depth in range(1, cfg.max_depth + 1):
        nxt: list[str] = []
        for entity in frontier:
            if len(graph.mentions.get(entity, ())) > cfg.max_entity_chunks:
                hubs.add(entity)
                continue
            for neighbour, count in sorted(graph.edges.get(entity, {}).items(),
                                           key=lambda kv: (-kv[1], kv[0])):
                score = weight[entity] * count / depth
                if neighbour not in hops:
                    hops[neighbour] = depth
                    nxt.append(neighbour)
                    paths.append(f"{entity} → {neighbour} ({count} chunk{'s' if count > 1 else ''})")
                weight[neighbour] = max(weight.get(neighbour, 0.0), score)
        frontier = nxt
    return hops, weight, paths, hubs


def enrich(graph: EntityGraph, query_entities: Sequence[str], hit_chunks: Sequence[Chunk],
           exclude: Iterable[str], cfg: GraphConfig) -> Enrichment:
    """Chunks related to the query through the graph, not already in `exclude`, best first."""
    query_keys = [entity_key(e) for e in query_entities]
    known = [k for k in query_keys if k in graph.mentions]
    seeds = list(dict.fromkeys(known + [e for c in hit_chunks[: cfg.seed_chunks]
                                        for e in chunk_entities(c.text) if e in graph.mentions]))
    hops, weight, paths, hubs = _walk(graph, seeds, cfg)
    excluded = set(exclude)
    best: dict[str, Related] = {}
    for entity, distance in hops.items():
        if distance == 0 or entity in hubs:
            continue  # seeds' own chunks are what retrieval already judged
        mentions = graph.mentions.get(entity, ())
        if len(mentions) > cfg.max_entity_chunks:
            hubs.add(entity)
            continue
        for chunk_id in mentions:
            if chunk_id in excluded:
                continue
            found = Related(graph.chunks[chunk_id], entity, distance, weight[entity])
            if chunk_id not in best or found.weight > best[chunk_id].weight:
                best[chunk_id] = found
    ranked = sorted(best.values(), key=lambda r: (r.hops, -r.weight, r.chunk.chunk_id))
    return Enrichment(
        tuple(seeds), tuple(k for k in query_keys if k not in graph.mentions),
        MappingProxyType(hops), tuple(ranked[: cfg.max_chunks]), tuple(sorted(hubs)),
        tuple(paths[:50]),
    )


_GRAPHS: dict[tuple[str, str], EntityGraph] = {}
_KEEP = 4  # graphs kept in memory (one per collection version)


def graph_for(collection: object) -> EntityGraph:
    """The entity graph of a collection (its `chunks()`), built once per collection version."""
    name = str(getattr(collection, "name", ""))
    version = str(getattr(getattr(collection, "manifest", None), "updated_at", ""))
    key = (name, version)
    if key not in _GRAPHS:
        chunks = getattr(collection, "chunks", None)
        _GRAPHS[key] = EntityGraph.build(chunks() if callable(chunks) else ())
        while len(_GRAPHS) > _KEEP:
            _GRAPHS.pop(next(iter(_GRAPHS)))
    return _GRAPHS[key]
