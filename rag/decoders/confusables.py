"""Confusable letters (homoglyphs) mapped to the ASCII letter they look like, from Unicode's
confusables.txt (UTS #39) as shipped by the `confusable_homoglyphs` package (pinned in
requirements.txt): "Іgnоrе" with Cyrillic І, о, е reads "Ignore". A normalised view; words that
mix scripts are reported by the guard as a warning."""

from __future__ import annotations

import functools
import json
from importlib import resources

from rag.decoders.base import DECODERS, Decoded


@functools.lru_cache(maxsize=1)
def ascii_table() -> dict[int, str]:
    """Each non-ASCII character that confusables.txt says looks like an ASCII letter or digit."""
    raw = json.loads((resources.files("confusable_homoglyphs") / "confusables.json").read_text("utf-8"))
    table: dict[int, str] = {}
    for char, homoglyphs in raw.items():
        if len(char) != 1 or char.isascii():
            continue
        for glyph in homoglyphs:
            target = glyph.get("c", "")
            if len(target) == 1 and target.isascii() and target.isalnum():
                table[ord(char)] = target
                break
    return table


def skeleton(text: str) -> str:
    """`text` with every confusable character replaced by its ASCII look-alike."""
    return text if text.isascii() else text.translate(ascii_table())


def decode_confusables(text: str) -> tuple[Decoded, ...]:
    folded = text.casefold()  # lower case first: Cyrillic "І" looks like "l", its "і" like "i"
    plain = skeleton(folded)
    return (Decoded("confusables", "normalised", plain),) if plain != folded else ()


DECODERS.add("confusables", decode_confusables)
