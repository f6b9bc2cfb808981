"""Shared machinery for BM25 backends that score the whole corpus in this process."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rag.index.filters import Filter, filter_key
from rag.index.sparse.base import SparseContext, SparseHit
from rag.index.sparse.corpus import DamagedCorpusError, TokenizedCorpus

_CORPUS_FILE = "corpus.npz"
_MASKS_KEPT = 16


class InProcessBM25(ABC):
    """Keeps the tokenized corpus; a subclass builds its model from it and scores every chunk.

    Neither rank-bm25 nor bm25s can add documents to a built index, so a change marks the model
    stale and the next search rebuilds it from the persisted tokens (no re-tokenizing). A backend
    whose model can be saved (bm25s) builds it at save time, so opening a collection loads it.
    """

    name = "in-process"
    rebuilds_on_add = True

    def __init__(self, context: SparseContext) -> None:
        self.context = context
        self.directory = context.directory / self.name
        self.damaged: str | None = None  # why the saved corpus could not be read, if it could not
        try:
            self.corpus = TokenizedCorpus.load(self.directory / _CORPUS_FILE)
        except DamagedCorpusError as exc:
            self.corpus, self.damaged = TokenizedCorpus(), str(exc)
        self._built_version: int | None = None
        if len(self.corpus) and self._load_model(self.directory, self.corpus.fingerprint()):
            self._built_version = self.corpus.version
        # filter -> allowed chunks, for this corpus version; bounded because a time window
        # makes a new filter on every query
        self._masks: OrderedDict[str, np.ndarray] = OrderedDict()
        self._mask_version = -1

    # -- subclass hooks ------------------------------------------------------------------------
    @abstractmethod
    def _build(self, tokens: list[list[str]]) -> None:
        """Fit the backend's model to the whole corpus."""

    @abstractmethod
    def _scores(self, query_tokens: list[str]) -> np.ndarray:
        """BM25 score of every chunk, in corpus order."""

    def _save_model(self, directory: Path, fingerprint: str) -> None:
        """Persist the built model, if the backend can (default: rebuilt on open instead)."""
        return None

    def _load_model(self, directory: Path, fingerprint: str) -> bool:
        """Load a model saved for exactly this corpus; False when there is none."""
        return False

    # -- SparseIndex -----------------------------------------------------------------------------
    def add(self, chunk_ids: Sequence[str], tokens: Sequence[list[str]]) -> None:
        self.corpus.add(chunk_ids, tokens)

    def remove(self, chunk_ids: Sequence[str]) -> None:
        self.corpus.remove(chunk_ids)

    def load_modules(self) -> None:
        return None

    def save(self) -> None:
        self.corpus.save(self.directory / _CORPUS_FILE)
        if len(self.corpus):
            self.build()
            self._save_model(self.directory, self.corpus.fingerprint())

    def search(
        self, query_tokens: list[str], depth: int, qfilter: Filter | None
    ) -> list[SparseHit]:
        if not len(self.corpus) or not query_tokens:
            return []
        self.build()
        scores = self._scores(query_tokens)
        if qfilter is not None:
            scores = np.where(self._allowed(qfilter), scores, 0.0)
        positive = np.flatnonzero(scores > 0)
        if positive.size > depth:
            positive = positive[np.argpartition(-scores[positive], depth - 1)[:depth]]
        # ties broken by corpus position, so every backend orders equal scores the same way
        best = positive[np.lexsort((positive, -scores[positive]))]
        return [SparseHit(self.corpus.chunk_ids[i], float(scores[i])) for i in best]

    @property
    def is_built(self) -> bool:
        """The model reflects the current corpus (no rebuild before the next search)."""
        return self._built_version == self.corpus.version

    def build(self) -> None:
        """(Re)build the model from the corpus if it changed since the last build."""
        if self._built_version != self.corpus.version:
            self._build(self.corpus.tokens)
            self._built_version = self.corpus.version

    def _allowed(self, qfilter: Filter) -> np.ndarray:
        """Which chunks pass the payload filter, asked of Qdrant once per filter and corpus version."""
        if self._mask_version != self.corpus.version:
            self._masks.clear()
            self._mask_version = self.corpus.version
        key = filter_key(qfilter)
        if key not in self._masks:
            if self.context.store is None:
                raise ValueError(f"{self.name}: filtering needs the collection's Qdrant store")
            matching = self.context.store.scroll(qfilter, with_payload=False)
            allowed = {p["chunk_id"] for p in matching}
            self._masks[key] = np.fromiter(
                (c in allowed for c in self.corpus.chunk_ids), dtype=bool, count=len(self.corpus)
            )
            if len(self._masks) > _MASKS_KEPT:
                self._masks.popitem(last=False)
        self._masks.move_to_end(key)
        return self._masks[key]
