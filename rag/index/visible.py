"""What one user may see of a collection's document list: their own and public documents by
name; other users' private documents only as a count (the collection manager, Documents and
Chunk Lab views read this; rag.index.filters applies the same rule to search)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from rag.index.document_texts import DocumentTexts
from rag.index.manifest import DocumentEntry, Manifest
from rag.privacy import visible_to
from rag.records.document import Document


@dataclass(frozen=True)
class VisibleEntries:
    """The entries a user may see by name, and how many private ones of others were held back."""

    entries: tuple[DocumentEntry, ...]
    hidden: int


def entry_visible(entry: DocumentEntry, user: str | None) -> bool:
    """The entry's access key (rag.privacy.access_key) under the visibility rule; an entry from
    before access keys is public (it was ingested without an owner)."""
    try:
        visibility, owner, _tags = json.loads(entry.access) if entry.access else ("public", None, [])
    except (ValueError, TypeError):
        return False  # unreadable access: held back rather than shown
    return visible_to({"visibility": visibility, "owner": owner}, user)


def visible_entries(manifest: Manifest, user: str | None) -> VisibleEntries:
    """The manifest's documents `user` may see, in source order, and the count of the others."""
    entries = sorted(manifest.documents.values(), key=lambda d: d.source)
    shown = tuple(e for e in entries if entry_visible(e, user))
    return VisibleEntries(shown, len(entries) - len(shown))


def visible_kept_documents(directory_texts: DocumentTexts, sources: Iterable[str],
                           user: str | None) -> tuple[list[Document], int]:  # fmt: skip
    """Kept documents `user` may read (their text), and how many were held back."""
    stored = directory_texts.get(sorted(sources))
    shown = [s.document for s in stored
             if visible_to({"visibility": s.access.visibility, "owner": s.access.owner}, user)]  # fmt: skip
    return shown, len(stored) - len(shown)
