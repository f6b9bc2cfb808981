"""Ingest-time PII redaction (EchoMind): indexed chunks never hold the PII, offsets stay exact."""

from __future__ import annotations

from dataclasses import replace

from index_helpers import index_config, unique_name

from rag.config import with_overrides
from rag.documents import find_pii, parse_file
from rag.documents.base import PageSpan
from rag.documents.sanitize import redact_document
from rag.index import delete_collection, open_collection
from rag.paths import SAMPLES_DIR

PII_SAMPLE = SAMPLES_DIR / "support-escalations-FAKE-PII.txt"


def test_redacted_document_keeps_pages_on_the_same_text() -> None:
    document = parse_file(PII_SAMPLE)
    matches = find_pii(document.text)
    assert len(matches) >= 2
    boundary = matches[0].end + 1  # page 2 starts just after the first match
    pages = (PageSpan(1, 0, boundary), PageSpan(2, boundary, len(document.text)))
    paged = replace(document, metadata=replace(document.metadata, pages=pages))

    redacted = redact_document(paged)

    assert not find_pii(redacted.text)
    assert redacted.metadata.extra["redaction_level"] == "HIGH"
    page_two = redacted.metadata.pages[1]
    untouched = document.text[boundary : matches[1].start]  # text up to the next match
    assert redacted.text[page_two.start : page_two.start + len(untouched)] == untouched
    assert redacted.metadata.pages[0].end == page_two.start
    assert page_two.end == len(redacted.text)


def test_a_document_without_pii_is_returned_unchanged() -> None:
    document = parse_file(SAMPLES_DIR / "how-lumensync-resolves-conflicts.txt")
    assert redact_document(document) is document


def test_ingest_with_redaction_indexes_no_pii_and_records_the_setting() -> None:
    config = with_overrides(index_config(), {"documents.redact_pii": True})
    document = parse_file(PII_SAMPLE)
    collection = open_collection(unique_name("pii"), create=True)
    try:
        collection.add_documents([document], config, progress=False)
        chunks = collection.chunks()
        assert chunks
        assert not any(find_pii(chunk.text) for chunk in chunks)
        assert any("[REDACTED_EMAIL]" in chunk.text for chunk in chunks)
        plain = with_overrides(config, {"documents.redact_pii": False})
        try:
            collection.check_compatible(plain)
        except ValueError as exc:
            assert "redact_pii" in str(exc)
        else:
            raise AssertionError("a collection built with redaction must refuse a plain config")
    finally:
        delete_collection(collection.name)
