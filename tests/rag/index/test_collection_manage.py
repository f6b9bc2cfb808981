"""Managing a collection: ingest progress by phase, removing a document, size on disk, and the
settings it was built with as text."""

from __future__ import annotations

import uuid

from rag.config import load_preset
from rag.documents import ingest_paths
from rag.index import delete_collection, index_settings, open_collection
from rag.index.manifest import describe_settings
from rag.paths import SAMPLES_DIR

FILES = [SAMPLES_DIR / "lumen-notes-faq.txt", SAMPLES_DIR / "lumen-notes-handbook.md"]


def test_progress_by_phase_remove_a_document_and_size_on_disk(hashing_presets: None) -> None:
    config = load_preset("hybrid")
    collection = open_collection(f"m-{uuid.uuid4().hex[:8]}", create=True)
    steps: list[tuple[str, int, int]] = []
    summary = collection.add_documents(ingest_paths(FILES).documents, config, progress=False,
                                       on_progress=lambda *step: steps.append(step))
    chunks = summary.chunks_added
    for phase in ("embedding", "indexing"):
        done = [d for p, d, t in steps if p == phase]
        assert done == sorted(done) and done[-1] == chunks  # rises to the total
        assert {t for p, _, t in steps if p == phase} == {chunks}
    assert collection.disk_bytes() > 0

    faq = next(s for s in collection.manifest.documents if s.endswith("faq.txt"))
    faq_chunks = len(collection.manifest.documents[faq].chunk_ids)
    assert collection.remove_document(faq) == faq_chunks
    again = open_collection(collection.name)  # what another process would read
    assert faq not in again.manifest.documents
    assert again.store.count() == chunks - faq_chunks == again.manifest.chunk_count
    hits = again.sparse_search("deleted notes trash", 50)
    assert all(not c.chunk.metadata["source"].endswith("faq.txt") for c in hits.candidates)
    delete_collection(collection.name)


def test_settings_read_as_text() -> None:
    text = describe_settings(index_settings(load_preset("hybrid")))
    assert text.startswith("recursive, size 512, overlap 50 · embedding ")
    assert "{" not in text and "[" not in text
    assert describe_settings({}) == "no documents yet"
