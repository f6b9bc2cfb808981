"""Where a document's sections start: headings found in its kept text, by format.

Where the parser saw the document's own structure (a PDF's outline or its larger and bold
type, HTML's h1-h6, DOCX heading styles), `find_headings` is given those headings as spans
(`metadata.extra["heading_spans"]`) and reads them as written, joined when they wrap, plus any
"Q:" entries; line shape is not guessed then.

Otherwise: Markdown keeps its markup, so ATX (`## Title`) and setext headings are read as
written. The other parsers keep plain text with no markup, so a heading is found by its
line's shape: a short line with no final period, starting a block (after a blank line, or in a
PDF after a line that ends a sentence), followed by body text. FAQ entries are found in every
format: "Q: …" lines (wrapped over up to three lines in a PDF) and lines that end in "?".

A Heading's `start:end` is the heading text itself (markup, numbering and "Q:" excluded);
`body` is where the text under it starts (after an "A:" marker, if any).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

MAX_HEADING_WORDS = 12  # a plain line longer than this is body text, not a heading
MAX_HEADING_CHARS = 80
MAX_QUESTION_CHARS = 200
WRAPPED_HEADING_SHARE = 0.6  # of the long-line length (75th percentile), in wrapped text

_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FAQ = re.compile(r"^(?:Q|Question)\s*\d*\s*[:.)]\s+(?=\S)", re.IGNORECASE)
# FAQ numbering a reader skips: "(6) ", "Q6 ", "Q6. ", "6) ", "#6 "
_FAQ_NUMBER = re.compile(r"^(?:\(\d{1,3}\)|Q\d{1,3}[.:)]|\d{1,3}\)|#\d{1,3}[.:)]?)\s+(?=\S)",
                         re.IGNORECASE)
_Q_NUMBER = re.compile(r"^Q\d{1,3}\s+(?=\S.*\?$)", re.IGNORECASE)  # "Q6 Can …?" ("Q4 results": no)
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
    kind: str  # "layout", "markdown", "faq", "question-line" or "line-shape"
    body: int  # where the section under it starts
    level: int = 0  # 1 = top, from the document's structure (0: not known)


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
    for pattern in (_NUMBER, _FAQ_NUMBER, _Q_NUMBER, _FAQ):
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
    if not (_NUMBER.match(rows[index].text) or _FAQ_NUMBER.match(rows[index].text)):
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


MIN_STRUCTURE = 2  # fewer marked headings than this (a title alone) say nothing of the sections


def find_headings(text: str, fmt: str, spans: Sequence[Sequence[int]] = ()) -> list[Heading]:
    """Every heading and FAQ question of a document, in order. `spans`: the headings the
    document marks itself, (start, end, level) in `text`, used instead of line shape."""
    fmt = fmt.lower().lstrip(".")
    if len(spans) >= MIN_STRUCTURE and fmt not in ("md", "markdown"):
        return _structured(text, spans)
    return list(_scan(text, fmt))


def _one_line(text: str) -> str:
    """A wrapped heading on one line; a word hyphenated at the wrap ("CD-" / "ROM") kept whole."""
    return " ".join(re.sub(r"(?<=\w-)\s*\n\s*(?=\w)", "", text).split())


def _structured(text: str, spans: Sequence[Sequence[int]]) -> list[Heading]:
    """The marked headings (wrapped lines joined into one), and "Q:" entries outside them."""
    rows = lines(text)
    starts = [r.start for r in rows]
    heads: list[Heading] = []
    covered: list[tuple[int, int]] = []
    for span in sorted(tuple(int(x) for x in span) for span in spans):
        start, end, level = span[:3]
        if not 0 <= start < end <= len(text):
            continue
        covered.append((start, end))
        last = max(bisect_right(starts, end - 1) - 1, 0)
        if len(span) > 3 and span[3] and heads and heads[-1].kind == "layout":
            joined = _one_line(f"{heads[-1].text}\n{text[start:end]}")  # over a page break
            heads[-1] = replace(heads[-1], end=end, text=joined, body=_body_after(text, rows, last))
            continue
        clean, a, b = _clean(_one_line(text[start:end]), start)
        if not clean:
            continue
        heads.append(Heading(a, b if clean == text[a:b] else end, clean, "layout",
                             _body_after(text, rows, last), level))
    for i, row in enumerate(rows):
        if row.text and _FAQ.match(row.text) and not any(a <= row.start < b for a, b in covered):
            found = _faq_question(rows, i)
            if found is not None:
                raw = text[rows[found[0]].start:rows[found[1]].end]
                clean, a, b = _clean(raw, rows[found[0]].start)
                heads.append(Heading(a, b, " ".join(clean.split()), "faq",
                                     _body_after(text, rows, found[1])))
    return sorted(heads, key=lambda h: h.start)


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
                yield Heading(start, end, clean, "markdown", _body_after(text, rows, i),
                              len(atx.group(1)))
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
