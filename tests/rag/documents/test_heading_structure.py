"""Headings read from a document's own structure (issue 36): a PDF's type sizes and weights
(pypdf's text visitor) or its outline, HTML's h tags, DOCX heading styles — located in the kept
text as (start, end, level); running headers and footers of printed pages dropped."""

from __future__ import annotations

import io

import docx
from fpdf import FPDF

from rag.documents.parse import parse_bytes
from rag.documents.structure import EMPHASIS_LEVEL, locate_headings

ANSWER = ("Yes: each writer takes the lock first and the other one waits until it is released, "
          "so no write is ever lost or torn, however busy the machine is.")


def _printed_faq(outline: bool = False) -> bytes:
    """An FAQ page as a browser prints it: a small running footer on every page, questions in
    larger bold type (one wrapping onto a second line), answers in body type."""
    pdf = FPDF()
    pdf.set_auto_page_break(False)
    for page in (1, 2):
        pdf.add_page()
        for n in (1, 2):
            number = (page - 1) * 2 + n
            if outline:
                pdf.start_section(f"{number}. Can two processes write to one file at once?")
            pdf.set_font("helvetica", "B", 16)
            pdf.multi_cell(100, 8, f"{number}. Can two processes write to one file at once?",
                           new_x="LMARGIN", new_y="NEXT")
            pdf.set_font("helvetica", "", 11)
            pdf.multi_cell(0, 6, ANSWER, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("helvetica", "", 7)
        pdf.set_y(-15)
        pdf.cell(0, 5, f"12/5/26, 7:23 AM  Widget FAQ  file:///tmp/faq.html  {page}/2")
    return bytes(pdf.output())


def test_pdf_headings_from_type_size_with_wrapped_lines_joined() -> None:
    document = parse_bytes("faq.pdf", _printed_faq())
    spans = document.metadata.extra["heading_spans"]
    texts = [" ".join(document.text[a:b].split()) for a, b, *_ in spans]
    assert texts == [f"{n}. Can two processes write to one file at once?" for n in (1, 2, 3, 4)]
    assert "\n" in document.text[spans[0][0]:spans[0][1]]  # it wrapped, and is one heading
    assert {s[2] for s in spans} == {1}
    assert document.metadata.extra["headings_from"] == "font"


def test_printed_running_footers_are_dropped_from_the_text() -> None:
    document = parse_bytes("faq.pdf", _printed_faq())
    assert "file:///tmp/faq.html" not in document.text and "7:23 AM" not in document.text
    assert document.metadata.extra["furniture_lines"] == 2
    assert document.text.count(ANSWER[:40]) == 4


def test_an_faq_printed_to_pdf_is_typed_faq() -> None:
    # a printed FAQ has no blank lines and says "FAQ" only in its footer: typed by its headings
    document = parse_bytes("faq.pdf", _printed_faq())
    assert document.metadata.doc_type == "FAQ", document.metadata.doc_type_reason


def test_pdf_outline_is_read_first() -> None:
    document = parse_bytes("faq.pdf", _printed_faq(outline=True))
    assert document.metadata.extra["headings_from"] == "outline"
    assert len(document.metadata.extra["heading_spans"]) == 4


def test_html_headings_are_located_in_the_kept_text_not_in_the_contents_list() -> None:
    html = ("<html><body><h1>Guide</h1><ul><li>What is a widget?</li><li>Notes</li></ul>"
            "<h2>What is a widget?</h2><p>A widget is a part.</p><p><b>Note</b></p></body></html>")
    document = parse_bytes("guide.html", html.encode())
    spans = document.metadata.extra["heading_spans"]
    assert [(document.text[a:b], level) for a, b, level in spans] == [("Guide", 1),
                                                                     ("What is a widget?", 2)]
    assert spans[1][0] > document.text.index("A widget") - 30  # the h2, not the list item


def test_docx_heading_styles_become_heading_spans() -> None:
    built = docx.Document()
    built.add_heading("Release notes", level=1)
    built.add_paragraph("Widgets are faster.")
    built.add_heading("Upgrading old widgets", level=2)
    built.add_paragraph("Stop the machine and fit the chip.")
    buffer = io.BytesIO()
    built.save(buffer)
    document = parse_bytes("notes.docx", buffer.getvalue())
    assert [(document.text[a:b], level) for a, b, level in document.metadata.extra["heading_spans"]] \
        == [("Release notes", 1), ("Upgrading old widgets", 2)]


def test_locate_headings_skips_what_is_not_a_line() -> None:
    text = "Intro\n\nSetup steps\n\nBody text here.\n\nSetup"
    assert locate_headings(text, [("Setup", 2), ("Missing", 2)]) == ((len(text) - 5, len(text), 2),)
    assert EMPHASIS_LEVEL > 6  # below every level a format marks itself
