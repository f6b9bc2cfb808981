"""Where the workbench keeps its data: collections, caches, runs. One place, overridable by env."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SAMPLES_DIR = PROJECT_ROOT / "datasets" / "samples"
PRESETS_DIR = Path(__file__).resolve().parent / "presets"


def data_dir() -> Path:
    """Root of all workbench state; `RAG_WORKBENCH_DATA` overrides the default `./.workbench`."""
    root = Path(os.environ.get("RAG_WORKBENCH_DATA", PROJECT_ROOT / ".workbench"))
    root.mkdir(parents=True, exist_ok=True)
    return root


def collections_root() -> Path:
    """The folder that holds one sub-folder per collection."""
    return data_dir() / "collections"


def cache_dir(name: str) -> Path:
    """A named cache folder under the data dir (embeddings, parsed documents, candidates)."""
    path = data_dir() / "cache" / name
    path.mkdir(parents=True, exist_ok=True)
    return path
