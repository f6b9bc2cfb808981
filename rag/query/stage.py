"""Pipeline stages "guard" and "understand": thin adapters from PipelineState to rag.query.

They build what the functions need (rate limiter, semantic router, chat model, vocabulary,
semantic cache) from the config, once per process, and say in the trace what they decided.
A blocked query, a cache hit or an intent that needs no documents halts the run with an answer.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Literal, TypeGuard

from rag.embed import get_embedder
from rag.llm.base import ChatModel, Message
from rag.llm.client import make_client
from rag.outputs.context import BuiltContext
from rag.outputs.generated import GenerateOutput
from rag.privacy import normalize_user, scope_key, visible_to
from rag.query.cache import SemanticCache, cache_for
from rag.query.guard import GuardVerdict, RateLimiter, guard
from rag.query.intent import EXEMPLARS, SemanticRouter
from rag.query.spell import Vocabulary
from rag.query.understand import Understanding, understand
from rag.records.hits import SearchQuery
from rag.settings.embedding import EmbeddingConfig
from rag.settings.llm import LLMEndpoint
from rag.settings.pipeline import PipelineConfig
from rag.settings.query import GuardConfig
from rag.stages import (
    STAGES,
    PipelineState,
    Shared,
    StageEnv,
    StageInput,
    StageResult,
    StageSpec,
    StageStatus,
)

_LIMITERS: dict[tuple[int, float], RateLimiter] = {}
_LIMITERS_LOCK = threading.Lock()


def limiter_for(cfg: GuardConfig) -> RateLimiter | None:
    """The process-wide limiter for this limit and window (None when rate limiting is off)."""
    if not cfg.rate_limit:
        return None
    with _LIMITERS_LOCK:
        key = (cfg.rate_limit, cfg.rate_window_s)
        return _LIMITERS.setdefault(key, RateLimiter(*key))


def semantic_router(embedding: EmbeddingConfig,
                    exemplars: Mapping[str, Sequence[str]] = EXEMPLARS) -> SemanticRouter:
    """A SemanticRouter for this embedder and exemplar set, built once per process."""
    frozen = tuple((intent, tuple(texts)) for intent, texts in exemplars.items())
    return _router(embedding.model_dump_json(), frozen)


@functools.lru_cache(maxsize=8)
def _router(embedding_json: str, exemplars: tuple[tuple[str, tuple[str, ...]], ...]) -> SemanticRouter:
    embedder = get_embedder(EmbeddingConfig.model_validate_json(embedding_json))
    return SemanticRouter(embedder, dict(exemplars))


@functools.lru_cache(maxsize=8)
def _vocabulary(collection: object, version: str, user: str | None) -> Vocabulary:
    chunks = getattr(collection, "chunks", ())
    found = chunks() if callable(chunks) else chunks
    return Vocabulary.from_texts(c.text for c in found if visible_to(c.metadata, user))


def _vocabulary_of(env: StageEnv, user: str | None) -> Vocabulary:
    ref = env.index_ref()
    return collection_vocabulary(ref.index, user, ref.version)


def collection_vocabulary(collection: object, user: str | None, version: str = "") -> Vocabulary:
    """Word counts of the chunks of `collection` that `user` may see (a correction must never
    spell out a word of someone else's private document), read once per `version`
    (IndexRef.version) and scope."""
    return _vocabulary(collection, version, normalize_user(user))


def cache_namespace(config: PipelineConfig, user: str | None, collection: str) -> str:
    """Answers are only reused for the same collection, pipeline settings and visibility scope
    (rag.privacy): one user's answer, built from their private chunks, is never another's."""
    digest = hashlib.sha256(json.dumps(config.model_dump(mode="json"), sort_keys=True).encode())
    return f"{collection}|{config.name}|{digest.hexdigest()[:12]}|{scope_key(user)}"


def _is_chat_role(role: str) -> TypeGuard[Literal["user", "assistant"]]:
    return role in ("user", "assistant")


def history_of(env: StageEnv) -> tuple[Message, ...]:
    return tuple(Message(t.role, t.content) for t in env.conversation if _is_chat_role(t.role))


def chat_model(llm: LLMEndpoint) -> ChatModel | None:
    """The run's LLM client, or None offline (no endpoint / extractive mode)."""
    return make_client(llm)[0]


def semantic_cache(config: PipelineConfig, user: str | None, shared: Shared | None = None
                   ) -> SemanticCache | None:  # fmt: skip
    """The semantic cache of this config and `user`'s scope (None: anonymous), or None when off.
    `config` is pinned to its collection's graph (rag.index.embedding_pin), as a run's is: the
    namespace and the embedder depend on it. A stage passes its run's `shared` (the collection's
    name and embedder, taken at the edge)."""
    if not config.query.cache.enabled:
        return None
    shared = shared or Shared.of(config)
    namespace = cache_namespace(config, user, shared.collection)
    return cache_for(namespace, config.query.cache, get_embedder(shared.embedding))


# -- guard -------------------------------------------------------------------------------------
def run_guard(state: PipelineState, env: StageEnv) -> StageResult:
    cfg = env.config.query.guard
    # state.query was stripped of hidden characters at the edge (rag.pipeline.initial_state);
    # what they were (tag text, reordering, split words) comes as state.hidden
    verdict = guard(state.query, cfg, user=env.user, limiter=limiter_for(cfg), hidden=state.hidden)
    inputs = {"chars": len(state.query), "user": env.user,
              "hidden_removed": state.hidden.count if state.hidden else 0}
    if not verdict.allowed:
        halted = replace(state, halted=f"guard blocked the query: {verdict.reason}",
                         answer=f"Your message was not processed: {verdict.reason}.")
        return StageResult(halted, verdict, inputs, "blocked", (), verdict.reason)
    # Every later stage reads the clean text: hidden characters left at the edge, homoglyph
    # words are spelled out here, so no stage, generation included, can put them in a prompt.
    queries = (SearchQuery(verdict.text), *state.queries[1:])
    return StageResult(replace(state, query=verdict.text, queries=queries), verdict, inputs, "ok",
                       verdict.warnings)


def _guard_off(config: PipelineConfig) -> str | None:
    return None if config.query.guard.enabled else "query.guard.enabled is false"


# -- understand --------------------------------------------------------------------------------
def guarded_text(state: PipelineState) -> str:
    verdict = state.artifact("guard", GuardVerdict)
    return verdict.text if verdict is not None else state.query


def run_understand(state: PipelineState, env: StageEnv) -> StageResult:
    config = env.config
    cfg = config.query
    user = state.filters.owner  # the scope retrieval will search: caches are keyed by it too
    chat = chat_model(env.shared.llm)
    history = history_of(env)
    found = understand(
        guarded_text(state), cfg, history=history,
        router=semantic_router(env.shared.embedding) if cfg.intent.enabled else None,
        chat=chat,
        vocabulary=_vocabulary_of(env, user) if cfg.spell.enabled else None,
        cache=(cache := semantic_cache(config, user, env.shared)),
    )
    warnings = _warnings(found)
    inputs = {"query": guarded_text(state), "history_messages": len(history),
              "llm": "configured" if chat else "none (offline forms)"}
    if found.cache_hit:
        why = f"semantic cache hit: {found.cache.reason if found.cache else ''}"
        hit = replace(state, halted=why, answer=found.reply)
        if cache is not None and found.cache is not None and found.cache.matched_query:
            # the cited context, the answer and its grounding, as the later stages recorded them
            for stage, output in cache.outputs_for(found.cache.matched_query).items():
                hit = hit.with_artifact(stage, output)
        return StageResult(hit, found, inputs, "cache_hit", warnings, why)
    if not found.needs_retrieval and found.intent is not None:
        why = f"intent {found.intent.intent!r} ({found.intent.layer}): answered without retrieval"
        return StageResult(replace(state, halted=why, answer=found.reply), found, inputs,
                           "ok", warnings, why)
    next_state = replace(state, queries=found.search_queries)
    status: StageStatus = "fallback" if warnings else "ok"
    return StageResult(next_state, found, inputs, status, warnings, "; ".join(warnings))


def _warnings(found: Understanding) -> tuple[str, ...]:
    parts = [found.intent, found.rewrite, found.classification, found.route, *found.expansions]
    return tuple(w for part in parts if part is not None for w in part.warnings)


def _understand_off(config: PipelineConfig) -> str | None:
    return None if config.query.enabled else "query.enabled is false"


def understanding(state: PipelineState) -> Understanding | None:
    """The understand stage's result for later stages (e.g. the route's top_k or query class)."""
    return state.artifact("understand", Understanding)


CACHED_STAGES = ("context", "generate", "ground")  # what a semantic cache hit serves with its answer


def cited_outputs(state: PipelineState) -> dict[str, object]:
    """The context (its cited blocks only, numbers kept), generate and ground outputs of a run."""
    outputs = {stage: state.artifacts[stage] for stage in CACHED_STAGES if stage in state.artifacts}
    context, generated = outputs.get("context"), outputs.get("generate")
    if isinstance(context, BuiltContext) and isinstance(generated, GenerateOutput) \
            and generated.answer.cited:
        cited = set(generated.answer.cited)
        outputs["context"] = replace(context, blocks=tuple(b for b in context.blocks if b.n in cited))
    return outputs


def remember_answer(state: PipelineState, config: PipelineConfig, shared: Shared) -> bool:
    """Store a generated answer in the semantic cache under the query it was looked up with;
    True when stored. The understand stage's `after_run` (called after every whole run it took
    part in): the cache is its own (the query section's); what it keeps are the later stages'
    outputs (rag.outputs). Halted runs (cache hits, blocked or non-retrieval queries), declined
    ones and runs without an answer store nothing."""
    cache = semantic_cache(config, state.filters.owner, shared)
    found = understanding(state)
    # a declined run's answer is the decline message: not an answer to serve again
    if cache is None or found is None or state.halted or not state.answer or state.withheld:
        return False
    cache.store(found.cache_query, state.answer, tuple(c.chunk_id for c in state.candidates),
                outputs=cited_outputs(state))
    return True


STAGES.add("guard", StageSpec("guard", run_guard, GuardVerdict, _guard_off,
                              settings=lambda c: c.query.guard))
STAGES.add("understand", StageSpec("understand", run_understand, Understanding, _understand_off,
                                   settings=lambda c: c.query, after_run=remember_answer,
                                   inputs=(StageInput("guard", GuardVerdict),)))
