"""The config a page runs: the selected preset, pointed at the collection, plus the page's own
overrides (dotted fields). Every page derives its config here, through rag.config.with_overrides,
so a page whose controls are left alone runs exactly the preset — its chunking and embedding
included: the collection derives the index the preset needs (rag/index/derived.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rag.config import PipelineConfig, with_overrides


def page_config(
    preset: PipelineConfig, collection_name: str, overrides: Mapping[str, Any] | None = None
) -> PipelineConfig:
    """The preset over this collection, with the page's `overrides` applied last."""
    return with_overrides(preset, {"index.collection": collection_name, **(overrides or {})})
