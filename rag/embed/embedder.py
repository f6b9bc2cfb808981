"""TextEmbedder: prefixes, on-disk cache, length-sorted batching, progress and normalization."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rag.embed.base import EmbeddingBackend
from rag.embed.cache import EmbeddingCache, text_hash
from rag.embed.settings import EmbeddingConfig

_PROGRESS_MIN = 256  # show a progress bar only for work long enough to notice


@dataclass
class EmbedStats:
    """Counters for one embedder: how many texts came from the cache and how many were encoded."""

    cache_hits: int = 0
    encoded: int = 0
    encode_calls: int = 0


def l2_normalize(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


class TextEmbedder:
    """The Embedder every caller gets: one backend plus the behaviour shared by all backends."""

    def __init__(
        self, backend: EmbeddingBackend, cfg: EmbeddingConfig, cache: EmbeddingCache | None = None
    ) -> None:
        self.backend = backend
        self.cfg = cfg
        self.model_id = backend.model_id
        self.cache = cache if cache is not None else (EmbeddingCache() if cfg.cache else None)
        self.stats = EmbedStats()
        self.show_progress = True

    @property
    def dim(self) -> int:
        return self.backend.dim

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return self._embed([self.cfg.passage_prefix + t for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed([self.cfg.query_prefix + text])[0]

    def _embed(self, texts: list[str]) -> np.ndarray:
        """Raw vectors from the cache where present; the rest encoded and stored, then normalized."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        hashes = [text_hash(t) for t in texts]
        cached = self.cache.get_many(self.model_id, list(set(hashes))) if self.cache else {}
        missing = sorted(
            {h: t for h, t in zip(hashes, texts, strict=True) if h not in cached}.items()
        )
        self.stats.cache_hits += len(texts) - sum(1 for h in hashes if h not in cached)
        fresh = self._encode_missing(missing)
        if self.cache and fresh:
            self.cache.put_many(self.model_id, fresh.items())
        vectors = np.stack([cached[h] if h in cached else fresh[h] for h in hashes])
        vectors = vectors.astype(np.float32, copy=False)
        return l2_normalize(vectors) if self.cfg.normalize else vectors

    def _encode_missing(self, missing: list[tuple[str, str]]) -> dict[str, np.ndarray]:
        """Encode unique texts longest first, so each batch pads to similar lengths (as ST does):
        by token count where the backend counts tokens (`token_counts`), else by characters."""
        counts = getattr(self.backend, "token_counts", None)
        lengths = counts([t for _, t in missing]) if callable(counts) else [len(t) for _, t in missing]
        order = [item for _, item in sorted(zip(lengths, missing, strict=True),
                                            key=lambda pair: -pair[0])]
        size = self.cfg.batch_size
        batches = [order[i : i + size] for i in range(0, len(order), size)]
        fresh: dict[str, np.ndarray] = {}
        shown = self.show_progress and len(order) >= _PROGRESS_MIN
        # late imports: tqdm.auto (a notebook widget where there is one) pulls asyncio; a disabled
        # bar (a query's one text) does the same with the plain class, importing less
        if shown:
            from tqdm.auto import tqdm as bar_class
        else:
            from tqdm.std import tqdm as bar_class  # type: ignore[assignment]
        bar = bar_class(total=len(order), desc=f"embedding ({self.model_id})", unit="text",
                   disable=not shown)
        with bar:
            for batch in batches:
                encoded = self.backend.encode([text for _, text in batch])
                self.stats.encode_calls += 1
                self.stats.encoded += len(batch)
                fresh.update((sha, vector) for (sha, _), vector in zip(batch, encoded, strict=True))
                bar.update(len(batch))
        return fresh
