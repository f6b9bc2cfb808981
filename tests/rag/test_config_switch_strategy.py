"""Switching the chunking strategy with --set keeps the old params the new strategy takes and
drops the rest, instead of failing on them; params set in the same call are kept as given."""

from __future__ import annotations

import pytest

from rag.config import PresetError, load_preset, parse_set_options, with_overrides


def test_a_new_strategy_drops_the_params_it_does_not_take() -> None:
    preset = load_preset("hybrid")  # recursive 512/50
    assert preset.chunking.params == {"size": 512, "overlap": 50}
    whole = with_overrides(preset, parse_set_options(["chunking.strategy=whole"]))
    assert (whole.chunking.strategy, whole.chunking.params) == ("whole", {})
    fixed = with_overrides(preset, parse_set_options(["chunking.strategy=fixed"]))
    assert fixed.chunking.params == {"size": 512, "overlap": 50}  # shared params stay


def test_params_given_with_the_new_strategy_are_kept_and_checked() -> None:
    preset = load_preset("hybrid")
    sentence = with_overrides(preset, parse_set_options(
        ["chunking.strategy=sentence", "chunking.params.max_size=600"]))
    assert sentence.chunking.params == {"max_size": 600}
    with pytest.raises(PresetError, match=r"params\.size: Extra inputs are not permitted"):
        with_overrides(preset, parse_set_options(["chunking.strategy=whole", "chunking.params.size=9"]))
    same = with_overrides(preset, parse_set_options(["chunking.params.size=300"]))
    assert same.chunking.params == {"size": 300, "overlap": 50}  # same strategy: untouched
