"""The adapt stage: Adaptive's strategies, Vexora's level filter, Axiom's summarize path — as plans,
and through the pipeline runner (its overrides reach the later stages)."""

from dataclasses import replace

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
    return plan_route(found.route, found, state, cfg.query.adaptive, levels)


def test_a_short_factual_query_goes_dense_only_top5_without_rerank() -> None:
    p = plan("What is a vault?", config(), expansions=2)
    assert p.strategy == "dense_only"
    assert [q.text for q in p.queries] == ["What is a vault?"]
    assert p.overrides == {"rerank.enabled": False, "retrieval.routed_top_k": 5,
                           "retrieval.routed_retrievers": ["dense"]}
    assert len(p.dropped_queries) == 2 and "only FUSION searches expansions" in " ".join(p.reasons)


def test_a_complex_query_takes_fusion_and_keeps_every_expansion() -> None:
    query = "Why does sync create a conflict copy and how should teams avoid losing edits offline?"
    p = plan(query, config(**{"retrieval.depth": 100}), expansions=3)
    assert p.strategy == "fusion"
    assert len(p.queries) == 4 and p.dropped_queries == ()
    assert p.overrides["retrieval.routed_top_k"] == 20


def test_the_routes_top_k_is_capped_by_the_retrieval_depth_where_select_applies_it() -> None:
    deep = config(**{"retrieval.depth": 100, "retrieval.routed_top_k": 20}).retrieval
    assert deep.selected_k() == (20, "")
    shallow = config(**{"retrieval.depth": 15, "retrieval.top_k": 10, "retrieval.routed_top_k": 20})
    k, note = shallow.retrieval.selected_k()
    assert k == 15 and "capped at retrieval.depth 15" in note
    assert config(**{"retrieval.top_k": 7}).retrieval.selected_k() == (7, "")


def test_the_routes_retrievers_apply_only_when_the_preset_has_one() -> None:
    hybrid = config(**{"retrieval.retrievers": ["bm25", "dense"],
                       "retrieval.routed_retrievers": ["dense"]}).retrieval
    assert hybrid.routed() == (hybrid.model_copy(update={"retrievers": ["dense"]}), "")
    sparse = config(**{"retrieval.retrievers": ["bm25"], "retrieval.routed_retrievers": ["dense"]})
    kept, note = sparse.retrieval.routed()
    assert kept.retrievers == ["bm25"] and "no such retriever" in note


def test_hierarchical_expands_by_document_only_when_the_context_expands_nothing() -> None:
    assert config(**{"context.routed_expansion": "document"}).context.routed().expansion == "document"
    parent = config(**{"context.expansion": "parent", "context.routed_expansion": "document"})
    assert parent.context.routed().expansion == "parent"
    assert config().context.routed().expansion == "none"


def test_an_exact_identifier_takes_two_stage_which_turns_rerank_on() -> None:
    cfg = config(**{"rerank.enabled": False})
    route = understand('what does "vault passphrase" mean', cfg.query).route
    strategy, why = choose_strategy(route, 'what does "vault passphrase" mean', cfg.query.adaptive)
    assert strategy == "two_stage" and "vault passphrase" in why
    p = plan('what does "vault passphrase" mean', cfg)
    assert p.overrides["rerank.enabled"] is True and "retrieval.routed_retrievers" not in p.overrides
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


def test_the_stage_says_why_it_is_off_or_has_no_route() -> None:
    from rag.query.adaptive_router import _off, run_adapt
    from rag.stages import StageEnv

    assert _off(config()) is None
    assert "query.adaptive.enabled" in (_off(config(**{"query.adaptive.enabled": False})) or "")
    unrouted = config(**{"query.route.enabled": False})  # understand's section: not read by adapt
    found = understand("What is a vault?", unrouted.query)
    state = initial_state("What is a vault?", unrouted).with_artifact("understand", found)
    result = run_adapt(state, StageEnv(unrouted))
    assert result.status == "skipped" and "did not route this query" in result.reason
    alone = run_adapt(initial_state("What is a vault?", unrouted), StageEnv(unrouted))
    assert alone.status == "skipped" and "did not run" in alone.reason
