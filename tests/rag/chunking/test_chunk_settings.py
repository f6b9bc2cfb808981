"""Chunking settings inside pipeline configs and presets: errors name the field and the rule."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from chunk_helpers import HashingEmbedder, make_doc

from rag.chunking import STRATEGIES, get_chunker, strategy_settings
from rag.config import PresetError, config_from_dict, load_preset


def test_preset_with_overlap_not_below_size_is_rejected(tmp_path: Path) -> None:
    preset = tmp_path / "bad.yaml"
    preset.write_text("chunking:\n  strategy: recursive\n  params: {size: 512, overlap: 600}\n")
    with pytest.raises(PresetError) as caught:
        load_preset(preset)
    message = str(caught.value)
    assert "chunking" in message
    assert "params.overlap: overlap (600) must be smaller than size (512)" in message


def test_unknown_strategy_lists_the_valid_ones() -> None:
    with pytest.raises(
        PresetError, match=re.escape("unknown chunking strategy 'nope'; valid: doc_type, faq")
    ):
        config_from_dict({"chunking": {"strategy": "nope", "params": {}}})


def test_unknown_parameter_is_named() -> None:
    with pytest.raises(PresetError, match=r"params\.sizee: Extra inputs are not permitted"):
        config_from_dict({"chunking": {"strategy": "fixed", "params": {"sizee": 10}}})


@pytest.mark.parametrize("name", STRATEGIES.names())
def test_every_strategy_has_strict_valid_defaults(name: str) -> None:
    settings = strategy_settings(name, {})
    assert settings.model_config.get("extra") == "forbid"
    doc = make_doc("One sentence here. Another one there.")
    (chunk,) = get_chunker(name, embedder=HashingEmbedder()).chunk(doc)[-1:]
    assert chunk.text == doc.text[chunk.start : chunk.end]


@pytest.mark.parametrize("preset", ["bm25", "dense", "hybrid"])
def test_baseline_presets_chunk_like_intellidocs(preset: str) -> None:
    config = load_preset(preset)
    assert (config.chunking.strategy, config.chunking.params) == (
        "recursive",
        {"size": 512, "overlap": 50},
    )
