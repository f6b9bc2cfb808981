"""Offline extractive answerer: the answer is the context's best-supported sentences, copied
verbatim with [Source N] citations. Scores follow query-biased sentence extraction (Tombros &
Sanderson 1998): query-term coverage, plus a small prior for the block's retrieval rank."""

from __future__ import annotations

from dataclasses import dataclass

from rag.context.base import BuiltContext
from rag.context.text import content_words, jaccard, split_sentences

RANK_PRIOR = 0.1  # weight of 1/rank: breaks ties toward better-ranked chunks, never outvotes coverage
MIN_RELATIVE_COVERAGE = 0.5  # a sentence sharing one stray word ("notes") with the query stays out
REDUNDANT_AT = 0.6  # a sentence this Jaccard-similar to one already picked adds nothing


@dataclass(frozen=True)
class ScoredSentence:
    text: str
    n: int  # [Source n]
    position: int  # index of the sentence inside its block
    coverage: float  # share of the query's content words it contains
    score: float


def score_sentences(query: str, context: BuiltContext) -> list[ScoredSentence]:
    """Every sentence of every block with its score, best first."""
    query_words = set(content_words(query))
    scored = []
    for block in context.blocks:
        for i, sentence in enumerate(split_sentences(block.text)):
            words = set(content_words(sentence.text))
            coverage = len(words & query_words) / len(query_words) if query_words else 0.0
            score = coverage + RANK_PRIOR / max(block.rank, 1)
            scored.append(ScoredSentence(sentence.text, block.n, i, coverage, score))
    return sorted(scored, key=lambda s: (-s.score, s.n, s.position))


def pick_sentences(query: str, context: BuiltContext, k: int) -> tuple[list[ScoredSentence], str]:
    """Top `k` non-redundant sentences covering at least half as much of the query as the best
    one does (a note when no sentence shares a word: then the top block's first one stands in)."""
    ranked = score_sentences(query, context)
    floor = MIN_RELATIVE_COVERAGE * max((s.coverage for s in ranked), default=0.0)
    picked: list[ScoredSentence] = []
    for candidate in ranked:
        if len(picked) == k:
            break
        if candidate.coverage == 0 or candidate.coverage < floor:
            continue
        words = set(content_words(candidate.text))
        if all(jaccard(words, set(content_words(p.text))) < REDUNDANT_AT for p in picked):
            picked.append(candidate)
    if picked or not ranked:
        return picked, ""
    first = min(ranked, key=lambda s: (-RANK_PRIOR / max(_rank(context, s.n), 1), s.position))
    return [first], "no sentence shares a word with the question: quoting the best-ranked source"


def _rank(context: BuiltContext, n: int) -> int:
    block = context.block(n)
    return block.rank if block else 1_000_000


def extractive_answer(query: str, context: BuiltContext, k: int = 3) -> tuple[str, str]:
    """(answer text with citations, note). Sentences keep their ranking order."""
    picked, note = pick_sentences(query, context, k)
    return " ".join(f"{s.text} [Source {s.n}]" for s in picked), note
