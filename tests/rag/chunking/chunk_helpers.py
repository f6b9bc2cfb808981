"""Shared by the chunking tests: documents from plain text and a cheap deterministic embedder."""

from __future__ import annotations

import hashlib
import re

import numpy as np

from rag.documents.base import DocType, Document, DocumentMetadata, PageSpan

_WORD = re.compile(r"\w+")


def make_doc(text: str, doc_type: DocType = "USER", pages: tuple[PageSpan, ...] = ()) -> Document:
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    meta = DocumentMetadata(
        source="test.txt",
        title="test",
        content_hash=digest,
        format="txt",
        pages=pages,
        doc_type=doc_type,
    )
    return Document(f"doc-{digest[:8]}", text, meta)


class HashingEmbedder:
    """Hashed bag-of-words vectors (feature hashing, Weinberger et al. 2009), L2-normalized:
    a real embedder that needs no model; texts sharing words get similar vectors."""

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.model_id = f"hashing-bow-{dim}"

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        vectors = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                bucket = int.from_bytes(hashlib.md5(word.encode()).digest()[:4], "little")
                vectors[row, bucket % self.dim] += 1.0
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]
