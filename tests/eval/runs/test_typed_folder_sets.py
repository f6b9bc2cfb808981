"""One scoring path (issue 36, item 6): a QA set over a folder of documents keeps each file's
detected type and format, so a type-aware chunker (EchoMind) cuts the folder's documents as
ingest cuts the same files in a collection (`eval validate-testset` vs `eval run --collection`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fpdf import FPDF

from eval.data.beir import load_qa_file
from eval.data.evalsets import qa_eval_set
from eval.runs.beir_index import beir_documents
from rag.chunking.registry import get_chunker
from rag.config import load_preset
from rag.documents.parse import parse_file

FAQ = """Widget FAQ

Q: How long does a widget last?
A: About ten years under normal load. Heavy use shortens that to six years.

Q: Can I recycle old widgets?
A: Yes. Bring them to any depot and they are melted down for new parts at no charge.
"""


def _folder(tmp_path: Path) -> tuple[Path, Path]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "faq.txt").write_text(FAQ)
    (docs / "notes.md").write_text("# Notes\n\nWidgets are parts. They fit machines.\n")
    start = FAQ.index("About ten")
    qa = tmp_path / "qa.jsonl"
    qa.write_text(json.dumps({"id": "q1", "question": "How long does a widget last?",
                              "spans": [{"doc": "faq.txt", "start": start, "end": start + 20}]}) + "\n")
    return docs, qa


def test_folder_sets_keep_detected_type_and_format(tmp_path: Path) -> None:
    docs, qa = _folder(tmp_path)
    evalset = qa_eval_set(load_qa_file(qa), docs)
    by_id = {d.doc_id: d for d in beir_documents(evalset.dataset)}
    assert by_id["faq.txt"].metadata.doc_type == parse_file(docs / "faq.txt").metadata.doc_type == "FAQ"
    assert by_id["notes.md"].metadata.format == "md"


def _printed_faq() -> bytes:
    """An FAQ printed to PDF: questions in larger type, one wrapping onto a second line."""
    pdf = FPDF()
    pdf.add_page()
    for n in (1, 2, 3):
        pdf.set_font("helvetica", "B", 16)
        pdf.multi_cell(110, 8, f"{n}. Can two processes write to one database file at once?",
                       new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("helvetica", "", 11)
        pdf.multi_cell(0, 6, "Yes: each writer takes the lock first. Is it slow? Not much.",
                       new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


@pytest.mark.parametrize("name", ["faq.txt", "faq.pdf"])
def test_echomind_chunks_a_folder_document_as_ingest_does(tmp_path: Path, name: str) -> None:
    docs, qa = _folder(tmp_path)
    (docs / "faq.pdf").write_bytes(_printed_faq())
    evalset = qa_eval_set(load_qa_file(qa), docs)
    (from_set,) = [d for d in beir_documents(evalset.dataset) if d.doc_id == name]
    ingested = parse_file(docs / name)
    assert ingested.metadata.doc_type == "FAQ"
    config = load_preset("echomind").chunking
    chunker = get_chunker(config.strategy, config.params)
    assert [(c.start, c.end) for c in chunker.chunk(from_set)] == \
        [(c.start, c.end) for c in chunker.chunk(ingested)]
