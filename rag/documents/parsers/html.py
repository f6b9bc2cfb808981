"""HTML via BeautifulSoup: scripts and styles dropped, blocks and headings kept as their own lines."""

from __future__ import annotations

import re
import warnings
from types import MappingProxyType

from bs4 import (
    BeautifulSoup,
    Comment,
    Declaration,
    Doctype,
    NavigableString,
    PageElement,
    ProcessingInstruction,
    Tag,
    XMLParsedAsHTMLWarning,
)

from rag.documents.decode import looks_binary
from rag.documents.errors import DocumentError
from rag.documents.parsers.base import PARSERS, ParsedText
from rag.documents.structure import locate_headings

_DROP = frozenset({"script", "style", "noscript", "template", "svg", "iframe", "head", "object", "nav"})
# Navigation blocks: ARIA role, DocBook XSL's navheader/navfooter, Publican's docnav.
_NAV_CLASSES = frozenset({"navheader", "navfooter", "docnav"})
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_PARAGRAPHS = _HEADINGS | frozenset({
    "p", "pre", "table", "ul", "ol", "dl", "blockquote", "section", "article", "header", "footer",
    "aside", "main", "figure", "form", "hr", "div", "address", "details", "summary", "figcaption",
    "caption",
})  # fmt: skip
_LINES = frozenset({"li", "tr", "dt", "dd", "br", "option"})
_CELLS = frozenset({"td", "th"})
_SKIPPED_STRINGS = (Comment, Doctype, Declaration, ProcessingInstruction)
_BLANK_RUNS = re.compile(r"\n{3,}")


def _dropped(tag: Tag) -> bool:
    classes = tag.get("class") or ()
    return tag.name in _DROP or tag.get("role") == "navigation" or not _NAV_CLASSES.isdisjoint(classes)


def _newlines(tag: Tag) -> int:
    """How many newlines a block boundary needs: 2 around paragraphs, 1 around list items and rows."""
    if tag.name in _PARAGRAPHS:
        return 2
    return 1 if tag.name in _LINES else 0


def _join(parts: list[str | int]) -> str:
    """Adjacent boundaries merge (the larger wins), so nested blocks never stack blank lines."""
    out: list[str] = []
    pending = 0
    for part in parts:
        if isinstance(part, int):
            pending = max(pending, part)
        elif part:
            if pending and out:
                out.append("\n" * pending)
            pending = 0
            out.append(part)
    return "".join(out)


def visible_text(root: Tag) -> str:
    """Walk the tree without recursion (deep real-world HTML overflows Python's stack)."""
    parts: list[str | int] = []  # text, or a block boundary's newline count
    stack: list[tuple[PageElement, bool]] = [(root, False)]
    while stack:
        node, closing = stack.pop()
        if isinstance(node, NavigableString):
            if not isinstance(node, _SKIPPED_STRINGS):
                in_pre = node.find_parent("pre") is not None
                parts.append(str(node) if in_pre else re.sub(r"\s+", " ", str(node)))
            continue
        if not isinstance(node, Tag):
            continue
        if closing:
            parts.append(_newlines(node))
            continue
        if _dropped(node):
            continue
        if node.name in _CELLS and node.find_previous_sibling(_CELLS) is not None:
            parts.append(" | ")
        parts.append(_newlines(node))
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(node.contents))
    lines = (" ".join(line.split()) for line in _join(parts).split("\n"))
    lines = (line for line in lines if not line or line.strip("| "))  # drop rows of empty cells
    return _BLANK_RUNS.sub("\n\n", "\n".join(lines)).strip()


def _title(soup: BeautifulSoup) -> str | None:
    for tag in (soup.title, soup.find("h1")):
        if tag is not None and tag.get_text(strip=True):
            return " ".join(tag.get_text(" ").split())
    return None


@PARSERS.register(".html")
def parse_html(data: bytes, name: str) -> ParsedText:
    """The encoding is what BeautifulSoup found (BOM, <meta charset>, or detection)."""
    if looks_binary(data):  # BeautifulSoup makes "text" of any bytes
        raise DocumentError("file does not look like HTML (binary bytes: NUL or control characters)",
                            "give it the extension of its real format, or export the page again")
    with warnings.catch_warnings():  # XHTML pages are meant to be read as HTML here
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        soup = BeautifulSoup(data, "lxml")
    body = soup.body or soup
    text = visible_text(body)
    if not text:
        raise DocumentError("HTML has no visible text", "check that the page is not built by JavaScript")
    tags = [t for t in body.find_all(list(_HEADINGS))
            if not any(_dropped(p) for p in t.parents if isinstance(p, Tag))]
    marked = [(t.get_text(), int(t.name[1])) for t in tags]
    extra = {"headings": len(tags), "heading_spans": locate_headings(text, marked)}
    return ParsedText(text, _title(soup), (), soup.original_encoding, None, MappingProxyType(extra))


PARSERS.add(".htm", parse_html)
