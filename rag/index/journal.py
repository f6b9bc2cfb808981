"""A collection's write-ahead record: which chunk ids a write is about to touch, so that a reader
hides what the manifest does not list yet and the next writer repairs what a crash left behind.

A write goes: record the intent (this file) → upsert the new points → update the BM25 index →
save the manifest (the commit) → delete the replaced points → remove the record. Whatever point
kill -9 stops it at, the record names every chunk id whose state may disagree with the manifest:
readers hide those not listed (and apply the privacy clause while a record exists), and
rag.index.reconcile makes them agree again.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

JOURNAL_FILE = "write-intent.json"


@dataclass(frozen=True)
class WriteIntent:
    """The chunk ids one write adds (or overwrites) and removes."""

    added: tuple[str, ...]
    removed: tuple[str, ...]

    @property
    def touched(self) -> frozenset[str]:
        return frozenset(self.added) | frozenset(self.removed)


def journal_path(directory: Path) -> Path:
    return directory / JOURNAL_FILE


def record(directory: Path, intent: WriteIntent) -> None:
    """Write the intent durably before any point is written (atomic replace)."""
    path = journal_path(directory)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    raw = {"added": intent.added, "removed": intent.removed, "pid": os.getpid()}  # pid: who wrote it
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(raw, handle)
        handle.flush()
        os.fsync(handle.fileno())
    tmp.replace(path)


def pending(directory: Path) -> WriteIntent | None:
    """The unfinished write's intent (one in progress, or one a crash left), if any."""
    try:
        raw = json.loads(journal_path(directory).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (json.JSONDecodeError, UnicodeDecodeError):
        # never written half (atomic replace), so this is damage from outside: an empty intent
        # still counts as pending (reads stay private) and makes the next writer check every point
        return WriteIntent((), ())
    return WriteIntent(tuple(raw.get("added", ())), tuple(raw.get("removed", ())))


def clear(directory: Path) -> None:
    journal_path(directory).unlink(missing_ok=True)
