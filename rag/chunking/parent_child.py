"""Parent–child chunks: large parents for context, small children inside them for retrieval.

Axiom: parents 2000/200 chars, children 400/50 chars, both recursive splits.
EchoMind BOOK: parents are paragraphs packed to 2000–3500 chars, children
are sentences packed to 400–700 chars with 2 sentences of overlap. `*_unit` picks the style.
"""

from __future__ import annotations

from pydantic import Field, ValidationInfo, field_validator

from rag.chunking.registry import STRATEGIES
from rag.chunking.spans import make_chunk
from rag.chunking.units import Unit, split_level
from rag.records.chunk import Chunk
from rag.records.document import Document
from rag.settings.chunking import StrategySettings, at_most, smaller_than


def _check_overlap(unit: Unit, size_field: str, value: int, info: ValidationInfo) -> int:
    # Character overlap must leave room for new text; a unit overlap is a count of units.
    return smaller_than(size_field, value, info) if unit == "chars" else value


class ParentChildSettings(StrategySettings):
    parent_unit: Unit = Field("chars", description="chars: recursive split; else packed units")
    parent_size: int = Field(2000, ge=1, description="maximum parent size in characters")
    parent_min_size: int = Field(0, ge=0, description="a short last parent joins the one before")
    parent_overlap: int = Field(200, ge=0, description="chars (unit chars) or units carried over")
    child_unit: Unit = Field("chars", description="chars: recursive split; else packed units")
    child_size: int = Field(400, ge=1, description="maximum child size in characters")
    child_min_size: int = Field(0, ge=0, description="a short last child joins the one before")
    child_overlap: int = Field(50, ge=0, description="chars (unit chars) or units carried over")

    @field_validator("parent_min_size")
    @classmethod
    def _parent_min(cls, value: int, info: ValidationInfo) -> int:
        return at_most("parent_size", value, info)

    @field_validator("parent_overlap")
    @classmethod
    def _parent_overlap(cls, value: int, info: ValidationInfo) -> int:
        return _check_overlap(info.data.get("parent_unit", "chars"), "parent_size", value, info)

    @field_validator("child_size")
    @classmethod
    def _child_below_parent(cls, value: int, info: ValidationInfo) -> int:
        return smaller_than("parent_size", value, info)

    @field_validator("child_min_size")
    @classmethod
    def _child_min(cls, value: int, info: ValidationInfo) -> int:
        return at_most("child_size", value, info)

    @field_validator("child_overlap")
    @classmethod
    def _child_overlap(cls, value: int, info: ValidationInfo) -> int:
        return _check_overlap(info.data.get("child_unit", "chars"), "child_size", value, info)


class ParentChildChunker:
    """Returns [P1, its children, P2, its children, …]; children carry their parent's id."""

    name = "parent_child"

    def __init__(self, settings: ParentChildSettings) -> None:
        self.settings = settings

    def chunk(self, document: Document) -> list[Chunk]:
        s = self.settings
        text = document.text
        chunks: list[Chunk] = []
        parents = split_level(
            text, 0, len(text), s.parent_unit, s.parent_size, s.parent_min_size, s.parent_overlap
        )
        child_index = 0
        for p_index, p_span in enumerate(parents):
            parent = make_chunk(document, p_span, strategy=self.name, index=p_index, level="parent")
            chunks.append(parent)
            children = split_level(
                text,
                p_span.start,
                p_span.end,
                s.child_unit,
                s.child_size,
                s.child_min_size,
                s.child_overlap,
            )
            for c_span in children:
                chunks.append(
                    make_chunk(
                        document,
                        c_span,
                        strategy=self.name,
                        index=child_index,
                        level="child",
                        parent_id=parent.chunk_id,
                    )
                )
                child_index += 1
        return chunks


STRATEGIES.add("parent_child", (ParentChildSettings, ParentChildChunker))
