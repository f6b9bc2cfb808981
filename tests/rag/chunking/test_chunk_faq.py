"""FAQ chunks: one per question–answer pair, in the formats FAQs are written in."""

from __future__ import annotations

from chunk_helpers import make_doc

from rag.chunking import get_chunker
from rag.chunking.faq import question_starts


def faq_chunks(text: str, max_chars: int = 8000) -> list[tuple[str, str, str | None]]:
    chunks = get_chunker("faq", {"max_chars": max_chars}).chunk(make_doc(text, "FAQ"))
    return [(c.metadata["kind"], c.text, c.metadata.get("question")) for c in chunks]


def test_q_and_a_markers_with_an_intro() -> None:
    text = (
        "Frequently asked questions about billing.\n\n"
        "Q: How do I pay?\nA: By card. Why? Because it is fast.\n\n"
        "Q: Can I get a refund?\nA: Yes, within 30 days.\n"
    )
    assert faq_chunks(text) == [
        ("intro", "Frequently asked questions about billing.", None),
        ("qa", "Q: How do I pay?\nA: By card. Why? Because it is fast.", "Q: How do I pay?"),
        ("qa", "Q: Can I get a refund?\nA: Yes, within 30 days.", "Q: Can I get a refund?"),
    ]


def test_numbered_questions_and_question_headings() -> None:
    text = "Question 1: Where?\nHere.\nQuestion 2) When?\nNow.\n## Who is it for?\nEveryone."
    assert [q for _, _, q in faq_chunks(text)] == [
        "Question 1: Where?",
        "Question 2) When?",
        "## Who is it for?",
    ]


def test_lines_ending_with_a_question_mark_when_there_are_no_markers() -> None:
    text = "1. What is it?\nA tool.\n\n2. Is it free?\nYes.\nA: also fine?\n"
    # An answer line ending with "?" does not open a new pair.
    assert [q for _, _, q in faq_chunks(text)] == ["1. What is it?", "2. Is it free?"]
    assert question_starts("no questions here.\nnone.") == []


def test_a_pair_longer_than_the_cap_is_split_into_parts() -> None:
    answer = "This answer goes on. " * 30
    chunks = get_chunker("faq", {"max_chars": 200}).chunk(make_doc(f"Q: Long one?\nA: {answer}"))
    assert len(chunks) > 1 and all(c.size <= 200 for c in chunks)
    assert chunks[0].text.startswith("Q: Long one?\nA: This answer goes on.")  # kept together
    assert {c.metadata["question"] for c in chunks} == {"Q: Long one?"}
    assert [c.metadata["part"] for c in chunks] == list(range(len(chunks)))


def test_default_cap_is_echomind_8000() -> None:
    answer = "word " * 2000  # ~10 000 chars
    chunks = get_chunker("faq").chunk(make_doc(f"Q: Huge?\nA: {answer}"))
    assert len(chunks) == 2 and max(c.size for c in chunks) <= 8000
    assert chunks[0].text.startswith("Q: Huge?\nA: word")
