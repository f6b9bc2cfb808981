"""Axiom's fast deterministic groundedness score: content-word overlap × 0.6 + content-trigram
overlap × 0.4, and the passage of the context that best supports a sentence."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from rag.outputs.context import ContextBlock
from rag.outputs.grounding import Span
from rag.text import content_trigrams, content_words, split_sentences, words

EXTRA_SENTENCE_COST = 0.1  # score a second sentence must add to widen the supporting span


@dataclass(frozen=True)
class Overlap:
    word: float  # share of the sentence's content words found in the text
    trigram: float  # share of its content trigrams found (= word share when it has none)

    def score(self, word_weight: float = 0.6, trigram_weight: float = 0.4) -> float:
        return word_weight * self.word + trigram_weight * self.trigram


@lru_cache(maxsize=4096)
def _vocabulary(text: str) -> tuple[frozenset[str], frozenset[tuple[str, str, str]]]:
    tokens = words(text)
    grams = frozenset((tokens[i], tokens[i + 1], tokens[i + 2]) for i in range(len(tokens) - 2))
    return frozenset(tokens), grams


def overlap(sentence: str, text: str) -> Overlap:
    """How much of `sentence` appears in `text` (Axiom's two overlaps)."""
    claim_words = set(content_words(sentence))
    if not claim_words:
        return Overlap(1.0, 1.0)  # nothing to check
    vocab, grams = _vocabulary(text)
    word = len(claim_words & vocab) / len(claim_words)
    claim_grams = content_trigrams(sentence)
    trigram = len(claim_grams & grams) / len(claim_grams) if claim_grams else word
    return Overlap(word, trigram)


def best_span(
    sentence: str,
    blocks: Sequence[ContextBlock],
    word_weight: float = 0.6,
    trigram_weight: float = 0.4,
    window: int = 2,
) -> Span | None:
    """The shortest run of up to `window` consecutive block sentences that best supports
    `sentence`; None when no passage shares a content word with it."""
    best: Span | None = None
    best_key = (0.0, 0)
    for block in blocks:
        pieces = split_sentences(block.text)
        for i in range(len(pieces)):
            for j in range(i, min(i + window, len(pieces))):
                start, end = pieces[i].start, pieces[j].end
                score = overlap(sentence, block.text[start:end]).score(word_weight, trigram_weight)
                # a longer window must earn its extra sentences, else the superset always wins
                key = (round(score - EXTRA_SENTENCE_COST * (j - i), 9), start - end)
                if score > 0 and (best is None or key > best_key):
                    best, best_key = (
                        Span(block.n, block.chunk_id, start, end, block.text[start:end], score),
                        key,
                    )
    return best
