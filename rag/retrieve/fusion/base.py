"""Shared machinery of the fusion methods: pool ranked lists, assemble fused candidates.

A method computes, per list, each candidate's additive term (its contribution) and the
normalized score behind it; `assemble` turns that into Candidates whose `contributions` sum to
their `score`, sorted best first with ties broken by chunk_id so runs are reproducible.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from rag.records.chunk import Chunk
from rag.records.hits import Candidate, RankedList, RetrieverHit, retriever_family
from rag.registry import Registry
from rag.settings.retrieval import EXTRA_DENSE_PREFIX, FusionConfig

# (lists, config, the user's query) -> fused candidates; only learned fusion reads the query.
FusionFn = Callable[[Sequence[RankedList], FusionConfig, str], tuple[Candidate, ...]]

# method name (FusionConfig.method) -> function; one module per method registers itself.
FUSION: Registry[FusionFn] = Registry("fusion")

# Lists of this family are the "vector" side of alpha-weighted methods; all others are lexical.
DENSE_FAMILY = "dense"


@dataclass(frozen=True)
class Pool:
    """The union of ranked lists: each chunk once, and where every list put it (rank, raw score)."""

    names: tuple[str, ...]
    chunks: Mapping[str, Chunk]  # chunk_id -> chunk, in first-seen order
    placed: Mapping[str, Mapping[str, tuple[int, float]]]  # list -> chunk_id -> (rank, raw)


def pool(lists: Sequence[RankedList]) -> Pool:
    """Index the lists; a chunk listed twice in one list keeps its better (first) rank."""
    names = tuple(ranked.retriever for ranked in lists)
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"fusion needs one list per name; repeated: {', '.join(duplicates)}")
    chunks: dict[str, Chunk] = {}
    placed: dict[str, dict[str, tuple[int, float]]] = {}
    for ranked in lists:
        positions: dict[str, tuple[int, float]] = {}
        for rank, cand in enumerate(ranked.candidates, start=1):
            chunk = cand.chunk
            cid = chunk.chunk_id
            if cid not in positions:
                positions[cid] = (rank, float(cand.score))
                if cid not in chunks:
                    chunks[cid] = chunk
        placed[ranked.retriever] = positions
    return Pool(names, chunks, placed)


def assemble(
    found: Pool,
    terms: Mapping[str, Mapping[str, float]],
    normalized: Mapping[str, Mapping[str, float]] | None = None,
    absent: Mapping[str, float] | None = None,
    contributors: Sequence[str] | None = None,
) -> tuple[Candidate, ...]:
    """Fused candidates: score = sum of per-list terms; a list missing a chunk adds `absent[list]`
    (0 unless the method says otherwise). Ties are broken by chunk_id. A method whose terms are
    not per list (learned fusion: per feature) names them in `contributors`; each then gives
    every chunk its term."""
    normalized = normalized or {}
    absent = absent or {}
    # every tail of a sweep or tune runs this per query: per-list lookups are hoisted out of
    # the chunk loop and Candidates are built once, after sorting
    lists = [(name, found.placed[name], normalized.get(name, {}), terms.get(name, {}),
              absent.get(name, 0.0)) for name in found.names]
    rows = []
    for cid, chunk in found.chunks.items():
        hits: dict[str, RetrieverHit] = {}
        contributions: dict[str, float] = {}
        for name, placed, norms, term, missing in lists:
            place = placed.get(cid)
            if place is None:
                contributions[name] = missing
                continue
            hits[name] = RetrieverHit(name, place[0], place[1], norms.get(cid))
            if contributors is None:
                contributions[name] = term[cid]
        if contributors is not None:
            contributions = {name: terms[name][cid] for name in contributors}
        rows.append((-math.fsum(contributions.values()), cid, chunk, hits, contributions))
    rows.sort(key=lambda row: (row[0], row[1]))
    return tuple(
        Candidate(chunk=chunk, score=-negated, hits=MappingProxyType(hits),
                  contributions=MappingProxyType(contributions),
                  stage_scores=MappingProxyType({"fusion": -negated}))
        for negated, _, chunk, hits, contributions in rows
    )


def is_dense(name: str) -> bool:
    """A list from the collection's embedder ("dense", "dense#q2") or an extra one ("dense_e5")."""
    family = retriever_family(name)
    return family == DENSE_FAMILY or family.startswith(EXTRA_DENSE_PREFIX)


def alpha_weights(names: Sequence[str], alpha: float) -> dict[str, float]:
    """Dense lists share `alpha`, the others share 1 - alpha (Weaviate's hybrid convention)."""
    dense = [n for n in names if is_dense(n)]
    other = [n for n in names if not is_dense(n)]
    weights = {n: alpha / len(dense) for n in dense}
    weights.update({n: (1.0 - alpha) / len(other) for n in other})
    return weights


def cut_to_depths(lists: Sequence[RankedList], depths: Mapping[str, int]) -> tuple[RankedList, ...]:
    """Each list cut to its depth in `depths` (by its name, else its retriever family); a list
    not named is kept whole."""
    out = []
    for ranked in lists:
        depth = depths.get(ranked.retriever, depths.get(retriever_family(ranked.retriever)))
        out.append(ranked if depth is None else RankedList(ranked.retriever,
                                                           ranked.candidates[:depth]))
    return tuple(out)


def list_weight(weights: Mapping[str, float], name: str) -> float:
    """A list's weight by its own name, else by its retriever family; missing is an error."""
    if name in weights:
        return weights[name]
    family = retriever_family(name)
    if family in weights:
        return weights[family]
    raise ValueError(
        f"fusion.weights has no weight for list {name!r}; given: {', '.join(sorted(weights))}"
    )


def min_max(scores: Mapping[str, float]) -> dict[str, float]:
    """(s - min) / (max - min); identical scores all become 1.0 (Weaviate does the same)."""
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    if high == low:
        return dict.fromkeys(scores, 1.0)
    span = high - low
    return {cid: (s - low) / span for cid, s in scores.items()}


def z_score(scores: Mapping[str, float]) -> dict[str, float]:
    """(s - mean) / population std; identical scores (std 0) all become 0.0."""
    if not scores:
        return {}
    values = list(scores.values())
    mean = math.fsum(values) / len(values)
    std = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / len(values))
    if std == 0:
        return dict.fromkeys(scores, 0.0)
    return {cid: (s - mean) / std for cid, s in scores.items()}


def raw_scores(found: Pool, name: str) -> dict[str, float]:
    return {cid: raw for cid, (_, raw) in found.placed[name].items()}
