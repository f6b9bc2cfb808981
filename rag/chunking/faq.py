"""One chunk per question–answer pair, never splitting a question from its answer
(EchoMind FAQ chunker: cut before each question, cap 8000 chars)."""

from __future__ import annotations

import re
from itertools import pairwise

from pydantic import Field

from rag.chunking.registry import STRATEGIES
from rag.chunking.spans import Span, make_chunk, trim
from rag.chunking.units import pack_units, sentence_spans, split_long
from rag.documents.structure import EMPHASIS_LEVEL
from rag.records.chunk import Chunk
from rag.records.document import Document
from rag.settings.chunking import StrategySettings

# Explicit markers: "Q: …", "Q1.", "Question: …", "Question 2) …", optionally numbered/bulleted.
_MARKED = re.compile(
    r"^[ \t]*(?:(?:\d+[.)]|[-*•])[ \t]*)?(?:\*\*)?(?:Q\d*|Question(?:[ \t]*\d+)?)[ \t]*[:.)]",
    re.IGNORECASE | re.MULTILINE,
)
# Markdown headings that ask something: "## How do I reset my password?"
_HEADING_QUESTION = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+.*\?[ \t#]*$", re.MULTILINE)
# Any line ending with "?" that is not an answer line ("A: Why? Because…").
_LINE_QUESTION = re.compile(
    r"^(?![ \t]*(?:A\d*|Answer)[ \t]*[:.)])[ \t]*\S.*\?[ \t*]*$", re.MULTILINE
)


def question_starts(text: str) -> list[int]:
    """Offsets where a question begins. When explicit markers (Q:, Question N:) exist, only
    they and question headings count, so a '?' inside an answer does not start a new pair."""
    marked = [m.start() for m in _MARKED.finditer(text)]
    headings = [m.start() for m in _HEADING_QUESTION.finditer(text)]
    if marked:
        return sorted(set(marked + headings))
    return sorted({m.start() for m in _LINE_QUESTION.finditer(text)} | set(headings))


def structured_starts(document: Document) -> list[int]:
    """Where the document's own headings start (a PDF's larger type, HTML's h tags, DOCX
    heading styles; rag.documents.structure), with its "Q:" markers: a question wrapped over
    two lines of a printed FAQ starts where its first line does, and a line ending in "?"
    inside an answer (a shell prompt, a SQL placeholder) starts nothing. Empty when the
    parser saw fewer than two headings."""
    spans = [s for s in document.metadata.extra.get("heading_spans", ()) if s[2] < EMPHASIS_LEVEL]
    if len(spans) < 2:
        return []
    return sorted({int(s[0]) for s in spans} | {m.start() for m in _MARKED.finditer(document.text)})


def _first_line(text: str, span: Span) -> str:
    line_end = text.find("\n", span.start, span.end)
    return text[span.start : line_end if line_end != -1 else span.end].strip()


def _question_text(text: str, span: Span) -> str:
    """The block's first line, or its first lines up to the one ending in "?" (a wrapped
    question, at most three lines)."""
    lines = text[span.start : span.end].split("\n")[:3]
    for n, line in enumerate(lines, start=1):
        if line.rstrip().endswith("?"):
            return " ".join(" ".join(lines[:n]).split())
    return _first_line(text, span)


class FaqSettings(StrategySettings):
    max_chars: int = Field(8000, ge=1, description="a longer pair is split into parts")


class FaqChunker:
    """Text before the first question is an intro chunk; a pair over `max_chars` is split."""

    name = "faq"

    def __init__(self, settings: FaqSettings) -> None:
        self.settings = settings

    def _parts(self, text: str, block: Span) -> list[Span]:
        """The block itself, or, over the cap, sentences cut to half the cap and packed back
        up to it, so the question always travels with the start of its answer."""
        cap = self.settings.max_chars
        if block.size <= cap:
            return [block]
        pieces = split_long(text, sentence_spans(text, *block), max(1, cap // 2))
        return pack_units(pieces, cap)

    def chunk(self, document: Document) -> list[Chunk]:
        text = document.text
        starts = set(structured_starts(document) or question_starts(text))
        cuts = sorted({0, len(text)} | starts)
        chunks: list[Chunk] = []
        for block_start, block_end in pairwise(cuts):
            block = trim(text, block_start, block_end)
            if block is None:
                continue
            is_pair = block_start in starts
            meta = {"kind": "qa" if is_pair else "intro"}
            if is_pair:
                meta["question"] = _question_text(text, block)
            parts = self._parts(text, block)
            for part_no, span in enumerate(parts):
                extra = {**meta, "part": part_no, "parts": len(parts)} if len(parts) > 1 else meta
                chunks.append(
                    make_chunk(
                        document, span, strategy=self.name, index=len(chunks), metadata=extra
                    )
                )
        return chunks


STRATEGIES.add("faq", (FaqSettings, FaqChunker))
