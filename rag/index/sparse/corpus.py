"""The tokenized corpus, persisted so an in-process BM25 index rebuilds without re-tokenizing."""

from __future__ import annotations

import hashlib
import itertools
import os
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np


class DamagedCorpusError(ValueError):
    """The saved corpus file cannot be read (cut short, overwritten): its index must be rebuilt."""


class TokenizedCorpus:
    """Chunk ids in index order and their tokens; saved as one compact .npz (vocab + flat ids)."""

    def __init__(
        self, chunk_ids: list[str] | None = None, tokens: list[list[str]] | None = None
    ) -> None:
        self.chunk_ids: list[str] = list(chunk_ids or [])
        self.tokens: list[list[str]] = list(tokens or [])
        self.version = 0  # bumps on every change; caches key on it

    def __len__(self) -> int:
        return len(self.chunk_ids)

    def add(self, chunk_ids: Sequence[str], tokens: Sequence[list[str]]) -> None:
        self.remove(chunk_ids)  # re-adding a chunk replaces it
        self.chunk_ids.extend(chunk_ids)
        self.tokens.extend(list(t) for t in tokens)
        self.version += 1

    def remove(self, chunk_ids: Sequence[str]) -> None:
        gone = set(chunk_ids)
        if not gone.intersection(self.chunk_ids):
            return
        kept = [(c, t) for c, t in zip(self.chunk_ids, self.tokens, strict=True) if c not in gone]
        self.chunk_ids = [c for c, _ in kept]
        self.tokens = [t for _, t in kept]
        self.version += 1

    def fingerprint(self) -> str:
        """Identifies the corpus content (ids in order): a saved model must match it to be used."""
        joined = "\n".join(self.chunk_ids).encode("utf-8")
        return hashlib.sha256(joined).hexdigest()[:16] + f"-{len(self.chunk_ids)}"

    def save(self, path: Path) -> None:
        vocab: dict[str, int] = {}
        flat = [vocab.setdefault(tok, len(vocab)) for doc in self.tokens for tok in doc]
        lengths = [len(doc) for doc in self.tokens]
        path.parent.mkdir(parents=True, exist_ok=True)
        # temp file + rename: a writer killed mid-save leaves the previous corpus, never half one;
        # saves run under the collection's write lock, so any other temp file is such a leftover
        for leftover in path.parent.glob(f"{path.name}.*.tmp.npz"):
            leftover.unlink(missing_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp.npz")
        np.savez_compressed(
            tmp,
            chunk_ids=np.array(self.chunk_ids, dtype=str),
            vocab=np.array(list(vocab), dtype=str),
            flat=np.array(flat, dtype=np.int32),
            lengths=np.array(lengths, dtype=np.int64),
        )
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> TokenizedCorpus:
        if not path.exists():
            return cls()
        try:
            with np.load(path, allow_pickle=False) as data:
                vocab = data["vocab"].tolist()
                flat = data["flat"]
                bounds = np.concatenate([[0], np.cumsum(data["lengths"])])
                tokens = [[vocab[i] for i in flat[s:e]] for s, e in itertools.pairwise(bounds)]
                return cls(data["chunk_ids"].tolist(), tokens)
        except (OSError, EOFError, ValueError, KeyError, IndexError, zipfile.BadZipFile) as exc:
            raise DamagedCorpusError(f"{path}: {type(exc).__name__}: {exc}") from exc
