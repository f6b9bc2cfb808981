"""Candidates and scorers for the rerank tests."""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType

from rag.chunking.base import Chunk
from rag.index.hits import Candidate, RetrieverHit
from rag.rerank.base import RerankCallFailed, ScoreBatch, ScoreScale

TEXTS = (
    "LumenSync merges edits paragraph by paragraph using the last shared base version.",
    "A conflict copy is created when two devices change the same paragraph.",
    "Vault notes are end-to-end encrypted with a passphrase only you know.",
    "The Plus plan costs four dollars a month and adds twenty gigabytes of storage.",
    "Deleted notes stay in the trash for thirty days before they are removed.",
    "Search understands operators such as tag, in, before, after and has.",
    "Attachments up to 250 MB can be dropped into a note.",
    "Two-step verification supports authenticator apps and hardware keys.",
)


def candidates(texts: Sequence[str] = TEXTS) -> tuple[Candidate, ...]:
    """A fused-looking list: descending scores 1/(60+rank), with a hit per candidate."""
    out = []
    for rank, text in enumerate(texts, start=1):
        chunk = Chunk(f"c{rank}", f"doc{rank}", 0, len(text), text)
        hit = RetrieverHit("bm25", rank, 10.0 - rank)
        out.append(Candidate(chunk, 1.0 / (60 + rank), MappingProxyType({"bm25": hit}),
                             stage_scores=MappingProxyType({"fused": 1.0 / (60 + rank)})))
    return tuple(out)


class FixedScorer:
    """Returns given raw scores in input order (a scorer under the stage's control), or fails."""

    name = "fixed"
    model = "fixed-scores"

    def __init__(self, scores: Sequence[float], scale: ScoreScale = "logit", fail: bool = False) -> None:
        self.scores = list(scores)
        self.scale: ScoreScale = scale
        self.fail = fail
        self.calls: list[tuple[str, list[str]]] = []

    def score(self, query: str, passages: Sequence[str]) -> ScoreBatch:
        self.calls.append((query, list(passages)))
        if self.fail:
            raise RerankCallFailed("scorer exploded on purpose")
        return ScoreBatch(tuple(self.scores[: len(passages)]), self.scale, self.model, 0.5)
