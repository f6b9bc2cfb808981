"""Query routing: Axiom's complexity route (simple / complex / conversational / summarize, with
skip_rewrite), Vexora's query type (factual / comparative / procedural / relational /
aggregative / temporal) with entities, multi-hop flag and chunk-level filter, and Adaptive's
adaptive retrieval strategy (dense_only / hybrid / fusion / hierarchical).

Offline: ordered patterns. LLM: one call returning JSON; a failed or unusable reply falls back
to the patterns and says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from rag.llm.base import ChatModel, LLMError, Message
from rag.llm.structured import json_object, object_schema
from rag.llm.usability import record_reply
from rag.query.classify import QueryClass
from rag.query.entities import extract_entities
from rag.settings.query import RouteConfig
from rag.text import QUESTION_WORDS, words

Complexity = Literal["simple", "complex", "conversational", "summarize"]
QueryType = Literal["factual", "comparative", "procedural", "relational", "aggregative", "temporal"]
Strategy = Literal["dense_only", "hybrid", "fusion", "hierarchical"]
COMPLEXITIES: tuple[Complexity, ...] = ("simple", "complex", "conversational", "summarize")
QUERY_TYPES: tuple[QueryType, ...] = (
    "factual", "comparative", "procedural", "relational", "aggregative", "temporal")

_TYPE_PATTERNS: tuple[tuple[QueryType, str], ...] = (
    ("relational", r"\b(relat\w*|connect\w*|link(s|ed)? (between|to)|depend\w*|associated|"
                   r"who (works|reports)|affects?)\b"),
    ("comparative", r"\b(compar\w*|versus|vs\.?|differen\w*|differ|better|worse|between .+ and)\b"),
    ("aggregative", r"\b(how many|how much|total|count|number of|average|sum|overall|in all|"
                    r"statistics|most|least)\b"),
    ("temporal", r"\b(when|before|after|since|until|during|latest|recent\w*|how long|history|"
                 r"timeline|date|(19|20)\d\d|last (week|month|year|\d+ days))\b"),
    ("procedural", r"\b(how (do|can|to|should) (i|we|you)|how to|steps?|install\w*|set ?up|"
                   r"configure|enable|turn (on|off)|create|instructions|guide)\b"),
)
_TYPES = tuple((name, re.compile(p, re.I)) for name, p in _TYPE_PATTERNS)
# Vexora `getLevelFilterForQueryType`: fine chunks for facts, coarse ones for broad questions.
LEVELS: dict[QueryType, tuple[str, ...]] = {
    "factual": ("paragraph",), "temporal": ("paragraph",), "relational": ("paragraph", "section"),
    "procedural": ("section",), "comparative": ("section", "document"),
    "aggregative": ("section", "document"),
}
# Adaptive's router: simple -> dense top 5 without rerank; moderate -> hybrid top 10;
# complex -> fusion top 20 with HyDE / RAG-Fusion / step-back; document-spanning -> hierarchical.
STRATEGY: dict[Complexity, tuple[Strategy, int]] = {
    "simple": ("dense_only", 5), "conversational": ("hybrid", 10), "complex": ("fusion", 20),
    "summarize": ("hierarchical", 20),
}


@dataclass(frozen=True)
class Route:
    complexity: Complexity
    query_type: QueryType
    entities: tuple[str, ...]
    multi_hop: bool
    levels: tuple[str, ...]
    strategy: Strategy
    top_k: int
    path: Literal["rules", "llm", "fallback"]
    reasons: tuple[str, ...]
    warnings: tuple[str, ...] = ()

    @property
    def skip_rewrite(self) -> bool:
        """Axiom: simple queries skip the rewrite step."""
        return self.complexity == "simple"


def _query_type(query: str) -> tuple[QueryType, str]:
    for name, pattern in _TYPES:
        match = pattern.search(query)
        if match:
            return name, f"type {name}: {match.group(0)!r}"
    return "factual", "type factual: no type keyword"


def _multi_hop(query: str, query_type: QueryType, entities: tuple[str, ...]) -> str | None:
    """Why the query needs more than one retrieval hop, or None."""
    if query.count("?") > 1 or sum(w in QUESTION_WORDS for w in words(query)) > 1:
        return "several questions in one"
    if query_type in ("relational", "comparative") and len(entities) > 1:
        return f"{query_type} across {len(entities)} entities"
    if re.search(r"\bthe \w+ of the \w+ (that|which|who)\b", query, re.I):
        return "nested reference"
    return None


def route_rules(query: str, cfg: RouteConfig, query_class: QueryClass = "FACTUAL",
                conversational: bool = False) -> Route:
    """The deterministic router; `conversational` means the query leans on earlier messages."""
    query_type, type_reason = _query_type(query)
    entities = extract_entities(query)
    hop = _multi_hop(query, query_type, entities)
    n_words = len(words(query))
    complexity: Complexity
    if query_class == "SUMMARY":
        complexity, why = "summarize", "the query asks for a summary"
    elif conversational:
        complexity, why = "conversational", "the query refers to earlier messages"
    elif hop or query_class in ("COMPARISON", "ANALYTICAL") or n_words >= cfg.complex_min_words:
        complexity = "complex"
        why = hop or (f"{query_class.lower()} query" if query_class != "FACTUAL"
                      else f"{n_words} words ≥ {cfg.complex_min_words}")
    else:
        complexity, why = "simple", "one short factual question"
    strategy, top_k = STRATEGY[complexity]
    return Route(complexity, query_type, entities, hop is not None, LEVELS[query_type], strategy,
                 top_k, "rules", (f"{complexity}: {why}", type_reason))


ROUTE_PROMPT = """Analyse this search question and reply with JSON only:
{{"complexity": one of {complexities},
  "query_type": one of {types},
  "entities": [names of products, people, places or features mentioned],
  "multi_hop": true if answering needs facts from several places combined}}

Question: \"\"\"{query}\"\"\""""


ROUTE_SCHEMA = object_schema("route", {
    "complexity": {"enum": list(COMPLEXITIES)},
    "query_type": {"enum": list(QUERY_TYPES)},
    # bounded, so a model that repeats itself cannot fill the token budget with names
    "entities": {"type": "array", "items": {"type": "string", "maxLength": 60}, "maxItems": 5},
    "multi_hop": {"type": "boolean"},
})


def route(query: str, cfg: RouteConfig, query_class: QueryClass = "FACTUAL",
          conversational: bool = False, chat: ChatModel | None = None) -> Route:
    """The LLM router when `chat` is given (JSON reply), else / on failure the rule router."""
    offline = route_rules(query, cfg, query_class, conversational)
    if chat is None:
        return offline
    prompt = ROUTE_PROMPT.format(complexities=list(COMPLEXITIES), types=list(QUERY_TYPES),
                                 query=query[:2000])
    try:
        reply = chat.chat([Message("user", prompt)], max_tokens=200, schema=ROUTE_SCHEMA).text
        data = json_object(reply)
        if data is None:
            raise ValueError(f"no JSON object in {reply[:60]!r}")
        complexity, query_type = data["complexity"], data["query_type"]
        if complexity not in COMPLEXITIES or query_type not in QUERY_TYPES:
            raise ValueError(f"unknown complexity/type {complexity!r}/{query_type!r}")
    except LLMError as exc:
        record_reply("understand.route", "fallback", f"call failed ({exc.kind})")
        return replace(offline, path="fallback", warnings=(f"route LLM call failed ({exc.kind}): {exc}",))
    except (ValueError, KeyError, TypeError) as exc:  # no JSON, bad JSON, missing or odd fields
        record_reply("understand.route", "fallback", f"unusable JSON ({type(exc).__name__})")
        return replace(offline, path="fallback", warnings=(f"route LLM reply unusable: {exc}",))
    record_reply("understand.route", "ok")
    strategy, top_k = STRATEGY[complexity]
    entities = tuple(str(e) for e in data.get("entities", []) if str(e).strip()) or offline.entities
    return Route(complexity, query_type, entities, bool(data.get("multi_hop", False)),
                 LEVELS[query_type], strategy, top_k, "llm", ("the LLM chose the route",))
