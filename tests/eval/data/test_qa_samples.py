"""The bundled span-labeled QA set still points at the right text of the parsed sample documents."""

from __future__ import annotations

from functools import cache

import pytest

from eval.data.beir import QAItem, load_qa_file, span_relevance
from rag.chunking import get_chunker
from rag.documents import Document, parse_file
from rag.paths import PROJECT_ROOT, SAMPLES_DIR

QA = load_qa_file(PROJECT_ROOT / "datasets" / "qa_samples.jsonl")


@cache
def parsed(name: str) -> Document:
    return parse_file(SAMPLES_DIR / name)


def test_at_least_twenty_span_labeled_questions() -> None:
    assert len(QA.items) >= 20
    assert all(item.spans and item.answer for item in QA.items)


@pytest.mark.parametrize("item", QA.items, ids=lambda item: item.qid)
def test_every_span_matches_the_parsed_text(item: QAItem) -> None:
    for span in item.spans:
        text = parsed(span.doc).text
        assert text[span.start : span.end] == span.text, (item.qid, span.doc)


def test_every_question_has_a_relevant_chunk_under_the_default_chunker() -> None:
    chunker = get_chunker("recursive", {"size": 512, "overlap": 50})
    names = {span.doc for item in QA.items for span in item.spans}
    chunks = [c for name in sorted(names) for c in chunker.chunk(parsed(name))]
    by_id = {parsed(name).doc_id: name for name in names}
    qrels = span_relevance(chunks, QA.spans_by_query(), doc_of=lambda c: by_id[c.doc_id])
    assert set(qrels) == {item.qid for item in QA.items}
    assert all(qrels.values()), [q for q, rel in qrels.items() if not rel]
