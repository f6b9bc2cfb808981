"""The whole sentences a context block offers the extractive answerer.

A chunk starts and ends wherever its splitter cut, so its first and last sentences are often
pieces ("automatically deleted when the table is."). With the block's document text (the
collection keeps it, rag.index.document_texts), every sentence the block overlaps is taken whole
from the document: the span is extended to the sentence's start and end and marked `completed`,
and it is still cited as the block. Without the document text, a piece at the block's edge that
does not read as whole is dropped. Either way, a sentence the *document* itself starts or ends
mid-way (a passage cut out of a longer text) is dropped.

Only statements are offered: headings (also a numbered title run into the text), question lines
("Q: …?", anything ending in "?"), list lead-ins ending in ":", table rules, a table row
flattened into one line, pointers elsewhere ("See Section 7.9 …") and code fences are skipped;
list markers and answer labels ("A:") are cut from the front; line breaks inside a sentence (PDF
wrapping) become spaces; a heading an HTML page ran into a section's first sentence is cut off.
Each sentence knows its place in its section (`Unit.lead`: 0 for the first statement after a
heading, a question or the document's start) and the section's span; asked for `openings`, a
block that starts deep in a section also offers the section's opening statements.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from rag.outputs.context import ContextBlock
from rag.text import Sentence, ends_sentence, split_sentences

LEAD_UNKNOWN = 1_000  # a sentence whose place in its section is not known
MIN_WORDS = 3  # "A: Yes." or "Notes." alone answers nothing
HEADING_MAX_WORDS = 8  # a line this short with no sentence-ending punctuation reads as a heading

_HEADING = re.compile(r"^\s*#{1,6}\s")
_QUESTION_LABEL = re.compile(r"^\s*(?:q|question)\s*[:.)]\s*", re.I)
_ANSWER_LABEL = re.compile(r"^\s*(?:a|answer)\s*[:.)]\s*", re.I)
_LIST_MARKER = re.compile(r"^\s*(?:[-*•+>]|\d{1,3}[.)]|[a-z][.)])\s+", re.I)
_TABLE = re.compile(r"^\s*\|")
_FENCE = re.compile(r"^\s*(```|~~~)")
# a numbered section title an HTML or PDF page runs into the text ("4.4.7. chroots",
# "Handling security-related bugs 5.8.5.1."): three-level numbers, so "Lumen Notes 4.0." stays
_NUMBERED_TITLE = re.compile(r"^\d+(?:\.\d+)+\.?\s|\s\d+(?:\.\d+){2,}\.?$")
# a heading an HTML page runs into its section's first sentence ("Choosing a Debian distribution
# There are many …", "The Foundation Documents A few years after …"): a short title, then a word
# that only starts a sentence capitalized. Cut off, so its words do not count as the sentence's
# and the quote starts where the sentence does
_RUN_IN_HEADING = re.compile(
    r"^[A-Z][^\n.!?:;,]{0,80}?[A-Za-z0-9)]\s+(?=(?:The|A|An|This|These|That|Those|There|Here|In|On|"
    r"Some|Most|Many|Each|Every|All|It|Its|If|When|To|For|By|With|As|You|Your|We|Our|They)\s+\S)")
# ... unless the front reads as a clause: "You can read The Debian Handbook online."
_CLAUSE_WORD = re.compile(r"\b(?:i|you|we|he|she|it|they|is|are|was|were|be|can|could|will|would|"
                          r"should|may|might|must|has|have|had|do|does|did|read|see|use)\b")
# a pointer to another place answers nothing itself ("See Section 7.9, …", "For details, see …")
_CROSS_REFERENCE = re.compile(
    r"^(?:see|refer to|for (?:more|further) (?:information|details)|for details)\b", re.I)
# a section's opening: what the section prior reads (about the 256 word pieces MiniLM reads) and,
# with `openings`, the sentences a block deeper in the section also offers
SECTION_OPENING_CHARS = 1_000
# a word with one of these is code, not prose: a path or URL, an assignment, braces, a variable,
# an elision ("dists/stable/main/", "VAR1=VAL1", "${HOME}", "...")
_CODE_TOKEN = re.compile(r"[/\\=<>{}$]|^(?:\.\.\.|…)$")
LISTING_SHARE = 0.5  # a "sentence" with this share of code words is a listing, not a statement
LISTING_MIN_CODE = 3  # ... and at least this many: "The file is /etc/fstab." stays a sentence
TABLE_CELLS = 3  # a "sentence" with this many " | " is a table flattened into one line, not a sentence


class DocumentTexts(Protocol):
    """Where the answerer reads a block's whole document (None: not kept)."""

    def document_text(self, doc_id: str) -> str | None: ...


@dataclass(frozen=True)
class Unit:
    """One whole sentence a block offers: display text, document offsets, block citation."""

    text: str  # as quoted: markers and labels cut, whitespace collapsed
    n: int  # [Source n]
    doc_id: str
    start: int  # the sentence's span in the document (in the block's text when not located)
    end: int
    position: int  # order inside its document (or block)
    completed: bool  # extended beyond the block's span, or its section's opening before the block
    located: bool = True  # start/end are document offsets (False: offsets in the block's text)
    # its place among the statements of its section: 0 = the first after a heading, a question
    # or the document's start (LEAD_UNKNOWN: a block cut from a text we do not have whole)
    lead: int = LEAD_UNKNOWN
    # where its section starts and ends (same offsets as start/end): from the heading or question
    # that opens it (or the document's start) to the next one; what the section prior reads
    section_start: int = 0
    section_end: int = 0

    @property
    def reads_as_sentence(self) -> bool:
        """Whether its first word starts the way a sentence does (see `reads_as_sentence`)."""
        return reads_as_sentence(self.text)


# what may open a sentence before its first word (quotes, brackets, emphasis)
_OPENERS = "\"'“‘(*_"


def reads_as_sentence(text: str) -> bool:
    """Whether `text` starts the way a sentence does: its first word (after opening quotes,
    brackets or emphasis) does not start lower-case, and it does not start with punctuation
    that continues something before it ("} octal format …", ", and then …"). A sentence the
    document itself opens with a lower-case name ("reprepro stores …", "dists/stable contains
    …", a definition "hold - the user wants …") is whole in the document but does not read as
    a sentence on its own: the issue's rule counts it as a fragment, and a reader takes it for
    one cut from the middle of something. The answerer quotes it only when no sentence that
    reads as one answers (rag.generate.extractive)."""
    first = text.lstrip(_OPENERS)[:1]
    return bool(first) and not (first.isalpha() and first.islower()) \
        and first not in ",;:.)]}…-–—|"


def opens_section(text: str) -> bool:
    """A heading or a question: what the statements after it answer."""
    first_line = text.strip().splitlines()[0] if text.strip() else ""
    cleaned = " ".join(text.split()).rstrip("*_ ")
    return bool(_HEADING.match(first_line) or _QUESTION_LABEL.match(first_line)
                or cleaned.endswith("?") or _numbered_title(cleaned)
                or (0 < len(cleaned.split()) <= HEADING_MAX_WORDS and not ends_sentence(cleaned)))


def _numbered_title(cleaned: str) -> bool:
    return len(cleaned.split()) <= HEADING_MAX_WORDS and bool(_NUMBERED_TITLE.search(cleaned))


def statement(text: str) -> str | None:
    """The sentence as quoted, or None when it states nothing (heading, question, lead-in,
    a pointer to another section, a flattened table row …)."""
    first_line = text.strip().splitlines()[0] if text.strip() else ""
    if (not first_line or _HEADING.match(first_line) or _TABLE.match(first_line)
            or _FENCE.match(first_line) or _QUESTION_LABEL.match(first_line)):
        return None
    cleaned = " ".join(_ANSWER_LABEL.sub("", _LIST_MARKER.sub("", text)).split())
    end = cleaned.rstrip("*_ ")
    if len(cleaned.split()) < MIN_WORDS or end.endswith(("?", ":")):
        return None
    if len(cleaned.split()) <= HEADING_MAX_WORDS and not ends_sentence(cleaned):
        return None  # a heading or a label
    if (_numbered_title(cleaned) or _CROSS_REFERENCE.match(cleaned)
            or cleaned.count(" | ") >= TABLE_CELLS or _listing(cleaned)):
        return None
    return cleaned


def _listing(cleaned: str) -> bool:
    """A listing an HTML page ran into one line (a directory tree, URLs, commands): at least
    half of its words, and at least LISTING_MIN_CODE, are code (paths, URLs, assignments, "…")."""
    tokens = cleaned.split()
    code = sum(bool(_CODE_TOKEN.search(t)) for t in tokens)
    return code >= LISTING_MIN_CODE and code >= LISTING_SHARE * len(tokens)


def without_run_in_heading(sentence: Sentence) -> Sentence:
    """The sentence without a heading run into its front (a section's first sentence only: the
    caller decides), or the sentence itself."""
    found = _RUN_IN_HEADING.match(sentence.text)
    if found is None or len(found.group(0).split()) > HEADING_MAX_WORDS \
            or _CLAUSE_WORD.search(found.group(0)):
        return sentence
    return Sentence(sentence.text[found.end():], sentence.start + found.end(), sentence.end)


def _starts_whole(sentence: Sentence, source: str) -> bool:
    """Not a piece that begins mid-sentence: a lower-case start must follow a sentence end in
    the same paragraph."""
    first = sentence.text.lstrip("\"'“(*_`")[:1]
    if not (first.isalpha() and first.islower()):
        return True
    before = source[: sentence.start].rstrip()
    # across a blank line the stop before ends a title or another paragraph, not this sentence's
    # predecessor: a passage cut mid-sentence under its title ("Chapter 8. …\n\nused in writing
    # the file, …") starts with a piece
    paragraph_start = re.search(r"\n[ \t]*\n\s*$", source[: sentence.start]) is not None
    return bool(before) and before[-1] in ".!?:" and not paragraph_start


def _ends_whole(sentence: Sentence, source: str) -> bool:
    """Ends a sentence, or is a whole list item / line the source ends with a line break."""
    if ends_sentence(sentence.text):
        return True
    line_end = source.startswith("\n", sentence.end) or source[sentence.end:].startswith("\r")
    return line_end and "\n" not in sentence.text and bool(_LIST_MARKER.match(sentence.text))


def is_whole(sentence: Sentence, source: str) -> bool:
    """Whether `sentence` (split from `source`) reads as a whole sentence of it."""
    return _starts_whole(sentence, source) and _ends_whole(sentence, source)


def _located(block: ContextBlock, document: str) -> list[tuple[int, int]]:
    """The document ranges the block's text covers (one for a verbatim block; a compressed
    block's sentences found one by one)."""
    if block.verbatim and document[block.start : block.end] == block.text:
        return [(block.start, block.end)]
    ranges = []
    for piece in split_sentences(block.text):
        at = document.find(piece.text, block.start, max(block.end, block.start + len(block.text)) + 1)
        if at >= 0:
            ranges.append((at, at + len(piece.text)))
    return ranges


def section_leads(sentences: list[Sentence]) -> list[int]:
    """Each sentence's place among the statements of its section: the count restarts after a
    heading or a question and at the document's start; what is neither and states nothing ("Yes.",
    a lead-in, a pointer) is not counted."""
    leads, place = [], 0
    for sentence in sentences:
        if statement(sentence.text) is not None:
            leads.append(place)
            place += 1
        else:
            leads.append(LEAD_UNKNOWN)
            if opens_section(sentence.text):
                place = 0
    return leads


def section_spans(sentences: list[Sentence], length: int) -> list[tuple[int, int]]:
    """Each sentence's section as (start, end) offsets: from the heading or question that opens it
    (the same openers as `section_leads`; the document's start before the first) to the next
    opener's start (`length` after the last)."""
    openers = [s.start for s in sentences if statement(s.text) is None and opens_section(s.text)]
    spans, at = [], 0
    for sentence in sentences:
        while at < len(openers) and openers[at] <= sentence.start:
            at += 1
        spans.append((openers[at - 1] if at else 0, openers[at] if at < len(openers) else length))
    return spans


def _from_document(block: ContextBlock, document: str, sentences: list[Sentence],
                   leads: list[int], sections: list[tuple[int, int]],
                   openings: bool = False) -> Iterator[Unit]:
    ranges = _located(block, document)
    hit_sections = {sections[i][0] for i, s in enumerate(sentences)
                    if any(s.start < b and a < s.end for a, b in ranges)} if openings else set()
    for position, sentence in enumerate(sentences):
        inside = [(a, b) for a, b in ranges if sentence.start < b and a < sentence.end]
        section = sections[position][0]
        opening = (not inside and section in hit_sections and sentence.start < block.start
                   and sentence.start - section < SECTION_OPENING_CHARS)
        if not (inside or opening) or not is_whole(sentence, document):
            continue
        if leads[position] == 0:
            sentence = without_run_in_heading(sentence)
        text = statement(sentence.text)
        if text is None:
            continue
        completed = not any(a <= sentence.start and sentence.end <= b for a, b in inside)
        yield Unit(text, block.n, block.doc_id, sentence.start, sentence.end, position, completed,
                   lead=leads[position], section_start=sections[position][0],
                   section_end=sections[position][1])


def _from_block(block: ContextBlock) -> Iterator[Unit]:
    pieces = split_sentences(block.text)
    # the block's text starts its section only when it starts the document
    leads = section_leads(pieces) if block.start == 0 else [LEAD_UNKNOWN] * len(pieces)
    # its section is the block's text: all of it that we have
    sections = section_spans(pieces, len(block.text)) if block.start == 0 else \
        [(0, len(block.text))] * len(pieces)
    for position, sentence in enumerate(pieces):
        # the block's own text is all we know: its edges may be cuts
        at_edge_start = position == 0 and block.start > 0
        at_edge_end = position == len(pieces) - 1 and not ends_sentence(sentence.text)
        if not is_whole(sentence, block.text) or (at_edge_start and not _looks_started(sentence)) \
                or at_edge_end:
            continue
        text = statement(sentence.text)
        if text is not None:
            yield Unit(text, block.n, block.doc_id, sentence.start, sentence.end, position, False,
                       located=False, lead=leads[position], section_start=sections[position][0],
                       section_end=sections[position][1])


def _looks_started(sentence: Sentence) -> bool:
    first = sentence.text.lstrip("\"'“(*_`-•>0123456789.) ")[:1]
    return first.isupper() or not first.isalpha()


# per document: its sentences, their section leads and their section spans
SplitCache = dict[str, tuple[list[Sentence], list[int], list[tuple[int, int]]]]


def block_units(block: ContextBlock, documents: DocumentTexts | None,
                cache: SplitCache | None = None, openings: bool = False) -> list[Unit]:
    """The whole statement sentences of `block`, in document order; `cache` keeps each
    document's split (and its section leads and spans) across the blocks of one answer. With
    `openings`, a block that starts inside a section also offers that section's opening
    sentences (its first SECTION_OPENING_CHARS characters) from the document, marked
    `completed` and cited as the block: the hit said where the answer is, and a section's first
    statements answer its heading (the lead prior), even when the chunk cut them off."""
    document = documents.document_text(block.doc_id) if documents is not None else None
    if document is None or not _located(block, document):
        return list(_from_block(block))
    cache = {} if cache is None else cache
    if block.doc_id not in cache:
        sentences = split_sentences(document)
        cache[block.doc_id] = (sentences, section_leads(sentences),
                               section_spans(sentences, len(document)))
    return list(_from_document(block, document, *cache[block.doc_id], openings=openings))
