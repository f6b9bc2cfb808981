"""Shared builders for answer-side tests (context, generation, grounding, pages): real Chunks,
Candidates and BuiltContexts from short texts — no collection, no model."""

from __future__ import annotations

from rag.chunking.base import Chunk
from rag.context.base import BuiltContext
from rag.context.builder import build_context, context_from_passages
from rag.context.settings import ContextConfig
from rag.retrieve.base import Candidate

PARIS = ("Paris is the capital of France. The Eiffel Tower was completed in 1889 for the World's "
         "Fair. It is 330 metres tall.")
BERLIN = "Berlin is the capital of Germany. The Reichstag building houses the Bundestag."
TRAINS = "High-speed trains connect Paris and Berlin in about eight hours."


def chunk(chunk_id: str, text: str, doc_id: str = "doc", start: int = 0, *,
          parent_id: str | None = None, level: str = "chunk") -> Chunk:
    return Chunk(chunk_id, doc_id, start, start + len(text), text, parent_id, level)


def candidates(*texts: str, scores: tuple[float, ...] | None = None) -> list[Candidate]:
    """One candidate per text, each its own document, scores descending unless given."""
    scores = scores or tuple(1.0 - i * 0.1 for i in range(len(texts)))
    return [Candidate(chunk(f"c{i}", t, f"d{i}"), s) for i, (t, s) in enumerate(zip(texts, scores))]


def context(query: str, *texts: str, **settings: object) -> BuiltContext:
    if not settings:
        return context_from_passages(query, texts)
    return build_context(query, candidates(*texts), ContextConfig.model_validate(settings))
