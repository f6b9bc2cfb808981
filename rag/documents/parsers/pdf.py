"""PDF via pypdf: one page of text per PDF page, with each page's character span kept."""

from __future__ import annotations

import io
from datetime import datetime
from types import MappingProxyType

from pypdf import PdfReader
from pypdf.errors import PyPdfError

from rag.documents.decode import normalize_newlines
from rag.documents.errors import DocumentError
from rag.documents.parsers.base import PARSERS, ParsedText, join_pages
from rag.documents.parsers.pdf_layout import drop_furniture, pdf_headings, text_and_pieces

# The PDF spec puts "%PDF-" at the start (readers accept it within the first 1 KB) and
# "%%EOF" at the end; checking both first gives clear messages for renamed or cut-off files.
_HEADER_WINDOW = 1024
_EOF_WINDOW = 2048
_REEXPORT = "download or export the PDF again; if it opens elsewhere, print it to a new PDF"


def _open(data: bytes) -> PdfReader:
    if b"%PDF-" not in data[:_HEADER_WINDOW]:
        raise DocumentError(
            f"not a PDF: no %PDF- header in the first {_HEADER_WINDOW} bytes",
            "check what the file really is; its extension may be wrong",
        )
    if b"%%EOF" not in data[-_EOF_WINDOW:]:
        raise DocumentError("PDF is truncated: no %%EOF marker at its end", _REEXPORT)
    try:
        reader = PdfReader(io.BytesIO(data))
    except PyPdfError as exc:
        raise DocumentError(f"PDF is damaged: {exc}", _REEXPORT) from None
    if reader.is_encrypted:
        _decrypt(reader)
    return reader


def _decrypt(reader: PdfReader) -> None:
    """Owner-password-only PDFs open with an empty user password; anything else is locked."""
    try:
        opened = reader.decrypt("")
    except (PyPdfError, NotImplementedError) as exc:
        raise DocumentError(
            f"PDF is encrypted and pypdf cannot decrypt it ({exc})",
            "remove the password (e.g. `qpdf --decrypt --password=PW in.pdf out.pdf`) and add it again",
        ) from None
    if not opened:
        raise DocumentError(
            "PDF is encrypted with a password",
            "remove the password (e.g. `qpdf --decrypt --password=PW in.pdf out.pdf`) and add it again",
        )


def _title_and_date(reader: PdfReader) -> tuple[str | None, datetime | None]:
    try:
        info = reader.metadata
        if info is None:
            return None, None
        title = (info.title or "").strip() or None
        return title, info.modification_date or info.creation_date
    except (PyPdfError, ValueError):  # a malformed date string must not cost the text
        return None, None


@PARSERS.register(".pdf")
def parse_pdf(data: bytes, name: str) -> ParsedText:
    """Extract each page's text layer (pypdf), keep page spans, refuse image-only PDFs."""
    reader = _open(data)
    texts: list[str] = []
    pieces: list[list[tuple[str, float, bool]]] = []
    unreadable: list[int] = []
    for number, page in enumerate(reader.pages, start=1):
        try:
            raw, styled = text_and_pieces(page)
        except (PyPdfError, ValueError, KeyError):  # one broken content stream, not the file
            raw, styled = "", []
            unreadable.append(number)
        texts.append(normalize_newlines(raw).replace("\x00", "").strip())
        pieces.append(styled)
    texts, furniture = drop_furniture(texts, pieces)
    if not any(texts):
        raise DocumentError(
            f"PDF has no text layer ({len(texts)} pages, likely scanned images)",
            "run OCR on it (e.g. `ocrmypdf in.pdf out.pdf`) and add the result",
        )
    text, pages = join_pages(texts)
    title, modified = _title_and_date(reader)
    headings, found_by = pdf_headings(reader, texts, [p.start for p in pages], pieces)
    extra = {
        "heading_spans": tuple(headings),  # (start, end, level): rag.documents.parsers.pdf_layout
        "headings_from": found_by,
        "furniture_lines": furniture,  # running headers and footers left out
        "page_count": len(texts),
        "empty_pages": tuple(n for n, t in enumerate(texts, start=1) if not t),
        "unreadable_pages": tuple(unreadable),
    }
    return ParsedText(text, title, pages, None, modified, MappingProxyType(extra))
