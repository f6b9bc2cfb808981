"""The FAQ chunker on an FAQ printed to PDF (issue 36): it cuts where the document's own
headings start, so a question wrapped over two lines stays whole at the head of its answer."""

from __future__ import annotations

from fpdf import FPDF

from rag.chunking.faq import FaqChunker, FaqSettings
from rag.documents.parse import parse_bytes

QUESTION = "Can two processes write to one database file at once without corrupting it?"
ANSWER = "Yes: each writer takes the lock first and the other one waits. Run ls? to see them."


def _pdf() -> bytes:
    pdf = FPDF()
    pdf.add_page()
    for n in (1, 2, 3):
        pdf.set_font("helvetica", "B", 16)
        pdf.multi_cell(120, 8, f"{n}. {QUESTION}", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("helvetica", "", 11)
        pdf.multi_cell(0, 6, ANSWER, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def test_wrapped_questions_stay_with_their_answers() -> None:
    document = parse_bytes("faq.pdf", _pdf())
    assert document.metadata.doc_type == "FAQ"
    chunks = FaqChunker(FaqSettings()).chunk(document)
    pairs = [c for c in chunks if c.metadata["kind"] == "qa"]
    assert len(pairs) == 3
    for n, chunk in enumerate(pairs, start=1):
        assert chunk.metadata["question"] == f"{n}. {QUESTION}"
        assert " ".join(chunk.text.split()).startswith(f"{n}. {QUESTION} Yes: each writer")
