"""Fixed-size character windows with overlap: the baseline every other strategy is compared to."""

from __future__ import annotations

from pydantic import Field, ValidationInfo, field_validator

from rag.chunking.registry import STRATEGIES
from rag.chunking.spans import Span, make_chunks, trim_all
from rag.records.chunk import Chunk
from rag.records.document import Document
from rag.settings.chunking import StrategySettings, smaller_than


class FixedSettings(StrategySettings):
    size: int = Field(512, ge=1, description="window size in characters")
    overlap: int = Field(50, ge=0, description="characters shared by consecutive windows")

    @field_validator("overlap")
    @classmethod
    def _overlap_below_size(cls, value: int, info: ValidationInfo) -> int:
        return smaller_than("size", value, info)


def windows(length: int, size: int, overlap: int) -> list[Span]:
    """`[i, i + size)` every `size - overlap` characters until the text is covered."""
    step = size - overlap
    spans = []
    for start in range(0, length, step):
        spans.append(Span(start, min(start + size, length)))
        if start + size >= length:
            break
    return spans


class FixedChunker:
    """Cuts every `size - overlap` characters, ignoring words and sentences."""

    name = "fixed"

    def __init__(self, settings: FixedSettings) -> None:
        self.settings = settings

    def chunk(self, document: Document) -> list[Chunk]:
        text = document.text
        spans = trim_all(text, windows(len(text), self.settings.size, self.settings.overlap))
        return make_chunks(document, spans, strategy=self.name)


STRATEGIES.add("fixed", (FixedSettings, FixedChunker))
