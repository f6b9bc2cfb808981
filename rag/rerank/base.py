"""Shapes of the rerank stage: what a scorer returns, the scored window, and the final result."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from rag.records.hits import Candidate

ScoreScale = Literal["logit", "grade10", "cosine"]  # cross-encoder logits; LLM grades 0-10; cosine
RerankStatus = Literal["ok", "skipped", "fallback"]


class RerankUnavailable(RuntimeError):
    """The configured scorer cannot run at all (no model configured or loadable, no endpoint)."""


class RerankCallFailed(RuntimeError):
    """A scorer started but a call failed (timeout, HTTP error, unparsable reply)."""


@dataclass(frozen=True)
class ScoreBatch:
    """Raw relevance of each passage to the query, in input order, and how long it took."""

    scores: tuple[float, ...]
    scale: ScoreScale
    model: str
    seconds: float
    warnings: tuple[str, ...] = ()

    @property
    def pairs_per_second(self) -> float:
        return len(self.scores) / self.seconds if self.seconds > 0 else float("inf")


class Scorer(Protocol):
    """Scores (query, passage) pairs; raises RerankCallFailed when a call fails."""

    name: str  # "cross_encoder", "llm" or "embedding"
    model: str

    def score(self, query: str, passages: Sequence[str]) -> ScoreBatch: ...


@dataclass(frozen=True)
class ScoredWindow:
    """The expensive half of reranking, cached by pages: the window scored once.

    `window` is the first `depth` input candidates in input order; `raw` aligns with it.
    `batch` is None when the scorer was unavailable or failed; `reason` then says why.
    """

    query: str
    window: tuple[Candidate, ...]
    batch: ScoreBatch | None
    status: RerankStatus
    path: str  # scorer name that ran, or "none"
    reason: str = ""

    @property
    def raw(self) -> tuple[float, ...]:
        return self.batch.scores if self.batch else ()


@dataclass(frozen=True)
class RerankResult:
    """Candidates before and after reranking, with every score and decision the stage made.

    `after` are new Candidates (inputs are never mutated) carrying `stage_scores["rerank"]`
    (normalized), `["rerank_raw"]`, the policy's extra scores, and `["passed_threshold"]`.
    """

    status: RerankStatus
    path: str
    reason: str
    before: tuple[Candidate, ...]
    after: tuple[Candidate, ...]
    dropped: tuple[Candidate, ...]  # scored but cut by the threshold or top_n
    policy: str
    normalization: str
    threshold: float | None
    threshold_fallback_used: bool
    pairs: int
    seconds: float
    warnings: tuple[str, ...] = ()

    @property
    def candidates(self) -> tuple[Candidate, ...]:
        """The ranking this stage hands on (its input when it was skipped)."""
        return self.before if self.status == "skipped" else self.after

    @property
    def pairs_per_second(self) -> float | None:
        return self.pairs / self.seconds if self.pairs and self.seconds > 0 else None
