"""Filters a generated question must pass, each a plain rule with a bar fixed before any set was
generated (never tuned on the sets we report; docs/testset-validation.md):

- not a question: it neither ends with "?" nor opens with an interrogative word;
- not standalone: it points at the text it was made from ("this passage", "the author", "the
  above"): a user searching a collection has no passage in front of them;
- too short / too long: fewer than 4 or more than 30 words (a real question names at least a
  subject and what is asked about it; a longer one is a passage, not a query);
- copies the passage: half or more of its word trigrams occur in the passage (a question made by
  putting "?" after a sentence matches lexical retrievers for free);
- exact duplicate: the same words, ignoring case and punctuation, as a question already kept;
- near duplicate: rapidfuzz token_sort_ratio ≥ 90 with a question already kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rag.text import trigrams

MIN_WORDS = 4
MAX_WORDS = 30
COPY_BAR = 0.5  # share of the question's word trigrams found in the passage
NEAR_DUPLICATE_RATIO = 90.0  # rapidfuzz token_sort_ratio, 0-100
INTERROGATIVES = frozenset(
    "what how why when where which who whom whose is are was were can could does do did should "
    "would will has have may might must".split())

DEICTIC = re.compile(
    r"\b(?:this|the|that|above|given|following) (?:passage|text|excerpt|document|article|section|"
    r"paragraph|question|context)\b|\bthe author\b|\b(?:the|mentioned) above\b", re.I)

_WORD = re.compile(r"[\w$%€£]+(?:['’.-][\w]+)*", re.U)


def question_words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def is_question(text: str) -> bool:
    words = question_words(text)
    return text.strip().endswith("?") or bool(words and words[0] in INTERROGATIVES)


def standalone(text: str) -> bool:
    """False when the question refers to the passage it was generated from."""
    return DEICTIC.search(text) is None


def length_problem(text: str) -> str | None:
    """"too_short", "too_long" or None."""
    count = len(question_words(text))
    return "too_short" if count < MIN_WORDS else "too_long" if count > MAX_WORDS else None


def copied_share(question: str, passage: str) -> float:
    """Share of the question's word trigrams that occur in the passage (0 for < 3 words)."""
    asked = trigrams(question_words(question))
    if not asked:
        return 0.0
    return len(asked & trigrams(question_words(passage))) / len(asked)


def copies_passage(question: str, passage: str, bar: float = COPY_BAR) -> bool:
    return copied_share(question, passage) >= bar


def normalized(text: str) -> str:
    return " ".join(question_words(text))


def duplicate_of(question: str, kept: Iterable[str], ratio: float = NEAR_DUPLICATE_RATIO) -> str | None:
    """"exact_duplicate", "near_duplicate" or None, against the questions kept so far."""
    from rapidfuzz import fuzz  # small C extension; imported where it is used

    mine = normalized(question)
    for other in kept:
        theirs = normalized(other)
        if mine == theirs:
            return "exact_duplicate"
        if fuzz.token_sort_ratio(mine, theirs) >= ratio:
            return "near_duplicate"
    return None
