"""A judging pool in the shape the strategies, the learned judge and the simulation share: every
question's depth-k pooled passages (items), each system's ranking of them, and the text a judge
reads. Built from each system's ranked hits (document spans) per question.

Document sets (BEIR qrels) pool by document id. Span sets pool as the Judge page does
(eval.judging.pool.merge_hits): a hit overlapping an already pooled span of its document is that
passage, so chunkers that cut differently share one judged passage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from eval.judging.pool import Hit, merge_hits


@dataclass(frozen=True)
class RankedHit:
    """One system's hit for a question: a span of a document (or the whole document)."""

    doc: str
    start: int
    end: int
    text: str
    score: float
    title: str = ""


@dataclass(frozen=True)
class PoolItem:
    """A pooled passage of one question and how each system ranked it."""

    qid: str
    key: str  # the passage's id within its question
    doc: str
    start: int
    end: int
    text: str
    title: str
    ranks: Mapping[str, int]  # system -> best rank (1-based) within the depth
    scores: Mapping[str, float]  # system -> its score for the passage


@dataclass(frozen=True)
class JudgingPool:
    """Items of every question; `runs[system][qid]` lists item indices best first."""

    questions: Mapping[str, str]  # qid -> question text, in set order
    answers: Mapping[str, str]  # qid -> reference answer ("" when none)
    systems: tuple[str, ...]
    items: tuple[PoolItem, ...]
    runs: Mapping[str, Mapping[str, tuple[int, ...]]]
    depth: int
    unit: str = "document"  # or "span"
    meta: Mapping[str, object] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.items)

    @cached_property
    def by_question(self) -> dict[str, tuple[int, ...]]:
        out: dict[str, list[int]] = {q: [] for q in self.questions}
        for i, item in enumerate(self.items):
            out.setdefault(item.qid, []).append(i)
        return {q: tuple(v) for q, v in out.items()}

    @cached_property
    def weights(self) -> np.ndarray:
        """Each item's weight in the systems' nDCG@depth: the sum of its rank discounts
        1/log2(rank + 1) over the systems that ranked it."""
        return np.array([sum(1.0 / np.log2(r + 1) for r in item.ranks.values())
                         for item in self.items])

    def system_order(self, system: str) -> tuple[int, ...]:
        """The system's items across questions: every question's rank 1, then every rank 2, …
        (a system's run read breadth-first over the questions)."""
        position = {q: i for i, q in enumerate(self.questions)}
        pairs = [(rank, position[q], idx) for q, ranked in self.runs[system].items()
                 for rank, idx in enumerate(ranked, start=1)]
        return tuple(idx for _, _, idx in sorted(pairs))


def span_key(doc: str, start: int, end: int) -> str:
    return f"{doc}:{start}-{end}"


def build_pool(
    questions: Mapping[str, str],
    hits: Mapping[str, Mapping[str, Sequence[RankedHit]]],
    depth: int,
    unit: str = "document",
    answers: Mapping[str, str] | None = None,
) -> JudgingPool:
    """The depth-`depth` pool from `hits[system][qid]` (best first). `unit` "document" pools by
    document id; "span" merges overlapping spans of a document into one passage."""
    if unit not in ("document", "span"):
        raise ValueError(f"unknown pool unit {unit!r}; valid: document, span")
    systems = tuple(hits)
    items: list[PoolItem] = []
    runs: dict[str, dict[str, tuple[int, ...]]] = {s: {} for s in systems}
    for qid in questions:
        top = {s: list(hits[s].get(qid, ()))[:depth] for s in systems}
        home = _units(top, unit)
        first = len(items)
        order: dict[str, int] = {}
        ranks: dict[str, dict[str, int]] = {}
        scores: dict[str, dict[str, float]] = {}
        for s, ranked in top.items():
            seen: list[int] = []
            for rank, hit in enumerate(ranked, start=1):
                key, doc, start, end, text = home[(s, rank)]
                if key not in order:
                    order[key] = len(order)
                    items.append(PoolItem(qid, key, doc, start, end, text, hit.title, {}, {}))
                    ranks[key], scores[key] = {}, {}
                idx = first + order[key]
                if idx not in seen:
                    seen.append(idx)
                    ranks[key][s], scores[key][s] = rank, hit.score
            runs[s][qid] = tuple(seen)
        for key, j in order.items():
            old = items[first + j]
            items[first + j] = PoolItem(old.qid, old.key, old.doc, old.start, old.end, old.text,
                                        old.title, dict(ranks[key]), dict(scores[key]))
    return JudgingPool(dict(questions), dict(answers or {}), systems, tuple(items), runs, depth,
                       unit)


Unit = tuple[str, str, int, int, str]  # key, doc, start, end, text


def _units(top: Mapping[str, Sequence[RankedHit]], unit: str) -> dict[tuple[str, int], Unit]:
    """(system, rank) -> the pooled unit that hit belongs to."""
    if unit == "document":
        return {(s, r): (h.doc, h.doc, h.start, h.end, h.text)
                for s, ranked in top.items() for r, h in enumerate(ranked, 1)}
    flat = [Hit(s, r, h.doc, h.start, h.end, h.text) for s, ranked in top.items()
            for r, h in enumerate(ranked, 1)]
    passages = merge_hits(flat)
    out: dict[tuple[str, int], Unit] = {}
    for hit in flat:  # a hit's home is the first kept passage overlapping it (as merge_hits)
        p = next(p for p in passages
                 if p.doc == hit.doc and p.start < hit.end and hit.start < p.end)
        out[(hit.system, hit.rank)] = (span_key(p.doc, p.start, p.end), p.doc, p.start, p.end,
                                       p.text)
    return out
