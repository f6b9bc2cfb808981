"""Query understanding in one call: cache → spelling → intent → rewrite → class → route → expand.

The order follows Adaptive (semantic cache first, then spell correction, then classification) with
Axiom's intent router before any retrieval-only step: a greeting or an off-topic request stops
there. Every step records which path ran (rules / semantic / llm / offline / skipped / fallback)
and why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from rag.llm.base import ChatModel, Message
from rag.query.cache import CacheLookup, SemanticCache
from rag.query.classify import QueryClassification, classify
from rag.query.expand import Expansion, expand
from rag.query.intent import CANNED_REPLIES, IntentResult, SemanticRouter, route_intent
from rag.query.rewrite import Rewrite, reference, rewrite
from rag.query.route import Route, route
from rag.query.spell import SpellResult, Vocabulary, correct
from rag.records.hits import SearchQuery
from rag.settings.query import QueryConfig


@dataclass(frozen=True)
class Understanding:
    """Everything the understand stage found out about one query."""

    query: str  # as it came in (after the guard)
    search_query: str  # after spelling and rewriting: what retrieval searches first
    spell: SpellResult
    intent: IntentResult | None  # None: intent routing disabled
    rewrite: Rewrite | None  # None: not reached (cache hit or no retrieval)
    classification: QueryClassification | None
    route: Route | None
    expansions: tuple[Expansion, ...]
    cache: CacheLookup | None  # None: cache disabled
    llm: bool  # a chat model was available to the LLM forms
    skipped: tuple[str, ...] = ()  # steps not reached, with the reason
    cache_query: str = ""  # the text the cache was (or would be) looked up and stored under

    @property
    def cache_hit(self) -> bool:
        return self.cache is not None and self.cache.hit

    @property
    def needs_retrieval(self) -> bool:
        return not self.cache_hit and (self.intent is None or self.intent.needs_retrieval != "no")

    @property
    def reply(self) -> str | None:
        """The answer without retrieval: the cached one, or the intent's canned reply."""
        if self.cache is not None and self.cache.cached is not None:
            return self.cache.cached.answer
        if self.intent is not None and not self.needs_retrieval:
            return CANNED_REPLIES.get(self.intent.intent)
        return None

    @property
    def query_class(self) -> str | None:
        """The Adaptive class (the generation stage picks its prompt template from it)."""
        return self.classification.label if self.classification else None

    @property
    def search_queries(self) -> tuple[SearchQuery, ...]:
        """The main query plus every expansion, without repeated texts."""
        seen: set[str] = set()
        queries: list[SearchQuery] = []
        for query in (SearchQuery(self.search_query),
                      *(q for e in self.expansions for q in e.queries)):
            key = " ".join(query.text.lower().split())
            if key not in seen:
                seen.add(key)
                queries.append(query)
        return tuple(queries)


def understand(
    query: str, cfg: QueryConfig, *, history: Sequence[Message] = (),
    router: SemanticRouter | None = None, chat: ChatModel | None = None,
    vocabulary: Vocabulary | None = None, cache: SemanticCache | None = None,
) -> Understanding:
    """Run every query-understanding step `cfg` enables on `query` (history oldest first)."""
    cache = cache if cfg.cache.enabled else None
    # Adaptive looks the raw query up first; a follow-up only means something with its conversation,
    # so it is looked up after rewriting, as the standalone query.
    lookup = cache.lookup(query) if cache is not None and not history else None
    spell = correct(query, vocabulary, cfg.spell)
    base = Understanding(query, spell.corrected, spell, None, None, None, None, (), lookup,
                         chat is not None, cache_query=query)
    if lookup is not None and lookup.hit:
        return _stop(base, "semantic cache hit")
    text = spell.corrected
    intent = (route_intent(text, cfg.intent, router, chat, bool(history))
              if cfg.intent.enabled else None)
    rewritten = None
    if intent is not None and intent.intent == "clarify" and reference(text, history):
        # vague alone, but the conversation resolves it ("what about Team?"): route the rewrite
        rewritten = rewrite(text, history, cfg.rewrite, chat)
        if rewritten.changed:
            again = route_intent(rewritten.rewritten, cfg.intent, router, chat, True)
            intent = replace(again, reason=f"{again.reason} (routed after resolving the "
                                           f"follow-up; alone it was 'clarify')")
    base = replace(base, intent=intent)
    if not base.needs_retrieval:
        return _stop(base, f"intent {intent.intent!r} needs no retrieval" if intent else "")
    rewritten = rewritten or rewrite(text, history, cfg.rewrite, chat)
    text = rewritten.rewritten
    if cache is not None and history:
        base = replace(base, rewrite=rewritten, cache=cache.lookup(text), cache_query=text)
        if base.cache_hit:
            return _stop(base, "semantic cache hit")
    classification = (classify(text, chat if cfg.classify.use_llm else None)
                      if cfg.classify.enabled else None)
    routed = (route(text, cfg.route, classification.label if classification else "FACTUAL",
                    rewritten.changed, chat if cfg.route.use_llm else None)
              if cfg.route.enabled else None)
    expansions = expand(text, cfg.expand, chat)
    return replace(base, search_query=text, rewrite=rewritten, classification=classification,
                   route=routed, expansions=expansions)


def _stop(u: Understanding, why: str) -> Understanding:
    steps = [s for s, done in (("intent", u.intent), ("rewrite", u.rewrite)) if done is None]
    steps += ["classify", "route", "expand"]
    return replace(u, skipped=tuple(f"{step}: {why}" for step in steps))
