"""Tag boost (EchoMind): favour chunks whose tags match configured tags or the query's words."""

from __future__ import annotations

from collections.abc import Mapping

from rag.records.chunk import Chunk
from rag.records.hits import Candidate
from rag.retrieve.post.base import POST_STEPS, PostContext, PostStep, StepResult, rescale, result
from rag.settings.retrieval import PostprocessConfig
from rag.text import words


def chunk_tags(chunk: Chunk) -> tuple[str, ...]:
    """Lower-cased tags from metadata `tags` (a list, or comma-separated text as EchoMind has)."""
    raw = chunk.metadata.get("tags") or ()
    items = raw.split(",") if isinstance(raw, str) else raw
    return tuple(str(t).strip().lower() for t in items if str(t).strip())


def tag_factor(
    tags: tuple[str, ...], query: str, boosts: Mapping[str, float], query_factor: float | None
) -> float:
    """(1 + Σ boost of each configured tag present) × (1 + query_factor · overlap), where overlap
    is the share of the tags' words that occur in the query (≤ 1, EchoMind's _apply_tag_boost)."""
    lowered = {k.lower(): v for k, v in boosts.items()}
    factor = 1.0 + sum(lowered.get(tag, 0.0) for tag in set(tags))
    if query_factor:
        tag_words = {w for tag in tags for w in words(tag)}
        query_words = set(words(query))
        if tag_words:
            factor *= 1.0 + query_factor * len(tag_words & query_words) / len(tag_words)
    return factor


def tag_boost(
    candidates: tuple[Candidate, ...],
    query: str,
    boosts: Mapping[str, float],
    query_factor: float | None = None,
) -> StepResult:
    """Multiply each tagged chunk's score by its tag factor; untagged chunks are unchanged."""
    factors, notes, decisions = {}, {}, {}
    for cand in candidates:
        tags = chunk_tags(cand.chunk)
        factor = tag_factor(tags, query, boosts, query_factor)
        if factor == 1.0:
            decisions[cand.chunk_id] = f"tags {list(tags)}: unchanged"
            continue
        factors[cand.chunk_id] = factor
        notes[cand.chunk_id] = f"tag boost ×{factor:.3f}"
        decisions[cand.chunk_id] = f"tags {list(tags)}: ×{factor:.4f}"
    boosted = rescale(candidates, "tag_boost", factors, notes)
    return result("tag_boost", candidates, boosted, decisions)


def _apply(
    candidates: tuple[Candidate, ...], config: PostprocessConfig, ctx: PostContext
) -> StepResult:
    return tag_boost(candidates, ctx.query, config.tag_boost, config.tag_query_boost)


def _off(config: PostprocessConfig) -> str | None:
    if config.tag_boost or config.tag_query_boost:
        return None
    return "postprocess.tag_boost is empty and tag_query_boost is not set"


POST_STEPS.add("tag_boost", PostStep("tag_boost", _apply, _off))
