"""The ONNX graph a run embeds with, fixed against the collection it reads or writes.

A config says which graph it wants (`embedding.onnx_variant`, default `auto`); a collection
recorded the graph its vectors were made with at its first ingest. `pinned` turns the first into
a concrete graph for this collection (rag/embed/variant.py: the recorded graph for `auto` or the
same name, else the graph this CPU's check allows), so what is recorded is what embeds. When the
collection keeps a graph other than the one a new collection would get, it says so once (a
marker in the collection's folder remembers that it did).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.embed.variant import AUTO_VARIANT, choose_variant, kept_note, picks_a_graph
from rag.paths import collections_root
from rag.settings.embedding import LEGACY_ONNX_VARIANT

if TYPE_CHECKING:
    from rag.settings.pipeline import PipelineConfig

_log = logging.getLogger(__name__)
_NOTE_FILE = ".embedding-graph-note"
_SAID: set[tuple[str, str]] = set()  # (collection, note) said by this process


def recorded_variant(settings: Mapping[str, Any], config: PipelineConfig) -> str | None:
    """The graph a collection recorded for the model `config` embeds with (None: nothing
    recorded yet, or another embedder, which reads a derived index of its own)."""
    embedding = settings.get("embedding") or {}
    if (embedding.get("backend") != "onnx" or embedding.get("model_path")
            or embedding.get("model") != config.embedding.model):
        return None
    return str(embedding.get("onnx_variant", LEGACY_ONNX_VARIANT))  # legacy: recorded none


def pinned(config: PipelineConfig, settings: Mapping[str, Any], *, name: str = "",
           directory: Path | None = None) -> PipelineConfig:
    """`config` with `embedding.onnx_variant` the concrete graph to use on this collection."""
    if not picks_a_graph(config.embedding):
        return config
    recorded = recorded_variant(settings, config)
    choice = choose_variant(config.embedding.onnx_variant, recorded)
    if choice.note:
        _say_once(_addressed(choice.note, name), name, directory)
    if (recorded is None and config.embedding.onnx_variant == AUTO_VARIANT
            and directory is not None and directory.is_dir()):
        # `auto` chose the graph the first ingest records: keeping it later is no news
        _mark_said(_addressed(kept_note(choice.variant), name), name, directory)
    if choice.variant == config.embedding.onnx_variant:
        return config
    embedding = config.embedding.model_copy(update={"onnx_variant": choice.variant})
    return config.model_copy(update={"embedding": embedding})


def pinned_for(config: PipelineConfig, collection: object | None) -> PipelineConfig:
    """`pinned` for a collection object (its manifest), or, when none is given, for the
    collection `config.index.collection` names (its manifest read from disk, if it exists)."""
    if not picks_a_graph(config.embedding):
        return config
    manifest = getattr(collection, "manifest", None)
    directory = getattr(collection, "directory", None)
    name = str(getattr(collection, "name", "") or "")
    if collection is None:
        from rag.index.manifest import Manifest

        name = config.index.collection
        directory = collections_root() / name
        path = directory / "manifest.json"
        manifest = Manifest.load(path) if path.is_file() else None
    settings = getattr(manifest, "settings", None) or {}
    return pinned(config, settings, name=name,
                  directory=directory if isinstance(directory, Path) else None)


def _addressed(note: str, name: str) -> str:
    return f"collection {name!r}: {note}" if name else note


def _mark_said(note: str, name: str, directory: Path) -> None:
    """Remember `note` as said for this collection without saying it."""
    _SAID.add((name, note))
    try:
        (directory / _NOTE_FILE).write_text(note, encoding="utf-8")
    except OSError:
        pass  # a read-only folder: this process still remembers


def _say_once(note: str, name: str, directory: Path | None) -> None:
    # every run_slice pins its config, so a sweep asks this once per query and point: what this
    # process already said (or found on disk) is answered from memory, without opening the marker
    if (name, note) in _SAID:
        return
    marker = directory / _NOTE_FILE if directory is not None else None
    try:
        if marker is not None and marker.is_file() and marker.read_text("utf-8") == note:
            _SAID.add((name, note))
            return
    except OSError:
        pass
    _log.warning("%s", note)
    if directory is None:
        _SAID.add((name, note))
    else:
        _mark_said(note, name, directory)
