"""Shared machinery of the fusion methods: pool ranked lists, assemble fused candidates.

A method computes, per list, each candidate's additive term (its contribution) and the
normalized score behind it; `assemble` turns that into Candidates whose `contributions` sum to
their `score`, sorted best first with ties broken by chunk_id so runs are reproducible.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from rag.chunking.base import Chunk
from rag.registry import Registry
from rag.retrieve.base import Candidate, RankedList, RetrieverHit, retriever_family
from rag.retrieve.settings import EXTRA_DENSE_PREFIX, FusionConfig

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


class Breakdown(Mapping[str, Any]):
    """A fused candidate's hits or contributions, built on first read. Every tail of a sweep
    fuses each query's whole pool at every point and reads only the scores; building thousands
    of per-list dicts and RetrieverHits per point was most of a point's fusion time, so a
    breakdown is kept as the pool's row and turned into a read-only dict when someone looks
    (the trace, a page, a test). Reads behave as a plain read-only mapping."""

    __slots__ = ("_build", "_data")

    def __init__(self, build: Callable[[], dict[str, Any]]) -> None:
        self._build: Callable[[], dict[str, Any]] | None = build
        self._data: dict[str, Any] | None = None

    def _dict(self) -> dict[str, Any]:
        if self._data is None and self._build is not None:
            self._data, self._build = self._build(), None
        return self._data if self._data is not None else {}

    def __getitem__(self, key: str) -> Any:
        return self._dict()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._dict())

    def __len__(self) -> int:
        return len(self._dict())

    def __repr__(self) -> str:
        return repr(self._dict())


def _hits_of(
    cid: str, lists: Sequence[tuple[str, Mapping[str, tuple[int, float]], Mapping[str, float]]]
) -> Callable[[], dict[str, RetrieverHit]]:
    def build() -> dict[str, RetrieverHit]:
        hits = {}
        for name, placed, norms in lists:
            place = placed.get(cid)
            if place is not None:
                hits[name] = RetrieverHit(name, place[0], place[1], norms.get(cid))
        return hits
    return build


def _contributions_of(
    names: Sequence[str], values: Sequence[float]
) -> Callable[[], dict[str, float]]:
    return lambda: dict(zip(names, values, strict=True))


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
    every chunk its term. `hits` and `contributions` are Breakdowns, built when first read."""
    normalized = normalized or {}
    absent = absent or {}
    # every tail of a sweep or tune runs this per query: only the score is computed per chunk
    # (the same terms, summed with fsum in the same order as the contributions); hits and
    # contributions are built on first read, Candidates once, after sorting
    names = tuple(contributors) if contributors is not None else found.names
    columns = [(terms.get(name, {}), absent.get(name, 0.0)) for name in names]
    hit_lists = tuple((name, found.placed[name], normalized.get(name, {})) for name in found.names)
    per_list = contributors is None
    placed = [found.placed[name] for name in found.names]
    rows = []
    for cid, chunk in found.chunks.items():
        if per_list:
            values = tuple(term[cid] if cid in where else missing
                           for (term, missing), where in zip(columns, placed, strict=True))
        else:
            values = tuple(term[cid] for term, _ in columns)
        rows.append((-math.fsum(values), cid, chunk, values))
    rows.sort(key=lambda row: (row[0], row[1]))
    return tuple(
        Candidate(chunk=chunk, score=-negated, hits=Breakdown(_hits_of(cid, hit_lists)),
                  contributions=Breakdown(_contributions_of(names, values)),
                  stage_scores=MappingProxyType({"fusion": -negated}))
        for negated, cid, chunk, values in rows
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
