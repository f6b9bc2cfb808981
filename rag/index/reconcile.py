"""Reconcile-on-write: before a writer changes a collection, make its points and BM25 index agree
with its manifest again, undoing whatever a killed writer left (rag.index.journal).

With a write-ahead record, only the ids it names are checked. Without one (a collection written
before the record existed, or one whose record was damaged), a point count that differs from the
manifest's triggers a full pass over every point id. Either way: a chunk the manifest does not list
is deleted from Qdrant and BM25; a listed chunk is re-added to BM25 from its stored text; a listed
document whose points are missing is taken out of the manifest, so the next ingest adds it again.
"""

from __future__ import annotations

from dataclasses import dataclass

from rag.index import journal
from rag.index.catalogue import Catalogue


@dataclass(frozen=True)
class Repair:
    """What reconciling changed; str() is the line an ingest report prints."""

    removed: int  # points the manifest did not list, deleted
    restored: int  # listed chunks written to BM25 again
    dropped: tuple[str, ...]  # documents with missing points, taken out of the manifest

    def __str__(self) -> str:
        text = (f"repaired an interrupted write: removed {self.removed} unlisted chunk(s), "
                f"re-indexed {self.restored} listed chunk(s) for BM25")
        if self.dropped:
            text += f"; {len(self.dropped)} document(s) lost points and will be re-added: "
            text += ", ".join(self.dropped)
        return text


def reconcile(collection: Catalogue) -> Repair | None:
    """Run under the collection's write lock (rag.index.writer); None when there was nothing to
    repair."""
    intent = journal.pending(collection.directory)
    manifest = collection.manifest
    if intent is not None and intent.touched:
        touched = set(intent.touched)
    elif intent is not None or collection.store.count() != manifest.chunk_count:
        touched = {str(p["chunk_id"]) for p in collection.store.scroll(with_payload=False)}
        touched |= manifest.chunk_ids
    else:
        return None
    payloads = collection.store.payloads(sorted(touched))  # the points that exist
    keep = touched & manifest.chunk_ids
    missing = keep - set(payloads)
    broken = {d.source for d in manifest.documents.values() if missing.intersection(d.chunk_ids)}
    if broken:
        kept = {s: d for s, d in manifest.documents.items() if s not in broken}
        collection.manifest = manifest.with_documents(kept)
        collection.save_manifest()
        touched |= {c for s in broken for c in manifest.documents[s].chunk_ids}
        keep &= collection.manifest.chunk_ids
    gone = sorted(touched - keep)
    removed = sum(1 for c in gone if c in payloads)
    collection.store.delete(gone)
    collection.sparse.remove([*gone, *keep])
    restored = sorted(keep)
    collection.add_stored_to_sparse(restored, payloads)
    collection.sparse.save()
    journal.clear(collection.directory)
    return Repair(removed, len(restored), tuple(sorted(broken)))
