"""One encoding inside another: hex of base64, base64 of character codes … The byte decoders
run once more on each message they decoded; a model asked to "decode (hex, then base64)" reads
the inner text, so the patterns must too. One level deeper only: attacks stack two, and every
level is a full pass of the byte decoders."""

from __future__ import annotations

from rag.decoders.base import DECODERS, Decoded

_BYTE_DECODERS = ("base64", "base32", "hex", "percent", "decimal", "binary")


def _outer(text: str) -> list[Decoded]:
    found: list[Decoded] = []
    for name in _BYTE_DECODERS:
        if name in DECODERS.names():
            found.extend(DECODERS.get(name)(text))
    return found


def decode_nested(text: str) -> tuple[Decoded, ...]:
    """The byte decoders' views of each decoded view of `text` (named "<outer>+<inner>")."""
    inner: list[Decoded] = []
    for outer in _outer(text):
        for item in _outer(outer.text):
            if item.text != outer.text:
                inner.append(Decoded(f"{outer.view}+{item.view}", "decoded", item.text,
                                     f"{item.view} inside {outer.view}"))
    return tuple(inner)


DECODERS.add("nested", decode_nested)
