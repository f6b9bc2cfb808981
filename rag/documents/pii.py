"""PII detection and redaction as in EchoMind, with checksums so numbers are not over-matched.

Cards are checked with Luhn (ISO/IEC 7812-1) and issuer prefixes, IBANs with ISO 13616 mod-97;
phones need a phone-shaped grouping, so years, versions, dates and prices never count.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from rag.settings.documents import DocumentsConfig

PiiKind = Literal["email", "iban", "card", "ssn", "phone"]
SensitivityLevel = Literal["HIGH", "MEDIUM", "LOW"]
# Priority order: where two kinds overlap, the earlier one wins (an IBAN's digits are no phone).
PII_KINDS: tuple[PiiKind, ...] = ("email", "iban", "card", "ssn", "phone")
_NOUNS = {"email": "email", "iban": "IBAN", "card": "card number", "ssn": "SSN-like id", "phone": "phone"}


@dataclass(frozen=True)
class PiiMatch:
    """`text[start:end]` of the scanned text is PII of this kind."""

    kind: PiiKind
    start: int
    end: int
    value: str


@dataclass(frozen=True)
class Redaction:
    """Redacted text, EchoMind's sensitivity level, and the matches that were replaced."""

    text: str
    level: SensitivityLevel
    matches: tuple[PiiMatch, ...]
    density: float  # over every PII match, redacted or not


def luhn_valid(digits: str) -> bool:
    """Luhn mod-10 checksum (ISO/IEC 7812-1)."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def _issuer_known(digits: str) -> bool:
    """Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay prefixes; keeps 16-digit runs of years out."""
    two, four = int(digits[:2]), int(digits[:4])
    return (
        digits[0] == "4"
        or 51 <= two <= 55
        or 2221 <= four <= 2720
        or two in (34, 37, 36, 38, 62, 65)
        or 300 <= int(digits[:3]) <= 305
        or four == 6011
        or 644 <= int(digits[:3]) <= 649
        or 3528 <= four <= 3589
    )


def card_valid(candidate: str) -> bool:
    digits = re.sub(r"\D", "", candidate)
    return 13 <= len(digits) <= 19 and _issuer_known(digits) and luhn_valid(digits)


def iban_valid(candidate: str) -> bool:
    """ISO 13616: move the first four characters to the end, letters to 10..35, remainder mod 97 is 1."""
    compact = candidate.replace(" ", "").upper()
    if not 15 <= len(compact) <= 34:
        return False
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(char, 36)) for char in rearranged)) % 97 == 1


def _digit_count_between(low: int, high: int) -> Callable[[str], bool]:
    return lambda candidate: low <= sum(ch.isdigit() for ch in candidate) <= high


_PATTERNS: dict[PiiKind, tuple[re.Pattern[str], Callable[[str], bool]]] = {
    "email": (
        re.compile(r"(?<![\w.%+-])[A-Za-z0-9][\w.%+-]*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"),
        lambda _: True,
    ),
    "iban": (
        re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b"),
        iban_valid,
    ),
    "card": (
        # 13–19 digits unbroken, in 4-4-4-x groups, or Amex-style 4-6-5, one separator throughout
        re.compile(
            r"(?<![\d.,-])(?:\d{13,19}|\d{4}([ -])\d{4}\1\d{4}\1\d{1,7}|\d{4}([ -])\d{6}\2\d{4,5})"
            r"(?![\d-]|[.,]\d)"
        ),
        card_valid,
    ),
    "ssn": (
        re.compile(r"(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])"),
        lambda _: True,
    ),
    "phone": (
        re.compile(
            r"(?<![\w+.-])(?:"
            r"\+\d{1,3}(?:[ .-]?(?:\(\d{1,4}\)|\d{1,5})){1,5}"  # international: +44 20 7946 0958
            r"|(?:1[ .-])?(?:\(\d{3}\) ?\d{3}[ .-]|\d{3}([ .-])\d{3}\1)\d{4}"  # North American
            r"|0\d{2,4}[ /-]\d{3,8}(?:[ -]\d{2,5})?"  # national trunk prefix 0: 020 7946 0958
            r")(?![\w-]|[.,]\d)"
        ),
        _digit_count_between(9, 15),
    ),
}


def find_pii(text: str, kinds: Collection[PiiKind] = PII_KINDS) -> list[PiiMatch]:
    """Validated, non-overlapping PII matches in text order; overlaps go to the earlier kind in PII_KINDS."""
    taken: list[PiiMatch] = []
    for kind in PII_KINDS:
        if kind not in kinds:
            continue
        pattern, valid = _PATTERNS[kind]
        for found in pattern.finditer(text):
            start, end = found.span()
            if valid(found.group()) and not any(m.start < end and start < m.end for m in taken):
                taken.append(PiiMatch(kind, start, end, found.group()))
    return sorted(taken, key=lambda m: m.start)


def pii_density(text: str, matches: Sequence[PiiMatch]) -> float:
    """EchoMind's density: the fraction of characters that are inside a PII match."""
    return sum(m.end - m.start for m in matches) / len(text) if text else 0.0


def describe_counts(matches: Sequence[PiiMatch]) -> str:
    """E.g. "4 emails, 2 phones" (kinds in PII_KINDS order), or "no PII"."""
    counts = Counter(m.kind for m in matches)
    parts = [
        f"{counts[kind]} {_NOUNS[kind]}{'' if counts[kind] == 1 else 's'}"
        for kind in PII_KINDS
        if counts[kind]
    ]
    return ", ".join(parts) or "no PII"


def redact(
    text: str, kinds: Collection[PiiKind] = PII_KINDS, config: DocumentsConfig | None = None
) -> Redaction:
    """Replace matches of `kinds` with `[REDACTED_<KIND>]`; level HIGH if any replaced,
    MEDIUM if density (over all kinds) > config.medium_pii_density, else LOW.
    """
    config = config or DocumentsConfig()
    found = find_pii(text)
    replaced = tuple(m for m in found if m.kind in kinds)
    pieces, cursor = [], 0
    for match in replaced:
        pieces += [text[cursor : match.start], f"[REDACTED_{match.kind.upper()}]"]
        cursor = match.end
    pieces.append(text[cursor:])
    density = pii_density(text, found)
    if replaced:
        level: SensitivityLevel = "HIGH"
    elif density > config.medium_pii_density:
        level = "MEDIUM"
    else:
        level = "LOW"
    return Redaction("".join(pieces), level, replaced, density)
