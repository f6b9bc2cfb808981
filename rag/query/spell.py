"""Guarded spell correction (Adaptive "Phase 65") against the collection's own vocabulary.

A word the collection never uses is replaced by the most frequent collection word one edit away
(two for words of 8+ letters), edits as in Norvig 2007 ("How to Write a Spelling Corrector").
Adaptive's guards then revert the whole correction when it shares < 50% of the words with the
original or is < 60% similar by edit distance — no "of them" -> "too the java". A word that is
itself common English is never changed, even when the collection does not use it ("recover"
stays "recover", not "recovery"): the list is the whole words of the BERT uncased vocabulary
that ships with all-MiniLM-L6-v2 (about 21,000 words of three letters or more).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from rag.settings.query import SpellConfig
from rag.text import STOPWORDS

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_LONG_WORD = 8  # words this long may be two edits away


@dataclass(frozen=True)
class Vocabulary:
    """Lower-cased word counts of a collection."""

    counts: Mapping[str, int]

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> Vocabulary:
        counter: Counter[str] = Counter()
        for text in texts:
            counter.update(w.lower() for w in _WORD.findall(text))
        return cls(MappingProxyType(dict(counter)))

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word.lower() in self.counts

    def __len__(self) -> int:
        return len(self.counts)


@dataclass(frozen=True)
class SpellChange:
    word: str
    replacement: str
    distance: int
    count: int  # how often the replacement occurs in the collection


@dataclass(frozen=True)
class SpellResult:
    original: str
    corrected: str  # the query to use: the original when reverted or unchanged
    path: Literal["offline", "skipped"]
    reason: str
    changes: tuple[SpellChange, ...] = ()  # proposed, even when reverted
    reverted: bool = False
    word_overlap: float | None = None
    char_similarity: float | None = None

    @property
    def changed(self) -> bool:
        return self.corrected != self.original


def edit_distance(a: str, b: str) -> int:
    """Optimal-string-alignment Damerau-Levenshtein distance (a swap of neighbours costs 1)."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = ca != cb
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]


def similarity(a: str, b: str) -> float:
    """1 - edit distance / longer length (case-insensitive); 1.0 for two empty strings."""
    longest = max(len(a), len(b))
    return 1.0 - edit_distance(a.lower(), b.lower()) / longest if longest else 1.0


def _edits1(word: str) -> set[str]:
    """Norvig: deletes, transposes, replaces and inserts one letter away."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    deletes = [left + right[1:] for left, right in splits if right]
    transposes = [left + right[1] + right[0] + right[2:] for left, right in splits if len(right) > 1]
    replaces = [left + c + right[1:] for left, right in splits if right for c in _LETTERS]
    inserts = [left + c + right for left, right in splits for c in _LETTERS]
    return set(deletes + transposes + replaces + inserts)


def _best(word: str, vocabulary: Vocabulary, min_count: int) -> SpellChange | None:
    lower = word.lower()
    near = _edits1(lower)
    for distance, pool in ((1, near), (2, {e2 for e1 in near for e2 in _edits1(e1)})):
        if distance == 2 and len(lower) < _LONG_WORD:
            return None
        known = [(vocabulary.counts[w], w) for w in pool if vocabulary.counts.get(w, 0) >= min_count]
        if known:
            count, replacement = max(known, key=lambda item: (item[0], [-ord(c) for c in item[1]]))
            if word[:1].isupper():
                replacement = replacement[:1].upper() + replacement[1:]
            return SpellChange(word, replacement, distance, count)
    return None


@functools.lru_cache(maxsize=1)
def common_words() -> frozenset[str]:
    """Lower-case English words of 3+ letters (BERT uncased whole words; empty if not installed)."""
    from rag.embed.base import EmbeddingModelError
    from rag.embed.local_models import minilm_folder

    try:
        lines = (minilm_folder() / "vocab.txt").read_text(encoding="utf-8").split()
    except (EmbeddingModelError, OSError):
        return frozenset()
    return frozenset(w for w in lines if len(w) >= 3 and w.isascii() and w.isalpha() and w.islower())


def _candidate(word: str, vocabulary: Vocabulary, cfg: SpellConfig) -> bool:
    """Only unknown, plain ASCII words long enough to judge; acronyms, stopwords and common
    English words never."""
    lower = word.lower()
    return (len(word) >= cfg.min_word_length and word.isascii() and word.isalpha()
            and not word.isupper() and lower not in STOPWORDS and word not in vocabulary
            and lower not in common_words())


def correct(query: str, vocabulary: Vocabulary | None, cfg: SpellConfig) -> SpellResult:
    """The corrected query, or the original with the reason it was left alone or reverted."""
    if not cfg.enabled:
        return SpellResult(query, query, "skipped", "spell correction disabled")
    if vocabulary is None or not len(vocabulary):
        return SpellResult(query, query, "skipped", "no collection vocabulary to correct against")
    changes: list[SpellChange] = []
    pieces: list[str] = []
    last = 0
    for match in _WORD.finditer(query):
        word = match.group(0)
        change = _best(word, vocabulary, cfg.min_count) if _candidate(word, vocabulary, cfg) else None
        pieces.append(query[last : match.start()] + (change.replacement if change else word))
        last = match.end()
        if change:
            changes.append(change)
    if not changes:
        return SpellResult(query, query, "offline", "every word is known or left alone")
    corrected = "".join(pieces) + query[last:]
    before = {w.lower() for w in _WORD.findall(query)}
    after = {w.lower() for w in _WORD.findall(corrected)}
    overlap = len(before & after) / len(before)
    similar = similarity(query, corrected)
    kept = SpellResult(query, corrected, "offline", f"{len(changes)} word(s) corrected",
                       tuple(changes), False, overlap, similar)
    if overlap < cfg.min_word_overlap:
        why = f"reverted: only {overlap:.0%} of the words kept (< {cfg.min_word_overlap:.0%})"
    elif similar < cfg.min_char_similarity:
        why = f"reverted: {similar:.0%} similar by edit distance (< {cfg.min_char_similarity:.0%})"
    else:
        return kept
    return SpellResult(query, query, "offline", why, tuple(changes), True, overlap, similar)
