"""Evaluation sets: BEIR folders as they are, span QA files over documents judged per chunk."""

from __future__ import annotations

import json
from pathlib import Path
from types import MappingProxyType

import pytest

from eval.data.evalsets import (
    as_chunk_units,
    bundled_sets,
    chunk_unit_lists,
    load_eval_set,
)
from eval.data.shapes import DatasetError
from eval.runs.candidates import QueryLists
from rag.chunking.base import Chunk
from rag.index.hits import Candidate, RankedList
from rag.paths import PROJECT_ROOT

QA_FILE = PROJECT_ROOT / "datasets" / "qa_samples.jsonl"


@pytest.fixture(scope="module")
def qa_set():
    return load_eval_set(QA_FILE)


def test_a_beir_folder_is_judged_per_document() -> None:
    evalset = load_eval_set(PROJECT_ROOT / "datasets" / "beir_sample")
    assert evalset.unit == "document" and not evalset.spans
    chunks = [Chunk("c", "handbook-01", 0, 5, "Lumen")]
    assert evalset.qrels_for(chunks) is evalset.dataset.qrels


def test_a_qa_file_becomes_documents_whose_text_keeps_span_offsets(qa_set) -> None:
    assert qa_set.unit == "chunk"
    assert set(qa_set.dataset.queries) == set(qa_set.spans)
    for spans in qa_set.spans.values():
        for span in spans:
            assert qa_set.dataset.corpus[span.doc]["text"][span.start:span.end] == span.text


def test_span_sets_judge_the_chunks_that_overlap_a_span(qa_set) -> None:
    qid, (span, *_) = next(iter(qa_set.spans.items()))
    inside = Chunk("in", span.doc, span.start + 1, span.end + 10, "x")
    before = Chunk("before", span.doc, 0, span.start, "x")
    other = Chunk("other", "not-that-doc.txt", span.start, span.end, "x")
    qrels = qa_set.qrels_for([inside, before, other])
    assert qrels[qid] == {"in": 1}
    assert qa_set.scoring_dataset([inside]).qrels[qid] == {"in": 1}


def test_limit_keeps_the_first_queries_and_their_spans(qa_set) -> None:
    small = qa_set.limit(3)
    assert list(small.dataset.queries) == sorted(qa_set.dataset.queries)[:3]
    assert set(small.spans) == set(small.dataset.queries)
    assert qa_set.limit(None) is qa_set and qa_set.limit(10_000) is qa_set
    with pytest.raises(ValueError, match="at least 1"):
        qa_set.limit(0)


def test_a_span_naming_a_missing_document_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "qa.jsonl"
    row = {"id": "x1", "question": "q?", "spans": [{"doc": "nope.md", "start": 0, "end": 3}]}
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(DatasetError, match=r"'x1' names documents not in .*nope\.md"):
        load_eval_set(path)


def test_other_files_are_rejected_with_the_accepted_kinds(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello")
    with pytest.raises(DatasetError, match=r"not a BEIR folder.*QA file"):
        load_eval_set(path)


def test_chunk_units_rename_the_document_without_touching_the_input() -> None:
    chunk = Chunk("doc#3", "doc", 10, 20, "text")
    ranked = RankedList("bm25", (Candidate(chunk, 1.0),))
    lists = QueryLists("q", MappingProxyType({"bm25": ranked}), 1.0)
    (unit,) = as_chunk_units([Candidate(chunk, 1.0)])
    assert unit.chunk.doc_id == "doc#3" and unit.chunk.start == 10
    (keyed,) = chunk_unit_lists([lists])
    assert keyed.lists["bm25"].candidates[0].chunk.doc_id == "doc#3"
    assert lists.lists["bm25"].candidates[0].chunk.doc_id == "doc"


def test_bundled_sets_list_the_samples_and_every_built_beir_folder(tmp_path: Path) -> None:
    shipped = bundled_sets()
    assert shipped["beir_sample (BEIR)"].is_dir() and shipped[
        "qa_samples (spans over samples/)"].is_file()
    (tmp_path / "build" / "mine" / "qrels").mkdir(parents=True)
    (tmp_path / "build" / "mine" / "corpus.jsonl").write_text("")
    (tmp_path / "build" / "half-built").mkdir()
    assert list(bundled_sets(tmp_path)) == ["build/mine (BEIR)"]
