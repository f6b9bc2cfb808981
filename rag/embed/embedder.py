"""TextEmbedder: prefixes, on-disk cache, length-sorted batching, progress and normalization."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rag.embed.base import EmbeddingBackend
from rag.embed.cache import EmbeddingCache, text_hash
from rag.settings.embedding import EmbeddingConfig

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
        """Encode unique texts longest first, so each batch pads to similar lengths (as ST does).
        A backend with `encode_all` (onnx) takes them all at once and orders them by token count
        itself (tokenizing once); others get `batch_size` batches sorted by characters."""
        if not missing:
            return {}
        texts = [text for _, text in missing]
        shown = self.show_progress and len(texts) >= _PROGRESS_MIN
        # late imports: tqdm.auto (a notebook widget where there is one) pulls asyncio; a disabled
        # bar (a query's one text) does the same with the plain class, importing less
        if shown:
            from tqdm.auto import tqdm as bar_class
        else:
            from tqdm.std import tqdm as bar_class  # type: ignore[assignment]
        bar = bar_class(total=len(texts), desc=f"embedding ({self.model_id})", unit="text",
                        disable=not shown)
        encode_all = getattr(self.backend, "encode_all", None)
        with bar:
            if callable(encode_all):
                vectors = encode_all(texts, bar.update)
                self.stats.encode_calls += 1
            else:
                vectors = self._encode_in_batches(texts, bar.update)
        self.stats.encoded += len(texts)
        return {sha: vector for (sha, _), vector in zip(missing, vectors, strict=True)}

    def _encode_in_batches(self, texts: list[str], done: Callable[[int], object]) -> np.ndarray:
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        size = self.cfg.batch_size
        blocks = []  # not sized by `self.dim` up front: an endpoint's backend asks it for that
        for start in range(0, len(order), size):
            batch = order[start : start + size]
            blocks.append(np.asarray(self.backend.encode([texts[i] for i in batch])))
            self.stats.encode_calls += 1
            done(len(batch))
        vectors = np.concatenate(blocks)
        vectors[order] = vectors.copy()  # row k of `vectors` is text order[k]
        return vectors
