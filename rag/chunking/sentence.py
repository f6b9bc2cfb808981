"""Sentences grouped to a size range with an N-sentence overlap (EchoMind).

EchoMind's presets: USER 400–800 chars with 1 sentence overlap; SENSITIVE 225–450 with none.
"""

from __future__ import annotations

from pydantic import Field, ValidationInfo, field_validator

from rag.chunking.registry import STRATEGIES
from rag.chunking.spans import make_chunks
from rag.chunking.units import pack_units, sentence_spans, split_long
from rag.records.chunk import Chunk
from rag.records.document import Document
from rag.settings.chunking import StrategySettings, at_most


class SentenceSettings(StrategySettings):
    max_size: int = Field(800, ge=1, description="a chunk never exceeds this many characters")
    min_size: int = Field(400, ge=0, description="a short last chunk joins the one before")
    overlap_sentences: int = Field(1, ge=0, description="sentences repeated in the next chunk")

    @field_validator("min_size")
    @classmethod
    def _min_within_max(cls, value: int, info: ValidationInfo) -> int:
        return at_most("max_size", value, info)


class SentenceChunker:
    """Whole sentences packed up to `max_size`; a sentence longer than that is cut to fit."""

    name = "sentence"

    def __init__(self, settings: SentenceSettings) -> None:
        self.settings = settings

    def chunk(self, document: Document) -> list[Chunk]:
        s = self.settings
        text = document.text
        units = split_long(text, sentence_spans(text, 0, len(text)), s.max_size)
        spans = pack_units(units, s.max_size, s.min_size, s.overlap_sentences)
        return make_chunks(document, spans, strategy=self.name)


STRATEGIES.add("sentence", (SentenceSettings, SentenceChunker))
