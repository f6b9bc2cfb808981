"""Document-type detection exactly in EchoMind's order: SENSITIVE → FAQ → BOOK → USER.

Heuristics only, each returning the reason it fired (or did not) so the UI can show it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.documents.base import DocType
from rag.documents.pii import describe_counts, find_pii, pii_density
from rag.documents.settings import DocumentsConfig

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


def question_lines(lines: list[str]) -> int:
    """Lines that look like questions: a Q-prefix, or a short stand-alone line ending in '?'."""
    count, previous_blank = 0, True
    for line in lines:
        stripped = line.strip().rstrip("*").rstrip()
        if _Q_PREFIX.match(line) or (
            previous_blank and stripped.endswith("?") and len(stripped) <= _MAX_QUESTION_CHARS
        ):
            count += 1
        previous_blank = not stripped
    return count


def _faq_reason(text: str, lines: list[str], config: DocumentsConfig) -> tuple[bool, str]:
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


def detect_doc_type(text: str, config: DocumentsConfig | None = None) -> DocTypeResult:
    """The first rule that fires wins; the USER reason lists why each earlier rule did not."""
    config = config or DocumentsConfig()
    matches = find_pii(text)
    density = pii_density(text, matches)
    threshold = config.sensitive_pii_density
    if density >= threshold:
        reason = f"PII density {density:.3f} ≥ {threshold} ({describe_counts(matches)})"
        return DocTypeResult("SENSITIVE", reason, density)
    lines = text.split("\n")
    is_faq, faq_why = _faq_reason(text, lines, config)
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
