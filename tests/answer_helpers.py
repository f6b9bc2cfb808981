"""Shared builders for answer-side tests (context, generation, grounding, pages): real Chunks,
Candidates and BuiltContexts from short texts, and one small real collection for pipeline tests."""

from __future__ import annotations

import hashlib

from rag.chunking.base import Chunk
from rag.config import PipelineConfig, with_overrides
from rag.context.base import BuiltContext
from rag.context.builder import build_context, context_from_passages
from rag.documents.base import Document, DocumentMetadata
from rag.index import Collection, open_collection
from rag.index.hits import Candidate
from rag.settings.context import ContextConfig

PARIS = (
    "Paris is the capital of France. The Eiffel Tower was completed in 1889 for the World's "
    "Fair. It is 330 metres tall."
)
BERLIN = "Berlin is the capital of Germany. The Reichstag building houses the Bundestag."
TRAINS = "High-speed trains connect Paris and Berlin in about eight hours."


def chunk(
    chunk_id: str,
    text: str,
    doc_id: str = "doc",
    start: int = 0,
    *,
    parent_id: str | None = None,
    level: str = "chunk",
) -> Chunk:
    return Chunk(chunk_id, doc_id, start, start + len(text), text, parent_id, level)


def candidates(*texts: str, scores: tuple[float, ...] | None = None) -> list[Candidate]:
    """One candidate per text, each its own document, scores descending unless given."""
    scores = scores or tuple(1.0 - i * 0.1 for i in range(len(texts)))
    return [
        Candidate(chunk(f"c{i}", t, f"d{i}"), s) for i, (t, s) in enumerate(zip(texts, scores, strict=False))
    ]


def context(query: str, *texts: str, **settings: object) -> BuiltContext:
    if not settings:
        return context_from_passages(query, texts)
    return build_context(query, candidates(*texts), ContextConfig.model_validate(settings))


# -- a small real collection (fastembed int8 MiniLM: loads in about a second, no torch) ---------

LUMEN = {
    "sync.txt": "LumenSync sends changes about 15 seconds after the last keystroke. It checks for "
    "remote changes every 30 seconds while the app is open. When two devices change the "
    "same paragraph, LumenSync keeps both versions and creates a conflict copy.",
    "trash.txt": "Deleted notes stay in the Trash for 30 days before they are removed for good. "
    "Free accounts can restore versions from the last 7 days.",
    "vault.txt": "Vault notes are end-to-end encrypted with your own passphrase. Support cannot "
    "reset a forgotten vault passphrase; the 24-word recovery phrase is the only way back in.",
}


def answer_config(collection: str, **overrides: object) -> PipelineConfig:
    """A hybrid config over the small collection with context, generation and grounding on."""
    base = PipelineConfig.model_validate(
        {
            "chunking": {"strategy": "recursive", "params": {"size": 400, "overlap": 0}},
            "embedding": {"backend": "fastembed"},
            "index": {"collection": collection},
            "retrieval": {"depth": 10, "top_k": 3},
            "context": {"enabled": True, "top_k": 3},
            "generation": {"enabled": True, "timeout_s": 0.5, "backoff_base_s": 0.01, "retries": 1},
            "grounding": {"enabled": True, "model_check": "none"},
        }
    )
    return with_overrides(base, dict(overrides))


def lumen_collection(name: str) -> Collection:
    """Index LUMEN into a new collection under the current data dir."""
    docs = []
    for source, text in LUMEN.items():
        digest = hashlib.sha256(text.encode()).hexdigest()
        meta = DocumentMetadata(source=source, title=source, content_hash=digest, format="txt")
        docs.append(Document(f"{source}#{digest[:12]}", text, meta))
    collection = open_collection(name, create=True)
    collection.add_documents(docs, answer_config(name), progress=False)
    return collection
