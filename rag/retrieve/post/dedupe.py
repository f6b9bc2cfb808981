"""Semantic de-duplication (Adaptive: remove chunks > 95 % similar to a better-ranked one)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from rag.records.hits import Candidate
from rag.retrieve.post.base import POST_STEPS, PostContext, PostStep, StepResult, result
from rag.settings.retrieval import PostprocessConfig


def _unit(vector: np.ndarray) -> np.ndarray:
    flat = np.asarray(vector, dtype=np.float64).ravel()
    norm = float(np.linalg.norm(flat))
    return flat / norm if norm else flat


def dedupe(
    candidates: tuple[Candidate, ...], vectors: Mapping[str, np.ndarray], threshold: float = 0.95
) -> StepResult:
    """Walk best first; drop a candidate whose cosine to an already kept one exceeds `threshold`.
    Candidates without a vector are kept and say so."""
    kept: list[Candidate] = []
    kept_ids: list[str] = []
    kept_vectors: list[np.ndarray] = []
    decisions: dict[str, str] = {}
    for cand in candidates:
        vector = vectors.get(cand.chunk_id)
        if vector is None:
            decisions[cand.chunk_id] = "kept: no vector"
            kept.append(cand)
            continue
        unit = _unit(vector)
        if kept_vectors:
            sims = np.stack(kept_vectors) @ unit
            best = int(np.argmax(sims))
            if sims[best] > threshold:
                decisions[cand.chunk_id] = f"dropped: cosine {sims[best]:.4f} to {kept_ids[best]}"
                continue
        decisions[cand.chunk_id] = "kept"
        kept.append(cand)
        kept_ids.append(cand.chunk_id)
        kept_vectors.append(unit)
    return result("dedupe", candidates, tuple(kept), decisions)


def _apply(
    candidates: tuple[Candidate, ...], config: PostprocessConfig, ctx: PostContext
) -> StepResult:
    if not ctx.vectors and candidates:
        return result(
            "dedupe",
            candidates,
            candidates,
            {},
            status="skipped",
            reason="no candidate embeddings were supplied; nothing de-duplicated",
        )
    return dedupe(candidates, ctx.vectors, config.dedupe_threshold or 1.0)


def _off(config: PostprocessConfig) -> str | None:
    return "postprocess.dedupe_threshold is not set" if config.dedupe_threshold is None else None


POST_STEPS.add("dedupe", PostStep("dedupe", _apply, _off))
