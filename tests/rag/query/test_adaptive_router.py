"""The adapt stage: Adaptive's strategies, Vexora's level filter, Axiom's summarize path — as plans,
and through the pipeline runner (its overrides reach the later stages)."""

from dataclasses import replace

import pytest

from rag.config import PipelineConfig, with_overrides
from rag.index.hits import SearchQuery
from rag.pipeline import initial_state
from rag.query.adaptive_router import AdaptivePlan, choose_strategy, plan_route
from rag.query.understand import understand

BASE = {"query.enabled": True, "query.intent.enabled": False, "query.adaptive.enabled": True,
        "rerank.enabled": True, "context.enabled": True}


def config(**overrides: object) -> PipelineConfig:
    return with_overrides(PipelineConfig(), {**BASE, **overrides})


def plan(query: str, cfg: PipelineConfig, expansions: int = 0,
         levels: frozenset[str] = frozenset()) -> AdaptivePlan:
    found = understand(query, cfg.query)
    state = initial_state(query, cfg)
    extra = tuple(SearchQuery(f"variant {i}", f"v{i}") for i in range(expansions))
    state = replace(state, queries=(*found.search_queries, *extra))
    return plan_route(found.route, found, state, cfg, levels)


def test_a_short_factual_query_goes_dense_only_top5_without_rerank() -> None:
    p = plan("What is a vault?", config(), expansions=2)
    assert p.strategy == "dense_only"
    assert [q.retrievers for q in p.queries] == [("dense",)]
    assert p.overrides == {"rerank.enabled": False, "retrieval.top_k": 5}
    assert len(p.dropped_queries) == 2 and "only FUSION searches expansions" in " ".join(p.reasons)


def test_a_complex_query_takes_fusion_and_keeps_every_expansion() -> None:
    query = "Why does sync create a conflict copy and how should teams avoid losing edits offline?"
    p = plan(query, config(**{"retrieval.depth": 100}), expansions=3)
    assert p.strategy == "fusion"
    assert len(p.queries) == 4 and p.dropped_queries == ()
    assert p.overrides["retrieval.top_k"] == 20


def test_top_k_is_capped_by_the_retrieval_depth() -> None:
    query = "Why does sync create a conflict copy and how should teams avoid losing edits offline?"
    p = plan(query, config(**{"retrieval.depth": 15, "retrieval.top_k": 10}))
    assert p.overrides["retrieval.top_k"] == 15
    assert any("capped at retrieval.depth 15" in r for r in p.reasons)


def test_an_exact_identifier_takes_two_stage_which_turns_rerank_on() -> None:
    cfg = config(**{"rerank.enabled": False})
    route = understand('what does "vault passphrase" mean', cfg.query).route
    strategy, why = choose_strategy(route, 'what does "vault passphrase" mean', cfg.query.adaptive)
    assert strategy == "two_stage" and "vault passphrase" in why
    p = plan('what does "vault passphrase" mean', cfg)
    assert p.overrides["rerank.enabled"] is True
    off = config(**{"query.adaptive.two_stage": False})
    assert plan('what does "vault passphrase" mean', off).strategy == "dense_only"


def test_level_filter_searches_only_levels_the_collection_has() -> None:
    cfg = config(**{"query.adaptive.strategies": False, "query.adaptive.level_filter": True})
    p = plan("What is a vault?", cfg, levels=frozenset({"document", "section", "paragraph"}))
    assert p.levels == ("paragraph",) and p.strategy is None and p.overrides == {}
    flat = plan("What is a vault?", cfg, levels=frozenset({"chunk"}))
    assert flat.levels == () and "every level searched" in flat.reasons[0]


def test_summarize_path_switches_the_context_expansion() -> None:
    cfg = config(**{"query.adaptive.strategies": False, "query.adaptive.summarize_path": True})
    assert plan("Summarize the handbook", cfg).overrides == {"context.expansion": "summarize"}
    assert plan("What is a vault?", cfg).overrides == {}


@pytest.mark.parametrize("field", ["query.adaptive.enabled", "query.route.enabled"])
def test_the_stage_says_why_it_is_off(field: str) -> None:
    from rag.query.adaptive_router import _off

    assert _off(config()) is None
    assert field.split(".")[-2] in (_off(config(**{field: False})) or "")
