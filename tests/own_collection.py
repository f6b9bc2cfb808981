"""A small collection of the user's own documents, built as the app and `rag ingest` build one
(hashing embedder: what tests check is the wiring, not retrieval quality)."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

from rag.cli import main as rag_main
from rag.paths import PROJECT_ROOT, SAMPLES_DIR

FILES = ("lumen-notes-faq.txt", "lumen-notes-handbook.md")


def build_collection(folder: Path, files: tuple[str, ...] = FILES) -> str:
    """Ingest `files` of datasets/samples/ into a new collection; returns its name."""
    docs = folder / f"docs-{uuid.uuid4().hex[:6]}"
    docs.mkdir(parents=True)
    for name in files:
        shutil.copy(SAMPLES_DIR / name, docs / name)
    name = f"own-{uuid.uuid4().hex[:8]}"
    assert rag_main(["ingest", str(docs), "--collection", name, "--preset", "hybrid"]) == 0
    return name


def sample_rows(files: tuple[str, ...] = FILES, n: int = 4) -> list[dict]:
    """The bundled QA rows whose spans name only `files`."""
    rows = [json.loads(line) for line in
            (PROJECT_ROOT / "datasets" / "qa_samples.jsonl").read_text().splitlines()]
    return [r for r in rows if r.get("spans") and {s["doc"] for s in r["spans"]} <= set(files)][:n]
