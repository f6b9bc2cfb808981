"""DOCX via python-docx: paragraphs and tables in body order, table rows as `cell | cell` lines."""

from __future__ import annotations

from types import MappingProxyType

import docx
from docx.document import Document as DocxDocument
from docx.table import Table
from docx.text.paragraph import Paragraph

from rag.documents.decode import normalize_newlines
from rag.documents.errors import DocumentError
from rag.documents.parsers.base import PARSERS, ParsedText
from rag.documents.parsers.ooxml import open_package
from rag.documents.structure import locate_headings

_TITLE_STYLES = ("Title", "Heading 1")


def table_lines(table: Table) -> list[str]:
    """One line per row; a merged cell repeats in python-docx's row.cells, so keep it once."""
    lines = []
    for row in table.rows:
        cells, seen = [], set()
        for cell in row.cells:
            if id(cell._tc) in seen:
                continue
            seen.add(id(cell._tc))
            cells.append(" ".join(cell.text.split()))
        if any(cells):
            lines.append(" | ".join(cells))
    return lines


def _title(document: DocxDocument, paragraphs: list[Paragraph]) -> str | None:
    stored = (document.core_properties.title or "").strip()
    if stored:
        return stored
    for style in _TITLE_STYLES:
        for paragraph in paragraphs:
            if paragraph.style is not None and paragraph.style.name == style and paragraph.text.strip():
                return paragraph.text.strip()
    return None


def _heading_level(paragraph: Paragraph) -> int:
    """1-9 for Word's "Heading N" styles (Title is 1), else 0."""
    name = paragraph.style.name if paragraph.style is not None else ""
    if name == "Title":
        return 1
    level = name.removeprefix("Heading ").strip()
    return int(level) if name.startswith("Heading ") and level.isdigit() else 0


@PARSERS.register(".docx")
def parse_docx(data: bytes, name: str) -> ParsedText:
    """Blocks (paragraphs, tables) separated by blank lines, so paragraph splitters see them."""
    document = open_package(data, "docx", docx.Document)
    blocks: list[str] = []
    paragraphs: list[Paragraph] = []
    tables = 0
    for item in document.iter_inner_content():
        if isinstance(item, Paragraph):
            paragraphs.append(item)
            text = normalize_newlines(item.text).strip()
        else:
            tables += 1
            text = "\n".join(table_lines(item))
        if text:
            blocks.append(text)
    if not blocks:
        raise DocumentError("DOCX has no text (no paragraphs or table cells)", "check the file in Word")
    marked = [(p.text, _heading_level(p)) for p in paragraphs if _heading_level(p)]
    extra = {"paragraphs": len(paragraphs), "tables": tables,
             "heading_spans": locate_headings("\n\n".join(blocks), marked)}
    modified = document.core_properties.modified
    return ParsedText(
        "\n\n".join(blocks), _title(document, paragraphs), (), None, modified, MappingProxyType(extra)
    )
