"""Where a document's sections start: headings found in its kept text, by format.

Markdown keeps its markup, so ATX (`## Title`) and setext headings are read as written. The other
parsers (PDF, HTML, DOCX, TXT, PPTX) keep plain text with no markup, so a heading is found by its
line's shape: a short line with no final period, starting a block (after a blank line, or in a
PDF after a line that ends a sentence), followed by body text. FAQ entries are found in every
format: "Q: …" lines (wrapped over up to three lines in a PDF) and lines that end in "?".

A Heading's `start:end` is the heading text itself (markup, numbering and "Q:" excluded);
`body` is where the text under it starts (after an "A:" marker, if any).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

MAX_HEADING_WORDS = 12  # a plain line longer than this is body text, not a heading
MAX_HEADING_CHARS = 80
MAX_QUESTION_CHARS = 200
WRAPPED_HEADING_SHARE = 0.6  # of the long-line length (75th percentile), in wrapped text

_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FAQ = re.compile(r"^(?:Q|Question)\s*\d*\s*[:.)]\s+(?=\S)", re.IGNORECASE)
_ANSWER = re.compile(r"(?:A|Answer)\s*[:.)]\s+", re.IGNORECASE)
_NUMBER = re.compile(
    r"^(?:(?:(?:Chapter|Section|Part|Step|Appendix)\s+)?(?:\d{1,3}(?:\.\d{1,3})*|[A-Z]|[IVXL]{1,5})[.)]"
    r"|\d{1,3}(?:\.\d{1,3})+)\s+(?=\S)"
)
_EMPHASIS = re.compile(r"^(\*\*|__|\*|_)(.+)\1$")
_BULLET = re.compile(r"^(?:[-*+•▪◦·]|\d+[.)]\s+\S.*[.:;,]$)\s*")
_SENTENCE_END = (".", "!", "?", ":", '"', "”", ")")


@dataclass(frozen=True)
class Line:
    start: int  # offset of the first non-space character
    end: int  # offset after the last non-space character
    text: str


@dataclass(frozen=True)
class Heading:
    start: int  # the heading's own text in the document (markup, numbering, "Q:" excluded)
    end: int
    text: str
    kind: str  # "markdown", "faq", "question-line" or "line-shape"
    body: int  # where the section under it starts


def lines(text: str) -> list[Line]:
    out, offset = [], 0
    for raw in text.split("\n"):
        stripped = raw.strip()
        if stripped:
            lead = len(raw) - len(raw.lstrip())
            out.append(Line(offset + lead, offset + lead + len(stripped), stripped))
        else:
            out.append(Line(offset, offset, ""))
        offset += len(raw) + 1
    return out


def _clean(text: str, start: int) -> tuple[str, int, int]:
    """Strip numbering ("2.1", "IV.") and emphasis markers; return text and its new offsets."""
    end = start + len(text)
    for pattern in (_NUMBER, _FAQ):
        found = pattern.match(text)
        if found:
            text, start = text[found.end():], start + found.end()
    found = _EMPHASIS.match(text)
    if found:
        text, start = found.group(2), start + len(found.group(1))
        end = start + len(text)
    stripped = text.rstrip()
    return stripped, start, start + len(stripped) if stripped else end


def _body_after(text: str, rows: list[Line], index: int) -> int:
    """The offset where the section under line `index` starts: the next non-blank line, past an
    "A:" marker."""
    for row in rows[index + 1:]:
        if row.text:
            found = _ANSWER.match(text, row.start)
            return found.end() if found else row.start
    return len(text)


def _next_text(rows: list[Line], index: int) -> Line | None:
    return next((r for r in rows[index + 1:] if r.text), None)


def _faq_question(rows: list[Line], index: int) -> tuple[int, int] | None:
    """Lines index..j of a "Q:" entry (up to three wrapped lines ending in "?")."""
    for j in range(index, min(index + 3, len(rows))):
        if not rows[j].text or (j > index and _ANSWER.match(rows[j].text)):
            break
        if rows[j].text.endswith("?"):
            return index, j
    return (index, index) if rows[index].text else None


def _numbered_question(rows: list[Line], index: int) -> int | None:
    """A numbered question ("7.13. How do I …?"), wrapped over up to three lines (PDF text): the
    index of its last line. The number marks a heading wherever the line above ends."""
    if not _NUMBER.match(rows[index].text):
        return None
    chars = 0
    for j in range(index, min(index + 3, len(rows))):
        chars += len(rows[j].text)
        if not rows[j].text or chars > MAX_QUESTION_CHARS:
            return None
        if rows[j].text.endswith("?") or ("?" in rows[j].text and rows[j].text.endswith("!")):
            return j  # "9.4. How can I keep a log …? I'd like to know …!" asks too
        if rows[j].text.endswith((".", ":", ";", "!")):
            return None
    return None


def _is_body(row: Line | None) -> bool:
    """Body text: a sentence, or a line long enough to be one wrapped."""
    if row is None or _FAQ.match(row.text) or _ATX.match(row.text) or "|" in row.text:
        return False
    return len(row.text.split()) >= 6 or (row.text.endswith((".", "!")) and len(row.text) > 20)


def _line_shape(rows: list[Line], index: int, after_heading: bool, wide: int) -> bool:
    """Short, unpunctuated, starting a block (or right under another heading), followed by body
    text. Inside wrapped text (no blank line around it, as PDF text comes) a heading must also
    be clearly shorter than the document's long lines, else it is a paragraph's first line."""
    row = rows[index]
    words = row.text.split()
    if len(words) > MAX_HEADING_WORDS or len(row.text) > MAX_HEADING_CHARS or "|" in row.text:
        return False
    wrapped = (index > 0 and rows[index - 1].text) or (index + 1 < len(rows)
                                                       and rows[index + 1].text)
    if wrapped and len(row.text) > WRAPPED_HEADING_SHARE * wide:
        return False
    if row.text.endswith((".", ",", ";", ":", "!")) or not (row.text[0].isupper()
                                                             or row.text[0].isdigit()):
        return False
    if _BULLET.match(row.text) or sum(c.isalpha() for c in row.text) < 3:
        return False
    prev = rows[index - 1] if index > 0 else None
    if prev is not None and prev.text and not after_heading and not prev.text.endswith(_SENTENCE_END):
        return False  # continues the line above
    if prev is not None and prev.text.endswith(":"):
        return False  # an item of a list the line above introduces
    return _is_body(_next_text(rows, index))


def find_headings(text: str, fmt: str) -> list[Heading]:
    """Every heading and FAQ question of a document, in order."""
    return list(_scan(text, fmt.lower().lstrip(".")))


def _scan(text: str, fmt: str) -> Iterator[Heading]:
    rows = lines(text)
    markdown = fmt in ("md", "markdown")
    fence = False
    last = -2  # the row of the last heading found
    lengths = sorted(len(r.text) for r in rows if r.text)
    wide = lengths[3 * len(lengths) // 4] if lengths else 0
    i = 0
    while i < len(rows):
        row = rows[i]
        if markdown and row.text.startswith(("```", "~~~")):
            fence = not fence
        if not row.text or fence:
            i += 1
            continue
        if _FAQ.match(row.text):
            lines_of = _faq_question(rows, i)
            if lines_of is not None:
                first, last = lines_of
                raw = text[rows[first].start:rows[last].end]
                clean, start, end = _clean(raw, rows[first].start)
                yield Heading(start, end, " ".join(clean.split()), "faq",
                              _body_after(text, rows, last))
                i = last + 1
                continue
        atx = _ATX.match(row.text) if markdown else None
        if atx is not None:
            clean, start, end = _clean(atx.group(2), row.start + atx.start(2))
            if clean:
                yield Heading(start, end, clean, "markdown", _body_after(text, rows, i))
            i += 1
            continue
        if markdown and i + 1 < len(rows) and _SETEXT.match(rows[i + 1].text) and rows[i + 1].text:
            if not rows[i + 1].text.startswith("-") or (i == 0 or not rows[i - 1].text):
                clean, start, end = _clean(row.text, row.start)
                yield Heading(start, end, clean, "markdown", _body_after(text, rows, i + 1))
                i += 2
                continue
        numbered = _numbered_question(rows, i)
        if numbered is not None:
            raw = text[row.start:rows[numbered].end]
            clean, start, end = _clean(raw, row.start)
            last = numbered
            yield Heading(start, end, " ".join(clean.split()), "question-line",
                          _body_after(text, rows, numbered))
            i = numbered + 1
            continue
        if row.text.endswith("?") and len(row.text) <= MAX_QUESTION_CHARS and (
            i == 0 or not rows[i - 1].text or rows[i - 1].text.endswith(_SENTENCE_END)
        ) and _next_text(rows, i) is not None and not _BULLET.match(row.text):
            clean, start, end = _clean(row.text, row.start)
            yield Heading(start, end, clean, "question-line", _body_after(text, rows, i))
        elif not markdown and _line_shape(rows, i, last == i - 1, wide):
            clean, start, end = _clean(row.text, row.start)
            if clean:
                last = i
                yield Heading(start, end, clean, "line-shape", _body_after(text, rows, i))
        i += 1
