"""The bundled samples: all ingest, cover every document type, and match make_samples.py's output."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from rag.documents import ingest_paths
from rag.paths import SAMPLES_DIR


def test_samples_ingest_cleanly_and_cover_every_doc_type() -> None:
    report = ingest_paths([SAMPLES_DIR])
    assert report.skipped == ()
    formats = {doc.metadata.format for doc in report.documents}
    assert {"md", "txt", "pdf", "docx"} <= formats
    assert {doc.metadata.doc_type for doc in report.documents} == {"FAQ", "BOOK", "SENSITIVE", "USER"}
    pdf = next(doc for doc in report.documents if doc.metadata.format == "pdf")
    assert len(pdf.metadata.pages) >= 3
    assert sum(p.stat().st_size for p in SAMPLES_DIR.iterdir()) < 300 * 1024


def test_committed_binaries_are_what_make_samples_writes(
    tmp_path: Path, load_script: Callable[[str], ModuleType]
) -> None:
    for path in load_script("make_samples").write_samples(tmp_path):
        assert path.read_bytes() == (SAMPLES_DIR / path.name).read_bytes(), path.name
