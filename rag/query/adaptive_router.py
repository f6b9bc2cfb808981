"""Pipeline stage "adapt": act on the understand stage's route before anything is searched.

- Adaptive's router (its step 5): DENSE_ONLY (dense, top 5, no rerank), HYBRID (BM25 +
  dense, top 10), FUSION (every retriever and every expansion — HyDE, RAG-Fusion, step-back —
  top 20), TWO_STAGE (hybrid, then rerank: "high-precision needs"), HIERARCHICAL (top 20 with
  document expansion: "document-spanning queries");
- Vexora `QueryRouter.getLevelFilterForQueryType`: search only the chunk levels that suit the
  query type, when the collection has them;
- Axiom summarize path: a summarize request reads the whole top document in order.

It never searches, and reads no other stage's settings: it narrows `state.queries` /
`state.filters` and sets `state.overrides` (dotted config paths) that the runner applies to the
stages after it; what depends on their settings (the retrievers a preset has, its depth, its
context expansion) the stage owning that section decides (`retrieval.routed_*`,
`context.routed_expansion`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, Literal

from rag.query.route import Route
from rag.query.understand import Understanding
from rag.records.hits import SearchQuery
from rag.settings.adaptive import AdaptiveConfig
from rag.settings.pipeline import PipelineConfig
from rag.settings.retrieval import FilterConfig
from rag.stages import STAGES, PipelineState, StageEnv, StageInput, StageResult, StageSpec

Strategy = Literal["dense_only", "hybrid", "fusion", "two_stage", "hierarchical"]

# Adaptive's table: latency grows and so does the candidate budget.
TOP_K: Mapping[Strategy, int] = MappingProxyType(
    {"dense_only": 5, "hybrid": 10, "fusion": 20, "two_stage": 10, "hierarchical": 20}
)
# Exact identifiers a bi-encoder blurs: quoted phrases, versions / codes with digits, paths,
# ALL-CAPS acronyms, snake_case or dotted names.
_EXACT = re.compile("|".join((
    r"[\"“'][^\"”']{2,60}[\"”']",  # "quoted phrase"
    r"\b\w*\d\w*[.-]\w+\b",  # v4.0, 0x1F-2, python3.11
    r"\b[A-Z]{2,}\d*\b",  # APT, BM25, HTTP2
    r"/\w+/",  # /etc/
    r"\b\w+_\w+\b",  # snake_case
    r"\b\w+\.\w+\(\)",  # module.call()
)))


@dataclass(frozen=True)
class AdaptivePlan:
    """What the route changed for this query, and why (shown in the trace)."""

    strategy: Strategy | None  # None: strategies off, only levels / summarize acted on
    queries: tuple[SearchQuery, ...]
    dropped_queries: tuple[str, ...]
    levels: tuple[str, ...]  # chunk levels searched ((): no level filter)
    overrides: Mapping[str, Any]
    reasons: tuple[str, ...]


def choose_strategy(route: Route, query: str, cfg: AdaptiveConfig) -> tuple[Strategy, str]:
    """Adaptive's strategy for this route: the understand stage's choice, or TWO_STAGE when a
    hybrid/dense query names exact identifiers that reranking should check word by word."""
    if cfg.two_stage and route.strategy in ("dense_only", "hybrid"):
        match = _EXACT.search(query)
        if match:
            return "two_stage", f"two_stage: exact identifier {match.group(0)!r} needs precision"
    why = route.reasons[0] if route.reasons else route.complexity
    return route.strategy, f"{route.strategy}: {why}"


def _strategy_changes(
    strategy: Strategy, queries: tuple[SearchQuery, ...]
) -> tuple[tuple[SearchQuery, ...], tuple[str, ...], dict[str, Any], list[str]]:
    """(queries kept, texts dropped, overrides, reasons) for one strategy. It reads no other
    stage's settings: each override says what the route asks, and the stage that owns the
    section applies it to its own settings (retrieval keeps the route's retrievers if it has
    them, select caps the route's top_k at retrieval.depth, context expands by document only
    when it expands nothing itself)."""
    overrides: dict[str, Any] = {}
    reasons: list[str] = []
    main, extra = queries[:1], queries[1:]
    # only FUSION searches the expansions (Adaptive: "Complex → Fusion + HyDE + …")
    kept = queries if strategy == "fusion" else main
    if strategy == "dense_only":
        overrides["retrieval.routed_retrievers"] = ["dense"]
        overrides["rerank.enabled"] = False
    if strategy == "two_stage":
        overrides["rerank.enabled"] = True
    if strategy == "hierarchical":
        overrides["context.routed_expansion"] = "document"
    overrides["retrieval.routed_top_k"] = TOP_K[strategy]
    dropped = tuple(q.text for q in extra if q not in kept)
    if dropped:
        reasons.append(f"{len(dropped)} expansion quer{'y' if len(dropped) == 1 else 'ies'} "
                       f"left out: only FUSION searches expansions")
    return kept, dropped, overrides, reasons


def plan_route(
    route: Route, understanding: Understanding, state: PipelineState, cfg: AdaptiveConfig,
    levels_available: frozenset[str],
) -> AdaptivePlan:
    """Everything the adaptive section `cfg` says to do with this route (pure)."""
    queries = state.queries
    dropped: tuple[str, ...] = ()
    overrides: dict[str, Any] = {}
    reasons: list[str] = []
    strategy: Strategy | None = None
    if cfg.strategies:
        strategy, why = choose_strategy(route, understanding.search_query, cfg)
        reasons.append(why)
        queries, dropped, overrides, more = _strategy_changes(strategy, state.queries)
        reasons += more
    levels: tuple[str, ...] = ()
    if cfg.level_filter:
        levels = tuple(lv for lv in route.levels if lv in levels_available)
        if levels:
            reasons.append(f"levels {list(levels)} for a {route.query_type} query")
        else:
            reasons.append(f"no chunk of level {list(route.levels)} in the collection: "
                           f"every level searched")
    if cfg.summarize_path and route.complexity == "summarize":
        overrides["context.expansion"] = "summarize"
        reasons.append("summarize request: context reads the top document in order")
    if not reasons:
        reasons.append(f"{route.complexity} {route.query_type} query: nothing to change")
    return AdaptivePlan(strategy, queries, dropped, levels, MappingProxyType(overrides),
                        tuple(reasons))


_LEVELS: dict[tuple[str, str], frozenset[str]] = {}


def collection_levels(collection: object, version: str = "") -> frozenset[str]:
    """The chunk levels a collection holds, scanned once per `version` (IndexRef.version)."""
    chunks = getattr(collection, "chunks", None)
    if not callable(chunks):
        return frozenset()
    name = str(getattr(collection, "name", ""))
    if (name, version) not in _LEVELS:
        _LEVELS[(name, version)] = frozenset(c.level for c in chunks())
    return _LEVELS[(name, version)]


def _narrowed(filters: FilterConfig, levels: tuple[str, ...]) -> FilterConfig:
    if not levels:
        return filters
    keep = [lv for lv in levels if not filters.levels or lv in filters.levels]
    return filters.model_copy(update={"levels": keep or list(filters.levels)})


def run_adapt(state: PipelineState, env: StageEnv) -> StageResult:
    found = state.artifact("understand", Understanding)  # its own settings say whether it routes
    route = found.route if found is not None else None
    if found is None or route is None:
        did = "did not run" if found is None else "did not route this query"
        return StageResult(state, status="skipped", reason=f"no route to act on: the understand "
                           f"stage {did} (query.enabled, query.route.enabled)")
    cfg = env.config.query.adaptive
    ref = env.index_ref() if cfg.level_filter else None
    levels = collection_levels(ref.index, ref.version) if ref is not None else frozenset()
    plan = plan_route(route, found, state, cfg, levels)
    next_state = replace(
        state, queries=plan.queries, filters=_narrowed(state.filters, plan.levels),
        overrides=MappingProxyType({**state.overrides, **plan.overrides}),
    )
    inputs = {"route": route.strategy, "complexity": route.complexity,
              "query_type": route.query_type, "queries": len(state.queries)}
    return StageResult(next_state, plan, inputs, reason="; ".join(plan.reasons))


def _off(config: PipelineConfig) -> str | None:
    return None if config.query.adaptive.enabled else "query.adaptive.enabled is false"


STAGES.add("adapt", StageSpec("adapt", run_adapt, AdaptivePlan, _off, settings=lambda c: c.query.adaptive,
                              inputs=(StageInput("understand", Understanding),)))
