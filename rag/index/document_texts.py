"""The parsed text of a collection's documents, kept in SQLite beside its manifest.

A collection is a set of documents; its indexes (one per chunking/embedding/index setting) are
derived from this text, so a second preset never parses a file again (rag/index/derived.py).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from rag.index.manifest import now_iso
from rag.index.payload import Access
from rag.records.document import Document

_DOCUMENT = TypeAdapter(Document)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    source TEXT PRIMARY KEY,
    content_hash TEXT NOT NULL,
    document TEXT NOT NULL,
    owner TEXT,
    visibility TEXT NOT NULL,
    tags TEXT NOT NULL,
    stored_at TEXT NOT NULL
)
"""


def _plain(value: Any) -> Any:
    """Metadata's read-only mappings (MappingProxyType) as plain dicts; anything else as text."""
    return dict(value) if isinstance(value, Mapping) else str(value)


@dataclass(frozen=True)
class StoredDocument:
    """One document as ingested: its parsed text, who may see it, and when it was stored."""

    document: Document
    access: Access
    stored_at: str


class DocumentTexts:
    """`documents.sqlite` in a collection's folder; absent for collections built before it existed."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / "documents.sqlite"

    def exists(self) -> bool:
        return self.path.is_file()

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(sqlite3.connect(self.path, timeout=30)) as db, db:
            db.execute(_SCHEMA)
            yield db

    def put(self, documents: Sequence[Document], access: Access) -> None:
        """Store (or replace, by source) these documents with their access."""
        stamp = now_iso()
        rows = [
            (
                d.metadata.source,
                d.metadata.content_hash,
                _DOCUMENT.dump_json(d, fallback=_plain, warnings=False).decode("utf-8"),
                access.owner,
                access.visibility,
                json.dumps(list(access.tags)),
                stamp,
            )
            for d in documents
        ]
        with self._connect() as db:
            db.executemany("INSERT OR REPLACE INTO documents VALUES (?, ?, ?, ?, ?, ?, ?)", rows)

    def remove(self, source: str) -> None:
        with self._connect() as db:
            db.execute("DELETE FROM documents WHERE source = ?", (source,))

    def sources(self) -> set[str]:
        """The sources whose text is kept."""
        if not self.exists():
            return set()
        with self._connect() as db:
            return {source for (source,) in db.execute("SELECT source FROM documents")}

    def get(self, sources: Sequence[str]) -> list[StoredDocument]:
        """The stored documents among `sources`, in the order given (unknown ones left out)."""
        if not sources or not self.exists():
            return []
        found: dict[str, StoredDocument] = {}
        with self._connect() as db:
            for start in range(0, len(sources), 500):  # SQLite's bound-parameter limit
                part = list(sources[start : start + 500])
                marks = ",".join("?" * len(part))
                query = (
                    "SELECT source, document, owner, visibility, tags, stored_at "
                    f"FROM documents WHERE source IN ({marks})"
                )
                for source, text, owner, visibility, tags, stamp in db.execute(query, part):
                    access = Access(owner, visibility, tuple(json.loads(tags)))
                    found[source] = StoredDocument(_DOCUMENT.validate_json(text), access, stamp)
        return [found[s] for s in sources if s in found]


class KeptTexts:
    """doc_id -> that document's kept parsed text, each read once (the extractive answerer
    completes a sentence a chunk boundary cut from it: rag.generate.whole_sentences)."""

    def __init__(self, directory: Path, sources: Mapping[str, str]) -> None:
        self._texts = DocumentTexts(directory)
        self._sources = dict(sources)  # doc_id -> source
        self._read: dict[str, str | None] = {}

    def document_text(self, doc_id: str) -> str | None:
        if doc_id not in self._read:
            source = self._sources.get(doc_id)
            found = self._texts.get([source]) if source is not None else []
            self._read[doc_id] = found[0].document.text if found else None
        return self._read[doc_id]

