"""One chunk per document: passage-level corpora (BEIR) are judged whole, so they are kept whole."""

from __future__ import annotations

from rag.chunking.registry import STRATEGIES
from rag.chunking.spans import make_chunks, trim
from rag.records.chunk import Chunk
from rag.records.document import Document
from rag.settings.chunking import StrategySettings


class WholeSettings(StrategySettings):
    """No parameters: the document is the chunk (trimmed of surrounding whitespace)."""


class WholeChunker:
    """Don't split. An embedder still truncates what it cannot read (MiniLM: 256 tokens), as
    whole-passage baselines do; BM25 sees every word."""

    name = "whole"

    def __init__(self, settings: WholeSettings) -> None:
        self.settings = settings

    def chunk(self, document: Document) -> list[Chunk]:
        span = trim(document.text, 0, len(document.text))
        return make_chunks(document, [span] if span else [], strategy=self.name)


STRATEGIES.add("whole", (WholeSettings, WholeChunker))
