"""Headings a format marks itself (HTML h1-h6, DOCX heading styles), located in the kept text.

Parsers keep plain text; the structure they saw travels in `metadata.extra["heading_spans"]` as
`(start, end, level)` offsets into that text, so question mining (eval.testsets.headings) reads
a document's headings as its author marked them instead of guessing them from line shape.
"""

from __future__ import annotations

from collections.abc import Sequence

EMPHASIS_LEVEL = 9  # a bold line at body size (a run-in heading, a term, a lead-in): not a section


def locate_headings(text: str, headings: Sequence[tuple[str, int]]) -> tuple[tuple[int, int, int], ...]:
    """(start, end, level) of each (heading text, level), found in order as a whole line of
    `text` (compared without whitespace). Parsers set headings apart as blocks of their own, so a line
    with blank lines around it is taken first: a list item that repeats the heading (a table of
    contents) is not the heading. A heading not found as a line is left out."""
    raw_lines = text.split("\n")
    lines: list[tuple[int, int, str, bool]] = []
    offset = 0
    for i, raw in enumerate(raw_lines):
        stripped = raw.strip()
        if stripped:
            lead = len(raw) - len(raw.lstrip())
            alone = (i == 0 or not raw_lines[i - 1].strip()) and (
                i + 1 == len(raw_lines) or not raw_lines[i + 1].strip())
            lines.append((offset + lead, offset + lead + len(stripped), "".join(stripped.split()), alone))
        offset += len(raw) + 1
    found: list[tuple[int, int, int]] = []
    cursor = 0
    for title, level in headings:
        want = "".join(title.split())  # spacing aside: inline tags may add or drop a space
        if not want:
            continue
        same = [i for i in range(cursor, len(lines)) if lines[i][2] == want]
        if not same:
            continue
        best = next((i for i in same if lines[i][3]), same[0])
        found.append((lines[best][0], lines[best][1], level))
        cursor = best + 1
    return tuple(found)
