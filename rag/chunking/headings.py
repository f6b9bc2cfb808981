"""Markdown headings (ATX `## Title` and setext `Title\\n===`) and the sections they open.

Fenced code blocks are skipped, so a `# comment` inside code is not a heading (CommonMark).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.chunking.spans import Span, trim

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


@dataclass(frozen=True)
class Heading:
    start: int  # offset of the heading's first line
    level: int  # 1 for `#` / `===`, 2 for `##` / `---`, …
    title: str


@dataclass(frozen=True)
class Section:
    """Text from a heading (or the document start) to the next heading of depth ≤ max_depth."""

    span: Span
    path: tuple[str, ...]  # titles of the enclosing headings, outermost first


def _lines(text: str) -> list[tuple[int, str]]:
    offsets, pos = [], 0
    for line in text.splitlines(keepends=True):
        offsets.append((pos, line.rstrip("\r\n")))
        pos += len(line)
    return offsets


def find_headings(text: str) -> list[Heading]:
    """Headings in document order, outside fenced code blocks."""
    headings: list[Heading] = []
    fence: str | None = None
    lines = _lines(text)
    for i, (offset, line) in enumerate(lines):
        fence_match = _FENCE.match(line)
        if fence_match:
            marker = fence_match.group(1)
            fence = None if fence == marker else (fence or marker)
            continue
        if fence is not None:
            continue
        atx = _ATX.match(line)
        if atx:
            headings.append(Heading(offset, len(atx.group(1)), (atx.group(2) or "").strip()))
            continue
        # Setext: a text line underlined by === or --- (not a list item or a table rule).
        if i + 1 < len(lines) and line.strip() and not line.lstrip().startswith(("-", "*", "|")):
            under = _SETEXT.match(lines[i + 1][1])
            if under:
                level = 1 if under.group(1).startswith("=") else 2
                headings.append(Heading(offset, level, line.strip()))
    return headings


def sections(text: str, max_depth: int = 6) -> list[Section]:
    """Untrimmed sections at headings of level ≤ `max_depth`, covering the whole text."""
    opening = [h for h in find_headings(text) if h.level <= max_depth]
    result: list[Section] = []
    if not opening or opening[0].start > 0:
        first_end = opening[0].start if opening else len(text)
        result.append(Section(Span(0, first_end), ()))
    stack: list[Heading] = []
    for i, heading in enumerate(opening):
        while stack and stack[-1].level >= heading.level:
            stack.pop()
        stack.append(heading)
        end = opening[i + 1].start if i + 1 < len(opening) else len(text)
        result.append(Section(Span(heading.start, end), tuple(h.title for h in stack)))
    return result


def _is_bare(text: str, section: Section) -> bool:
    body = trim(text, *section.span)
    return bool(section.path) and body is not None and "\n" not in text[body.start : body.end]


def fold_bare_headings(text: str, found: list[Section]) -> list[Section]:
    """A section that is only its heading line ("## A" right above "### B") joins the next
    section, so no chunk is a lone title; the joined section keeps the deeper heading path."""
    folded: list[Section] = []
    carry: int | None = None  # start of heading lines still waiting for a body
    for section in found:
        start = section.span.start if carry is None else carry
        if _is_bare(text, section):
            carry = start
            continue
        folded.append(Section(Span(start, section.span.end), section.path))
        carry = None
    if carry is not None:
        folded.append(Section(Span(carry, found[-1].span.end), found[-1].path))
    return folded
