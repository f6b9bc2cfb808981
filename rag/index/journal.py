"""A collection's write-ahead record: which chunk ids a write is about to touch, so that a reader
hides what the manifest does not list yet and the next writer repairs what a crash left behind.

A write goes: record the intent (this file) → upsert the new points → update the BM25 index →
save the manifest (the commit) → delete the replaced points → remove the record. Whatever point
kill -9 stops it at, the record names every chunk id whose state may disagree with the manifest:
readers hide those not listed, and `recover` makes them agree again (an id the manifest lists is
kept and re-added to BM25; an id it does not list is deleted everywhere).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

JOURNAL_FILE = "write-intent.json"


@dataclass(frozen=True)
class WriteIntent:
    """The chunk ids one write adds (or overwrites) and removes, and whether any are private."""

    added: tuple[str, ...]
    removed: tuple[str, ...]
    private: bool
    pid: int = 0

    @property
    def touched(self) -> frozenset[str]:
        return frozenset(self.added) | frozenset(self.removed)


def journal_path(directory: Path) -> Path:
    return directory / JOURNAL_FILE


def record(directory: Path, intent: WriteIntent) -> None:
    """Write the intent durably before any point is written (atomic replace)."""
    path = journal_path(directory)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    raw = {"added": intent.added, "removed": intent.removed,
           "private": intent.private, "pid": os.getpid()}
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
        # never written half (atomic replace), so this is damage from outside: treat every read
        # as private until the next writer's full reconcile replaces the record
        return WriteIntent((), (), True)
    return WriteIntent(tuple(raw.get("added", ())), tuple(raw.get("removed", ())),
                       bool(raw.get("private", True)), int(raw.get("pid", 0)))


def clear(directory: Path) -> None:
    journal_path(directory).unlink(missing_ok=True)
