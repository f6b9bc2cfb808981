"""Invisible characters that carry or hide text (Unicode TR36 §3, TR39):

- tag characters U+E0020–U+E007E mirror printable ASCII and display as nothing; a run of them
  is a hidden message, decoded by subtracting U+E0000;
- bidi overrides/embeddings/isolates (U+202A–U+202E, U+2066–U+2069) make the shown order differ
  from the order a model reads ("Trojan Source", Boucher & Anderson 2021);
- zero-width characters between letters split words so that a pattern does not see them;
- two zero-width characters used as 0 and 1 (8 per byte) spell a message after visible text.

The views are "hidden": readable content behind them is flagged."""

from __future__ import annotations

import re

from rag.decoders.base import DECODERS, Decoded, readable
from rag.hidden_chars import Stripped, zero_width_bits

_TAGS = re.compile(r"[\U000e0020-\U000e007e]+")
_BIDI = re.compile(r"[\u202a-\u202e\u2066-\u2069]")
# an override or isolate with letters after it reorders what a person sees; one stray control
# at the end of a pasted line reorders nothing
_REORDERING = re.compile(r"[\u202a-\u202e\u2066-\u2068][^\u202c\u2069]*?[^\W\d_]{2}")
# zero width space, word joiner, BOM, Mongolian vowel separator, ZWJ between letters (ZWJ in
# emoji and ZWNJ in Persian/Indic words are legitimate, so only letter-ZW-letter in Latin counts)
_ZW_SPLIT = re.compile(r"(?<=[A-Za-z])[\u200b\u200c\u200d\u2060\ufeff\u180e\u00ad]+(?=[A-Za-z])")
_MIN_SPLITS = 2


def decode_tags(text: str) -> tuple[Decoded, ...]:
    found = []
    for match in _TAGS.finditer(text):
        plain = "".join(chr(ord(ch) - 0xE0000) for ch in match.group())
        if plain.strip():
            found.append(Decoded("tags", "hidden", plain, f"{len(plain)} Unicode tag characters"))
    return tuple(found)


def decode_bidi(text: str) -> tuple[Decoded, ...]:
    controls = _BIDI.findall(text)
    if not controls or not _REORDERING.search(text):
        return ()
    plain = _BIDI.sub("", text)
    return (Decoded("bidi", "hidden", plain, f"{len(controls)} bidi override/isolate controls"),)


def decode_zero_width(text: str) -> tuple[Decoded, ...]:
    splits = _ZW_SPLIT.findall(text)
    if len(splits) < _MIN_SPLITS:
        return ()
    plain = _ZW_SPLIT.sub("", text)
    return (Decoded("zero_width", "hidden", plain, f"{len(splits)} words split by zero-width characters"),)


def _bit_views(texts: tuple[str, ...]) -> tuple[Decoded, ...]:
    # printable UTF-8 can still be a few stray symbols; a hidden message reads as words
    note = "a message in zero-width characters used as bits"
    return tuple(Decoded("zero_width_bits", "hidden", plain, note)
                 for plain in texts if readable(plain) and len(plain.split()) >= 2)


def decode_zero_width_bits(text: str) -> tuple[Decoded, ...]:
    """Runs of two zero-width characters used as 0 and 1, 8 per byte (rag.hidden_chars), that
    spell readable words."""
    return _bit_views(zero_width_bits(text))


DECODERS.add("tags", decode_tags)
DECODERS.add("bidi", decode_bidi)
DECODERS.add("zero_width", decode_zero_width)
DECODERS.add("zero_width_bits", decode_zero_width_bits)


def stripped_views(stripped: Stripped) -> tuple[Decoded, ...]:
    """The hidden views of a text that was already stripped at the edge (rag.hidden_chars): the
    same findings the decoders above make on the raw text, from what the strip recorded."""
    found: list[Decoded] = []
    if stripped.tag_text.strip():
        found.append(Decoded("tags", "hidden", stripped.tag_text,
                             f"{stripped.removed.get('tag', 0)} Unicode tag characters"))
    if stripped.reordering:
        found.append(Decoded("bidi", "hidden", stripped.text,
                             f"{stripped.removed.get('bidi', 0)} bidi override/isolate controls"))
    if stripped.zero_width_splits >= _MIN_SPLITS:
        found.append(Decoded("zero_width", "hidden", stripped.text,
                             f"{stripped.zero_width_splits} words split by zero-width characters"))
    return tuple(found) + _bit_views(stripped.bit_texts)
