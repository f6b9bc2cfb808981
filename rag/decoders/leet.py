"""Visible disguises of letters: leetspeak ("1gn0r3" → "ignore") and letters spread out with
single separators ("i g n o r e", "i.g.n.o.r.e" → "ignore"). Normalised views: scanned, never
flagged by themselves (people write "h4x0r" and "U.S.A.")."""

from __future__ import annotations

import re

from rag.decoders.base import DECODERS, Decoded

_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s",
                       "!": "i", "|": "l", "8": "b", "9": "g", "+": "t"})
_SPACED = re.compile(r"\b(?:\w[ .\-_*])+\w\b")  # i g n o r e / i.g.n.o.r.e / m e
_SPREAD_SHARE = 0.6  # share of one-letter tokens that makes a text "spread out"


def decode_leetspeak(text: str) -> tuple[Decoded, ...]:
    plain = text.lower().translate(_LEET)
    return (Decoded("leetspeak", "normalised", plain),) if plain != text.lower() else ()


def despace(text: str) -> str:
    """Join letters spread out with single separators; runs of 2+ spaces stay word breaks."""
    words = re.split(r"\s{2,}", text)
    return " ".join(_SPACED.sub(lambda m: re.sub(r"[ .\-_*]", "", m.group()), w) for w in words)


def decode_spaced(text: str) -> tuple[Decoded, ...]:
    """The despaced text; when most tokens are single letters, also the letters squashed
    together (word breaks are lost: `rag.injection` searches that view without boundaries)."""
    found = []
    plain = despace(text)
    if plain != text:
        found.append(Decoded("spaced", "normalised", plain))
    tokens = text.split()
    if tokens and sum(len(t.strip(".-_*")) == 1 for t in tokens) / len(tokens) >= _SPREAD_SHARE:
        found.append(Decoded("squashed", "normalised", re.sub(r"[\W\d_]+", "", text.lower())))
    return tuple(found)


DECODERS.add("leetspeak", decode_leetspeak)
DECODERS.add("spaced", decode_spaced)
