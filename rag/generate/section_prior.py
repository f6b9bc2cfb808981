"""How well each sentence's *section* matches the question, for the extractive answerer.

Key words pick a sentence; they do not say which passage answers. On the Debian calibration
split (docs/answers.md, "Third pass") the answering passage was in the context for 41 of 66
answered questions but the answer was quoted from it for 20: another passage's lead sentence
shared as many question words. The question's embedding against the opening of each candidate
sentence's section (from its heading or question, or the document's start; the first
SECTION_CHARS characters, about what MiniLM reads) told the answering passage apart more often
(26 of 41 against 21 for the best sentence's key-word score), so its cosine is added to every
sentence of that section: a passage-level prior, as in passage-to-sentence answer extraction
(Kaszkiel & Zobel 1997, passage retrieval; Tombros & Sanderson 1998 for the sentence score).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from rag.embed.base import Embedder
from rag.generate.whole_sentences import SECTION_OPENING_CHARS
from rag.settings.embedding import EmbeddingConfig

SECTION_CHARS = SECTION_OPENING_CHARS  # the section's opening: what a block deeper in it offers

# (question, section texts) -> one similarity per text, in order
SectionSimilarity = Callable[[str, Sequence[str]], Sequence[float]]


def embedding_similarity(embedder: Embedder) -> SectionSimilarity:
    """Cosine of the question's and each section's embedding (the embedder's vectors are
    L2-normalized, so a dot product; re-normalized here in case a config turns that off)."""

    def similarity(question: str, texts: Sequence[str]) -> Sequence[float]:
        if not texts:
            return []
        query = embedder.embed_query(question)
        sections = embedder.embed_documents([t[:SECTION_CHARS] for t in texts])
        norms = np.linalg.norm(sections, axis=1) * max(float(np.linalg.norm(query)), 1e-12)
        return [float(v) for v in (sections @ query) / np.where(norms == 0, 1.0, norms)]

    return similarity


def lazy_embedding_similarity(cfg: EmbeddingConfig) -> SectionSimilarity:
    """`embedding_similarity` with the embedder of `cfg`, loaded at the first call (an LLM answer
    never needs it); a model that cannot be loaded raises EmbeddingModelError then."""
    loaded: list[SectionSimilarity] = []

    def similarity(question: str, texts: Sequence[str]) -> Sequence[float]:
        if not loaded:
            from rag.embed import get_embedder  # the model loads only when an answer needs it

            loaded.append(embedding_similarity(get_embedder(cfg)))
        return loaded[0](question, texts)

    return similarity
