"""Adaptive's intelligence levels as stage toggles on a preset."""

import pytest

from rag.config import load_preset
from rag.query.intelligence import LEVEL_ORDER, LEVELS, apply_level
from rag.registry import UnknownStrategyError


def test_levels_switch_the_seed_features_on_in_order() -> None:
    base = load_preset("adaptive")
    levels = {name: apply_level(base, name) for name in LEVEL_ORDER}
    assert levels["basic"].retrieval.retrievers == ["dense"]
    assert not levels["basic"].context.verify.enabled and not levels["basic"].query.expand.methods
    assert levels["standard"].retrieval.retrievers == ["bm25", "dense"]
    assert levels["standard"].context.verify.method == "lexical"
    assert not levels["standard"].context.graph.enabled
    assert levels["enhanced"].context.graph.enabled
    assert levels["enhanced"].query.expand.methods == ["multi_query"]
    assert len(levels["maximum"].query.expand.methods) == 4
    assert [c.name for c in levels.values()] == [f"adaptive@{n}" for n in LEVEL_ORDER]
    assert apply_level(levels["maximum"], "basic").name == "adaptive@basic"
    assert base.retrieval.retrievers == ["bm25", "dense"]  # the preset itself is untouched


def test_features_without_a_stage_are_listed_not_dropped() -> None:
    assert "ensemble voting" in LEVELS.get("maximum").unavailable
    assert LEVELS.get("basic").unavailable == ()


def test_unknown_level_lists_the_valid_ones() -> None:
    with pytest.raises(UnknownStrategyError, match="basic, enhanced, maximum, standard"):
        apply_level(load_preset("adaptive"), "turbo")
