"""Hashing backend: deterministic feature hashing, no model and no download (for tests and demos).

Each text becomes a bag of features — lower-cased word unigrams and the character 3- and 4-grams
of each word (with `<` `>` boundary marks, as fastText does) — hashed with blake2b into a fixed
number of signed slots. Texts that share words or word pieces land near each other, so lexical
retrieval still behaves sensibly; there is no notion of meaning (synonyms, paraphrases), so do
not measure retrieval quality with it.

The vectors are the same in every process and on every machine: the hash is blake2b, never
Python's salted `hash()`. TextEmbedder L2-normalizes them like any other backend's.

Select it with `embedding.backend: hashing`; `embedding.model` may be `hashing-<dim>` (e.g.
`hashing-256`) to pick the dimension, default 384 (MiniLM's, so it fits where MiniLM does).
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache

import numpy as np

from rag.embed.base import EmbeddingModelError
from rag.embed.local_models import MINILM_NAMES
from rag.settings.embedding import EmbeddingConfig
from rag.text import feature_words

DEFAULT_DIM = 384
VERSION = 1  # part of model_id: bump when the features change, so cached vectors never mix
WORD_WEIGHT = 1.0
NGRAM_SIZES = (3, 4)
NGRAM_WEIGHT = 0.25  # per n-gram; a word has several, so pieces inform without drowning words
_MODEL = re.compile(r"hashing(?:-(\d+))?")
_MIN_DIM, _MAX_DIM = 8, 65_536


def hashing_dim(model: str) -> int:
    """The dimension a model name asks for: `hashing-<dim>`, or the default for `hashing`/MiniLM."""
    if model in MINILM_NAMES:  # the EmbeddingConfig default: `embedding.backend=hashing` alone
        return DEFAULT_DIM
    match = _MODEL.fullmatch(model)
    if match is None:
        raise EmbeddingModelError(
            f"embedding.model {model!r} is not a hashing model; with embedding.backend 'hashing' "
            f"use embedding.model: hashing (dim {DEFAULT_DIM}) or hashing-<dim>, e.g. hashing-256"
        )
    dim = int(match.group(1) or DEFAULT_DIM)
    if not _MIN_DIM <= dim <= _MAX_DIM:
        raise EmbeddingModelError(
            f"embedding.model {model!r}: the hashing dimension must be between {_MIN_DIM} and "
            f"{_MAX_DIM}"
        )
    return dim


def word_features(word: str) -> dict[str, float]:
    """One word's weighted features: `w:<word>`, and `c:<n-gram>` per character n-gram."""
    bag = {f"w:{word}": WORD_WEIGHT}
    marked = f"<{word}>"
    for n in NGRAM_SIZES:
        for start in range(len(marked) - n + 1):
            gram = f"c:{marked[start : start + n]}"
            bag[gram] = bag.get(gram, 0.0) + NGRAM_WEIGHT
    return bag


def features(text: str) -> dict[str, float]:
    """The text's weighted features: the sum of its words' features."""
    bag: dict[str, float] = {}
    for word in feature_words(text):
        for feature, weight in word_features(word).items():
            bag[feature] = bag.get(feature, 0.0) + weight
    return bag


def _slot(feature: str, dim: int) -> tuple[int, float]:
    """A feature's slot and sign from its blake2b digest: stable across processes and machines."""
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    return value % dim, (1.0 if (value >> 63) & 1 else -1.0)


@lru_cache(maxsize=131_072)
def _word_vector(word: str, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """A word's contribution as (slots, signed weights); words repeat, so this is cached."""
    slots, values = [], []
    for feature, weight in word_features(word).items():
        slot, sign = _slot(feature, dim)
        slots.append(slot)
        values.append(sign * weight)
    return np.asarray(slots, dtype=np.intp), np.asarray(values, dtype=np.float32)


class HashingBackend:
    """Signed feature hashing into `dim` slots; unnormalized (TextEmbedder normalizes)."""

    def __init__(self, cfg: EmbeddingConfig) -> None:
        if cfg.model_path:
            raise EmbeddingModelError(
                "embedding.backend 'hashing' loads no model: unset embedding.model_path"
            )
        self.dim = hashing_dim(cfg.model)
        self.model_id = f"hashing:v{VERSION}:{self.dim}"

    def encode_one(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dim, dtype=np.float32)
        for word in feature_words(text):
            slots, values = _word_vector(word, self.dim)
            np.add.at(vector, slots, values)  # slots may repeat within a word
        return vector

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.encode_one(text) for text in texts])
