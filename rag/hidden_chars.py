"""Characters a person does not see but a language model reads, stripped at every edge where text
enters a prompt: the question (rag.pipeline.initial_state, whatever the guard's settings), the
passages (rag.context.screen, after the screen has judged them) and, last, every message that
leaves the process (rag.llm.client). Unicode TR36 §3 / TR39 and the "ASCII smuggling" and
"Trojan Source" attacks (Boucher & Anderson 2021) are why each kind is here:

- tag characters U+E0000–U+E007F (they spell ASCII invisibly; what they spell is kept for the
  guard and the trace note, never for a prompt);
- zero-width characters, soft hyphen, word joiner, invisible operators, BOM;
- bidi marks, embeddings, overrides and isolates;
- variation selectors (U+FE00–U+FE0F, U+E0100–U+E01EF: a byte each in "emoji smuggling");
- every other invisible format character (category Cf) and blank fillers (Hangul fillers);
- C0/C1 control characters other than tab and newline (they become a space).

Leaf module: imports nothing from rag, so the LLM client can use it."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

_ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u180e\u00ad\u034f")
_BIDI = frozenset("\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5")
_KEEP = frozenset("\t\n\r")
# an override or isolate followed by letters reorders what a person sees (a stray control at
# the end of a pasted line reorders nothing)
_REORDERING = re.compile(r"[\u202a-\u202e\u2066-\u2068][^\u202c\u2069]*?[^\W\d_]{2}")
# letters split by zero-width characters: a word hidden from patterns
_ZW_SPLIT = re.compile(r"(?<=[A-Za-z])[\u200b\u200c\u200d\u2060\ufeff\u180e\u00ad]+(?=[A-Za-z])")
_NOTE_CHARS = 80
# zero-width characters used as bits (8 per byte): a run of at least two bytes of them, made of
# one of the pairs the "invisible ink" tools use; which one is 0, and the bit order, vary
_BIT_RUN = re.compile(r"[\u200b\u200c\u200d\u2060]{16,}")
_BIT_PAIRS = (frozenset("\u200b\u200c"), frozenset("\u200b\u200d"), frozenset("\u200c\u200d"),
              frozenset("\u2060\u200b"))


def kind_of(ch: str) -> str | None:
    """The hidden kind of one character, or None for a character that is kept."""
    code = ord(ch)
    if 0xE0000 <= code <= 0xE007F:
        return "tag"
    if ch in _ZERO_WIDTH:
        return "zero-width"
    if ch in _BIDI:
        return "bidi"
    if 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF:
        return "variation selector"
    if ch in _FILLERS and ch != "\u2800":  # Braille blank is visible as a cell; kept
        return "blank filler"
    category = unicodedata.category(ch)
    if category == "Cf":
        return "format"
    if category == "Cc" and ch not in _KEEP:
        return "control"
    return None


@dataclass(frozen=True)
class Stripped:
    """A text without hidden characters, and what was removed (counts by kind, what tag
    characters spelled, whether bidi controls reordered letters, how many words zero-width
    characters split)."""

    text: str
    removed: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    tag_text: str = ""
    reordering: bool = False
    zero_width_splits: int = 0
    bit_texts: tuple[str, ...] = ()  # what runs of zero-width bits decoded to (zero_width_bits)

    @property
    def count(self) -> int:
        return sum(self.removed.values())

    def note(self) -> str:
        """One line for the trace: what was removed ("" when nothing was)."""
        if not self.count:
            return ""
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(self.removed.items(), key=lambda kv: -kv[1]))
        extra = []
        if self.tag_text.strip():
            shown = self.tag_text[:_NOTE_CHARS] + ("…" if len(self.tag_text) > _NOTE_CHARS else "")
            extra.append(f"the tag characters spelled {shown!r}")
        if self.reordering:
            extra.append("bidi controls reordered the visible text")
        for bits in self.bit_texts:
            extra.append(f"zero-width bits spelled {bits[:_NOTE_CHARS]!r}")
        if self.zero_width_splits:
            extra.append(f"{self.zero_width_splits} words were split by zero-width characters")
        tail = f" ({'; '.join(extra)})" if extra else ""
        return f"removed {self.count} hidden characters: {kinds}{tail}"


def has_hidden(text: str) -> bool:
    if text.isascii():  # fast path: only C0 controls can be hidden in ASCII
        return any((ch < " " and ch not in _KEEP) or ch == "\x7f" for ch in text)
    return any(kind_of(ch) is not None for ch in set(text))


def strip_hidden(text: str) -> Stripped:
    """`text` without hidden characters (controls become a space), and what was removed."""
    if not has_hidden(text):
        return Stripped(text)
    removed: Counter[str] = Counter()
    tags: list[str] = []
    kept: list[str] = []
    for ch in text:
        kind = kind_of(ch)
        if kind is None:
            kept.append(ch)
            continue
        removed[kind] += 1
        if kind == "tag" and 0xE0020 <= ord(ch) <= 0xE007E:
            tags.append(chr(ord(ch) - 0xE0000))
        if kind == "control":
            kept.append(" ")
    return Stripped("".join(kept), MappingProxyType(dict(removed)), "".join(tags),
                    bool(_REORDERING.search(text)), len(_ZW_SPLIT.findall(text)), zero_width_bits(text))


def _bits_to_text(bits: str) -> str | None:
    """Bits (MSB first, 8 a byte) as UTF-8 text, or None when they are not printable UTF-8."""
    usable = len(bits) // 8 * 8
    data = bytes(int(bits[i:i + 8], 2) for i in range(0, usable, 8))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text if text.strip() and all(ch.isprintable() or ch in "\n\t" for ch in text) else None


def zero_width_bits(text: str) -> tuple[str, ...]:
    """Texts spelled by runs of zero-width characters used as binary (two kinds in a run of 16 or
    more: one is 0, the other 1, 8 per byte): every reading that is printable UTF-8, trying both
    assignments and both bit orders. Whether it reads as
    words is for the caller (rag.decoders.unicode_hidden) to judge."""
    if "\u200b" not in text and "\u200c" not in text and "\u200d" not in text and "\u2060" not in text:
        return ()
    found: list[str] = []
    for match in _BIT_RUN.finditer(text):
        run = match.group()
        kinds = frozenset(run)
        if kinds not in _BIT_PAIRS:
            continue
        first, second = sorted(kinds)
        for zero, one in ((first, second), (second, first)):
            bits = run.replace(zero, "0").replace(one, "1")
            lsb = "".join(bits[i:i + 8][::-1] for i in range(0, len(bits) // 8 * 8, 8))
            found.extend(t for t in (_bits_to_text(bits), _bits_to_text(lsb)) if t is not None)
    return tuple(found)


def clean(text: str) -> str:
    """Just the text without hidden characters."""
    return strip_hidden(text).text
