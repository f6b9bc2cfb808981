"""The decoder family: a decoder turns a text into the other forms a language model could read
in it, each a `Decoded` view. Detectors run on every view (rag.injection), and a view that was
*hidden* from a person (encoded or invisible) and reads as text is itself a finding: a question
to a document search has no reason to carry a base64 message or tag-character text.

Kinds: "normalised" views undo a disguise of visible letters (leetspeak, confusables, spacing)
and are only scanned; "decoded" views came out of an encoding (base64, hex, Morse, ROT13 …) and
"hidden" views out of invisible characters (tag characters, bidi overrides, zero-width splits):
both are scanned and, when readable, flagged.

A new decoder is a module with a function registered here (`DECODERS.add(name, fn)`) and an
entry in `_MODULES`; tests/rag/decoders run every registered one over the same edge cases.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from rag.registry import Registry

Kind = Literal["normalised", "decoded", "hidden"]


@dataclass(frozen=True)
class Decoded:
    """One view of a text: which decoder made it, what kind, and the text it reads as."""

    view: str  # "base64", "rot13", "tags", … (shown in a verdict: "ignore_instructions (rot13)")
    kind: Kind
    text: str
    note: str = ""  # why it was flagged or how it was found, for the trace


Decoder = Callable[[str], tuple[Decoded, ...]]
DECODERS: Registry[Decoder] = Registry("decoder")
# The modules that register decoders, in the order their views are tried.
_MODULES = ("encodings", "charcodes", "ciphers", "morse", "braille", "leet", "unicode_hidden", "confusables",
            "nested")
# Documents are long prose: leetspeak and spacing undone over pages (version numbers, tables)
# would invent words, so they get every decoder but these.
DOCUMENT_SKIPS = frozenset({"leetspeak", "spaced", "texting", "joined"})


def _load() -> None:
    for module in _MODULES:
        importlib.import_module(f"rag.decoders.{module}")


def decode_all(text: str, skip: frozenset[str] = frozenset()) -> tuple[Decoded, ...]:
    """Every registered decoder's views of `text` (decoders named in `skip` are not run)."""
    _load()
    found: list[Decoded] = []
    for name in DECODERS.names():
        if name not in skip:
            found.extend(DECODERS.get(name)(text))
    return tuple(found)


def readable(text: str, min_letters: int = 4, share: float = 0.75) -> bool:
    """Text a person (or a model) would read: enough letters, mostly letters/digits/spaces/
    punctuation, not a binary blob that happened to decode."""
    if not text:
        return False
    letters = sum(ch.isalpha() for ch in text)
    printable = sum(ch.isprintable() or ch in "\n\t" for ch in text)
    wordish = sum(ch.isalnum() or ch.isspace() or ch in ".,;:!?'\"()-/" for ch in text)
    return letters >= min_letters and printable == len(text) and wordish / len(text) >= share
