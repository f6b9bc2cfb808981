"""The config a page runs: the selected preset, pointed at the collection and with the index-side
sections it was built with (chunking, embedding, index), plus the page's own overrides (dotted
fields). Every page derives its config here, through rag.config.with_overrides, so a page whose
controls are left alone runs exactly the preset."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rag.config import PipelineConfig, with_overrides


def index_overrides(collection_settings: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """A collection manifest's settings ({"chunking": {...}, ...}) as dotted overrides."""
    return {f"{section}.{name}": value for section, fields in collection_settings.items()
            for name, value in fields.items()}


def page_config(
    preset: PipelineConfig,
    collection_name: str,
    collection_settings: Mapping[str, Mapping[str, Any]],
    overrides: Mapping[str, Any] | None = None,
) -> PipelineConfig:
    """The preset over this collection, with the page's `overrides` applied last."""
    return with_overrides(preset, {**index_overrides(collection_settings),
                                   "index.collection": collection_name, **(overrides or {})})
