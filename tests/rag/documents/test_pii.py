"""PII kinds with checksums, things that must not match, and EchoMind's redaction levels."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rag.documents import DocumentsConfig, find_pii, redact
from rag.documents.pii import iban_valid, luhn_valid, pii_density


def _with_check_digit(body: str) -> str:
    """Append the digit that makes `body` pass Luhn."""
    return next(body + d for d in "0123456789" if luhn_valid(body + d))


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("mail jane.doe+rag@mail.example.co.uk today", "email", "jane.doe+rag@mail.example.co.uk"),
        ("call +44 20 7946 0958 now", "phone", "+44 20 7946 0958"),
        ("call (555) 010-0199 now", "phone", "(555) 010-0199"),
        ("call 555.010.0199 now", "phone", "555.010.0199"),
        ("call 1-800-555-0199 now", "phone", "1-800-555-0199"),
        ("call 020 7946 0958 now", "phone", "020 7946 0958"),
        ("card 4111 1111 1111 1111 ok", "card", "4111 1111 1111 1111"),
        ("card 5555-5555-5555-4444 ok", "card", "5555-5555-5555-4444"),
        ("card 378282246310005 ok", "card", "378282246310005"),
        ("card 3782 822463 10005 ok", "card", "3782 822463 10005"),
        ("iban GB82 WEST 1234 5698 7654 32 ok", "iban", "GB82 WEST 1234 5698 7654 32"),
        ("iban DE89370400440532013000 ok", "iban", "DE89370400440532013000"),
        ("ssn 123-45-6789 ok", "ssn", "123-45-6789"),
    ],
)
def test_each_kind_is_found_with_exact_offsets(text: str, kind: str, value: str) -> None:
    (match,) = find_pii(text)
    assert (match.kind, match.value) == (kind, value)
    assert text[match.start : match.end] == value


@pytest.mark.parametrize(
    "text",
    [
        "card 4111 1111 1111 1112",  # Luhn fails
        "id 1234567812345678",  # Luhn fails
        "iban GB82 WEST 1234 5698 7654 33",  # mod-97 fails
        "iban GB00 WEST 1234 5698 7654 32",
        "ssn 000-12-3456 and 666-12-3456",  # never issued
        "in 1999, 2024 and 2019-2024",  # years
        "version 2.13.0, 10.2.1.4 and v3.11.7",  # versions
        "price $1,299.99 or 1,234,567 units or 12.50 EUR",  # prices and amounts
        "dates 2024-01-15, 05/12/2024, 15.01.2024",
        "host 192.168.100.1 port 8080",
        "isbn 978-3-16-148410-0",
        "years 2022 2023 2024 2025",  # 16 digits in groups of 4, unknown issuer
        "call 555-01xx for help",
        "ticket 4471 and order 88213",
    ],
)
def test_look_alikes_are_not_pii(text: str) -> None:
    assert find_pii(text) == []


@given(st.text(alphabet="0123456789", min_size=15, max_size=15))
def test_every_luhn_valid_visa_number_is_found_and_a_changed_digit_is_not(body: str) -> None:
    number = _with_check_digit("4" + body[:14])
    assert [m.kind for m in find_pii(f"pay with {number} please")] == ["card"]
    broken = number[:-1] + str((int(number[-1]) + 1) % 10)
    assert find_pii(f"pay with {broken} please") == []


def test_iban_checksum() -> None:
    assert iban_valid("FR14 2004 1010 0505 0001 3M02 606")
    assert not iban_valid("FR14 2004 1010 0505 0001 3M02 607")
    assert not iban_valid("GB82 WEST 12")  # too short to be an IBAN


def test_overlaps_go_to_the_stronger_kind() -> None:
    text = "GB82 WEST 1234 5698 7654 32"
    assert [m.kind for m in find_pii(text)] == ["iban"]


@given(st.text(alphabet=st.sampled_from(list("0123456789 -+().@abcxyzE\n")), max_size=200))
def test_matches_are_ordered_disjoint_and_point_at_their_text(text: str) -> None:
    matches = find_pii(text)
    for left, right in itertools.pairwise(matches):
        assert left.end <= right.start
    for match in matches:
        assert text[match.start : match.end] == match.value
    assert 0.0 <= pii_density(text, matches) <= 1.0


def test_redaction_replaces_each_kind_with_its_label_and_is_high() -> None:
    text = "Write to ada@example.com or call (555) 010-0147; card 4111111111111111."
    result = redact(text)
    assert result.text == "Write to [REDACTED_EMAIL] or call [REDACTED_PHONE]; card [REDACTED_CARD]."
    assert result.level == "HIGH"
    assert [m.kind for m in result.matches] == ["email", "phone", "card"]
    assert result.density == pytest.approx(pii_density(text, find_pii(text)))


def test_medium_when_dense_but_nothing_redacted_low_otherwise() -> None:
    text = "ops: ada@example.com"  # density far above 0.005
    assert redact(text, kinds=("phone",)).level == "MEDIUM"
    assert redact(text, kinds=("phone",)).text == text
    sparse = "x" * 10_000 + " ada@example.com"  # density 0.0016
    assert redact(sparse, kinds=("phone",)).level == "LOW"
    assert redact("nothing personal here").level == "LOW"


def test_medium_threshold_comes_from_config() -> None:
    text = "x" * 1_000 + " ada@example.com"  # density ~0.016
    assert redact(text, kinds=(), config=DocumentsConfig(medium_pii_density=0.02)).level == "LOW"
    assert redact(text, kinds=(), config=DocumentsConfig(medium_pii_density=0.01)).level == "MEDIUM"
