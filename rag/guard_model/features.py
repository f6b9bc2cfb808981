"""Features of the learned detector: hashed binary n-grams, L2-normalised (the hashing trick,
Weinberger et al. 2009). Character 3–5-grams of the folded text catch spelling and morphology
("instruct", "ignor"); word 1–2-grams catch phrasing ("system prompt"). One function serves
training and inference, so the two cannot disagree."""

from __future__ import annotations

import re
import zlib
from itertools import pairwise

DIM = 1 << 18
CHAR_NGRAMS = (3, 4, 5)
_WORD = re.compile(r"[^\W_]+")
_SPACE = re.compile(r"\s+")


def feature_ids(folded: str) -> set[int]:
    """The hashed n-gram ids present in `folded` (already case-folded text)."""
    text = " " + _SPACE.sub(" ", folded).strip() + " "
    grams: set[str] = set()
    for n in CHAR_NGRAMS:
        grams.update("c" + text[i:i + n] for i in range(max(0, len(text) - n + 1)))
    words = _WORD.findall(folded)
    grams.update("w" + w for w in words)
    grams.update("b" + a + " " + b for a, b in pairwise(words))
    return {zlib.crc32(g.encode("utf-8")) % DIM for g in grams}
