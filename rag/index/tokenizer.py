"""The one tokenizer every sparse backend uses, so BM25 scores are comparable across backends."""

from __future__ import annotations

import re
from collections.abc import Callable

from rag.settings.index import TokenizerConfig


class StemmingUnavailableError(ValueError):
    """Stemming was asked for but PyStemmer is not installed."""


# Lucene's English stop list (33 words), the one bm25s ships as bm25s.stopwords.STOPWORDS_EN;
# written out because importing that module imports bm25s and scipy (~0.2 s) on every query.
# tests/rag/index/test_tokenizer.py checks the two lists stay equal.
_LUCENE_ENGLISH = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with",
))


def english_stopwords() -> frozenset[str]:
    """Lucene's English stop list (33 words), as shipped by bm25s."""
    return _LUCENE_ENGLISH


def _stemmer() -> Callable[[list[str]], list[str]]:
    try:
        import Stemmer  # PyStemmer: Snowball stemmers in C
    except ImportError:
        raise StemmingUnavailableError(
            "index.tokenizer.stemming needs the PyStemmer package (pip install PyStemmer), "
            "or set index.tokenizer.stemming: false"
        ) from None
    stem_words: Callable[[list[str]], list[str]] = Stemmer.Stemmer("english").stemWords
    return stem_words


class Tokenizer:
    """Regex tokens -> lowercase -> stopword removal -> Snowball English stemming (each optional)."""

    def __init__(self, cfg: TokenizerConfig) -> None:
        self.cfg = cfg
        self._pattern = re.compile(cfg.pattern)
        self._stopwords = english_stopwords() if cfg.stopwords == "english" else frozenset()
        self._stem = _stemmer() if cfg.stemming else None

    def __call__(self, text: str) -> list[str]:
        if self.cfg.lowercase:
            text = text.lower()
        tokens = [t for t in self._pattern.findall(text) if t.lower() not in self._stopwords]
        return self._stem(tokens) if self._stem else tokens

    def many(self, texts: list[str]) -> list[list[str]]:
        return [self(text) for text in texts]
