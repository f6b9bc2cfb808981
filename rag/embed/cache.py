"""On-disk embedding cache: raw vectors keyed by (model id, sha256 of the exact text embedded)."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from rag.paths import cache_dir

_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    model_id TEXT NOT NULL,
    text_sha TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (model_id, text_sha)
) WITHOUT ROWID
"""
_LOOKUP_BATCH = 500  # stays under SQLite's host-parameter limit


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """A SQLite table of float32 vectors; one short-lived connection per call (thread-safe)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or cache_dir("embeddings") / "embeddings.sqlite"
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")  # readers don't block the ingest writer
            db.execute(_SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection that commits on success and is always closed."""
        db = sqlite3.connect(self.path, timeout=30)
        try:
            with db:
                yield db
        finally:
            db.close()

    def get_many(self, model_id: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        with self._connect() as db:
            for start in range(0, len(hashes), _LOOKUP_BATCH):
                part = list(hashes[start : start + _LOOKUP_BATCH])
                marks = ",".join("?" * len(part))
                rows = db.execute(
                    f"SELECT text_sha, vector FROM vectors WHERE model_id = ? AND text_sha IN ({marks})",
                    (model_id, *part),
                )
                for sha, blob in rows:
                    found[sha] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, model_id: str, items: Iterable[tuple[str, np.ndarray]]) -> None:
        rows = [(model_id, sha, np.asarray(v, dtype=np.float32).tobytes()) for sha, v in items]
        with self._connect() as db:
            db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", rows)

    def count(self, model_id: str) -> int:
        with self._connect() as db:
            (n,) = db.execute(
                "SELECT COUNT(*) FROM vectors WHERE model_id = ?", (model_id,)
            ).fetchone()
        return int(n)
