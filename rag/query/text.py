"""Small text helpers for query understanding: Unicode-aware words and scripts."""

from __future__ import annotations

import re
import unicodedata

from rag.context.text import STOPWORDS

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)  # letters/digits, inner apostrophes
QUESTION_WORDS = frozenset(["what", "which", "who", "whom", "whose", "when", "where", "why", "how"])


def words(text: str) -> list[str]:
    """Lower-cased Unicode word tokens (any script)."""
    return [w.lower() for w in _WORD.findall(text)]


def content_words(text: str) -> list[str]:
    """Words that carry meaning: not stopwords, not single characters."""
    return [w for w in words(text) if w not in STOPWORDS and len(w) > 1]


def script_of(char: str) -> str | None:
    """The Unicode script family of a letter ("LATIN", "CYRILLIC", "CJK" …), None for non-letters."""
    if not char.isalpha():
        return None
    name = unicodedata.name(char, "")
    head = name.split(" ", 1)[0]
    return "CJK" if head in ("CJK", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "HANGUL") else head or None


def scripts(text: str) -> set[str]:
    """Every script with at least one letter in `text`."""
    return {s for s in map(script_of, text) if s}


def mixed_script_words(text: str) -> list[str]:
    """Words mixing two scripts, e.g. Latin with Cyrillic look-alikes ("pаypal" with a Cyrillic а):
    the classic homoglyph trick (Unicode TR39 mixed-script detection)."""
    return [w for w in _WORD.findall(text) if len(scripts(w)) > 1]
