"""Hierarchical levels document → section → paragraph (Vexora: level 0/1/2).

One document chunk covers everything; sections open at headings (or are packed paragraphs
when there are none / a section is too big); paragraphs live inside their section. Every
chunk's parent_id points at the level above, so retrieval can filter or expand by level.
"""

from __future__ import annotations

from pydantic import Field, ValidationInfo, field_validator

from rag.chunking.headings import fold_bare_headings, sections
from rag.chunking.registry import STRATEGIES
from rag.chunking.spans import Span, make_chunk, trim
from rag.chunking.units import merge_short, pack_units, paragraph_spans, split_long
from rag.records.chunk import Chunk
from rag.records.document import Document
from rag.settings.chunking import StrategySettings, at_most, smaller_than


class HierarchicalSettings(StrategySettings):
    section_max_depth: int = Field(2, ge=1, le=6, description="headings this deep open sections")
    section_size: int = Field(4000, ge=1, description="larger sections are split at paragraphs")
    paragraph_size: int = Field(1000, ge=1, description="longer paragraphs are split")
    paragraph_min_size: int = Field(200, ge=0, description="shorter paragraphs join a neighbour")

    @field_validator("paragraph_size")
    @classmethod
    def _paragraph_below_section(cls, value: int, info: ValidationInfo) -> int:
        return smaller_than("section_size", value, info)

    @field_validator("paragraph_min_size")
    @classmethod
    def _min_within_max(cls, value: int, info: ValidationInfo) -> int:
        return at_most("paragraph_size", value, info)


class HierarchicalChunker:
    """Returns [document, section 1, its paragraphs, section 2, …] (pre-order)."""

    name = "hierarchical"

    def __init__(self, settings: HierarchicalSettings) -> None:
        self.settings = settings

    def _section_spans(self, text: str) -> list[tuple[Span, tuple[str, ...]]]:
        s = self.settings
        out: list[tuple[Span, tuple[str, ...]]] = []
        for section in fold_bare_headings(text, sections(text, s.section_max_depth)):
            body = trim(text, *section.span)
            if body is None:
                continue
            if body.size <= s.section_size:
                out.append((body, section.path))
                continue
            paragraphs = split_long(text, paragraph_spans(text, *body), s.section_size)
            out.extend((span, section.path) for span in pack_units(paragraphs, s.section_size))
        return out

    def chunk(self, document: Document) -> list[Chunk]:
        s = self.settings
        text = document.text
        whole = trim(text, 0, len(text))
        if whole is None:
            return []
        root = make_chunk(
            document, whole, strategy=self.name, index=0, level="document", metadata={"depth": 0}
        )
        chunks = [root]
        n_paragraphs = 0
        for s_index, (s_span, path) in enumerate(self._section_spans(text)):
            meta = {"depth": 1, "heading_path": path, "section": " > ".join(path)}
            section = make_chunk(
                document,
                s_span,
                strategy=self.name,
                index=s_index,
                level="section",
                parent_id=root.chunk_id,
                metadata=meta,
            )
            chunks.append(section)
            pieces = split_long(text, paragraph_spans(text, *s_span), s.paragraph_size)
            for p_span in merge_short(pieces, s.paragraph_min_size, s.paragraph_size):
                chunks.append(
                    make_chunk(
                        document,
                        p_span,
                        strategy=self.name,
                        index=n_paragraphs,
                        level="paragraph",
                        parent_id=section.chunk_id,
                        metadata={**meta, "depth": 2},
                    )
                )
                n_paragraphs += 1
        return chunks


STRATEGIES.add("hierarchical", (HierarchicalSettings, HierarchicalChunker))
