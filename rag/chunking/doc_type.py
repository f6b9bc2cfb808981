"""Chunk each document with the strategy for its detected type (EchoMind):
FAQ → one chunk per Q&A pair; BOOK → paragraph parents 2000–3500 with sentence children
400–700 overlapping 2 sentences; SENSITIVE → sentences to 225–450, no overlap; USER →
sentences to 400–800 with 1 sentence overlap. Each route is any registered strategy."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType
from typing import Any, ClassVar

from pydantic import Field, model_validator

from rag.chunking.registry import STRATEGIES, get_chunker, strategy_settings
from rag.embed.base import Embedder
from rag.records.chunk import Chunk, Chunker
from rag.records.document import Document
from rag.settings.chunking import StrategySettings


class Route(StrategySettings):
    strategy: str
    params: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> Route:
        if self.strategy == "doc_type":
            raise ValueError("a doc_type route cannot be doc_type itself")
        strategy_settings(self.strategy, self.params)
        return self


def _route(strategy: str, **params: Any) -> Any:  # Any: pydantic's Field() default factory
    return Field(default_factory=lambda: Route(strategy=strategy, params=params))


class DocTypeSettings(StrategySettings):
    needs_embedder: ClassVar[bool] = True  # a route may be semantic

    faq: Route = _route("faq", max_chars=8000)
    book: Route = _route(
        "parent_child",
        parent_unit="paragraphs",
        parent_size=3500,
        parent_min_size=2000,
        parent_overlap=0,
        child_unit="sentences",
        child_size=700,
        child_min_size=400,
        child_overlap=2,
    )
    sensitive: Route = _route("sentence", max_size=450, min_size=225, overlap_sentences=0)
    user: Route = _route("sentence", max_size=800, min_size=400, overlap_sentences=1)


class DocTypeChunker:
    """Picks the route from `document.metadata.doc_type`; chunks record the type they got."""

    name = "doc_type"

    def __init__(self, settings: DocTypeSettings, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self._embedder = embedder
        self._chunkers: dict[str, Chunker] = {}

    def _chunker_for(self, doc_type: str) -> Chunker:
        if doc_type not in self._chunkers:
            route: Route = getattr(self.settings, doc_type.lower())
            self._chunkers[doc_type] = get_chunker(
                route.strategy, route.params, embedder=self._embedder
            )
        return self._chunkers[doc_type]

    def chunk(self, document: Document) -> list[Chunk]:
        doc_type = document.metadata.doc_type
        return [
            replace(c, metadata=MappingProxyType({**c.metadata, "doc_type": doc_type}))
            for c in self._chunker_for(doc_type).chunk(document)
        ]


STRATEGIES.add("doc_type", (DocTypeSettings, DocTypeChunker))
