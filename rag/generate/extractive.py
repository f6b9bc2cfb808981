"""Offline extractive answerer: the answer is the context's best-supported sentences, copied
verbatim with [Source N] citations. Scores follow query-biased sentence extraction (Tombros &
Sanderson 1998): query-term coverage, plus a small prior for the block's retrieval rank.

Only statements are candidates: FAQ question lines ("Q: …?", any line ending in "?"), headings
(Markdown "#", or a short line without a full stop) and table rules are skipped; list markers
("- ", "1. ", "> ") and answer labels ("A:") are cut from the front. Inline Markdown (**bold**,
`code`) is kept, for the page to render.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.context.base import BuiltContext
from rag.text import content_words, jaccard, split_sentences

RANK_PRIOR = 0.1  # weight of 1/rank: breaks ties toward better-ranked chunks, never outvotes coverage
MIN_RELATIVE_COVERAGE = 0.5  # a sentence sharing one stray word ("notes") with the query stays out
REDUNDANT_AT = 0.6  # a sentence this Jaccard-similar to one already picked adds nothing
MIN_WORDS = 3  # "A: Yes." or "Notes." alone answers nothing
HEADING_MAX_WORDS = 8  # a line this short with no sentence-ending punctuation reads as a heading

_HEADING = re.compile(r"^\s*#{1,6}\s")
_QUESTION_LABEL = re.compile(r"^\s*(?:q|question)\s*[:.)]\s*", re.I)
_ANSWER_LABEL = re.compile(r"^\s*(?:a|answer)\s*[:.)]\s*", re.I)
_LIST_MARKER = re.compile(r"^\s*(?:[-*•+>]|\d{1,3}[.)]|[a-z][.)])\s+", re.I)
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}")
_ENDS_SENTENCE = re.compile(r"[.!:;)\"'”*`]\s*$")


@dataclass(frozen=True)
class ScoredSentence:
    text: str
    n: int  # [Source n]
    position: int  # index of the sentence inside its block
    coverage: float  # share of the query's content words it contains
    score: float


def _statement_lines(text: str) -> list[str]:
    """The block's lines that state something, without list markers or answer labels."""
    kept = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or _HEADING.match(line) or _TABLE_RULE.match(line) or _QUESTION_LABEL.match(line):
            continue
        line = _ANSWER_LABEL.sub("", _LIST_MARKER.sub("", line)).strip()
        if line.rstrip("*_ ").endswith("?"):
            continue
        if len(line.split()) <= HEADING_MAX_WORDS and not _ENDS_SENTENCE.search(line):
            continue  # a heading or a label
        kept.append(line)
    return kept


def answer_sentences(text: str) -> list[str]:
    """Statement sentences of a block, in order: no questions, headings or list scaffolding."""
    found = []
    for line in _statement_lines(text):
        for sentence in split_sentences(line):
            words = sentence.text.split()
            end = sentence.text.rstrip("*_ ")
            if len(words) >= MIN_WORDS and not end.endswith(("?", ":")):  # questions, list lead-ins
                found.append(sentence.text)
    return found


def score_sentences(query: str, context: BuiltContext) -> list[ScoredSentence]:
    """Every statement sentence of every block with its score, best first."""
    query_words = set(content_words(query))
    scored = []
    for block in context.blocks:
        # a block that is all scaffolding (a lone heading, a bare list) keeps its raw sentences
        units = answer_sentences(block.text) or [s.text for s in split_sentences(block.text)]
        for i, sentence in enumerate(units):
            words = set(content_words(sentence))
            coverage = len(words & query_words) / len(query_words) if query_words else 0.0
            score = coverage + RANK_PRIOR / max(block.rank, 1)
            scored.append(ScoredSentence(sentence, block.n, i, coverage, score))
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
    return " ".join(f"{_closed(s.text)} [Source {s.n}]" for s in picked), note


def _closed(sentence: str) -> str:
    """A full stop after a sentence a chunk boundary or a table row left open, so the answer
    still splits into the sentences it was built from."""
    return sentence if re.search(r"[.!?][\"')\]*_`]*$", sentence) else f"{sentence}."
