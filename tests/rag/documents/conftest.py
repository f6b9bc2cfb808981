"""Builders for the binary files the document tests make themselves (PDF, DOCX, PPTX)."""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence

import docx
import pptx
import pytest
from fpdf import FPDF
from pypdf import PdfReader, PdfWriter


def pdf_bytes(pages: Sequence[str], title: str | None = None) -> bytes:
    """One PDF page per string; an empty string makes a page with no text layer."""
    pdf = FPDF()
    if title:
        pdf.set_title(title)
    pdf.set_font("helvetica", size=12)
    for text in pages:
        pdf.add_page()
        if text:
            pdf.multi_cell(0, 8, text)
        else:
            pdf.rect(20, 20, 100, 100, style="F")  # a drawing, like a scanned image: no text
    return bytes(pdf.output())


def encrypted(data: bytes, user_password: str = "secret") -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password, owner_password="owner", algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def docx_bytes(build: Callable[[docx.document.Document], None]) -> bytes:
    document = docx.Document()
    build(document)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def pptx_bytes(slides: Sequence[tuple[str, str]]) -> bytes:
    """(title, body) per slide."""
    deck = pptx.Presentation()
    for title, body in slides:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text_frame.text = body
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


@pytest.fixture
def make_pdf() -> Callable[..., bytes]:
    return pdf_bytes


@pytest.fixture
def make_docx() -> Callable[..., bytes]:
    return docx_bytes


@pytest.fixture
def make_pptx() -> Callable[..., bytes]:
    return pptx_bytes


@pytest.fixture
def encrypt_pdf() -> Callable[..., bytes]:
    return encrypted
