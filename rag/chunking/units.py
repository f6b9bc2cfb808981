"""Sentences and paragraphs as spans, and the ways strategies group them into chunks.

Sentence boundaries are EchoMind's: `(?<=[.!?])\\s+|\\n\\n+`; grouping packs
units up to a maximum with an N-unit overlap, as EchoMind's `_group_sentences_to_size`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from rag.chunking.recursive import split_recursive
from rag.chunking.spans import Span, trim_all

SENTENCE_BOUNDARY = re.compile(r"(?<=[.!?])\s+|\n\n+")
PARAGRAPH_BOUNDARY = re.compile(r"\n[ \t\r\f\v]*\n\s*")

Unit = Literal["chars", "sentences", "paragraphs"]


def _split_on(pattern: re.Pattern[str], text: str, start: int, end: int) -> list[Span]:
    cuts = [start]
    for match in pattern.finditer(text, start, end):
        cuts.extend((match.start(), match.end()))
    cuts.append(end)
    return trim_all(text, zip(cuts[::2], cuts[1::2], strict=True))


def sentence_spans(text: str, start: int, end: int) -> list[Span]:
    """Sentences of `text[start:end]`: split after . ! ? plus whitespace, and at blank lines."""
    return _split_on(SENTENCE_BOUNDARY, text, start, end)


def paragraph_spans(text: str, start: int, end: int) -> list[Span]:
    """Paragraphs of `text[start:end]`: split at blank lines."""
    return _split_on(PARAGRAPH_BOUNDARY, text, start, end)


def split_long(text: str, units: Sequence[Span], max_size: int) -> list[Span]:
    """Units longer than `max_size` are cut by the recursive splitter (no overlap)."""
    out: list[Span] = []
    for unit in units:
        if unit.size <= max_size:
            out.append(unit)
        else:
            out.extend(split_recursive(text, unit.start, unit.end, max_size))
    return out


def pack_units(
    units: Sequence[Span], max_size: int, min_size: int = 0, overlap_units: int = 0
) -> list[Span]:
    """Greedily fill groups up to `max_size` chars; the next group repeats the last
    `overlap_units` units (fewer if they would not fit beside the new unit, and never the
    whole previous group, which would make it redundant). A last group under `min_size`
    joins the previous one when the union still fits."""
    groups: list[Span] = []
    current: list[Span] = []
    for unit in units:
        if current and unit.end - current[0].start > max_size:
            groups.append(Span(current[0].start, current[-1].end))
            keep = min(overlap_units, len(current) - 1)
            current = current[len(current) - keep :] if keep else []
            while current and unit.end - current[0].start > max_size:
                current.pop(0)
        current.append(unit)
    if current:
        last = Span(current[0].start, current[-1].end)
        if groups and last.size < min_size and last.end - groups[-1].start <= max_size:
            last = Span(groups.pop().start, last.end)
        groups.append(last)
    return groups


def merge_short(units: Sequence[Span], min_size: int, max_size: int) -> list[Span]:
    """Join neighbours while either side is under `min_size` and the union fits `max_size`;
    a group left under `min_size` could not join either neighbour without passing the max."""
    groups: list[Span] = []
    for unit in units:
        if groups and (groups[-1].size < min_size or unit.size < min_size):
            joined = Span(groups[-1].start, unit.end)
            if joined.size <= max_size:
                groups[-1] = joined
                continue
        groups.append(unit)
    return groups


def split_level(
    text: str, start: int, end: int, unit: Unit, size: int, min_size: int, overlap: int
) -> list[Span]:
    """One level of a multi-level strategy: chars (recursive splitter, `overlap` chars) or
    sentences/paragraphs packed to `size` chars (`overlap` counts units)."""
    if unit == "chars":
        return split_recursive(text, start, end, size, overlap)
    found = (
        sentence_spans(text, start, end)
        if unit == "sentences"
        else paragraph_spans(text, start, end)
    )
    return pack_units(split_long(text, found, size), size, min_size, overlap)
