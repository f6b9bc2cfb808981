"""A QA slice keeps the first questions of each kind, every passage of the documents they cite,
and fills the rest of the corpus with the same seeded passages every time."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

CORPUS = [{"_id": f"doc{d}_en-{s}-0", "text": f"section {s} of document {d}"}
          for d in range(6) for s in range(5)]
QA = [{"id": "a1", "doc_ids": ["doc1_en-2-0"]}, {"id": "a2", "doc_ids": ["doc3_en-0-0"]},
      {"id": "a3", "doc_ids": ["doc5_en-1-0"]},
      {"id": "u1", "answerable": False}, {"id": "u2", "answerable": False}]


def test_first_questions_cited_documents_whole_and_a_seeded_fill(
    load_script: Callable[[str], ModuleType],
) -> None:
    build_slice = load_script("build_qa_slice").build_slice
    questions, passages = build_slice(QA, CORPUS, answerable=2, unanswerable=1, passages=14)
    assert [q["id"] for q in questions] == ["a1", "a2", "u1"]
    ids = [p["_id"] for p in passages]
    assert len(ids) == 14 and ids == [p["_id"] for p in CORPUS if p["_id"] in set(ids)]
    assert {f"doc{d}_en-{s}-0" for d in (1, 3) for s in range(5)} <= set(ids)  # cited, whole
    again = build_slice(QA, CORPUS, answerable=2, unanswerable=1, passages=14)[1]
    assert again == passages
    other_seed = build_slice(QA, CORPUS, 2, 1, 14, seed=7)[1]
    assert other_seed != passages and len(other_seed) == 14
