"""Axiom's 3-layer hybrid intent router: hard rules → semantic exemplars (≥ 0.85) → LLM (0.70).

Without an LLM (or with `use_llm` off) a query below the semantic threshold gets the default
intent ("question": retrieve), and the result says that this is what happened and why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

from rag.llm.base import ChatModel
from rag.query.intent.evaluate import calibrated_threshold
from rag.query.intent.exemplars import NEEDS_RETRIEVAL
from rag.query.intent.llm import IntentLLMError, llm_intent
from rag.query.intent.rules import hard_rules
from rag.query.intent.semantic import SemanticRouter
from rag.settings.query import IntentConfig

Layer = Literal["rules", "semantic", "llm", "default"]


@dataclass(frozen=True)
class IntentResult:
    """The intent, which layer decided it, and what every layer that ran saw."""

    intent: str
    confidence: float
    layer: Layer
    reason: str
    rule: str | None = None  # the hard rule that fired
    semantic_scores: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    semantic_best: str | None = None  # best intent of the semantic layer, even below threshold
    semantic_score: float | None = None
    nearest_exemplar: str = ""
    threshold: float | None = None  # the semantic threshold in force (fixed or calibrated)
    llm_reply: str | None = None
    warnings: tuple[str, ...] = ()

    @property
    def needs_retrieval(self) -> str:
        """"yes", "no" or "maybe" (followup/simplify/deepen: only without a previous answer)."""
        return NEEDS_RETRIEVAL.get(self.intent, "yes")


def semantic_threshold(cfg: IntentConfig, router: SemanticRouter) -> float:
    """The configured threshold, or the router's leave-one-out one when `calibrate_threshold`."""
    return calibrated_threshold(router) if cfg.calibrate_threshold else cfg.semantic_threshold


def route_intent(
    text: str, cfg: IntentConfig, router: SemanticRouter | None = None,
    chat: ChatModel | None = None, has_history: bool = False,
) -> IntentResult:
    """Run the layers in order; the first that decides wins."""
    hit = hard_rules(text)
    if hit is not None:
        return IntentResult(hit.intent, 1.0, "rules", f"hard rule {hit.rule!r}", rule=hit.rule)
    result = IntentResult(cfg.default_intent, 0.0, "default", "")
    if router is None:
        below = "semantic layer skipped (no embedder)"
    else:
        threshold = semantic_threshold(cfg, router)
        scores = router.score(text)
        result = replace(result, semantic_scores=scores.scores, semantic_best=scores.best_intent,
                         semantic_score=scores.best_score, nearest_exemplar=scores.nearest_exemplar,
                         threshold=threshold)
        if scores.best_score >= threshold:
            return replace(result, intent=scores.best_intent, confidence=scores.best_score,
                           layer="semantic", reason=f"cosine {scores.best_score:.3f} ≥ "
                           f"{threshold:g} with exemplar {scores.nearest_exemplar!r}")
        below = f"best exemplar cosine {scores.best_score:.3f} < {threshold:g}"
    if chat is None or not cfg.use_llm:
        why = "no LLM configured (set OPENAI_BASE_URL)" if chat is None else "LLM fallback off"
        return replace(result, reason=f"{below}; {why}: default intent {cfg.default_intent!r}")
    try:
        intent, reply = llm_intent(text, chat, has_history)
    except IntentLLMError as exc:
        return replace(result, reason=f"{below}; LLM fallback failed: default intent "
                       f"{cfg.default_intent!r}", warnings=(str(exc),))
    if cfg.llm_skip_needs_agreement and _skips_documents(intent, has_history) and not (
            result.semantic_best and _skips_documents(result.semantic_best, has_history)):
        return replace(result, reason=(
            f"{below}; the LLM chose {intent!r}, which skips the documents, but the semantic "
            f"layer's best guess ({result.semantic_best or 'none'}) does not: default intent "
            f"{cfg.default_intent!r} (intent.llm_skip_needs_agreement)"), llm_reply=reply)
    return replace(result, intent=intent, confidence=cfg.llm_confidence, layer="llm",
                   reason=f"{below}; the LLM chose it", llm_reply=reply)


def _skips_documents(intent: str, has_history: bool) -> bool:
    """No retrieval for this intent: "no", or "maybe" with a previous answer to work on."""
    need = NEEDS_RETRIEVAL.get(intent, "yes")
    return need == "no" or (need == "maybe" and has_history)
