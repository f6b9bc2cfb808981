"""IndexRef: which index a run reads, resolved once at the edge of the run and passed down.

A run reads one index (the chunks and vectors of one chunking/embedding settings hash) of one
collection (the documents and their kept text). `rag.index.derived.resolve(collection, config)`
works out which, pins the embedding graph, builds or syncs a derived index if needed, and
returns this; the CLI, the pages and eval hand it to the runner, and `StageEnv` carries it, so
retrieval searches `index` while the answerer quotes whole sentences from `collection`'s text.
A bare searchable object (a test's in-memory index) is a ref without a collection.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rag.index.collection import Collection, Index
    from rag.index.document_texts import KeptTexts
    from rag.records.hits import SearchableCollection
    from rag.settings.pipeline import PipelineConfig


@dataclass(frozen=True)
class IndexRef:
    """What a run reads: `index` to search, the `collection` whose documents it holds (None for
    a stand-in, which keeps no text), the stored index (None for a stand-in), its settings hash,
    and the config pinned to the embedding graph that index embeds with."""

    index: SearchableCollection
    config: PipelineConfig
    collection: Collection | None = None
    stored: Index | None = None
    settings_hash: str = ""

    @property
    def name(self) -> str:
        return self.index.name

    @property
    def derived(self) -> bool:
        """True when the index is one derived from the collection's documents (not its own)."""
        return self.collection is not None and self.stored is not self.collection

    @property
    def location(self) -> Path | None:
        """The folder the index lives in (None for a stand-in)."""
        return self.stored.directory if self.stored is not None else None

    @property
    def version(self) -> str:
        """Changes whenever the index's documents change (cache keys)."""
        return self.stored.manifest.updated_at if self.stored is not None else ""

    @property
    def settings(self) -> Mapping[str, Any]:
        """The index settings the stored index was built with (empty for a stand-in)."""
        return self.stored.manifest.settings if self.stored is not None else {}

    def kept_texts(self) -> tuple[KeptTexts | None, str]:
        """The collection's kept document text, or None and why there is none."""
        return _texts(self.name, self.collection)

    def pin(self, config: PipelineConfig) -> PipelineConfig:
        """`config` with the embedding graph this ref's collection embeds with (the graph
        `resolve` pinned, for a config with the same embedding settings)."""
        from rag.index.embedding_pin import pinned, pinned_for

        owner = self.collection or self.stored
        if owner is None:
            return pinned_for(config, self.index)
        return pinned(config, owner.manifest.settings, name=owner.name, directory=owner.directory)

    def describe(self) -> str:
        """'its own index' or 'an index derived from its documents'."""
        return "an index derived from its documents" if self.derived else "its own index"


def stand_in(index: SearchableCollection, config: PipelineConfig, stored: Index | None = None
             ) -> IndexRef:  # fmt: skip
    """A ref for an index handed over on its own (no collection, so no kept text)."""
    return IndexRef(index, config, None, stored)


def kept_texts_of(source: IndexRef | SearchableCollection) -> tuple[KeptTexts | None, str]:
    """`as_ref(source).kept_texts()` without resolving (no derived index built for it)."""
    if isinstance(source, IndexRef):
        return source.kept_texts()
    module = sys.modules.get("rag.index.collection")
    collection = source if module is not None and isinstance(source, module.Collection) else None
    return _texts(source.name, collection)


def _texts(index: str, collection: Collection | None) -> tuple[KeptTexts | None, str]:
    if collection is None:
        return None, (f"index {index!r} was handed to the run without its collection, so no "
                      f"document text is kept for it")
    if not collection.manifest.documents:
        return None, f"collection {collection.name!r} holds no documents"
    return collection.kept_texts(), ""

