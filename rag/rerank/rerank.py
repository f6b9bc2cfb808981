"""Reranking as functions: score the over-fetched window once, then policy, threshold, top-n.

Scores of a window are kept in a small process-wide LRU (keyed by scorer, model, query and the
window's chunks), so re-running the rerank stage after a policy, threshold or top-n change — a
slider on the Rerank page, a sweep point — only re-applies the cheap half. A scorer that cannot
run skips the stage; one that fails mid-way keeps the input order (never cached). Both say why in
the result (and so in the trace).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence

from rag.llm.base import ChatModel
from rag.records.hits import Candidate
from rag.rerank import build_scorer
from rag.rerank.base import (
    RerankCallFailed,
    RerankResult,
    RerankUnavailable,
    ScoreBatch,
    ScoredWindow,
    Scorer,
)
from rag.rerank.policies import NORMALIZERS, apply_policy, resolve_normalization, select
from rag.settings.rerank import RerankConfig

_SCORES: OrderedDict[tuple[str, ...], ScoreBatch] = OrderedDict()
_SCORES_SIZE = 256
_SCORES_LOCK = threading.Lock()


def _score_key(query: str, window: Sequence[Candidate], cfg: RerankConfig, scorer: Scorer
               ) -> tuple[str, ...]:
    texts = hashlib.sha256("\0".join(c.chunk.text for c in window).encode()).hexdigest()
    # an LLM scorer is also keyed by where it is served: two endpoints never share grades
    describe = getattr(getattr(scorer, "chat", None), "describe", None)
    served = repr([{k: v for k, v in e.items() if k != "breaker"} for e in describe()]
                  ) if callable(describe) else ""
    return (scorer.name, scorer.model, served, str(cfg.max_length), query, texts)


def _cached_score(query: str, window: Sequence[Candidate], cfg: RerankConfig, scorer: Scorer
                  ) -> ScoreBatch:
    """scorer.score, remembered for the same scorer, query and passages (successes only)."""
    key = _score_key(query, window, cfg, scorer)
    with _SCORES_LOCK:
        if key in _SCORES:
            _SCORES.move_to_end(key)
            return _SCORES[key]
    batch = scorer.score(query, [c.chunk.text for c in window])
    with _SCORES_LOCK:
        _SCORES[key] = batch
        while len(_SCORES) > _SCORES_SIZE:
            _SCORES.popitem(last=False)
    return batch


def clear_score_cache() -> None:
    with _SCORES_LOCK:
        _SCORES.clear()


def score_window(
    query: str, candidates: Sequence[Candidate], cfg: RerankConfig, scorer: Scorer,
    depth: int | None = None,
) -> ScoredWindow:
    """Score the first `depth` candidates (default `cfg.depth`: top_n × overfetch) with `scorer`."""
    window = tuple(candidates[: depth or cfg.depth])
    if not window:
        return ScoredWindow(query, window, None, "ok", scorer.name, "no candidates to rerank")
    try:
        batch = _cached_score(query, window, cfg, scorer)
    except RerankCallFailed as exc:
        return ScoredWindow(
            query, window, None, "fallback", scorer.name,
            f"{scorer.name} reranker failed, kept the input order: {exc}",
        )
    return ScoredWindow(query, window, batch, "ok", scorer.name)


def skipped_window(query: str, candidates: Sequence[Candidate], cfg: RerankConfig,
                   reason: str) -> ScoredWindow:
    """The window of a stage that could not run (e.g. no cross-encoder configured)."""
    return ScoredWindow(query, tuple(candidates[: cfg.depth]), None, "skipped", "none", reason)


def finish(scored: ScoredWindow, cfg: RerankConfig) -> RerankResult:
    """Policy, threshold and top-n over a scored window; cheap, so sliders call it freely."""
    batch = scored.batch
    if batch is None:  # skipped or failed: pass the input order through, cut to top_n
        kept = scored.window[: cfg.top_n]
        return RerankResult(
            status=scored.status, path=scored.path, reason=scored.reason,
            before=scored.window, after=kept, dropped=scored.window[cfg.top_n :],
            policy=cfg.policy, normalization="none", threshold=None,
            threshold_fallback_used=False, pairs=0, seconds=0.0,
            warnings=(scored.reason,) if scored.status == "fallback" else (),
        )
    normalization = resolve_normalization(cfg.normalization, batch.scale)
    normalized = NORMALIZERS.get(normalization)(batch.scores)
    ranked = apply_policy(scored.window, batch.scores, normalized, cfg.policy, cfg.blend_weight)
    chosen = select(ranked, cfg.top_n, cfg.threshold, cfg.threshold_fallback)
    reason = scored.reason
    if chosen.fallback_used:
        reason = (f"no candidate reached the threshold {cfg.threshold:g}; "
                  f"kept the top {len(chosen.kept)} anyway (threshold_fallback)")
    return RerankResult(
        status="fallback" if chosen.fallback_used else "ok", path=scored.path, reason=reason,
        before=scored.window, after=chosen.kept, dropped=chosen.dropped,
        policy=cfg.policy, normalization=normalization, threshold=cfg.threshold,
        threshold_fallback_used=chosen.fallback_used, pairs=len(batch.scores),
        seconds=batch.seconds, warnings=batch.warnings,
    )


def rerank(
    query: str, candidates: Sequence[Candidate], cfg: RerankConfig, scorer: Scorer | None = None,
    chat: ChatModel | None = None,
) -> RerankResult:
    """Rerank `candidates` (best first) for `query`; builds the configured scorer (with `chat`
    for the LLM method) when none is given. Never raises for an unavailable or failing scorer."""
    if scorer is None:
        try:
            scorer = build_scorer(cfg, chat)
        except RerankUnavailable as exc:
            return finish(skipped_window(query, candidates, cfg, str(exc)), cfg)
    return finish(score_window(query, candidates, cfg, scorer), cfg)
