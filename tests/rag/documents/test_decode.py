"""Text decoding: BOMs, UTF-8, the latin-1 fallback, newline normalization, binary refused."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rag.documents import DocumentError, parse_bytes
from rag.documents.decode import decode_text, normalize_newlines

TEXT = "Crème brûlée, naïve café — 東京\n"


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (TEXT.encode("utf-8"), "utf-8"),
        (TEXT.encode("utf-8-sig"), "utf-8-sig"),
        (TEXT.encode("utf-16"), "utf-16"),  # Python writes a BOM in native order
        (b"\xfe\xff" + TEXT.encode("utf-16-be"), "utf-16"),
        (b"\xff\xfe" + TEXT.encode("utf-16-le"), "utf-16"),
        (TEXT.encode("utf-32"), "utf-32"),
    ],
)
def test_unicode_encodings_round_trip_without_the_bom(data: bytes, encoding: str) -> None:
    decoded = decode_text(data)
    assert decoded.text == TEXT
    assert decoded.encoding == encoding


def test_latin1_fallback_is_recorded_on_the_document() -> None:
    doc = parse_bytes("old.txt", "Caf\u00e9 au lait, \u00e0 la carte".encode("latin-1"))
    assert doc.text == "Caf\u00e9 au lait, \u00e0 la carte"
    assert doc.metadata.encoding == "latin-1"


def test_crlf_and_lone_cr_become_lf() -> None:
    assert decode_text(b"a\r\nb\rc\n").text == "a\nb\nc\n"


@given(st.text())
def test_normalized_text_has_no_carriage_returns(text: str) -> None:
    out = normalize_newlines(text)
    assert "\r" not in out
    assert out.count("\n") == text.count("\n") + text.count("\r") - text.count("\r\n")


def test_binary_bytes_are_not_text() -> None:
    junk = bytes(range(256)) * 8
    with pytest.raises(DocumentError, match="does not look like text") as caught:
        decode_text(junk)
    assert "UTF-8" in caught.value.action


def test_bom_that_lies_is_reported() -> None:
    with pytest.raises(DocumentError, match="byte-order mark"):
        decode_text(b"\xff\xfe\x00\xd8")  # UTF-16 BOM followed by a lone surrogate
