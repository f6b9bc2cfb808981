"""A collection is a set of documents; each preset reads the index its settings need.

The collection's own index is the one its first ingest built. Any other chunking / embedding /
index setting gets a derived index in `<collection>/indexes/<settings hash>/`, built on first use
from the parsed text the collection keeps (document_texts.py) by the ingest pipeline's stages
(rag.ingestion: redact → chunk → embed → write, through `Index.add_documents`) — no file is
parsed again and the embedding cache serves every vector it already holds — and brought up to date with the
collection's documents (added, changed, removed, access changed) whenever it is used afterwards.
"""

from __future__ import annotations

import shutil
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rag.index.catalogue import INDEX_MARK
from rag.index.collection import Collection, Index, open_collection
from rag.index.document_texts import DocumentTexts
from rag.index.embedding_pin import pinned
from rag.index.manifest import IncompatibleConfigError, Manifest, index_settings, settings_hash
from rag.index.payload import Access
from rag.index.ref import IndexRef, stand_in
from rag.index.store_lease import exclusive
from rag.index.writer import OnProgress
from rag.records.document import Document
from rag.settings.overrides import apply_overrides

if TYPE_CHECKING:
    from rag.records.hits import SearchableCollection
    from rag.settings.pipeline import PipelineConfig

_SYNCED = "synced_from"  # the collection manifest's updated_at the index was last synced to
_OPEN: dict[Path, Index] = {}  # one object per derived index per process (like the base)


class MissingDocumentTextError(IncompatibleConfigError):
    """The collection predates kept document text, so no other index can be derived from it."""


@dataclass(frozen=True)
class IndexSync:
    """What bringing one derived index up to date did."""

    index: str
    added: int
    removed: int
    chunks: int
    seconds: float
    traces: tuple[object, ...] = field(default=(), compare=False)  # its ingest runs' rag.trace.Trace

    def describe(self) -> str:
        return (f"index {self.index}: {self.added} documents indexed, {self.removed} removed, "
                f"{self.chunks} chunks in {self.seconds:.1f} s")


OnSync = Callable[[IndexSync], None]


def _pinned(collection: Collection, config: PipelineConfig) -> PipelineConfig:
    """`config` with the ONNX graph fixed for this collection (rag/index/embedding_pin.py): a
    collection keeps the graph it recorded, so `auto` never derives an index of its own."""
    return pinned(config, collection.manifest.settings, name=collection.name,
                  directory=collection.directory)


def _reads_own(collection: Collection, pinned_config: PipelineConfig) -> bool:
    built = collection.manifest.config_hash
    return not built or settings_hash(index_settings(pinned_config)) == built


def own_settings_config(collection: Collection, config: PipelineConfig) -> PipelineConfig:
    """`config` with the index-affecting sections the collection was built with."""
    settings = collection.manifest.settings
    if not settings:
        return config
    return apply_overrides(config, {
        "documents.redact_pii": settings["documents"]["redact_pii"],
        "chunking": dict(settings["chunking"]),
        **{f"embedding.{k}": v for k, v in settings["embedding"].items()},
        **{f"index.{k}": v for k, v in settings["index"].items()},
    })  # fmt: skip


def _index_dir(collection: Collection, config: PipelineConfig) -> Path:
    return collection.directory / "indexes" / settings_hash(index_settings(config))


def _opened(directory: Path, name: str) -> Index:
    """The process's one object for the derived index in `directory` (created when new)."""
    if directory not in _OPEN:
        if not (directory / "manifest.json").exists():
            Manifest.new(name).save(directory / "manifest.json")
        _OPEN[directory] = Index(name, directory)
    return _OPEN[directory]


def derived_indexes(collection: Collection) -> list[Index]:
    """The derived indexes built so far for this collection."""
    root = collection.directory / "indexes"
    found = sorted(root.glob("*/manifest.json")) if root.is_dir() else []
    return [_opened(m.parent, Manifest.load(m).name) for m in found]


def kept_documents(collection: Collection) -> list[Document]:
    """The collection's documents as ingested (their kept parsed text), in source order; empty
    for a collection built before text was kept."""
    stored = DocumentTexts(collection.directory).get(sorted(collection.manifest.documents))
    return [s.document for s in stored]


def delete_collection(name: str) -> None:
    """Delete a collection: its derived indexes' points, its own points, and its folder."""
    collection = open_collection(name)
    with collection.writing():
        for index in derived_indexes(collection):
            index.store.drop()
            _OPEN.pop(index.directory, None)
        collection.store.drop()
        shutil.rmtree(collection.directory)


def needs_sync(collection: Collection, config: PipelineConfig) -> bool:
    """Whether reading `collection` with `config` would first build or update an index."""
    collection.refresh()
    return _stale(collection, _pinned(collection, config))


def _stale(collection: Collection, pinned_config: PipelineConfig) -> bool:
    if _reads_own(collection, pinned_config):
        return False
    marker = _index_dir(collection, pinned_config) / _SYNCED
    return not marker.is_file() or marker.read_text() != collection.manifest.updated_at


def resolve(
    collection: Collection,
    config: PipelineConfig,
    on_progress: OnProgress | None = None,
    on_sync: OnSync | None = None,
) -> IndexRef:
    """Which index `config` reads in `collection`, worked out once for a run: the collection's
    own index, or the one derived for `config`'s settings (built or brought up to date first;
    `on_sync(IndexSync)` hears of that work), with the embedding graph pinned."""
    collection.refresh()
    config = _pinned(collection, config)  # the derived index records the graph it embeds with
    wanted = settings_hash(index_settings(config))
    if _reads_own(collection, config):
        return IndexRef(collection, config, collection, collection, wanted)
    directory = _index_dir(collection, config)
    index = _opened(directory, f"{collection.name}{INDEX_MARK}{directory.name[:10]}")
    if _stale(collection, config):
        with exclusive(index.directory / ".sync.lock", f"index {index.name!r}"):
            if _stale(collection, config):  # another process may have done it meanwhile
                done = _sync(collection, index, config, on_progress)
                if on_sync is not None:
                    on_sync(done)
    return IndexRef(index, config, collection, index, wanted)


def as_ref(source: IndexRef | SearchableCollection, config: PipelineConfig) -> IndexRef:
    """`source` as a ref: a ref as is; a Collection resolved; an Index or a stand-in (a test's
    in-memory index) on its own, without a collection (so without kept text)."""
    if isinstance(source, IndexRef):
        return source
    if isinstance(source, Collection):
        return resolve(source, config)
    return stand_in(source, config, source if isinstance(source, Index) else None)


def index_for(
    collection: Collection,
    config: PipelineConfig,
    on_progress: OnProgress | None = None,
    on_sync: OnSync | None = None,
) -> Index:
    """The index `config` reads in `collection` (`resolve(...).stored`): for callers that only
    search it. A run hands the runner the whole `resolve` ref, so it keeps the collection's text."""
    ref = resolve(collection, config, on_progress, on_sync)
    assert ref.stored is not None  # resolve always names the stored index
    return ref.stored


def _sync(
    collection: Collection, index: Index, config: PipelineConfig, on_progress: OnProgress | None
) -> IndexSync:
    started = time.perf_counter()
    marker = collection.manifest.updated_at  # read first: a later ingest makes it stale again
    texts = DocumentTexts(collection.directory)
    kept = texts.sources()
    wanted = collection.manifest.documents
    missing = sorted(s for s in wanted if s not in kept)
    if missing:
        raise MissingDocumentTextError(
            f"collection {collection.name!r} was built with other index settings and does not keep "
            f"the text of {len(missing)} of its documents (e.g. {missing[0]!r}: ingested before "
            f"collections kept parsed text); ingest those files again to query it with any preset, "
            f"or use the preset it was built with"
        )
    have = index.manifest.documents
    todo = [
        s for s, entry in wanted.items()
        if s not in have or (have[s].content_hash, have[s].access) != (entry.content_hash,
                                                                        entry.access)
    ]  # fmt: skip  # new, changed, or another owner / visibility / tags: add_documents replaces
    stale = [s for s in have if s not in wanted]
    for source in stale:
        index.remove_document(source)
    by_access: dict[Access, list[Document]] = defaultdict(list)
    for stored in texts.get(todo):
        by_access[stored.access].append(stored.document)
    chunks, traces = 0, []
    for access, documents in by_access.items():  # the ingest pipeline, from the kept text
        summary = index.add_documents(
            documents, config, access=access, progress=False, on_progress=on_progress,
            what=f"the kept text of collection {collection.name!r} ({len(documents)} documents)",
        )  # fmt: skip
        chunks += summary.chunks_added
        traces += [summary.trace] if summary.trace is not None else []
    (index.directory / _SYNCED).write_text(marker)
    return IndexSync(index.name, len(todo), len(stale), chunks, time.perf_counter() - started,
                     tuple(traces))
