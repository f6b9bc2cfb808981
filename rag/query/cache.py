"""Semantic cache (Adaptive `semantic_cache`): answers of earlier queries, found again by embedding
similarity. Dual threshold: precision (0.95) first, then recall (0.85); TTL 300 s; at most 1,000
entries, least recently used evicted first.

Modes: "precision" hits only at ≥ 0.95; "recall" at ≥ 0.85; "adaptive" hits at ≥ 0.95, and
between 0.85 and 0.95 only when both queries name the same numbers and entities, so
"pricing in 2023" never answers "pricing in 2024".
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from rag.embed.base import Embedder
from rag.query.entities import extract_entities
from rag.settings.query import CacheConfig


@dataclass(frozen=True)
class CachedAnswer:
    query: str
    answer: str
    sources: tuple[str, ...] = ()  # chunk ids the answer was built from


@dataclass(frozen=True)
class CacheLookup:
    """What the lookup saw: a hit carries the cached answer; a miss says how close it came."""

    hit: bool
    reason: str
    similarity: float | None = None
    matched_query: str | None = None
    threshold: float | None = None  # the threshold that decided
    age_s: float | None = None
    entries: int = 0
    cached: CachedAnswer | None = None


@dataclass
class _Entry:
    vector: np.ndarray
    value: CachedAnswer
    created: float
    # the stage outputs the answer came with (context with the cited blocks, generate, ground):
    # a hit serves them too, so the answer keeps its sources and grounding (issue 27)
    outputs: Mapping[str, object] = field(default_factory=dict)


def key_terms(text: str) -> frozenset[str]:
    """Numbers and entity names (lower-cased): what must agree for a recall-band hit."""
    numbers = re.findall(r"\d+(?:[.,]\d+)?", text)
    return frozenset([*numbers, *(e.lower() for e in extract_entities(text))])


class SemanticCache:
    """One namespace (collection + preset) of cached answers; thread-safe."""

    def __init__(self, cfg: CacheConfig, embedder: Embedder) -> None:
        self.cfg = cfg
        self.embedder = embedder
        self._entries: OrderedDict[str, _Entry] = OrderedDict()  # by normalized query
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def _vector(self, query: str) -> np.ndarray:
        vector = np.asarray(self.embedder.embed_query(query), dtype=np.float32)
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm else vector

    def _expire(self, now: float) -> None:
        stale = [k for k, e in self._entries.items() if now - e.created > self.cfg.ttl_s]
        for key in stale:
            del self._entries[key]

    def lookup(self, query: str, now: float | None = None) -> CacheLookup:
        now = time.time() if now is None else now
        vector = self._vector(query)
        with self._lock:
            self._expire(now)
            if not self._entries:
                return CacheLookup(False, "cache is empty", entries=0)
            keys = list(self._entries)
            matrix = np.stack([self._entries[k].vector for k in keys])
            similarities = matrix @ vector
            best = int(np.argmax(similarities))
            entry, similarity = self._entries[keys[best]], float(similarities[best])
            decided, threshold, why = self._decide(query, entry.value.query, similarity)
            if decided:
                self._entries.move_to_end(keys[best])
            return CacheLookup(decided, why, similarity, entry.value.query, threshold,
                               now - entry.created, len(self._entries),
                               entry.value if decided else None)

    def _decide(self, query: str, cached: str, similarity: float) -> tuple[bool, float, str]:
        cfg = self.cfg
        high, low = cfg.precision_threshold, cfg.recall_threshold
        if cfg.mode == "recall":
            return similarity >= low, low, f"recall mode: {similarity:.3f} vs {low:g}"
        if similarity >= high:
            return True, high, f"{similarity:.3f} ≥ precision threshold {high:g}"
        if cfg.mode == "precision" or similarity < low:
            threshold = high if cfg.mode == "precision" else low
            return False, threshold, f"{similarity:.3f} < {threshold:g}"
        mine, theirs = key_terms(query), key_terms(cached)
        if mine == theirs:
            return True, low, f"{similarity:.3f} in the recall band and the key terms agree"
        differ = sorted(mine ^ theirs)[:4]
        return False, high, f"{similarity:.3f} in the recall band but key terms differ: {differ}"

    def store(self, query: str, answer: str, sources: tuple[str, ...] = (),
              now: float | None = None, outputs: Mapping[str, object] | None = None) -> None:
        now = time.time() if now is None else now
        key = " ".join(query.lower().split())
        entry = _Entry(self._vector(query), CachedAnswer(query, answer, sources), now,
                       dict(outputs or {}))
        with self._lock:
            self._entries.pop(key, None)
            self._entries[key] = entry
            while len(self._entries) > self.cfg.capacity:
                self._entries.popitem(last=False)  # least recently used

    def outputs_for(self, query: str) -> Mapping[str, object]:
        """The stage outputs stored with the answer to `query` (a hit's `matched_query`)."""
        with self._lock:
            entry = self._entries.get(" ".join(query.lower().split()))
            return dict(entry.outputs) if entry is not None else {}

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


_CACHES: dict[str, SemanticCache] = {}
_CACHES_LOCK = threading.Lock()


def cache_for(namespace: str, cfg: CacheConfig, embedder: Embedder) -> SemanticCache:
    """The process-wide cache of `namespace` (e.g. "collection|preset|settings hash"); a new one
    when the cache settings or the embedding model changed."""
    with _CACHES_LOCK:
        found = _CACHES.get(namespace)
        if found is None or found.cfg != cfg or found.embedder.model_id != embedder.model_id:
            found = _CACHES[namespace] = SemanticCache(cfg, embedder)
        return found
