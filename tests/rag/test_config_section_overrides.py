"""with_overrides' section path (only the touched sections re-validated) derives the same
config as the whole-config path, refuses what it refuses, and leaves other sections shared."""

from __future__ import annotations

from typing import Any

import pytest

from rag.config import PresetError, available_presets, load_preset, with_overrides
from rag.settings.overrides import _section_overrides, _whole_overrides

OVERRIDES: list[dict[str, Any]] = [
    {"fusion.k": 5},
    {"fusion.method": "weighted_rrf", "fusion.weights": {"bm25": 0.4, "dense": 0.6}},
    {"retrieval.top_k": 100, "index.collection": "elsewhere", "fusion.k": 1000},
    {"retrieval.depth": 70, "postprocess.threshold": 0.25, "rerank.top_n": 3},
    {"fusion.depths": {"bm25": 10}},
]


@pytest.mark.parametrize("preset", available_presets())
@pytest.mark.parametrize("overrides", OVERRIDES)
def test_section_path_equals_whole_path(preset: str, overrides: dict[str, Any]) -> None:
    base = load_preset(preset)
    fast = _section_overrides(base, overrides)
    try:
        whole = _whole_overrides(base, overrides)
    except PresetError:  # invalid for this preset (e.g. top_k above its depth): refused too
        assert fast is None
        return
    assert fast is not None
    assert fast == whole
    assert fast.model_dump(mode="json") == whole.model_dump(mode="json")
    assert fast.generation is base.generation  # untouched sections are shared, not rebuilt


def test_the_section_path_is_taken_for_a_sweep_point() -> None:
    base = load_preset("hybrid")
    for overrides in OVERRIDES:
        assert _section_overrides(base, overrides) is not None, overrides


@pytest.mark.parametrize("overrides", [
    {"fusion.k": 0},  # below the bound: refused by the section's own model
    {"fusion.alpha": float("nan")},  # non-finite: the whole config's rule
    {"fusion.nope": 1},  # an unknown field
    {"nope.k": 1},
    {"postprocess.threshold": "high"},
])
def test_section_path_refusals_raise_the_whole_paths_error(overrides: dict[str, Any]) -> None:
    base = load_preset("hybrid")
    assert _section_overrides(base, overrides) is None
    with pytest.raises(PresetError) as whole:
        _whole_overrides(base, overrides)
    with pytest.raises(PresetError) as either:
        with_overrides(base, overrides)
    assert str(either.value) == str(whole.value)


def test_chunking_and_top_level_fields_take_the_whole_path() -> None:
    base = load_preset("hybrid")
    assert _section_overrides(base, {"chunking.strategy": "whole"}) is None
    assert _section_overrides(base, {"name": "other"}) is None
    assert with_overrides(base, {"chunking.strategy": "whole"}).chunking.strategy == "whole"
