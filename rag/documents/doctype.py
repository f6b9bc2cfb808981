"""Document-type detection exactly in EchoMind's order: SENSITIVE → FAQ → BOOK → USER.

Heuristics only, each returning the reason it fired (or did not) so the UI can show it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.documents.pii import describe_counts, find_pii, pii_density
from rag.records.document import DocType
from rag.settings.documents import DocumentsConfig

# "Q: …", "Q3.", "Question 2: …", optionally after a list number, bullet, heading or bold marker.
_MARKER = r"^\s*(?:#{1,6}\s*|\*\*|[-*]\s+|\d+[.)]\s*)?"
_Q_PREFIX = re.compile(_MARKER + r"(?:Q\s*\d*\s*[:.)]|Question\s*\d*\s*[:.)])", re.IGNORECASE)
# A short line of its own ending in "?" also asks a question ("### How do I sync?").
_MAX_QUESTION_CHARS = 200
_FAQ_MARKER = re.compile(r"\bFAQs?\b|frequently asked", re.IGNORECASE)
_HEADING = re.compile(r"^\s*(?:(?:chapter|section|part)\s+[\dIVXLC]+\b|#{1,3}\s+\S)", re.IGNORECASE)


@dataclass(frozen=True)
class DocTypeResult:
    doc_type: DocType
    reason: str
    pii_density: float


# "5.1. ", "(6) ", "6) ", "Q6 ": an entry's number, which a question line may start with or wrap from
_NUMBERED = re.compile(r"^\s*(?:\(?\d{1,3}(?:\.\d{1,3})*[.)]|Q\d{1,3}[:.)]?)\s+\S", re.IGNORECASE)
_ENDS_SENTENCE = (".", "!", "?", ":")


def question_lines(lines: list[str]) -> int:
    """Lines that look like questions: a Q-prefix, or a short line ending in '?' that starts a
    block — after a blank line, after a line that ends a sentence (PDF text has no blank lines),
    or numbered, or wrapped from a numbered line ("5.1. What types of …" / "… for Debian?")."""
    count = 0
    rows = [line.strip().rstrip("*").rstrip() for line in lines]
    for i, stripped in enumerate(rows):
        if _Q_PREFIX.match(lines[i]):
            count += 1
            continue
        if not stripped.endswith("?"):
            continue
        first = i  # back up over the lines this one wraps from (up to two)
        while (first > max(i - 2, 0) and rows[first - 1]
               and not rows[first - 1].endswith(_ENDS_SENTENCE)):
            first -= 1
        block = " ".join(rows[first:i + 1])
        before = rows[first - 1] if first > 0 else ""
        if len(block) <= _MAX_QUESTION_CHARS and (not before or before.endswith(_ENDS_SENTENCE)
                                                  or _NUMBERED.match(rows[first])):
            count += 1
    return count


def _heading_questions(headings: Sequence[str], config: DocumentsConfig) -> tuple[bool, str]:
    """An FAQ by its own headings (where the parser saw them: a PDF's type, HTML's h tags): a
    good share of them questions."""
    asked = sum(h.rstrip().endswith("?") for h in headings)
    share = asked / len(headings) if headings else 0.0
    fired = asked >= config.faq_many_questions and share >= config.faq_heading_question_ratio
    return fired, f"{asked} of {len(headings)} headings are questions ({share:.0%})"


def _faq_reason(text: str, lines: list[str], config: DocumentsConfig,
                headings: Sequence[str] = ()) -> tuple[bool, str]:
    by_headings, heading_why = _heading_questions(headings, config)
    if by_headings:
        return True, heading_why
    questions = question_lines(lines)
    filled = sum(1 for line in lines if line.strip())
    share = questions / filled if filled else 0.0
    many = questions >= config.faq_many_questions and share >= config.faq_min_question_ratio
    marker = _FAQ_MARKER.search(text[: config.faq_marker_window])
    counted = f"{questions} question lines ({share:.0%} of {filled} lines)"
    enough = questions >= config.faq_min_questions
    if enough and many:
        return True, f"{counted} ≥ {config.faq_many_questions} and ≥ {config.faq_min_question_ratio:.0%}"
    if enough and marker is not None:
        return True, f"{counted} and the first {config.faq_marker_window} chars say {marker.group()!r}"
    return False, counted


def _book_reason(text: str, lines: list[str], config: DocumentsConfig) -> tuple[bool, str]:
    length = len(text)
    breaks = text.count("\n\n")
    headings = sum(1 for line in lines if _HEADING.match(line))
    filled = [line for line in lines if line.strip()]
    mean_line = sum(map(len, filled)) / len(filled) if filled else 0.0
    facts = (f"{length:,} chars, {breaks} paragraph breaks, {headings} heading lines, "
             f"mean line {mean_line:.0f} chars")
    if length < config.book_min_chars or breaks < config.book_min_paragraph_breaks:
        return False, facts
    if headings >= config.book_min_headings:
        return True, f"{facts} (≥ {config.book_min_chars:,} chars, ≥ {config.book_min_headings} headings)"
    if breaks >= config.book_many_paragraph_breaks and length > config.book_many_breaks_min_chars:
        return True, (f"{facts} (≥ {config.book_many_paragraph_breaks} breaks, "
                      f"> {config.book_many_breaks_min_chars:,} chars)")
    if mean_line > config.book_long_line_chars and length > config.book_long_lines_min_chars:
        return True, f"{facts} (long lines, > {config.book_long_lines_min_chars:,} chars)"
    return False, facts


def detect_doc_type(text: str, config: DocumentsConfig | None = None,
                    headings: Sequence[str] = ()) -> DocTypeResult:
    """The first rule that fires wins; the USER reason lists why each earlier rule did not.
    `headings`: the texts of the headings the document marks itself, when the parser saw them."""
    config = config or DocumentsConfig()
    matches = find_pii(text)
    density = pii_density(text, matches)
    threshold = config.sensitive_pii_density
    if density >= threshold:
        reason = f"PII density {density:.3f} ≥ {threshold} ({describe_counts(matches)})"
        return DocTypeResult("SENSITIVE", reason, density)
    lines = text.split("\n")
    is_faq, faq_why = _faq_reason(text, lines, config, headings)
    if is_faq:
        return DocTypeResult("FAQ", faq_why, density)
    is_book, book_why = _book_reason(text, lines, config)
    if is_book:
        return DocTypeResult("BOOK", book_why, density)
    reason = (
        f"no rule fired: PII density {density:.3f} < {threshold} ({describe_counts(matches)}); "
        f"not FAQ: {faq_why}; not BOOK: {book_why}"
    )
    return DocTypeResult("USER", reason, density)
