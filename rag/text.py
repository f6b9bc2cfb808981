"""Words, content words and sentences: the one place text is tokenized for rules (query
understanding, context building, grounding, abstention) and for the hashing embedder.

`words` finds Unicode words (letters and digits of any script, inner apostrophes kept: "don't",
"l'été"), lower-cased, with [Source N] citations removed; `content_words` drops stopwords and
single characters. `feature_words` is the hashing embedder's own form (NFKC, case-folded, `\\w+`):
its vectors, and so the embedding cache's keys, depend on it, so it stays as it is.
BM25 has its own configurable tokenizer (rag.index.tokenizer), since it is an index setting.
"""

from __future__ import annotations

import re
import unicodedata

from rag.sentences import Sentence, ends_sentence, split_sentences

__all__ = ["Sentence", "ends_sentence", "split_sentences"]  # sentences: rag.sentences, said here

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")  # letters/digits of any script, inner apostrophes
_FEATURE_WORD = re.compile(r"\w+")
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
QUESTION_WORDS = frozenset(["what", "which", "who", "whom", "whose", "when", "where", "why", "how"])
# Spelled-out numbers ("one" is left out: it is mostly a pronoun, "the newer one").
NUMBER_WORDS = frozenset(
    """two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen
    seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred
    thousand million billion dozen half quarter""".split()
)  # fmt: skip


def strip_citations(text: str) -> str:
    return _CITATION.sub("", text)


def words(text: str) -> list[str]:
    """Lower-cased Unicode word tokens (any script), [Source N] citations removed."""
    return [w.lower() for w in _WORD.findall(strip_citations(text))]


def content_words(text: str) -> list[str]:
    """Words that carry meaning: not stopwords, not single characters."""
    return [w for w in words(text) if w not in STOPWORDS and len(w) > 1]


def feature_words(text: str) -> list[str]:
    """The hashing embedder's words: `\\w+` runs of the NFKC-normalized, case-folded text."""
    return _FEATURE_WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def trigrams(tokens: list[str]) -> set[tuple[str, str, str]]:
    return {(tokens[i], tokens[i + 1], tokens[i + 2]) for i in range(len(tokens) - 2)}


def content_trigrams(text: str) -> set[tuple[str, str, str]]:
    """Word trigrams that hold at least two content words (Axiom's lexical check)."""
    return {t for t in trigrams(words(text)) if sum(w not in STOPWORDS for w in t) >= 2}


def numbers(text: str) -> set[str]:
    """Numbers as written (commas dropped) and spelled-out number words, citations removed:
    {"15", "2.5", "2024", "twenty"}."""
    digits = {n.replace(",", "") for n in _NUMBER.findall(strip_citations(text))}
    return digits | (set(words(text)) & NUMBER_WORDS)


def jaccard(a: set[str], b: set[str]) -> float:
    """|a ∩ b| / |a ∪ b|; 0 for two empty sets."""
    union = a | b
    return len(a & b) / len(union) if union else 0.0


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
