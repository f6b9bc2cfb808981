"""An embedded entity graph per collection, standing in for Vexora's Neo4j (and Adaptive's KG).

Nodes are entities spotted in chunks by offline heuristics (acronyms, CamelCase, letters with
digits, capitalized runs not opening a sentence or line); two entities are linked when one chunk
mentions both, weighted by how many chunks do (co-occurrence graph, as in GraphRAG's entity graph,
Edge et al. 2024, without the LLM extraction). Built in memory from the collection's chunks and
kept per collection version. Enrichment walks up to `max_depth` hops from the query's entities
and returns chunks that mention the entities reached, best connected first.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from rag.records.chunk import Chunk
from rag.settings.enrich import GraphConfig
from rag.text import STOPWORDS

_MAX_ENTITIES_PER_CHUNK = 40  # a chunk listing hundreds of names (an index page) adds noise
# Where a name run must end: sentence, line and clause boundaries, brackets and quotes.
_PIECE = re.compile(r"(?<=[.!?:;])\s+|\n+|\s[-–—]\s|[()\[\]\"“”]")
_TOKEN = re.compile(r"[^\W_][\w.+/-]*[^\W_]|[^\W_]")


def entity_key(entity: str) -> str:
    return " ".join(entity.lower().split())


def _is_name(token: str, leading: bool) -> bool:
    """A name token: an acronym, CamelCase, letters with digits, or capitalized not at the start
    of a sentence or line (where every word is capitalized)."""
    if token.lower() in STOPWORDS or len(token) < 2:
        return False
    if any(c.isdigit() for c in token):
        return any(c.isalpha() for c in token) and not token[0].isdigit()  # BM25, v4, not 4.0a
    if token.isupper() or any(c.isupper() for c in token[1:]):
        return True  # GNU, LumenSync, iOS
    return token[0].isupper() and not leading


def chunk_entities(text: str) -> tuple[str, ...]:
    """Normalized entities of one chunk: runs of name tokens (offline heuristics standing in
    for Vexora's EntityExtractor), at most 40, in order of appearance."""
    found: dict[str, None] = {}
    for piece in _PIECE.split(text):
        tokens = [m.group(0).rstrip(".") for m in _TOKEN.finditer(piece)]
        run: list[str] = []
        for index, token in enumerate(tokens):
            # a capitalized first word counts when a name follows it ("Lumen Notes")
            leading = index == 0 and not (len(tokens) > 1 and _is_name(tokens[1], False))
            if _is_name(token, leading):
                run.append(token)
                continue
            if run:
                found[entity_key(" ".join(run))] = None
                run = []
        if run:
            found[entity_key(" ".join(run))] = None
    return tuple(found)[:_MAX_ENTITIES_PER_CHUNK]


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
        everything = list(chunks)
        parents = {c.parent_id for c in everything if c.parent_id}
        # Leaves only: a parent or document chunk holds every name of its children, and would
        # link them all to each other.
        for chunk in (c for c in everything if c.chunk_id not in parents):
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
    """A chunk the walk reached: its closest entity, how many hops out, and its score."""

    chunk: Chunk
    entity: str
    hops: int  # 0: it names a query entity itself
    weight: float  # Σ over the reached entities it names of 1 / (1 + hops)


@dataclass(frozen=True)
class Enrichment:
    seeds: tuple[str, ...]  # entities the walk started from (the query's, then top hits')
    unknown: tuple[str, ...]  # query entities the graph has never seen
    reached: Mapping[str, int]  # entity -> hops from the nearest seed
    related: tuple[Related, ...]
    skipped_hubs: tuple[str, ...]  # entities too common to walk through
    paths: tuple[str, ...]  # "a → b (3 chunks)" edges walked, for the trace


def _walk(graph: EntityGraph, seeds: Sequence[str], cfg: GraphConfig
          ) -> tuple[dict[str, int], list[str], set[str]]:
    """Breadth-first to `max_depth`, never through hubs: hops per entity, edges taken, hubs met."""
    hops = {s: 0 for s in seeds}
    paths: list[str] = []
    hubs = {e for e in seeds if len(graph.mentions.get(e, ())) > cfg.max_entity_chunks}
    frontier = [s for s in seeds if s not in hubs]
    for depth in range(1, cfg.max_depth + 1):
        nxt: list[str] = []
        for entity in frontier:
            ranked = sorted(graph.edges.get(entity, {}).items(), key=lambda kv: (-kv[1], kv[0]))
            for neighbour, count in ranked:
                if neighbour in hops:
                    continue
                if len(graph.mentions.get(neighbour, ())) > cfg.max_entity_chunks:
                    hubs.add(neighbour)
                    continue
                hops[neighbour] = depth
                nxt.append(neighbour)
                paths.append(f"{entity} → {neighbour} ({count} chunk{'s' if count > 1 else ''})")
        frontier = nxt
    return hops, paths, hubs


def enrich(graph: EntityGraph, query_entities: Sequence[str], hit_chunks: Sequence[Chunk],
           exclude: Iterable[str], cfg: GraphConfig) -> Enrichment:
    """Chunks naming the query's entities or their neighbours (≤ max_depth hops), not in
    `exclude`, best first: nearest entity first (a query entity itself before its neighbours),
    then Σ 1 / (1 + hops) over the reached entities the chunk names."""
    query_keys = [entity_key(e) for e in query_entities]
    from_hits = [e for c in hit_chunks[: cfg.seed_chunks] for e in chunk_entities(c.text)]
    seeds = [e for e in dict.fromkeys([*query_keys, *from_hits]) if e in graph.mentions]
    hops, paths, hubs = _walk(graph, seeds, cfg)
    excluded = set(exclude)
    weight: dict[str, float] = defaultdict(float)
    closest: dict[str, tuple[int, str]] = {}
    for entity, distance in hops.items():
        if entity in hubs:
            continue
        for chunk_id in graph.mentions.get(entity, ()):
            if chunk_id in excluded:
                continue
            weight[chunk_id] += 1.0 / (1 + distance)
            closest[chunk_id] = min(closest.get(chunk_id, (distance, entity)), (distance, entity))
    ranked = sorted(weight, key=lambda cid: (closest[cid][0], -weight[cid], cid))
    related = tuple(Related(graph.chunks[cid], closest[cid][1], closest[cid][0], weight[cid])
                    for cid in ranked[: cfg.max_chunks])
    return Enrichment(tuple(seeds), tuple(k for k in query_keys if k not in graph.mentions),
                      MappingProxyType(hops), related, tuple(sorted(hubs)), tuple(paths[:50]))


_GRAPHS: dict[tuple[str, str], EntityGraph] = {}
_KEEP = 4  # graphs kept in memory (one per collection version)


def graph_for(collection: object, version: str = "") -> EntityGraph:
    """The entity graph of a collection (its `chunks()`), built once per `version`
    (IndexRef.version)."""
    name = str(getattr(collection, "name", ""))
    key = (name, version)
    if key not in _GRAPHS:
        chunks = getattr(collection, "chunks", None)
        _GRAPHS[key] = EntityGraph.build(chunks() if callable(chunks) else ())
        while len(_GRAPHS) > _KEEP:
            _GRAPHS.pop(next(iter(_GRAPHS)))
    return _GRAPHS[key]
