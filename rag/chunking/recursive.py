"""Recursive character splitter (IntelliDocs: 512/50), span-keeping.

Same algorithm as LangChain's RecursiveCharacterTextSplitter (keep_separator="start",
strip_whitespace=True), so its chunk texts are identical, but it works on offsets: every
piece is a `(start, end)` of the document, so no `text.find` guesswork recovers positions.
"""

from __future__ import annotations

from collections import deque
from itertools import pairwise

from pydantic import Field, ValidationInfo, field_validator

from rag.chunking.registry import STRATEGIES
from rag.chunking.spans import Span, make_chunks, trim_all
from rag.records.chunk import Chunk
from rag.records.document import Document
from rag.settings.chunking import StrategySettings, smaller_than

DEFAULT_SEPARATORS: tuple[str, ...] = ("\n\n", "\n", ". ", " ", "")


def _pieces(text: str, start: int, end: int, separator: str) -> list[Span]:
    """Split `text[start:end]` before every (non-overlapping) separator occurrence."""
    if not separator:
        return [Span(i, i + 1) for i in range(start, end)]
    cuts = [start]
    pos = text.find(separator, start, end)
    while pos != -1:
        cuts.append(pos)
        pos = text.find(separator, pos + len(separator), end)
    cuts.append(end)
    return [Span(a, b) for a, b in pairwise(cuts) if b > a]


def _merge(pieces: list[Span], size: int, overlap: int) -> list[Span]:
    """Pack contiguous pieces into windows of at most `size`, carrying up to `overlap` back."""
    windows: list[Span] = []
    current: deque[Span] = deque()
    total = 0
    for piece in pieces:
        if total + piece.size > size and current:
            windows.append(Span(current[0].start, current[-1].end))
            # Drop from the front until what is carried over fits the overlap and the new piece.
            while total > overlap or (total + piece.size > size and total > 0):
                total -= current.popleft().size
        current.append(piece)
        total += piece.size
    if current:
        windows.append(Span(current[0].start, current[-1].end))
    return windows


def _split(
    text: str, start: int, end: int, size: int, overlap: int, separators: tuple[str, ...]
) -> list[Span]:
    # The first separator present in the text; finer ones are left for oversized pieces.
    separator = separators[-1]
    rest: tuple[str, ...] = ()
    for i, candidate in enumerate(separators):
        if not candidate:
            separator = candidate
            break
        if text.find(candidate, start, end) != -1:
            separator, rest = candidate, separators[i + 1 :]
            break
    spans: list[Span] = []
    good: list[Span] = []
    for piece in _pieces(text, start, end, separator):
        if piece.size < size:
            good.append(piece)
            continue
        if good:
            spans.extend(_merge(good, size, overlap))
            good = []
        if rest:
            spans.extend(_split(text, piece.start, piece.end, size, overlap, rest))
        else:
            spans.append(piece)
    if good:
        spans.extend(_merge(good, size, overlap))
    return spans


def split_recursive(
    text: str,
    start: int,
    end: int,
    size: int,
    overlap: int = 0,
    separators: tuple[str, ...] = DEFAULT_SEPARATORS,
) -> list[Span]:
    """Trimmed spans of `text[start:end]`, each at most `size` chars (separators end with "")."""
    return trim_all(text, _split(text, start, end, size, overlap, separators))


class RecursiveSettings(StrategySettings):
    size: int = Field(512, ge=1, description="maximum chunk size in characters")
    overlap: int = Field(50, ge=0, description="characters carried into the next chunk")
    separators: tuple[str, ...] = Field(
        DEFAULT_SEPARATORS, description="tried in order: paragraphs, lines, sentences, words"
    )

    @field_validator("overlap")
    @classmethod
    def _overlap_below_size(cls, value: int, info: ValidationInfo) -> int:
        return smaller_than("size", value, info)

    @field_validator("separators")
    @classmethod
    def _ends_with_characters(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value or value[-1] != "":
            raise ValueError('separators must end with "" so any text can be cut to size')
        return value


class RecursiveChunker:
    """Paragraphs, then lines, sentences, words, characters: the largest unit that fits."""

    name = "recursive"

    def __init__(self, settings: RecursiveSettings) -> None:
        self.settings = settings

    def chunk(self, document: Document) -> list[Chunk]:
        s = self.settings
        spans = split_recursive(
            document.text, 0, len(document.text), s.size, s.overlap, s.separators
        )
        return make_chunks(document, spans, strategy=self.name)


STRATEGIES.add("recursive", (RecursiveSettings, RecursiveChunker))
