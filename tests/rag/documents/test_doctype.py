"""Document types in EchoMind's order SENSITIVE → FAQ → BOOK → USER, each with its reason."""

from __future__ import annotations

from rag.documents import DocumentsConfig, detect_doc_type

PARAGRAPH = "The harbour town grew slowly along the river bank over many quiet decades. " * 3


def faq_text(pairs: int = 4) -> str:
    return "\n\n".join(f"Q: How does feature {i} work?\nA: It works by doing step {i}." for i in range(pairs))


def book_text() -> str:
    chapters = [f"Chapter {n}\n\n" + "\n\n".join([PARAGRAPH] * 12) for n in range(1, 4)]
    return "\n\n".join(chapters)


def test_sensitive_when_pii_density_reaches_the_threshold_with_counts_in_the_reason() -> None:
    text = "Contacts: ada@example.com, bo@example.org, (555) 010-0147. " + PARAGRAPH
    result = detect_doc_type(text)
    assert result.doc_type == "SENSITIVE"
    assert result.pii_density >= 0.015
    assert "≥ 0.015" in result.reason
    assert "2 emails, 1 phone" in result.reason


def test_sensitive_is_checked_before_faq() -> None:
    text = faq_text() + "\nContact ada@example.com or bo@example.org or cy@example.net"
    assert detect_doc_type(text).doc_type == "SENSITIVE"


def test_faq_by_many_question_lines() -> None:
    result = detect_doc_type(faq_text())
    assert result.doc_type == "FAQ"
    assert "4 question lines" in result.reason


def test_faq_by_two_questions_and_the_word_faq() -> None:
    filler = "\n".join(f"Line {i} of ordinary text." for i in range(40))
    text = "Product FAQ\n\nQ: Is it free?\nA: Yes.\n\nQ: Does it sync?\nA: Yes.\n" + filler
    result = detect_doc_type(text)
    assert result.doc_type == "FAQ"
    assert "'FAQ'" in result.reason
    # Without the marker two questions among 47 lines are not enough.
    assert detect_doc_type(text.replace("FAQ", "notes")).doc_type == "USER"


def test_markdown_question_headings_count_as_questions() -> None:
    text = "\n\n".join(f"### How do I do thing {i}?\n\nLike this." for i in range(5))
    assert detect_doc_type(text).doc_type == "FAQ"


def test_book_needs_length_paragraphs_and_headings() -> None:
    text = book_text()
    assert len(text) >= 8000
    result = detect_doc_type(text)
    assert result.doc_type == "BOOK"
    assert "3 heading lines" in result.reason
    assert detect_doc_type(text[:6000]).doc_type == "USER"  # too short


def test_book_by_long_lines_without_headings() -> None:
    text = "\n\n".join([PARAGRAPH] * 80)
    assert len(text) > 15_000 and "Chapter" not in text
    assert detect_doc_type(text).doc_type == "BOOK"


def test_user_reason_explains_every_rule_that_did_not_fire() -> None:
    result = detect_doc_type(PARAGRAPH)
    assert result.doc_type == "USER"
    assert "PII density 0.000 < 0.015" in result.reason
    assert "not FAQ" in result.reason and "not BOOK" in result.reason


def test_thresholds_come_from_the_config() -> None:
    text = book_text()
    assert detect_doc_type(text, DocumentsConfig(book_min_chars=len(text) + 1)).doc_type == "USER"
    pii = "reach ada@example.com " + "x" * 2000  # density ~0.0075
    assert detect_doc_type(pii).doc_type == "USER"
    assert detect_doc_type(pii, DocumentsConfig(sensitive_pii_density=0.005)).doc_type == "SENSITIVE"


def test_empty_text_is_user() -> None:
    assert detect_doc_type("").doc_type == "USER"
