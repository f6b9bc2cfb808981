"""Sentence spans (re-exported from rag.context.sentences), content words, trigrams and Jaccard
overlap shared by context, generation and grounding."""

from __future__ import annotations

import re

from rag.context.sentences import Sentence, split_sentences

__all__ = ["Sentence", "split_sentences"]  # the sentence splitter's old home; callers import from here

_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*")
_CITATION = re.compile(r"\[Source \d+(?:\s*,\s*\d+)*\]")

# A compact English stopword list (NLTK's, minus negations that change a claim's meaning).
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its
    itself just me more most my myself of off on once only or other our ours ourselves out over
    own same she should so some such than that the their theirs them themselves then there these
    they this those through to too under until up very was we were what when where which while
    who whom why will with would you your yours yourself yourselves also may might must shall us
    it's i'm""".split()
)  # fmt: skip


def strip_citations(text: str) -> str:
    return _CITATION.sub("", text)


def words(text: str) -> list[str]:
    """Lower-cased word tokens, citations removed."""
    return _WORD.findall(strip_citations(text).lower())


def content_words(text: str) -> list[str]:
    """Words that carry meaning: not stopwords, not single characters."""
    return [w for w in words(text) if w not in STOPWORDS and len(w) > 1]


def trigrams(tokens: list[str]) -> set[tuple[str, str, str]]:
    return {(tokens[i], tokens[i + 1], tokens[i + 2]) for i in range(len(tokens) - 2)}


def content_trigrams(text: str) -> set[tuple[str, str, str]]:
    """Axiom: word trigrams that hold at least two content words."""
    return {t for t in trigrams(words(text)) if sum(w not in STOPWORDS for w in t) >= 2}


# Spelled-out numbers ("one" is left out: it is mostly a pronoun, "the newer one").
NUMBER_WORDS = frozenset(
    """two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen
    seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred
    thousand million billion dozen half quarter""".split()
)  # fmt: skip


def numbers(text: str) -> set[str]:
    """Numbers as written (commas dropped) and spelled-out number words, citations removed:
    {"15", "2.5", "2024", "twenty"}."""
    digits = {n.replace(",", "") for n in _NUMBER.findall(strip_citations(text))}
    return digits | (set(words(text)) & NUMBER_WORDS)


def jaccard(a: set[str], b: set[str]) -> float:
    """|a ∩ b| / |a ∪ b|; 0 for two empty sets."""
    union = a | b
    return len(a & b) / len(union) if union else 0.0
