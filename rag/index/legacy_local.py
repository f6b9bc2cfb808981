"""Collections an older version kept in qdrant-client's local mode (`<data>/qdrant`) move into
Qdrant Edge the first time the store opens: every point with its stored dense and sparse vectors
and payload, so nothing is parsed, chunked or embedded again and search returns what it did.

Each collection is built in a scratch shard and moved into place when complete, so a process
killed mid-way leaves the old folder untouched and the next open starts that collection again.
When all are copied the old folder is renamed `qdrant.migrated` (kept, not deleted: it is the
user's data; docs/store.md says it may be removed).
"""

from __future__ import annotations

import logging
import shutil
import time
from pathlib import Path

import numpy as np

from rag.index.edge_client import EdgeClient
from rag.index.fastembed_hidden import fastembed_hidden
from rag.index.points import DENSE, SPARSE, Point

_log = logging.getLogger(__name__)
LEGACY_FOLDER = "qdrant"
DONE_SUFFIX = ".migrated"
_PAGE = 512


def migrate_legacy(client: EdgeClient, legacy: Path) -> list[str]:
    """Copy every local-mode collection that has no Edge shard yet; returns the names copied."""
    from qdrant_client import QdrantClient  # late: local mode is only read here

    with fastembed_hidden():
        local = QdrantClient(path=str(legacy))
    copied = []
    try:
        for description in local.get_collections().collections:
            name = description.name
            if client.exists(name):
                continue
            started = time.perf_counter()
            count = _copy(local, client, name)
            copied.append(name)
            _log.warning(
                "migrated collection %r from qdrant-client local mode to Qdrant Edge: %d points "
                "copied with their stored vectors (no re-parse, no re-embedding) in %.1f s",
                name, count, time.perf_counter() - started,
            )  # fmt: skip
    finally:
        local.close()
    legacy.rename(legacy.with_name(legacy.name + DONE_SUFFIX))
    return copied


def _copy(local: object, client: EdgeClient, name: str) -> int:
    from qdrant_client import QdrantClient, models

    assert isinstance(local, QdrantClient)
    params = local.get_collection(name).config.params.vectors
    dim = params[DENSE].size if isinstance(params, dict) else 0
    scratch = f".migrating-{name}"
    client.drop(scratch)
    client.create(scratch, dim)
    offset, count = None, 0
    while True:
        records, offset = local.scroll(name, limit=_PAGE, offset=offset, with_payload=True,
                                       with_vectors=True)  # fmt: skip
        points = []
        for r in records:
            vectors = r.vector if isinstance(r.vector, dict) else {}
            sparse = vectors.get(SPARSE)
            indices, values = ((), ()) if not isinstance(sparse, models.SparseVector) else (
                tuple(sparse.indices), tuple(sparse.values))  # fmt: skip
            payload = dict(r.payload or {})
            dense = np.asarray(vectors.get(DENSE, []), dtype=np.float32)
            points.append(Point(str(payload.get("chunk_id", r.id)), dense, indices, values, payload))
        client.upsert(scratch, points)
        count += len(points)
        if offset is None:
            break
    client.optimize(scratch)
    client.close_shard(scratch)
    target = client.path(name)
    shutil.rmtree(target, ignore_errors=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    client.path(scratch).rename(target)
    return count
