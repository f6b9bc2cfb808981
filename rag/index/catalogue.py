"""A collection's catalogue: what it holds (the manifest's documents and chunk ids, its index
settings and dates) and the stores those live in (Qdrant points, the BM25 index), read-only.

Writing goes through rag.index.writer (lock, journal, reconcile), searching through
rag.index.search; both work on one Catalogue.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

from rag.index.embedding_pin import pinned
from rag.index.manifest import (
    IncompatibleConfigError,
    Manifest,
    embedding_mismatch,
    index_settings,
    settings_diff,
    settings_hash,
)
from rag.index.payload import chunk_from_payload
from rag.index.qdrant_store import QdrantStore, qdrant_location
from rag.index.sparse import BM25Params, SparseContext, SparseIndex, get_sparse_index
from rag.index.tokenizer import Tokenizer
from rag.records.chunk import Chunk
from rag.settings.index import IndexConfig

if TYPE_CHECKING:
    from rag.settings.pipeline import PipelineConfig

_log = logging.getLogger(__name__)
INDEX_MARK = ".ix-"  # derived index names: "<collection>.ix-<settings hash>" (derived.py)
MANIFEST_FILE = "manifest.json"


class Catalogue:
    """One index's manifest, points and BM25 index; reads re-read the manifest when another
    process or object changed it."""

    # the type says it, never the name: a Collection keeps its documents' parsed text
    # (document_texts.py), an Index derived from it (derived.py) reads that copy
    keeps_texts: ClassVar[bool] = False

    def __init__(self, name: str, directory: Path) -> None:
        self.name = name
        self.directory = directory
        self.manifest = Manifest.new(name)
        self._stamp: tuple[int, int] | None = None
        self.store = QdrantStore(name)
        self._sparse: SparseIndex | None = None
        self._tokenizer: Tokenizer | None = None
        self.refresh()

    # -- the manifest on disk ----------------------------------------------------------------------
    @property
    def manifest_path(self) -> Path:
        return self.directory / MANIFEST_FILE

    def refresh(self) -> bool:
        """Re-read the manifest (and drop the loaded BM25 index) when another process or object
        changed it since; True when it did. Reads call this, so a long-lived process (the app)
        sees documents a CLI ingest added."""
        try:
            stat = self.manifest_path.stat()
        except FileNotFoundError:
            return False
        stamp = (stat.st_mtime_ns, stat.st_size)
        if stamp == self._stamp:
            return False
        self.manifest = Manifest.load(self.manifest_path)
        self._stamp = stamp
        self._sparse, self._tokenizer = None, None
        return True

    def reload(self) -> None:
        """Re-read the manifest whatever its stamp (a writer that waited for the lock)."""
        self._stamp = None
        self.refresh()

    def save_manifest(self) -> None:
        """Write `self.manifest`; only a writer holding the collection's lock calls this."""
        self.manifest.save(self.manifest_path)
        stat = self.manifest_path.stat()
        self._stamp = (stat.st_mtime_ns, stat.st_size)

    def fix_settings(self, config: PipelineConfig) -> None:
        """The first ingest fixes the collection's index settings (and so its tokenizer/backend)."""
        settings = index_settings(config)
        self.manifest = replace(
            self.manifest, settings=MappingProxyType(settings), config_hash=settings_hash(settings)
        )
        self._sparse, self._tokenizer = None, None

    # -- settings ----------------------------------------------------------------------------------
    def index_config(self) -> IndexConfig:
        return IndexConfig.model_validate(self.manifest.settings.get("index", {}))

    @property
    def tokenizer(self) -> Tokenizer:
        if self._tokenizer is None:
            self._tokenizer = Tokenizer(self.index_config().tokenizer)
        return self._tokenizer

    @property
    def sparse(self) -> SparseIndex:
        if self._sparse is None:
            cfg = self.index_config()
            context = SparseContext(
                self.directory / "sparse", BM25Params(cfg.k1, cfg.b), self.store
            )
            self._sparse = get_sparse_index(cfg.sparse_backend, context)
            if self._sparse.damaged:
                self._refill_sparse(self._sparse)
        return self._sparse

    def _refill_sparse(self, sparse: SparseIndex) -> None:
        """A BM25 file that cannot be read is rebuilt in memory from the listed chunks' stored
        texts, so search stays right; the next write saves it again."""
        _log.warning("BM25 index of %r unreadable (%s): rebuilt from the stored chunk texts",
                     self.name, sparse.damaged)
        listed = sorted(self.manifest.chunk_ids)
        payloads = self.store.payloads(listed)
        self.add_stored_to_sparse([c for c in listed if c in payloads], payloads)

    def add_stored_to_sparse(self, chunk_ids: Sequence[str],
                             payloads: dict[str, dict[str, Any]]) -> None:
        """Index chunks in BM25 again from the texts their points store (`store.payloads`)."""
        self.sparse.add(chunk_ids, self.tokenizer.many([str(payloads[c]["text"]) for c in chunk_ids]))

    @property
    def is_empty(self) -> bool:
        """Nothing indexed yet (the first ingest records the vector size)."""
        return self.manifest.dim == 0

    def pinned(self, config: PipelineConfig) -> PipelineConfig:
        """`config` with the ONNX graph this collection embeds with (rag/index/embedding_pin.py)."""
        return pinned(config, self.manifest.settings, name=self.name, directory=self.directory)

    def check_compatible(self, config: PipelineConfig) -> None:
        """Raise IncompatibleConfigError naming each index-affecting field that differs."""
        if not self.manifest.settings:
            return  # an empty collection takes the settings of its first ingest
        wanted = index_settings(self.pinned(config))
        if settings_hash(wanted) == self.manifest.config_hash:
            return
        lines = "\n  ".join(settings_diff(self.manifest.settings, wanted))
        raise IncompatibleConfigError(
            f"collection {self.name!r} was built with other index settings "
            f"(hash {self.manifest.config_hash} vs {settings_hash(wanted)}):\n  {lines}\n"
            f"{embedding_mismatch(self.manifest.settings, wanted)}"
            f"use the preset it was built with, or ingest into a new collection"
        )

    # -- contents ----------------------------------------------------------------------------------
    def chunks(self) -> list[Chunk]:
        """Every chunk the manifest lists (any owner's), in document then offset order."""
        self.refresh()
        if self.is_empty:
            return []
        listed = self.manifest.chunk_ids
        chunks = [chunk_from_payload(p) for p in self.store.scroll() if p.get("chunk_id") in listed]
        return sorted(chunks, key=lambda c: (c.doc_id, c.start, c.chunk_id))

    def get_chunk(self, chunk_id: str) -> Chunk:
        self.refresh()
        listed = not self.is_empty and chunk_id in self.manifest.chunk_ids
        payloads = self.store.payloads([chunk_id]) if listed else {}
        if chunk_id not in payloads:
            raise KeyError(f"collection {self.name!r} has no chunk {chunk_id!r}")
        return chunk_from_payload(payloads[chunk_id])

    def disk_bytes(self) -> int:
        """Bytes on disk: the collection folder (manifest, BM25) plus its embedded Qdrant points."""
        folders = [self.directory, Path(qdrant_location()) / "collection" / self.name]
        derived = self.directory / "indexes"  # each derived index counts its own bytes
        return sum(f.stat().st_size for d in folders if d.is_dir() for f in d.rglob("*")
                   if f.is_file() and not f.is_relative_to(derived))
