"""Turning raw rerank scores into a new ranking: normalization, score policy, threshold, top-n.

Normalizations: sigmoid of cross-encoder logits (Axiom), grade/10 for LLM grades (EchoMind),
min-max, none. Policies: replace the list score (Axiom, IntelliDocs), keep the hybrid score
beside it (Vexora `hybridScore`), or blend the two. Threshold with fallback to the top-n when
nothing passes (Axiom 0.3).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from rag.records.hits import Candidate
from rag.registry import Registry
from rag.rerank.base import ScoreScale

Normalizer = Callable[[Sequence[float]], list[float]]
NORMALIZERS: Registry[Normalizer] = Registry("rerank normalization")


@NORMALIZERS.register("sigmoid")
def sigmoid(scores: Sequence[float]) -> list[float]:
    """1 / (1 + e^-x): cross-encoder logits to 0-1, as Axiom does before its 0.3 threshold."""
    return [1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, s)))) for s in scores]


@NORMALIZERS.register("divide10")
def divide10(scores: Sequence[float]) -> list[float]:
    """An LLM's 0-10 relevance grade (EchoMind) to 0-1."""
    return [max(0.0, min(10.0, s)) / 10.0 for s in scores]


@NORMALIZERS.register("minmax")
def minmax(scores: Sequence[float]) -> list[float]:
    """Rescale to 0-1 within the list; a constant list maps to 1.0."""
    if not scores:
        return []
    lo, hi = min(scores), max(scores)
    return [1.0 if hi == lo else (s - lo) / (hi - lo) for s in scores]


@NORMALIZERS.register("none")
def identity(scores: Sequence[float]) -> list[float]:
    return [float(s) for s in scores]


def resolve_normalization(name: str, scale: ScoreScale) -> str:
    """"auto" means sigmoid for logits, divide10 for 0-10 grades, none for cosines."""
    if name != "auto":
        return name
    return {"logit": "sigmoid", "grade10": "divide10", "cosine": "none"}[scale]


@dataclass(frozen=True)
class PolicyInput:
    """One scored candidate: its normalized rerank score and the list score it came in with."""

    candidate: Candidate
    raw: float
    rerank: float
    prior: float  # the candidate's score before rerank, min-max scaled within the window


Policy = Callable[[PolicyInput, float], Candidate]
POLICIES: Registry[Policy] = Registry("rerank policy")


def _with_scores(item: PolicyInput, score: float, extra: dict[str, float]) -> Candidate:
    stage_scores = {**item.candidate.stage_scores, "rerank": item.rerank, "rerank_raw": item.raw}
    return replace(item.candidate, score=score, stage_scores={**stage_scores, **extra})


@POLICIES.register("replace")
def replace_score(item: PolicyInput, blend_weight: float) -> Candidate:
    """The rerank score becomes the list score (Axiom, IntelliDocs)."""
    return _with_scores(item, item.rerank, {})


@POLICIES.register("keep")
def keep_score(item: PolicyInput, blend_weight: float) -> Candidate:
    """Rank by the rerank score and keep the hybrid score beside it (Vexora `hybridScore`)."""
    return _with_scores(item, item.rerank, {"hybrid": item.candidate.score})


@POLICIES.register("blend")
def blend_score(item: PolicyInput, blend_weight: float) -> Candidate:
    """w · rerank + (1 − w) · min-max(prior score): a convex mix of both opinions."""
    mixed = blend_weight * item.rerank + (1.0 - blend_weight) * item.prior
    return _with_scores(item, mixed, {"hybrid": item.candidate.score, "prior_norm": item.prior})


@dataclass(frozen=True)
class Selection:
    kept: tuple[Candidate, ...]
    dropped: tuple[Candidate, ...]
    fallback_used: bool


def apply_policy(
    window: Sequence[Candidate], raw: Sequence[float], normalized: Sequence[float],
    policy: str, blend_weight: float,
) -> list[Candidate]:
    """New candidates scored by `policy`, best first (ties keep input order)."""
    to_candidate = POLICIES.get(policy)
    priors = minmax([c.score for c in window])
    items = [
        PolicyInput(c, float(r), float(n), p)
        for c, r, n, p in zip(window, raw, normalized, priors, strict=True)
    ]
    scored = [to_candidate(item, blend_weight) for item in items]
    order = sorted(range(len(scored)), key=lambda i: -scored[i].score)  # stable on ties
    return [scored[i] for i in order]


def select(
    ranked: Sequence[Candidate], top_n: int, threshold: float | None, fallback: bool
) -> Selection:
    """Keep the top_n that reach the threshold; if none does and `fallback`, the top_n (Axiom)."""
    decided = [
        replace(c, stage_scores={**c.stage_scores,
                                 "passed_threshold": float(threshold is None or c.score >= threshold)})
        for c in ranked
    ]
    passing = [i for i, c in enumerate(decided) if c.stage_scores["passed_threshold"] == 1.0]
    fallback_used = not passing and fallback and bool(decided)
    keep = set((range(len(decided)) if fallback_used else passing)[:top_n])
    return Selection(
        kept=tuple(c for i, c in enumerate(decided) if i in keep),
        dropped=tuple(c for i, c in enumerate(decided) if i not in keep),
        fallback_used=fallback_used,
    )
