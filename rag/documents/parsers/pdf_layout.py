"""Where a PDF's headings are, read from its layout: the outline (bookmarks) when it has one, else
font size and weight from pypdf's text visitor.

A reader finds a PDF's headings by how they look — larger or bold type on lines of their own —
not by line length. Each page's text pieces come with their font and size; every line of the
page's extracted text gets the size and weight of most of its characters. The body size is the
size most characters have. A heading line is larger than the body, or bold throughout at body
size; lines in smaller type (running headers, footers, page numbers) never are, and running
headers and footers are dropped from the text. Consecutive heading lines in the same type are
one wrapped heading. Levels rank the larger types by size; bold body text is level 9. The
result is `(start, end, level)` offsets into the document's text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pypdf import PageObject, PdfReader
from pypdf.errors import PyPdfError

from rag.documents.structure import EMPHASIS_LEVEL

LARGER = 1.12  # a heading's type is at least this much larger than the body's
SMALLER = 0.92  # type this much smaller than the body is page furniture
MAX_HEADING_CHARS = 300  # a bold paragraph is emphasis, not a heading
_BOLD = re.compile(r"bold|black|heavy|semibold|demi", re.IGNORECASE)
_NUMBERED = re.compile(r"^(?:\(?\d{1,3}(?:\.\d{1,3})*[.)]?|Q\d*[:.)]?)\s+\S")


@dataclass(frozen=True)
class LineStyle:
    start: int  # offsets into the page text
    end: int
    size: float  # 0.0: no piece of the page's content stream matched the line
    bold: bool


Piece = tuple[str, float, bool]  # text, size, bold


def text_and_pieces(page: PageObject) -> tuple[str, list[Piece]]:
    """The page's extracted text and its pieces, from one extraction. Where pypdf ran two lines
    of large type together ("programs thathave been"), a piece that starts lower on the page
    than the one before, right where that one ended, starts a new line again."""
    pieces: list[Piece] = []
    heights: list[float] = []

    def visit(text: str, cm: Any, tm: Any, font: Any, size: float) -> None:
        if not text.strip():
            return
        scale = abs(float(tm[3])) if tm is not None and float(tm[3]) else 1.0
        name = str(font.get("/BaseFont", "")) if font is not None else ""
        pieces.append((text, round(float(size) * scale, 1), bool(_BOLD.search(name))))
        placed = tm is not None and cm is not None
        heights.append(float(tm[5]) * (float(cm[3]) or 1.0) + float(cm[5]) if placed else 0.0)

    raw = page.extract_text(visitor_text=visit) or ""
    return _restore_breaks(raw, pieces, heights), pieces


def _restore_breaks(text: str, pieces: Sequence[Piece], heights: Sequence[float]) -> str:
    cursor, cuts = 0, []
    for i, (piece, size, _) in enumerate(pieces):
        part = piece.strip("\n")
        if not part.strip():
            continue
        found = text.find(part, cursor)
        if found < 0 or found - cursor > 400:
            continue
        if (i and found == cursor and found > 0 and not text[found - 1].isspace()
                and abs(heights[i] - heights[i - 1]) > size * 0.5):
            cuts.append(found)
        cursor = found + len(part)
    for cut in reversed(cuts):
        text = f"{text[:cut]}\n{text[cut:]}"
    return text


def line_styles(page_text: str, pieces: Sequence[Piece]) -> list[LineStyle]:
    """Each line of `page_text` with the size and weight of most of its characters. Pieces are
    found in the text in order (the text is made of them); a piece not found is skipped."""
    size = [0.0] * len(page_text)
    bold = [False] * len(page_text)
    cursor = 0
    for text, piece_size, piece_bold in pieces:
        for part in text.split("\n"):
            part = part.strip()
            if not part:
                continue
            found = page_text.find(part, cursor)
            if found < 0 or found - cursor > 400:  # not here: leave the cursor, try the next
                continue
            for i in range(found, found + len(part)):
                size[i], bold[i] = piece_size, piece_bold
            cursor = found + len(part)
    styles, offset = [], 0
    for line in page_text.split("\n"):
        chars = [i for i in range(offset, offset + len(line)) if not page_text[i].isspace()]
        if chars:
            sizes = Counter(size[i] for i in chars)
            main = sizes.most_common(1)[0][0]
            styles.append(LineStyle(offset, offset + len(line), main,
                                    sum(bold[i] for i in chars) >= 0.9 * len(chars)))
        offset += len(line) + 1
    return styles


def body_size(styles: Sequence[LineStyle]) -> float:
    """The size most characters are set in."""
    weight: Counter[float] = Counter()
    for s in styles:
        if s.size:
            weight[s.size] += s.end - s.start
    return weight.most_common(1)[0][0] if weight else 0.0


def styled_headings(text: str, styles: Sequence[LineStyle]) -> list[tuple[int, ...]]:
    """(start, end, level) of the heading lines among `styles` (offsets into `text`), wrapped
    lines in the same type joined; the part of a heading carried over a page break (past the
    page's footer) is its own span with a fourth item, 1: "continues the heading before"."""
    body = body_size(styles)
    if not body:
        return []

    def kind(s: LineStyle) -> tuple[float, bool] | None:
        length = s.end - s.start
        if not s.size or s.size < body * SMALLER or length > MAX_HEADING_CHARS:
            return None
        if s.size >= body * LARGER:
            return (s.size, s.bold)
        line = text[s.start:s.end].strip()
        return (s.size, True) if s.bold and sum(c.isalpha() for c in line) >= 3 else None

    kinds = [kind(s) for s in styles]
    found: list[tuple[int, int, tuple[float, bool], int]] = []  # start, end, type, continues
    previous = -1  # the last line in body type or larger: a page's footer and header are skipped
    for i, (s, k) in enumerate(zip(styles, kinds, strict=True)):
        if s.size and s.size < body * SMALLER:
            continue
        line = text[s.start:s.end].strip()
        joins = (k is not None and found and previous >= 0 and kinds[previous] == k
                 and found[-1][1] == styles[previous].end and not _NUMBERED.match(line))
        adjacent = previous == i - 1
        previous = i
        if k is None:
            continue
        if joins and adjacent:
            found[-1] = (found[-1][0], s.end, k, found[-1][3])  # the heading wraps onto this line
        else:  # a new heading, or the rest of one carried over a page break (its footer between)
            found.append((s.start, s.end, k, int(bool(joins))))
    ranks = sorted({k for _, _, k, _ in found if k[0] >= body * LARGER}, key=lambda k: (-k[0], not k[1]))

    def level(k: tuple[float, bool]) -> int:
        return ranks.index(k) + 1 if k in ranks else EMPHASIS_LEVEL

    return [(a, b, level(k), c) if c else (a, b, level(k)) for a, b, k, c in found]


def _outline_entries(reader: PdfReader) -> list[tuple[str, int, int]]:
    """(title, level, 0-based page) of every bookmark."""
    out: list[tuple[str, int, int]] = []

    def walk(items: Any, level: int) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item, level + 1)
                continue
            try:
                page = reader.get_destination_page_number(item)
            except (PyPdfError, KeyError, AttributeError, TypeError, ValueError):
                continue
            if page is not None:
                out.append((str(item.title), level, page))

    try:
        walk(reader.outline, 1)
    except (PyPdfError, KeyError, AttributeError, TypeError, ValueError):
        return []
    return out


def _squash(text: str) -> str:
    return re.sub(r"\W+", "", text).lower()


def outline_headings(reader: PdfReader, page_texts: Sequence[str],
                     page_starts: Sequence[int]) -> list[tuple[int, int, int]]:
    """Bookmarks found as lines (or runs of up to three lines) of their page's text."""
    found = []
    for title, level, page in _outline_entries(reader):
        if not 0 <= page < len(page_texts) or not _squash(title):
            continue
        lines, offset = [], 0
        for line in page_texts[page].split("\n"):
            lines.append((offset, offset + len(line)))
            offset += len(line) + 1
        want = _squash(title)
        match = next(((i, j) for i in range(len(lines)) for j in range(i, min(i + 3, len(lines)))
                      if _squash(page_texts[page][lines[i][0]:lines[j][1]]) == want), None)
        if match is not None:
            base = page_starts[page]
            found.append((base + lines[match[0]][0], base + lines[match[1]][1], level))
    return sorted(set(found))


EDGE_LINES = 3  # running headers and footers sit in a page's first or last lines


def drop_furniture(page_texts: Sequence[str], pieces: Sequence[Sequence[Piece]]) -> tuple[list[str], int]:
    """The pages without their running headers and footers (a browser's date, title, address and
    "2/6"): lines in type smaller than the body's, at a page's top or bottom, that come again on
    other pages (digits aside), or on a one-page document. A reader skips them; left in, they
    split answers and headings at every page break. Returns the texts and how many lines went."""
    styles = [line_styles(t, p) for t, p in zip(page_texts, pieces, strict=True)]
    body = body_size([s for page in styles for s in page])
    if not body:
        return list(page_texts), 0
    edge: list[list[tuple[LineStyle, str]]] = []
    for text, page in zip(page_texts, styles, strict=True):
        small = [(i, s) for i, s in enumerate(page) if s.size and s.size < body * SMALLER]
        edge.append([(s, re.sub(r"\d+", "#", text[s.start:s.end].strip())) for i, s in small
                     if i < EDGE_LINES or i >= len(page) - EDGE_LINES])
    seen = Counter(sig for lines in edge for sig in {sig for _, sig in lines})
    out, dropped = [], 0
    for text, lines in zip(page_texts, edge, strict=True):
        cut = [line for line, sig in lines if seen[sig] >= 2 or len(page_texts) == 1]
        for line in sorted(cut, key=lambda line: -line.start):
            text = text[:line.start] + text[line.end + 1:] if line.end < len(text) else text[:line.start]
        dropped += len(cut)
        out.append(text.strip())
    return out, dropped


def pdf_headings(reader: PdfReader, page_texts: Sequence[str], page_starts: Sequence[int],
                 pieces: Sequence[Sequence[Piece]]) -> tuple[list[tuple[int, ...]], str]:
    """The document's headings and how they were found ("outline", "font" or "none")."""
    outlined = outline_headings(reader, page_texts, page_starts)
    if outlined:
        return list(outlined), "outline"
    styles: list[LineStyle] = []
    whole = [" "] * (page_starts[-1] + len(page_texts[-1]) if page_texts else 0)
    for number, page_text in enumerate(page_texts):
        base = page_starts[number]
        whole[base:base + len(page_text)] = page_text
        styles += [LineStyle(base + s.start, base + s.end, s.size, s.bold)
                   for s in line_styles(page_text, pieces[number])]
    found = styled_headings("".join(whole), styles)
    return found, "font" if found else "none"
