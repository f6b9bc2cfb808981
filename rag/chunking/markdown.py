"""Heading-aware chunks: one per Markdown section, heading path in metadata; a section over
`max_size` is split recursively (like LangChain's MarkdownHeaderTextSplitter followed by a
RecursiveCharacterTextSplitter, but keeping offsets and the heading lines themselves)."""

from __future__ import annotations

from pydantic import Field, ValidationInfo, field_validator

from rag.chunking.headings import fold_bare_headings, sections
from rag.chunking.recursive import split_recursive
from rag.chunking.registry import STRATEGIES
from rag.chunking.spans import make_chunk
from rag.records.chunk import Chunk
from rag.records.document import Document
from rag.settings.chunking import StrategySettings, smaller_than


class MarkdownSettings(StrategySettings):
    max_size: int = Field(1500, ge=1, description="a larger section is split recursively")
    overlap: int = Field(150, ge=0, description="overlap of the pieces of a split section")
    max_depth: int = Field(6, ge=1, le=6, description="deeper headings stay inside their section")

    @field_validator("overlap")
    @classmethod
    def _overlap_below_size(cls, value: int, info: ValidationInfo) -> int:
        return smaller_than("max_size", value, info)


class MarkdownChunker:
    """Sections at Markdown headings; text before the first heading is its own section."""

    name = "markdown"

    def __init__(self, settings: MarkdownSettings) -> None:
        self.settings = settings

    def chunk(self, document: Document) -> list[Chunk]:
        s = self.settings
        text = document.text
        found = fold_bare_headings(text, sections(text, s.max_depth))
        chunks: list[Chunk] = []
        for section in found:
            meta = {"heading_path": section.path, "section": " > ".join(section.path)}
            for span in split_recursive(text, *section.span, s.max_size, s.overlap):
                chunks.append(
                    make_chunk(document, span, strategy=self.name, index=len(chunks), metadata=meta)
                )
        return chunks


STRATEGIES.add("markdown", (MarkdownSettings, MarkdownChunker))
