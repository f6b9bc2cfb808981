"""Tuning spaces: parsing, checks against the preset, grids, and what re-indexes."""

from __future__ import annotations

from pathlib import Path

import pytest

from eval.tune.space import SpaceError, load_space, parse_space
from rag.config import load_preset
from rag.paths import PROJECT_ROOT


def test_a_space_of_choices_is_a_grid_in_yaml_order() -> None:
    space = parse_space({"settings": {"fusion.k": [1, 60], "retrieval.depth": {"choices": [5, 9]}}})
    assert space.grid_size() == 4
    assert space.grid()[:2] == [{"fusion.k": 1, "retrieval.depth": 5},
                                {"fusion.k": 1, "retrieval.depth": 9}]
    assert space.max_depth(load_preset("hybrid")) == 9


def test_a_range_has_no_grid_and_infers_integers() -> None:
    space = parse_space({"settings": {"fusion.k": {"low": 1, "high": 200, "log": True},
                                      "fusion.alpha": {"low": 0.0, "high": 1.0}}})
    assert space.grid_size() is None
    k, alpha = space.settings
    assert k.integer and k.log and not alpha.integer
    with pytest.raises(SpaceError, match="no grid"):
        space.grid()


@pytest.mark.parametrize(("raw", "message"), [
    ({"settings": {}}, "needs `settings:`"),
    ({"settings": {"fusion.k": 5}}, "choices"),
    ({"settings": {"fusion.k": {"low": 9, "high": 1}}}, "must be below"),
    ({"settings": {"fusion.k": {"low": 0, "high": 9, "log": True}}}, "low > 0"),
    ({"settings": {"fusion.k": {"choices": [1], "low": 1}}}, "not both"),
    ({"settings": {"fusion.k": {"step": 2}}}, "unknown option"),
    ({"settings": {"fusion.k": [1]}, "metric": "x"}, "unknown top-level"),
])
def test_malformed_spaces_say_what_is_wrong(raw: dict, message: str) -> None:
    with pytest.raises(SpaceError, match=message):
        parse_space(raw)


def test_values_are_checked_against_the_preset_before_any_search() -> None:
    base = load_preset("hybrid")
    with pytest.raises(SpaceError, match=r"fusion\.colour"):
        parse_space({"settings": {"fusion.colour": ["red"]}}, base)
    with pytest.raises(SpaceError, match=r"fusion\.k"):
        parse_space({"settings": {"fusion.k": {"low": 0, "high": 5}}}, base)  # k >= 1


def test_list_changing_settings_are_named() -> None:
    space = parse_space({"settings": {"chunking.params.size": [256, 512], "fusion.k": [1, 2],
                                      "retrieval.depth": [10, 20]}})
    assert space.list_changing() == ("chunking.params.size",)


@pytest.mark.parametrize("path", sorted((PROJECT_ROOT / "eval" / "spaces").glob("*.yaml")))
def test_shipped_spaces_load_against_hybrid(path: Path) -> None:
    assert load_space(path, load_preset("hybrid")).settings


def test_a_conditional_setting_is_only_part_of_points_where_it_applies() -> None:
    space = parse_space({"settings": {
        "fusion.method": ["rrf", "dbsf"],
        "fusion.k": {"choices": [1, 60], "when": {"fusion.method": ["rrf"]}}}})
    assert space.grid() == [{"fusion.method": "rrf", "fusion.k": 1},
                            {"fusion.method": "rrf", "fusion.k": 60}, {"fusion.method": "dbsf"}]
    assert space.as_json()["settings"]["fusion.k"]["when"] == {"fusion.method": ["rrf"]}
    with pytest.raises(SpaceError, match="not an earlier setting"):
        parse_space({"settings": {"fusion.k": {"choices": [1], "when": {"fusion.method": ["rrf"]}},
                                  "fusion.method": ["rrf"]}})
