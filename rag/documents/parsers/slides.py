"""PPTX via python-pptx: one slide is one page; text frames and tables in shape order, then notes."""

from __future__ import annotations

from collections.abc import Iterator
from types import MappingProxyType

import pptx
from pptx.shapes.autoshape import Shape
from pptx.shapes.base import BaseShape
from pptx.shapes.graphfrm import GraphicFrame
from pptx.shapes.group import GroupShape
from pptx.slide import Slide

from rag.documents.decode import normalize_newlines
from rag.documents.errors import DocumentError
from rag.documents.parsers.base import PARSERS, ParsedText, join_pages
from rag.documents.parsers.ooxml import open_package


def _shape_lines(shape: BaseShape) -> Iterator[str]:
    if isinstance(shape, GroupShape):
        for inner in shape.shapes:
            yield from _shape_lines(inner)
    elif isinstance(shape, Shape) and shape.has_text_frame and shape.text_frame.text.strip():
        yield normalize_newlines(shape.text_frame.text).strip()  # placeholders are Shapes too
    elif isinstance(shape, GraphicFrame) and shape.has_table:
        for row in shape.table.rows:
            cells = [" ".join(cell.text.split()) for cell in row.cells]
            if any(cells):
                yield " | ".join(cells)


def _slide_text(slide: Slide) -> str:
    lines = [line for shape in slide.shapes for line in _shape_lines(shape)]
    frame = slide.notes_slide.notes_text_frame if slide.has_notes_slide else None
    notes = normalize_newlines(frame.text).strip() if frame is not None else ""
    if notes:
        lines.append(f"Notes: {notes}")
    return "\n".join(lines)


def _slide_title(slide: Slide) -> str | None:
    title = slide.shapes.title
    text = title.text_frame.text.strip() if title is not None and title.has_text_frame else ""
    return text or None


@PARSERS.register(".pptx")
def parse_pptx(data: bytes, name: str) -> ParsedText:
    """Each slide's text becomes one PageSpan; the title is the stored title or the first slide's."""
    deck = open_package(data, "pptx", pptx.Presentation)
    slides = list(deck.slides)
    texts = [_slide_text(slide) for slide in slides]
    if not any(texts):
        raise DocumentError(
            f"PPTX has no text on any of its {len(slides)} slides",
            "slides holding only pictures need OCR; export text or notes and add that instead",
        )
    text, pages = join_pages(texts)
    stored = (deck.core_properties.title or "").strip()
    title = stored or next((t for t in map(_slide_title, slides) if t), None)
    extra = {"slide_count": len(slides)}
    modified = deck.core_properties.modified
    return ParsedText(text, title, pages, None, modified, MappingProxyType(extra))
