"""Ranked candidates with their full score breakdown: what every retriever and stage saw, and
what retrieval needs from an index (SearchableCollection). Index, retrieval and the stage
registry share these, so they sit in the index package, below retrieval and the stages."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

import numpy as np

from rag.records.chunk import Chunk
from rag.settings.retrieval import FilterConfig


def _empty() -> Mapping[str, Any]:
    return MappingProxyType({})


@dataclass(frozen=True)
class RetrieverHit:
    """Where one retriever put a chunk: 1-based rank, the raw score it gave, and a normalized one."""

    retriever: str  # "bm25", "dense", "sparse", or a query variant like "dense#q2"
    rank: int
    raw_score: float
    normalized: float | None = None


@dataclass(frozen=True)
class Candidate:
    """One chunk in a ranked list. Stages return new Candidates (dataclasses.replace), never mutate.

    `score` is the score the list is currently sorted by. `hits` holds each retriever's rank and
    raw score; `contributions` each retriever's share of a fused score; `stage_scores` every later
    score (rerank, penalty factor, decay, threshold decision …) keyed by stage name.
    """

    chunk: Chunk
    score: float
    hits: Mapping[str, RetrieverHit] = field(default_factory=_empty)
    contributions: Mapping[str, float] = field(default_factory=_empty)
    stage_scores: Mapping[str, float] = field(default_factory=_empty)
    notes: tuple[str, ...] = ()

    @property
    def chunk_id(self) -> str:
        return self.chunk.chunk_id


@dataclass(frozen=True)
class RankedList:
    """One retriever's output for one query, best first."""

    retriever: str
    candidates: tuple[Candidate, ...]


@dataclass(frozen=True)
class SearchQuery:
    """One text a retrieval stage searches with. Query understanding may add variants
    (rewrites, multi-query, HyDE); `label` names the variant's lists ("bm25#q2"), and
    `retrievers` limits it to some retrievers (HyDE text goes to dense only)."""

    text: str
    label: str = ""  # "" = the user's (possibly rewritten) query
    retrievers: tuple[str, ...] | None = None  # None = every configured retriever

    def list_name(self, retriever: str) -> str:
        return f"{retriever}#{self.label}" if self.label else retriever


def retriever_family(list_name: str) -> str:
    """The retriever behind a list, whatever query variant produced it: dense#q2 -> dense."""
    return list_name.split("#", 1)[0]


class SearchableCollection(Protocol):
    """What retrieval needs from a collection (rag.index.Collection provides it)."""

    name: str

    def dense_search(
        self, query_vector: np.ndarray, depth: int, filters: FilterConfig
    ) -> RankedList: ...

    def sparse_search(self, query: str, depth: int, filters: FilterConfig) -> RankedList: ...
