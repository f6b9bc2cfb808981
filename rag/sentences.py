"""Sentence spans of real documents: prose, Markdown, PDF text and code.

A boundary is sentence-ending punctuation (. ! ?, closing quotes/brackets after it) followed by
whitespace and a word that can start a sentence, or a line break that starts a new unit (a list
item, a Markdown heading or table row, a code fence, a blank line). What is *not* a boundary:

- a full stop before a lower-case word after a short word or a known abbreviation ("e.g. the",
  "etc. and", "v. 2"), or before any word after a known abbreviation or an initial ("e.g.
  Debian", "Dr. Knuth", "J. Smith");
- a full stop with no space after it ("v3.6.19", "config.txt", "www.debian.org"), or the one of a
  numbered list item's marker ("1. Install it."), or one inside a quoted name before a lower-case
  word ('any one of "program.*") on the server');
- anything inside inline `code` or a ``` fenced block (a fenced block is one unit of its own);
- a single line break inside a paragraph (PDF and plain-text line wrapping), unless the line
  before it is a short title line (no end punctuation, not ending in a word like "from" or "the"
  that the next line continues; at most 4 words, or half of them capitalized or numbered as a
  title's are — "The Debian project was founded by Ian\nMurdock …" is a wrapped line) and the
  next starts upper-case.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.M | re.S)
_INLINE_CODE = re.compile(r"`[^`\n]+`")
# . ! ? (or an ellipsis), closers, then whitespace; the group is the whitespace
_END = re.compile(r"(?:[.!?]|\.\.\.|…)[\"'”’)\]*_]*(\s+)")
_BREAK = re.compile(r"\n[ \t]*\n\s*")
_LINE = re.compile(r"\n")
_NEW_UNIT = re.compile(r"[ \t]*(?:[-*•+]\s|\d{1,3}[.)]\s|#{1,6}\s|\||```|~~~|>\s)")
_UNIT_LINE = re.compile(r"^[ \t]*(?:#{1,6}\s|\|)")  # a Markdown heading or table row ends at its line
# words that end with a full stop without ending the sentence (lower-cased, without the stop)
ABBREVIATIONS = frozenset(
    """e.g i.e cf vs etc al approx ca resp incl esp viz fig figs eq no nos vol ch sec secs pp p
    mr mrs ms dr prof st jr sr inc ltd co corp dept min max""".split()
)  # fmt: skip
_ABBREVIATION_ENDS = frozenset({"etc"})  # often the end of a sentence: split when a capital follows
_SHORT_WORD = 4  # a word this short before ". lower-case" reads as an abbreviation ("approx" is listed)
_TITLE_MAX_WORDS = 8  # a line this short, without end punctuation, before a capital: a title line
_TITLE_ANY_CASE_WORDS = 4  # ... and one longer than this reads as a title only in title case
# a line ending in one of these goes on in the next ("You can get it from\nDebian mirrors.")
_CONTINUING_WORDS = frozenset(
    """a an the of to in on at by for from with without into onto over under about as and or but
    nor than that which who whose whom is are was were be been has have had do does can could will
    would should may might must not if when where while because via per its their your our his
    her this these those such each every any some both either between through during after before
    until since using""".split()
)  # fmt: skip
# an opening quote and no whitespace up to the stop: the stop is inside a quoted file name,
# pattern or command ("program.*", 'config.txt.')
_QUOTED_TOKEN = re.compile(r"[\"“'‘`][^\s\"“”'‘’`]*$")
_LIST_NUMBER = re.compile(r"[ \t]*(?:\d{1,3}|[A-Za-z])")  # "1. Install it.": the stop is the marker's


@dataclass(frozen=True)
class Sentence:
    """`text == source[start:end]` for the string it was split from."""

    text: str
    start: int
    end: int


def _masked(text: str) -> str:
    """`text` with code replaced by same-length filler, so no boundary is found inside it."""
    def fill(match: re.Match[str]) -> str:
        return re.sub(r"[^\n]", "x", match.group(0))

    return _INLINE_CODE.sub(fill, text)


def _word_before(text: str, end: int) -> str:
    """The word (letters, digits, inner dots) that ends at `end`, lower-cased."""
    match = re.search(r"[\w.]+$", text[max(0, end - 24) : end])
    return match.group(0).lower().rstrip(".") if match else ""


def _can_start(text: str, at: int) -> bool:
    """Whether a sentence starts at `at` the usual way: not with a lower-case letter."""
    if at >= len(text):
        return True
    char = text[at]
    return not (char.isalpha() and char.islower())


def _full_stop_ends(text: str, stop: int, after: int) -> bool:
    """Whether the punctuation at `stop` ends a sentence when the next sentence would start at
    `after` (the first character after the whitespace)."""
    if text[stop] != ".":
        return True
    if _LIST_NUMBER.fullmatch(text, text.rfind("\n", 0, stop) + 1, stop):
        return False
    word = _word_before(text, stop)
    if not _can_start(text, after):
        if _QUOTED_TOKEN.search(text, max(0, stop - 80), stop) and re.search(r"[\"”'’`]",
                                                                          text[stop:after]):
            return False  # a stop inside a quoted name: 'any one of "program.*") on the server'
        # "approx. the", "e.g. a", "v. 2" — but "hourly. it" ends one
        return not (len(word) <= _SHORT_WORD or "." in word or word in ABBREVIATIONS)
    if word in ABBREVIATIONS and word not in _ABBREVIATION_ENDS:
        return False
    return not re.fullmatch(r"[a-z]", word) or not text[stop - 1].isupper()  # "J. Smith"


def _title_line(line: str) -> bool:
    stripped = line.strip()
    words = stripped.split()
    return (0 < len(words) <= _TITLE_MAX_WORDS and not re.search(r"[.!?:;,\-–—(]$", stripped)
            and words[-1].lower() not in _CONTINUING_WORDS
            and (len(words) <= _TITLE_ANY_CASE_WORDS
                 or 2 * sum(not w[0].islower() for w in words) >= len(words)))


def _boundaries(text: str) -> list[tuple[int, int]]:
    """(end of one sentence, start of the next) pairs, in order."""
    cuts: list[tuple[int, int]] = []
    fences = [(m.start(), m.end()) for m in _FENCE.finditer(text)]
    masked = _masked(text)
    for a, b in fences:
        masked = masked[:a] + "x" * (b - a) + masked[b:]
        cuts += [(a, a), (b, b)]
    for match in _END.finditer(masked):
        stop = match.start(1) - 1
        while masked[stop] in "\"'”’)]*_":
            stop -= 1
        if _full_stop_ends(masked, stop, match.end()):
            cuts.append((match.start(1), match.end()))
    for match in _BREAK.finditer(masked):
        cuts.append((match.start(), match.end()))
    for match in _LINE.finditer(masked):
        line_start = masked.rfind("\n", 0, match.start()) + 1
        line = masked[line_start : match.start()]
        nxt = match.end()
        if (_NEW_UNIT.match(masked, nxt) or _UNIT_LINE.match(line)
                or (_title_line(line) and nxt < len(masked) and masked[nxt].isupper())):
            cuts.append((match.start(), nxt))
    return sorted(set(cuts))


def split_sentences(text: str) -> list[Sentence]:
    """Sentences with character offsets; surrounding whitespace is trimmed, empty pieces dropped."""
    sentences: list[Sentence] = []
    position = 0
    for end, start in [*_boundaries(text), (len(text), len(text))]:
        if end < position:
            continue
        piece = text[position:end]
        stripped = piece.strip()
        if stripped:
            first = position + piece.index(stripped)
            sentences.append(Sentence(stripped, first, first + len(stripped)))
        position = max(position, start)
    return sentences


_TERMINAL = re.compile(r"(?:[.!?]|\.\.\.|…)[\"'”’)\]*_`]*$")


def ends_sentence(text: str) -> bool:
    """Whether `text` ends with sentence-ending punctuation (closing quotes etc. allowed)."""
    return bool(_TERMINAL.search(text.rstrip()))
