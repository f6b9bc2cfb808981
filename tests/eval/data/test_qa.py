"""QA sets from JSONL, CSV and Hugging Face local files; span labels become chunk relevance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.data.beir import DatasetError, Span, load_hf_qa, load_qa_file, span_relevance
from rag.chunking.base import Chunk

ROWS = [
    {"id": "a", "question": "What installs packages?", "answer": "apt",
     "spans": [{"doc": "apt.md", "start": 10, "end": 20, "text": "apt does it"}]},
    {"question": "Which tool is low level?", "reference_answer": "dpkg", "doc_ids": ["dpkg.md"]},
]


def _jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_jsonl_items(tmp_path: Path) -> None:
    qa = load_qa_file(_jsonl(tmp_path / "qa.jsonl", ROWS))
    first, second = qa.items
    assert first.spans == (Span("apt.md", 10, 20, "apt does it"),) and first.answer == "apt"
    assert second.qid == "q2" and second.answer == "dpkg" and second.doc_ids == ("dpkg.md",)
    assert qa.doc_qrels() == {"a": {"apt.md": 1}, "q2": {"dpkg.md": 1}}
    assert qa.spans_by_query() == {"a": first.spans}


def test_csv_items(tmp_path: Path) -> None:
    path = tmp_path / "qa.csv"
    path.write_text(
        "question,answer,doc_ids,spans\n"
        'Who?,me,a.md;b.md,\n'
        'Where?,here,,"[{""doc"": ""c.md"", ""start"": 0, ""end"": 4}]"\n'
    )
    qa = load_qa_file(path)
    assert qa.items[0].doc_ids == ("a.md", "b.md")
    assert qa.items[1].spans == (Span("c.md", 0, 4),)
    assert qa.items[1].qid == "q3"  # the CSV line number


@pytest.mark.parametrize(
    ("row", "field", "message"),
    [
        ({"answer": "x"}, "question", "missing"),
        ({"question": "q", "spans": [{"doc": "a", "start": 5, "end": 5}]}, "spans[0].end",
         "greater than start"),
        ({"question": "q", "spans": [{"doc": "a", "start": -1, "end": 5}]}, "spans[0].start",
         "non-negative"),
        ({"question": "q", "spans": [{"start": 0, "end": 5}]}, "spans[0].doc", "missing"),
        ({"question": "q", "doc_ids": "a.md"}, "doc_ids", "must be a list"),
        ({"question": "q", "doc_ids": [""]}, "doc_ids", "non-empty strings"),
    ],
)
def test_bad_rows_name_line_and_field(tmp_path: Path, row: dict, field: str, message: str) -> None:
    path = _jsonl(tmp_path / "qa.jsonl", [ROWS[0], row])
    with pytest.raises(DatasetError, match=message) as info:
        load_qa_file(path)
    assert (info.value.line, info.value.field) == (2, field)
    assert f"qa.jsonl:2: field {field!r}" in str(info.value)


def test_duplicate_ids_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="duplicate question id 'a'"):
        load_qa_file(_jsonl(tmp_path / "dup.jsonl", [ROWS[0], ROWS[0]]))
    with pytest.raises(DatasetError, match="no questions"):
        load_qa_file(_jsonl(tmp_path / "empty.jsonl", []))
    with pytest.raises(DatasetError, match="file not found"):
        load_qa_file(tmp_path / "missing.jsonl")


def test_hf_local_json_file(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "hf.jsonl", [ROWS[0], {"question": "b?", "doc_ids": ["x"]}])
    qa = load_hf_qa(path, cache_dir=str(tmp_path / "hf-cache"))
    assert [i.question for i in qa.items] == ["What installs packages?", "b?"]
    assert qa.items[0].spans[0].doc == "apt.md" and qa.items[1].doc_ids == ("x",)


def test_hf_rejects_unknown_file_type(tmp_path: Path) -> None:
    path = tmp_path / "qa.txt"
    path.write_text("x")
    with pytest.raises(DatasetError, match="unsupported file type"):
        load_hf_qa(path)


def _chunk(cid: str, doc: str, start: int, end: int) -> Chunk:
    return Chunk(chunk_id=cid, doc_id=doc, start=start, end=end, text="x" * (end - start))


def test_span_relevance_marks_overlapping_chunks_only() -> None:
    chunks = [_chunk("c1", "a", 0, 10), _chunk("c2", "a", 10, 20), _chunk("c3", "a", 20, 30),
              _chunk("c4", "b", 0, 30)]
    spans = {"q1": [Span("a", 8, 12)], "q2": [Span("a", 20, 21), Span("b", 5, 6)],
             "q3": [Span("a", 30, 40)], "q4": [Span("zzz", 0, 5)]}
    assert span_relevance(chunks, spans) == {
        "q1": {"c1": 1, "c2": 1},  # end is exclusive: [8,12) touches both
        "q2": {"c3": 1, "c4": 1},
        "q3": {},  # [30,40) starts where c3 ends: no overlap
        "q4": {},
    }


def test_span_relevance_with_doc_alias() -> None:
    chunks = [_chunk("c1", "sha-123", 0, 10)]
    qrels = span_relevance(chunks, {"q": [Span("guide.md", 0, 1)]}, doc_of=lambda c: "guide.md")
    assert qrels == {"q": {"c1": 1}}
