"""Byte encodings: base64 (and its URL-safe alphabet), base32, base16/hex (plain runs,
space-separated pairs, `\\x41` escapes), percent-encoding ("Forget%20your%20guidelines"). A token
is decoded when it is long enough to carry a message and decodes to readable UTF-8
(rag.decoders.base.readable): random keys and hashes decode to bytes that are not text, so they
are left alone."""

from __future__ import annotations

import base64
import binascii
import re
import urllib.parse
from collections.abc import Callable, Iterator

from rag.decoders.base import DECODERS, Decoded, readable

_BASE64 = re.compile(r"[A-Za-z0-9+/_-]{12,}={0,2}")
_BASE32 = re.compile(r"\b[A-Z2-7]{16,}={0,6}")
_HEX_RUN = re.compile(r"\b(?:0x)?((?:[0-9A-Fa-f]{2}){6,})\b")
_HEX_PAIRS = re.compile(r"\b[0-9A-Fa-f]{2}(?:[ :,-][0-9A-Fa-f]{2}){5,}\b")
_HEX_ESCAPES = re.compile(r"(?:\\x[0-9A-Fa-f]{2}){4,}")
# a run of text with 3+ percent escapes; a link's query string ("?q=a%20b") is a link, not a payload
_PERCENT = re.compile(r"[^\s]*(?:%[0-9A-Fa-f]{2}[^\s%]*){3,}")
_PLUSSED = re.compile(r"(?:[A-Za-z']+\+){4,}[A-Za-z'.!?]+")  # a query string's words: "Tell+me+how+to+…"


def _text(raw: bytes) -> str | None:
    try:
        plain = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return plain if readable(plain) else None


def _each(tokens: Iterator[str], decode: Callable[[str], bytes], view: str) -> tuple[Decoded, ...]:
    found: list[Decoded] = []
    for token in tokens:
        try:
            plain = _text(decode(token))
        except (binascii.Error, ValueError):
            continue
        if plain is not None:
            found.append(Decoded(view, "decoded", plain, f"{view} token of {len(token)} characters"))
    if len(found) > 1:  # a message split over tokens reads as one
        found.append(Decoded(view, "decoded", " ".join(d.text for d in found), f"{len(found)} {view} tokens"))
    return tuple(found)


def _b64(token: str) -> bytes:
    padded = token + "=" * (-len(token) % 4)
    alphabet = b"-_" if ("-" in token or "_" in token) else None
    return base64.b64decode(padded, altchars=alphabet, validate=True)


def decode_base64(text: str) -> tuple[Decoded, ...]:
    """base64 tokens of 12+ characters; the whole text too when it is one base64 blob with
    line breaks."""
    tokens = _BASE64.findall(text)
    squeezed = re.sub(r"\s+", "", text)
    if len(tokens) > 1 and _BASE64.fullmatch(squeezed):
        tokens.append(squeezed)
    return _each(iter(tokens), _b64, "base64")


def decode_base32(text: str) -> tuple[Decoded, ...]:
    return _each(iter(_BASE32.findall(text)),
                 lambda t: base64.b32decode(t + "=" * (-len(t) % 8)), "base32")


def decode_hex(text: str) -> tuple[Decoded, ...]:
    """Hex in the forms people paste it: a run, pairs with separators, or `\\x` escapes."""
    tokens = [m.group(1) for m in _HEX_RUN.finditer(text)]
    tokens += [re.sub(r"[ :,-]", "", m.group()) for m in _HEX_PAIRS.finditer(text)]
    tokens += [m.group().replace("\\x", "") for m in _HEX_ESCAPES.finditer(text)]
    return _each(iter(tokens), bytes.fromhex, "hex")


def decode_percent(text: str) -> tuple[Decoded, ...]:
    """Percent-encoded text outside links: what a model reads once the escapes are undone."""
    tokens = [t for t in _PERCENT.findall(text) if "://" not in t and "?" not in t.split("%", 1)[0]]
    tokens += [t for t in _PLUSSED.findall(text) if not any(t in p for p in tokens)]
    return _each(iter(tokens), lambda t: urllib.parse.unquote_to_bytes(t.replace("+", " ")), "percent")


DECODERS.add("base64", decode_base64)
DECODERS.add("base32", decode_base32)
DECODERS.add("hex", decode_hex)
DECODERS.add("percent", decode_percent)
